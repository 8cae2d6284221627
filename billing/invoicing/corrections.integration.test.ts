/**
 * Corrections of issued invoices on the real Postgres, NATS JetStream and ClickHouse:
 * late events after finalization become a credit note (CN- series) reversing the
 * invoice in full plus a finalized replacement invoice; the corrected invoice never
 * changes; numbers stay gapless; revenue reconciles to the corrected amount.
 *
 * Plan: 100/month flat + 0.5 per @action (USD).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clockFrom, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, statuses, failedPaths, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let plan: string;

const post = (path: string, body?: unknown, key = dev.admin) => call(stack, 'POST', path, { key, ...(body !== undefined ? { body } : {}) });
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const correct = (id: string, body?: unknown, key = dev.admin) => post(`/api/v1/invoice/invoices/${id}/correct`, body, key);
const lines = (doc: any) => doc.lines.map((l: any) => [l.charge_name, l.quantity, l.amount, l.agent_instance_id]);
const nov = (d: number) => `2026-11-${String(d).padStart(2, '0')}T12:00:00Z`;

/** An active subscription whose recorded activation is dated back to `activeFrom` (see invoicing.integration.test.ts). */
async function subscription(account: string, agentIds: string[], activeFrom = '2026-10-01T00:00:00Z') {
  const res = await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan, agent_instance_ids: agentIds });
  expect(res.status).toBe(201);
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: new Date(activeFrom) }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: new Date(activeFrom) }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

/** Sends `ids` as November actions of the agent and waits until ClickHouse shows `total` of them in November. */
async function actions(agent: string, ids: string[], total: number) {
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: ids.map((id, i) => ({ agent_key: agent, action_type: 'llm_call', id, timestamp: nov(2 + i) })) });
  expect(res.status).toBe(200);
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?start_date=2026-11-01&end_date=2026-12-01&agent_id=${agent}`, { key: dev.sdk }),
    (r) => (r.body.usage?.[0]?.actions ?? '0') === String(total),
  );
}

async function generate(period: string, account: string, sub: string) {
  const res = await post('/v1/invoices/generate', { billing_period: period, account_id: account });
  expect(res.status).toBe(200);
  return res.body.invoices.find((i: any) => i.subscription_id === sub);
}

/** Every number of the environment, per series, in order: must be 1..n without gaps. */
async function numbers() {
  const rows = await stack.tally.db!.selectFrom('invoices').select('number').where('environment_id', '=', stack.keys.development.id).where('number', 'is not', null).execute();
  const of = (prefix: string) => rows.map((r) => r.number!).filter((n) => n.startsWith(prefix)).sort();
  return { inv: of('INV-'), cn: of('CN-') };
}
const series = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${String(i + 1).padStart(6, '0')}`);

async function countDocs(sub: string) {
  return (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.total as number;
}

beforeAll(async () => {
  // A small stream: a handful of events here, and JetStream reserves max_bytes per stream on a shared server.
  // November 23, 2026 (the date these periods were written for), with a 30-day grace: October's invoices are still drafts.
  stack = await startTestStack({
    env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_STREAM_MAX_BYTES: String(64 * 1024 * 1024), TALLY_INVOICE_GRACE_HOURS: '720' },
    now: clockFrom('2026-11-23T12:00:00Z'),
  });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  const typeId = (await post('/api/v1/agent_type/create', { name: 'recruiter' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'Recruiter', agent_type_id: typeId })).body.id;
  plan = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  const flat = (await post('/api/v1/charge_models', { name: 'Platform fee', description: 'flat', type: 'flat', pricing_strategy: {} })).body.id;
  const perAction = (await post('/api/v1/charge_models', { name: 'Per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } })).body.id;
  expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 100 } })).status).toBe(201);
  expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: '0.5' } })).status).toBe(201);
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('correcting a finalized invoice after late events', () => {
  let acct: string;
  let a1: string;
  let sub: string;
  let original: any;
  let first: { credit_note: any; invoice: any };

  it('issues a credit note reversing the original in full and a finalized replacement with the re-rated lines', async () => {
    acct = (await post('/api/v1/account/create', { name: 'Late events' })).body.id;
    a1 = (await createAgent(stack, 'development', { accountId: acct })).id;
    sub = await subscription(acct, [a1]);
    await actions(a1, ['n1', 'n2'], 2);
    const draft = await generate('2026-11', acct, sub);
    expect(draft).toMatchObject({ kind: 'invoice', status: 'draft', total: '101.00', corrected_by: null });
    original = (await post(`/api/v1/invoice/invoices/${draft.id}/finalize`)).body;
    expect(original).toMatchObject({ status: 'finalized', total: '101.00', number: 'INV-000001' });

    // Late events after finalization: generation leaves the finalized invoice as it is.
    await actions(a1, ['n1', 'n2', 'n3', 'n4'], 4);
    expect(await generate('2026-11', acct, sub)).toMatchObject({ id: original.id, total: '101.00', generation: 'unchanged' });

    const res = await correct(original.id, { reason: 'late events' });
    expect(res.status).toBe(201);
    first = res.body;
    expect(res.body.corrected_invoice_id).toBe(original.id);
    const cn = res.body.credit_note;
    expect(cn).toMatchObject({
      kind: 'credit_note',
      status: 'finalized',
      number: 'CN-000001',
      corrects_invoice_id: original.id,
      replaces_invoice_id: null,
      correction_reason: 'late events',
      subscription_id: sub,
      account_id: acct,
      currency: 'USD',
      period_start: '2026-11-01T00:00:00.000Z',
      subtotal: '-101.00',
      discount_total: '0.00',
      total: '-101.00',
      amount: '-101.00',
    });
    expect(lines(cn)).toEqual([
      ['Platform', '-1', '-100.00', null],
      ['Actions', '-2', '-1.00', a1],
    ]);
    const repl = res.body.invoice;
    expect(repl).toMatchObject({
      kind: 'invoice',
      status: 'finalized',
      number: 'INV-000002',
      replaces_invoice_id: original.id,
      corrects_invoice_id: null,
      correction_reason: 'late events',
      subscription_id: sub,
      period_start: '2026-11-01T00:00:00.000Z',
      subtotal: '102.00',
      total: '102.00',
      corrected_by: null,
    });
    expect(repl.finalized_at).not.toBeNull();
    expect(lines(repl)).toEqual([
      ['Platform', '1', '100.00', null],
      ['Actions', '4', '2.00', a1],
    ]);
    expect(repl.lines[1].usage_query).toMatchObject({ scope: { agent_instance_ids: [a1] }, quantity: '4' });
    expect(Date.parse(repl.due_date) - Date.parse(repl.issue_date)).toBe(30 * 86_400_000);
  });

  it('never changes the original: it shows corrected_by, derived by query', async () => {
    const now = (await get(`/api/v1/invoice/invoices/${original.id}`)).body;
    const { corrected_by, ...rest } = now;
    const { corrected_by: before, ...restBefore } = original;
    expect(before).toBeNull();
    expect(rest).toEqual(restBefore);
    expect(corrected_by).toEqual({ invoice_id: first.invoice.id, credit_note_id: first.credit_note.id });
    // Family A shows the same links; the documents are listed with their kind.
    expect((await get(`/v1/invoices/${original.id}`)).body.corrected_by).toEqual(corrected_by);
    const list = (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.invoices;
    expect(list.map((i: any) => [i.id, i.kind, i.number, i.total, i.corrected_by?.invoice_id ?? null])).toEqual([
      [original.id, 'invoice', 'INV-000001', '101.00', first.invoice.id],
      [first.credit_note.id, 'credit_note', 'CN-000001', '-101.00', null],
      [first.invoice.id, 'invoice', 'INV-000002', '102.00', null],
    ]);
    const cns = (await get(`/v1/invoices?subscription_id=${sub}&kind=credit_note`)).body;
    expect(cns.invoices.map((i: any) => i.id)).toEqual([first.credit_note.id]);
    expect((await get('/api/v1/invoice/invoices?kind=receipt')).status).toBe(400);
    // The credit note's detail; its HTML says what it is.
    const cn = (await get(`/api/v1/invoice/invoices/${first.credit_note.id}`)).body;
    expect(cn).toMatchObject({ kind: 'credit_note', corrects_invoice_id: original.id, total: '-101.00' });
    const html = await fetch(`${stack.baseUrl}/api/v1/invoice/invoices/${first.credit_note.id}/html`, { headers: { authorization: `Bearer ${dev.readOnly}` } });
    expect(await html.text()).toContain('Credit note CN-000001');
  });

  it('generation returns the replacement; the corrected invoice and the credit note cannot be paid or voided', async () => {
    expect(await generate('2026-11', acct, sub)).toMatchObject({ id: first.invoice.id, generation: 'unchanged', total: '102.00' });
    expect((await post(`/api/v1/invoice/invoices/${original.id}/pay`)).status).toBe(409);
    expect((await post(`/api/v1/invoice/invoices/${original.id}/void`)).status).toBe(409);
    expect((await post(`/api/v1/invoice/invoices/${first.credit_note.id}/pay`)).status).toBe(409);
    expect((await post(`/api/v1/invoice/invoices/${first.credit_note.id}/void`)).status).toBe(409);
    const again = await correct(first.credit_note.id);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
  });

  it('announces the replacement with invoice.created in the same transaction', async () => {
    const events = await stack.tally.db!.selectFrom('webhook_events').select(['event', 'body']).where('body', 'like', `%${first.invoice.id}%`).execute();
    expect(events.map((e) => e.event)).toEqual(['invoice.created']);
    expect(JSON.parse(events[0]!.body).data).toMatchObject({
      invoice_id: first.invoice.id,
      amount: 102,
      total: '102.00',
      number: 'INV-000002',
      replaces_invoice_id: original.id,
      credit_note_id: first.credit_note.id,
      credit_note_number: 'CN-000001',
    });
  });

  it('nothing to correct: the same usage gives the same lines and total -> 409, nothing created', async () => {
    const before = { docs: await countDocs(sub), numbers: await numbers() };
    const res = await correct(first.invoice.id);
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'conflict' });
    expect(res.body.error.message).toMatch(/nothing to correct/);
    // Asking with the original again corrects the current replacement: nothing to correct either.
    expect((await correct(original.id)).status).toBe(409);
    expect(await countDocs(sub)).toBe(before.docs);
    expect(await numbers()).toEqual(before.numbers);
  });

  it('correcting twice corrects the latest document (even when asked with the original); two at once make one correction', async () => {
    await actions(a1, ['n1', 'n2', 'n3', 'n4', 'n5'], 5);
    const res = await correct(original.id, { reason: 'one more' });
    expect(res.status).toBe(201);
    expect(res.body.corrected_invoice_id).toBe(first.invoice.id);
    expect(res.body.credit_note).toMatchObject({ number: 'CN-000002', corrects_invoice_id: first.invoice.id, total: '-102.00' });
    expect(lines(res.body.credit_note)).toEqual([
      ['Platform', '-1', '-100.00', null],
      ['Actions', '-4', '-2.00', a1],
    ]);
    expect(res.body.invoice).toMatchObject({ number: 'INV-000003', replaces_invoice_id: first.invoice.id, total: '102.50' });
    // The original still points at its own correction; the first replacement at the second.
    expect((await get(`/api/v1/invoice/invoices/${original.id}`)).body.corrected_by.invoice_id).toBe(first.invoice.id);
    expect((await get(`/api/v1/invoice/invoices/${first.invoice.id}`)).body.corrected_by).toEqual({ invoice_id: res.body.invoice.id, credit_note_id: res.body.credit_note.id });

    // A paid invoice is corrected the same way; two corrections at once: one wins, the other finds nothing to correct.
    expect((await post(`/api/v1/invoice/invoices/${res.body.invoice.id}/pay`, { amount: '102.50' })).status).toBe(200);
    await actions(a1, ['n1', 'n2', 'n3', 'n4', 'n5', 'n6'], 6);
    const both = await Promise.all([correct(res.body.invoice.id), correct(original.id)]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    const won = both.find((r) => r.status === 201)!.body;
    expect(won.corrected_invoice_id).toBe(res.body.invoice.id);
    expect(won.credit_note).toMatchObject({ number: 'CN-000003', total: '-102.50' });
    expect(won.invoice).toMatchObject({ number: 'INV-000004', total: '103.00', status: 'finalized' });
    expect((await get(`/api/v1/invoice/invoices/${res.body.invoice.id}`)).body).toMatchObject({ status: 'paid', total: '102.50' });
    expect(await countDocs(sub)).toBe(7);
  });

  it('every event of a replacement carries the same invoice fields: invoice.paid and payment.successful name what it replaces and its credit note', async () => {
    const replacement = (await get(`/api/v1/invoice/invoices?subscription_id=${sub}&status=paid`)).body.invoices[0];
    expect(replacement).toMatchObject({ number: 'INV-000003', replaces_invoice_id: first.invoice.id });
    const rows = await stack.tally.db!.selectFrom('webhook_events').select(['event', 'body']).where('body', 'like', `%${replacement.id}%`).orderBy('created_at').orderBy('id').execute();
    const mine = rows.map((r) => ({ event: r.event, data: JSON.parse(r.body).data })).filter((e) => e.data.invoice_id === replacement.id);
    expect(mine.map((e) => e.event)).toEqual(['invoice.created', 'invoice.paid', 'payment.successful']);
    const [created, paid, payment] = mine.map((e) => e.data);
    expect(created).toMatchObject({ replaces_invoice_id: first.invoice.id, credit_note_number: 'CN-000002', status: 'finalized' });
    expect(created.credit_note_id).toMatch(/^inv_/);
    for (const data of [paid, payment]) expect(data).toEqual({ ...created, status: 'paid' });
  });

  it('a draft is re-rated, not corrected: 409', async () => {
    const oct = await generate('2026-10', acct, sub);
    expect(oct).toMatchObject({ status: 'draft', total: '100.00' });
    const res = await correct(oct.id);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(/draft/);
    expect((await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.total).toBe(8);
  });

  it('revenue reconciles: credit notes count negative, replacements positive, the period equals the corrected amount', async () => {
    const range = `start_date=2026-10-01&end_date=2026-12-01&customer_id=${acct}`;
    const none = (await get(`/v1/reports/revenue?${range}`)).body;
    // October draft 100.00 + November: 101 - 101 + 102 - 102 + 102.50 - 102.50 + 103 = 103.00
    expect(none.total).toEqual({ USD: '203.00' });
    expect(none.breakdown.map((b: any) => [b.period, b.revenue, b.invoices])).toEqual([
      ['2026-10', '100.00', 1],
      ['2026-11', '103.00', 7],
    ]);
    const agent = (await get(`/v1/reports/revenue?${range}&group_by=agent`)).body;
    expect(agent.breakdown.filter((b: any) => b.period === '2026-11').map((b: any) => [b.agent_id, b.revenue])).toEqual([
      [null, '100.00'],
      [a1, '3.00'],
    ]);
    for (const group of ['customer', 'product', 'rate_plan', 'agent_type']) {
      const r = (await get(`/v1/reports/revenue?${range}&group_by=${group}&granularity=quarter`)).body;
      expect(r.total, group).toEqual({ USD: '203.00' });
      expect(r.breakdown.reduce((s: number, b: any) => s + Math.round(Number(b.revenue) * 100), 0), group).toBe(20300);
    }
    const pnl = (await get(`/v1/reports/pnl?start_date=2026-11-01&end_date=2026-12-01&customer_id=${acct}`)).body;
    expect(pnl.totals.map((t: any) => [t.currency, t.revenue])).toEqual([['USD', '103']]);
  });
});

describe('void, then correct', () => {
  it('a void invoice is replaced without a credit note; its period is billed again; numbers stay gapless', async () => {
    const acct = (await post('/api/v1/account/create', { name: 'Voided' })).body.id;
    const agent = (await createAgent(stack, 'development', { accountId: acct })).id;
    const sub = await subscription(acct, [agent]);
    await actions(agent, ['v1', 'v2'], 2);
    const before = await numbers();
    const draft = await generate('2026-11', acct, sub);
    const fin = (await post(`/api/v1/invoice/invoices/${draft.id}/finalize`)).body;
    expect((await post(`/api/v1/invoice/invoices/${draft.id}/void`)).body).toMatchObject({ status: 'void', number: fin.number });
    // Generation does not bill a voided period again.
    expect(await generate('2026-11', acct, sub)).toMatchObject({ id: draft.id, status: 'void', generation: 'unchanged' });

    const res = await correct(draft.id, { reason: 'voided by mistake' });
    expect(res.status).toBe(201);
    expect(res.body.credit_note).toBeNull();
    expect(res.body.corrected_invoice_id).toBe(draft.id);
    expect(res.body.invoice).toMatchObject({ kind: 'invoice', status: 'finalized', replaces_invoice_id: draft.id, total: '101.00', correction_reason: 'voided by mistake' });
    expect(lines(res.body.invoice)).toEqual([
      ['Platform', '1', '100.00', null],
      ['Actions', '2', '1.00', agent],
    ]);
    const voided = (await get(`/api/v1/invoice/invoices/${draft.id}`)).body;
    expect(voided).toMatchObject({ status: 'void', total: '101.00', number: fin.number, corrected_by: { invoice_id: res.body.invoice.id, credit_note_id: null } });
    expect(await generate('2026-11', acct, sub)).toMatchObject({ id: res.body.invoice.id, status: 'finalized' });
    expect((await correct(draft.id)).status).toBe(409); // the replacement already has these lines

    // A draft voided without a number: its replacement takes the next number, no gap.
    const oct = await generate('2026-10', acct, sub);
    expect((await post(`/api/v1/invoice/invoices/${oct.id}/void`)).body).toMatchObject({ status: 'void', number: null });
    const octRes = await correct(oct.id);
    expect(octRes.status).toBe(201);
    expect(octRes.body.invoice).toMatchObject({ total: '100.00', replaces_invoice_id: oct.id });
    const after = await numbers();
    expect(after.inv).toEqual(series('INV-', before.inv.length + 3));
    expect(after.cn).toEqual(before.cn);
    expect(after.inv.slice(-3)).toEqual([fin.number, res.body.invoice.number, octRes.body.invoice.number]);

    // Revenue: void invoices count nothing, the replacements their totals.
    const rev = (await get(`/v1/reports/revenue?start_date=2026-10-01&end_date=2026-12-01&customer_id=${acct}`)).body;
    expect(rev.breakdown.map((b: any) => [b.period, b.revenue, b.invoices])).toEqual([
      ['2026-10', '100.00', 1],
      ['2026-11', '101.00', 1],
    ]);
  });

  it('every number of the environment is gapless per series', async () => {
    const { inv, cn } = await numbers();
    expect(inv).toEqual(series('INV-', inv.length));
    expect(cn).toEqual(series('CN-', cn.length));
    expect(cn.length).toBe(3);
  });
});

describe('permissions, validation and isolation', () => {
  let target: string;

  beforeAll(async () => {
    target = (await get('/api/v1/invoice/invoices?status=finalized&kind=invoice&limit=1')).body.invoices[0].id;
  });

  it('needs write; SDK and read-only keys get 403, without a key 401', async () => {
    expect(await statuses(stack, 'POST', `/api/v1/invoice/invoices/${target}/correct`, [dev.sdk, dev.readOnly])).toEqual([403, 403]);
    expect((await call(stack, 'POST', `/api/v1/invoice/invoices/${target}/correct`)).status).toBe(401);
    // A read-write key may correct (here: nothing to correct).
    expect((await correct(target, {}, dev.readWrite)).status).toBe(409);
  });

  it('404 for unknown invoices and for another environment; 400 for a bad reason', async () => {
    const unknown = await correct('inv_nope');
    expect(unknown.status).toBe(404);
    expect((await correct(target, {}, staging.admin)).status).toBe(404);
    expect((await get('/api/v1/invoice/invoices?kind=credit_note', staging.admin)).body.total).toBe(0);
    expect(failedPaths(await correct(target, { reason: 'x'.repeat(501) }))).toEqual(['reason']);
    expect(failedPaths(await correct(target, { reason: 42 }))).toEqual(['reason']);
  });

  it('is documented in OpenAPI with its capability', async () => {
    const doc = (await call(stack, 'GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, { 'x-required-capability': string }>> };
    expect(doc.paths['/api/v1/invoice/invoices/{invoice_id}/correct']?.post?.['x-required-capability']).toBe('write');
  });
});
