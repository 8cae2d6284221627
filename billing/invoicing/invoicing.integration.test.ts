/**
 * Invoicing end to end on the real Postgres, NATS JetStream and ClickHouse: events sent
 * through ingest become invoice lines of the right subscription and period, counted once.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack, clockFrom } from '../../test/harness.ts';
import { keySet, statuses, failedPaths, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let accountId: string;
let plan100: string; // flat 100/month + 0.5 per @action + 2 per @outcome value
let plan200: string; // flat 200/month
let perUnitChargeId: string;

const post = (path: string, body?: unknown, key = dev.admin) => call(stack, 'POST', path, { key, ...(body !== undefined ? { body } : {}) });
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });

async function model(name: string, type: string, pricing_strategy: Record<string, unknown>) {
  const res = await post('/api/v1/charge_models', { name, description: name, type, pricing_strategy });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function charge(planId: string, body: Record<string, unknown>) {
  const res = await post(`/api/v1/products/rateplans/${planId}/charges`, body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/**
 * A subscription (Family A: active at once) whose recorded activation is moved to
 * `activeFrom`. The API activates "now" (the later of now and the contract date), so a
 * subscription billable since an earlier period is set up by dating its recorded
 * state changes back, in the real Postgres.
 */
async function subscription(planId: string, agentIds: string[], activeFrom = '2026-10-01T00:00:00Z', account = accountId) {
  const res = await post('/v1/subscriptions', { account_id: account, rate_plan_id: planId, agent_instance_ids: agentIds });
  expect(res.status).toBe(201);
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: new Date(activeFrom) }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: new Date(activeFrom) }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

async function send(kind: 'actions' | 'outcomes', events: Record<string, unknown>[]) {
  const res = await call(stack, 'POST', `/v1/${kind}`, { key: dev.sdk, body: events });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Waits until ClickHouse shows `n` distinct actions of the agent in [from, to). */
async function landed(agentId: string, from: string, to: string, n: number) {
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?start_date=${from}&end_date=${to}&agent_id=${agentId}`, { key: dev.sdk }),
    (r) => (r.body.usage?.[0]?.actions ?? '0') === String(n),
  );
}

const inv = (res: { body: { invoices: { subscription_id: string }[] } }, subId: string) => res.body.invoices.find((i) => i.subscription_id === subId) as any;

// The process's clock reads November 23, 2026, the date these periods and events were written
// for; a 30-day grace keeps October's invoices drafts then (re-rated as events arrive).
const clock = clockFrom('2026-11-23T12:00:00Z');

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' }, now: clock });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  const typeId = (await post('/api/v1/agent_type/create', { name: 'recruiter' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'Recruiter', agent_type_id: typeId })).body.id;
  plan100 = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  plan200 = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'pro', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  const flat = await model('Platform fee', 'flat', {});
  const perAction = await model('Per action', 'per_unit', { unit_of_measure: '@action' });
  const perOutcome = await model('Per outcome', 'per-unit', { unit_of_measure: '@outcome' });
  await charge(plan100, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 100 } });
  perUnitChargeId = await charge(plan100, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: '0.5' } });
  await charge(plan100, { name: 'Hires', charge_model_id: perOutcome, charge_type_code: 'usage', pricing: { unit_price: 2 } });
  await charge(plan200, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 200 } });
  accountId = (await post('/v1/accounts', { name: 'Acme', email: 'ap@acme.test' })).body.id;
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('events become invoice lines', () => {
  let subId: string;
  let a1: string;

  it("bills the subscription's agent's events of the period, once each, with the usage query that produced each line", async () => {
    a1 = (await createAgent(stack, 'development', { accountId })).id;
    const other = (await createAgent(stack, 'development', { accountId })).id; // not on the subscription
    subId = await subscription(plan100, [a1]);
    const nov = (d: number, h = 12) => `2026-11-${String(d).padStart(2, '0')}T${h}:00:00Z`;
    await send('actions', [
      { agent_key: a1, action_type: 'llm_call', id: 'n1', timestamp: nov(2) },
      { agent_key: a1, action_type: 'llm_call', id: 'n2', timestamp: nov(10) },
      { agent_key: a1, action_type: 'tool_call', id: 'n3', timestamp: nov(20) },
      { agent_key: a1, action_type: 'llm_call', id: 'n2', timestamp: nov(10) }, // duplicate
      { agent_key: a1, action_type: 'llm_call', id: 'o1', timestamp: '2026-10-20T08:00:00Z' }, // October
      { agent_key: other, action_type: 'llm_call', id: 'x1', timestamp: nov(3) },
    ]);
    await send('actions', [{ agent_key: a1, action_type: 'llm_call', id: 'n1', timestamp: nov(2) }]); // resent
    await send('outcomes', [
      { agent_key: a1, outcome_type: 'successful_hire', value: 1, id: 'h1', timestamp: nov(5) },
      { agent_key: a1, outcome_type: 'successful_hire', value: 2, id: 'h2', timestamp: nov(6) },
      { agent_key: a1, outcome_type: 'successful_hire', value: 2, id: 'h2', timestamp: nov(6) }, // duplicate
    ]);
    await landed(a1, '2026-11-01', '2026-12-01', 3);
    await landed(other, '2026-11-01', '2026-12-01', 1);

    const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: accountId });
    expect(res.status).toBe(200);
    const invoice = inv(res, subId);
    expect(invoice).toMatchObject({ account_id: accountId, subscription_id: subId, currency: 'USD', status: 'draft', period_start: '2026-11-01T00:00:00.000Z', period_end: '2026-12-01T00:00:00.000Z', generation: 'created' });
    expect(invoice.number).toBeNull(); // numbered when it leaves draft
    // 100 flat + 3 actions x 0.5 + (1 + 2) hires x 2
    expect([invoice.subtotal, invoice.discount_total, invoice.total]).toEqual(['107.50', '0.00', '107.50']);

    const full = (await get(`/api/v1/invoice/invoices/${invoice.id}`)).body;
    const lines = full.lines.map((l: any) => [l.charge_name, l.unit, l.quantity, l.unit_price, l.amount, l.agent_instance_id]);
    expect(lines).toEqual([
      ['Platform', null, '1', '100', '100.00', null],
      ['Actions', '@action', '3', '0.5', '1.50', a1],
      ['Hires', '@outcome', '3', '2', '6.00', a1],
    ]);
    const actions = full.lines[1];
    expect(actions.charge_id).toBe(perUnitChargeId);
    expect(actions.usage_query).toEqual({ from: '2026-11-01T00:00:00.000Z', to: '2026-12-01T00:00:00.000Z', scope: { agent_instance_ids: [a1] }, unit: '@action', agent_instance_id: a1, quantity: '3' });
    expect(full.usage.segments[0].quantities).toMatchObject({ '@action': '3', '@outcome': '3' });
    expect(Date.parse(full.due_date) - Date.parse(full.issue_date)).toBe(30 * 86_400_000);
  });

  it('generating again (Family A and a bill run) never makes a second invoice; the same usage gives the same invoice', async () => {
    const first = (await get(`/api/v1/invoice/invoices?subscription_id=${subId}`)).body.invoices;
    const again = await post('/v1/invoices/generate', { billing_period: '2026-11' });
    const twice = inv(again, subId);
    expect(twice.id).toBe(first[0].id);
    expect(twice.number).toBe(first[0].number);
    expect(twice.total).toBe('107.50');
    const lines = (await get(`/api/v1/invoice/invoices/${twice.id}`)).body.lines;
    expect(lines.map((l: any) => l.amount)).toEqual(['100.00', '1.50', '6.00']);
    const list = await get(`/v1/invoices?subscription_id=${subId}`);
    expect(list.body.total).toBe(1);
  });

  it('the October usage lands on the October invoice only', async () => {
    const res = await post('/v1/invoices/generate', { billing_period: '2026-10', account_id: accountId });
    const oct = inv(res, subId);
    expect(oct.period_start).toBe('2026-10-01T00:00:00.000Z');
    const lines = (await get(`/api/v1/invoice/invoices/${oct.id}`)).body.lines;
    expect(lines.map((l: any) => [l.charge_name, l.quantity, l.amount])).toEqual([
      ['Platform', '1', '100.00'],
      ['Actions', '1', '0.50'],
      ['Hires', '0', '0.00'],
    ]);
  });

  it('lists the invoices of a range of billing periods on both families; a bad or reversed range is a 400', async () => {
    const periods = async (q: string) => {
      const a = await get(`/v1/invoices?subscription_id=${subId}&${q}`);
      const b = await get(`/api/v1/invoice/invoices?subscription_id=${subId}&${q}`);
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(b.body.total).toBe(a.body.total);
      return a.body.invoices.map((i: { billing_period: string }) => i.billing_period);
    };
    expect(await periods('billing_period_from=2026-10&billing_period_to=2026-10')).toEqual(['2026-10']);
    expect(await periods('billing_period_from=2026-11')).toEqual(['2026-11']);
    expect(await periods('billing_period_to=2026-10')).toEqual(['2026-10']);
    expect((await periods('billing_period_from=2026-10&billing_period_to=2026-11')).sort()).toEqual(['2026-10', '2026-11']);
    expect(await periods('billing_period_from=2026-12')).toEqual([]);
    for (const path of ['/v1/invoices', '/api/v1/invoice/invoices']) {
      const bad = await get(`${path}?billing_period_from=2026-13`);
      expect(bad.status).toBe(400);
      expect(failedPaths(bad)).toContain('billing_period_from');
      const reversed = await get(`${path}?billing_period_from=2026-11&billing_period_to=2026-10`);
      expect(reversed.status).toBe(400);
      expect(failedPaths(reversed)).toContain('billing_period_to');
    }
  });

  it('late events inside the grace period land on the draft; a finalized invoice never changes', async () => {
    const oct = inv(await post('/v1/invoices/generate', { billing_period: '2026-10' }), subId);
    await send('actions', [{ agent_key: a1, action_type: 'llm_call', id: 'late-1', timestamp: '2026-10-28T00:00:00Z' }]);
    await landed(a1, '2026-10-01', '2026-11-01', 2);
    const redone = inv(await post('/v1/invoices/generate', { billing_period: '2026-10' }), subId);
    expect(redone).toMatchObject({ id: oct.id, status: 'draft', total: '101.00', generation: 'updated' });

    // A draft is issued when paid (today): an earlier payment date is refused and leaves it a draft.
    const early = await post(`/api/v1/invoice/invoices/${oct.id}/pay`, { paid_at: '2026-11-01' });
    expect(early.status).toBe(400);
    expect(early.body.error.message).toBe("paid_at must not be before the invoice's issue date 2026-11-23 (it is 2026-11-01T00:00:00.000Z)");
    expect((await get(`/api/v1/invoice/invoices/${oct.id}`)).body).toMatchObject({ status: 'draft', number: null });
    const fin = await post(`/api/v1/invoice/invoices/${oct.id}/finalize`);
    expect(fin.status).toBe(200);
    expect(fin.body).toMatchObject({ status: 'finalized', total: '101.00' });
    expect(fin.body.finalized_at).not.toBeNull();
    expect(fin.body.number).toMatch(/^INV-\d{6}$/);
    // Numbers are gapless in finalization order: the highest number in the environment so far.
    const numbered = (await get('/api/v1/invoice/invoices?limit=100')).body.invoices.map((i: any) => i.number).filter(Boolean).sort();
    expect(numbered.at(-1)).toBe(fin.body.number);
    expect(numbered).toEqual(numbered.map((_: string, i: number) => `INV-${String(i + 1).padStart(6, '0')}`));
    await send('actions', [{ agent_key: a1, action_type: 'llm_call', id: 'late-2', timestamp: '2026-10-29T00:00:00Z' }]);
    await landed(a1, '2026-10-01', '2026-11-01', 3);
    const after = inv(await post('/v1/invoices/generate', { billing_period: '2026-10' }), subId);
    expect(after).toMatchObject({ id: oct.id, status: 'finalized', total: '101.00', generation: 'unchanged', number: fin.body.number });
    expect((await post(`/api/v1/invoice/invoices/${oct.id}/finalize`)).body.status).toBe('finalized');
  });

  it('records a payment: wrong amount 400, a payment date before the issue date or in the future 400, then paid, paying again 409', async () => {
    const oct = (await get(`/api/v1/invoice/invoices?subscription_id=${subId}&status=finalized`)).body.invoices[0];
    const wrong = await post(`/api/v1/invoice/invoices/${oct.id}/pay`, { amount: '100.99' });
    expect(wrong.status).toBe(400);
    expect(failedPaths(wrong)).toEqual(['amount']);
    // Issued today (the clock's November 23): paid_at from that day to now.
    expect(oct.issue_date.slice(0, 10)).toBe('2026-11-23');
    for (const [paidAt, message] of [
      ['2020-01-01', "paid_at must not be before the invoice's issue date 2026-11-23 (it is 2020-01-01T00:00:00.000Z)"],
      ['2026-11-22T23:59:59Z', "paid_at must not be before the invoice's issue date 2026-11-23 (it is 2026-11-22T23:59:59.000Z)"],
      ['2030-01-01', /^paid_at must not be in the future \(it is 2030-01-01T00:00:00.000Z, now is 2026-11-23T/],
      ['2026-11-24', /^paid_at must not be in the future/],
    ] as const) {
      for (const path of [`/api/v1/invoice/invoices/${oct.id}/pay`, `/v1/invoices/${oct.id}/pay`]) {
        const res = await post(path, { amount: 101, paid_at: paidAt });
        expect(res.status, `${path} ${paidAt}`).toBe(400);
        expect(res.body.error.code).toBe('validation_failed');
        expect(res.body.error.message).toMatch(message);
        expect(failedPaths(res)).toEqual(['paid_at']);
      }
    }
    expect((await get(`/api/v1/invoice/invoices/${oct.id}`)).body.status).toBe('finalized');
    const paid = await post(`/v1/invoices/${oct.id}/pay`, { amount: 101, reference: 'wire-42', paid_at: '2026-11-23' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', payment_reference: 'wire-42', total: '101.00', paid_at: '2026-11-23T00:00:00.000Z' });
    expect((await post(`/api/v1/invoice/invoices/${oct.id}/pay`)).status).toBe(409);
    // Webhook events, written to the outbox in the same transactions: created once, paid once.
    const events = await stack.tally.db!.selectFrom('webhook_events').select(['event', 'body']).where('body', 'like', `%${oct.id}%`).orderBy('created_at').orderBy('event').execute();
    expect(events.map((e) => e.event)).toEqual(['invoice.created', 'invoice.paid', 'payment.successful']);
    expect(JSON.parse(events[1]!.body).data).toMatchObject({ invoice_id: oct.id, account_id: accountId, amount: 101, currency: 'USD', total: '101.00' });
    expect((await post(`/api/v1/invoice/invoices/${oct.id}/void`)).status).toBe(409);
    const paidList = await get(`/api/v1/invoice/invoices?account_id=${accountId}&status=paid`);
    expect(paidList.body.invoices.map((i: any) => i.id)).toEqual([oct.id]);
  });
});

describe('proration (the spec example)', () => {
  it('a switch from 100 to 200 halfway through the month is charged 50 + 100', async () => {
    const acct = (await post('/api/v1/account/create', { name: 'Prorated' })).body.id;
    const sub = await subscription(plan100, [], '2026-10-01T00:00:00Z', acct);
    // November has 30 days: the 16th at 00:00 is exactly halfway.
    const changed = await post(`/api/v1/subscription/${sub}/change-plan`, { rate_plan_id: plan200, effective_date: '2026-11-16T00:00:00Z' });
    expect(changed.status).toBe(200);
    const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct });
    const invoice = inv(res, sub);
    const lines = (await get(`/api/v1/invoice/invoices/${invoice.id}`)).body.lines;
    const flat = lines.filter((l: any) => l.charge_name === 'Platform');
    expect(flat.map((l: any) => [l.rate_plan_id, l.unit_price, l.proration, l.amount, l.service_period])).toEqual([
      [plan100, '100', '0.5', '50.00', { start: '2026-11-01T00:00:00.000Z', end: '2026-11-16T00:00:00.000Z' }],
      [plan200, '200', '0.5', '100.00', { start: '2026-11-16T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' }],
    ]);
    // No agent instances on the subscription: the account's usage is billed (none here).
    expect(lines.find((l: any) => l.unit === '@action').usage_query.scope).toEqual({ account_id: acct });
    expect(invoice.total).toBe('150.00');
  });
});

describe('a draft whose period stops being billable', () => {
  it('is voided (never issued, nothing billed): generate, finalize and pay see it void; void works from draft', async () => {
    const acct = (await post('/api/v1/account/create', { name: 'Backdated cancel' })).body.id;
    const sub = await subscription(plan200, [], '2026-10-01T00:00:00Z', acct);
    const nov = inv(await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct }), sub);
    expect(nov.total).toBe('200.00');
    expect((await post(`/api/v1/subscription/${sub}/cancel`, { cancel_date: '2026-10-15', reason: 'backdated' })).status).toBe(200);
    // Voided with the cancel: nothing reads it as billed meanwhile (revenue counts no void invoice).
    const after = await call(stack, 'GET', `/api/v1/invoice/invoices/${nov.id}`, { key: dev.admin });
    expect(after.body).toMatchObject({ status: 'void', number: null });
    expect(after.body.voided_at).not.toBeNull();
    const fin = await post(`/api/v1/invoice/invoices/${nov.id}/finalize`);
    expect(fin.status).toBe(409);
    expect(fin.body.error.message).toContain('void');
    expect((await post(`/api/v1/invoice/invoices/${nov.id}/pay`, {})).status).toBe(409);
    const again = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct });
    expect(again.body.invoices.filter((i: { subscription_id: string }) => i.subscription_id === sub).map((i: { status: string }) => i.status)).toEqual(['void']);
    const oct = inv(await post('/v1/invoices/generate', { billing_period: '2026-10', account_id: acct }), sub);
    expect(oct.total).toBe('90.32'); // 200 x 14/31 = 90.3225...
    const voided = await post(`/api/v1/invoice/invoices/${oct.id}/void`);
    expect(voided.body).toMatchObject({ status: 'void' });
    expect(voided.body.voided_at).not.toBeNull();
  });
});

describe('bill runs', () => {
  it('a bill run run twice (and two at once) makes each invoice once, with counts and totals', async () => {
    const acct = (await post('/api/v1/account/create', { name: 'Runs' })).body.id;
    const s1 = await subscription(plan200, [], '2026-09-01T00:00:00Z', acct);
    const s2 = await subscription(plan200, [], '2026-10-16T00:00:00Z', acct); // half of October (31 days: 16 of 31)
    const s3 = await subscription(plan200, [], '2026-11-10T00:00:00Z', acct); // nothing billable in October
    const [r1, r2] = await Promise.all([post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-21' }), post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-21' })]);
    expect([r1.status, r2.status]).toEqual([201, 201]);
    const r3 = await post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-21' });
    expect(r3.body).toMatchObject({ status: 'completed', invoices_created: 0, failures: [] });
    // October-billable: the first describe's subscription and the back-cancelled one (their
    // invoices already exist), the prorated one, s1 and s2. Both concurrent runs cover all
    // five; together they created three.
    expect([r1.body.invoice_count, r2.body.invoice_count, r3.body.invoice_count]).toEqual([5, 5, 5]);
    expect(r1.body.invoices_created + r2.body.invoices_created).toBe(3);
    expect(r3.body.invoices_existing).toBe(5);

    const octOf = async (sub: string) => (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.invoices.filter((i: any) => i.billing_period === '2026-10');
    expect(await octOf(s1)).toHaveLength(1);
    expect(await octOf(s2)).toHaveLength(1);
    expect(await octOf(s3)).toHaveLength(0);
    expect((await octOf(s1))[0].total).toBe('200.00');
    expect((await octOf(s2))[0].total).toBe('103.23'); // 200 x 16/31 = 103.2258...

    const detail = await get(`/api/v1/invoice/bill-runs/${r3.body.id}`);
    expect(detail.status).toBe(200);
    expect(detail.body.invoice_ids).toEqual(expect.arrayContaining([(await octOf(s1))[0].id, (await octOf(s2))[0].id]));
    expect(detail.body.subscriptions_skipped).toBeGreaterThanOrEqual(1);
    expect(detail.body.totals.USD).toBeDefined();
    const runs = await get('/api/v1/invoice/bill-runs');
    expect(runs.body).toMatchObject({ total: 3, skip: 0, limit: 100 });
    const { rows } = await sql<{ n: string }>`SELECT count(*)::text AS n FROM invoices GROUP BY subscription_id, period_start HAVING count(*) > 1`.execute(stack.tally.db!);
    expect(rows).toEqual([]);
  });
});

describe('simulation and preview', () => {
  it('simulates with the same engine on both families', async () => {
    const a = await post('/v1/pricing/simulate', { rate_plan_id: plan100, usage: { '@action': 1000, outcomes: '2.5' }, billing_period: '2026-11' });
    expect(a.status).toBe(200);
    expect(a.body).toMatchObject({ currency: 'USD', subtotal: '605.00', total: '605.00', total_charge: '605.00' });
    expect(a.body.charges.map((c: any) => c.amount)).toEqual(['100.00', '500.00', '5.00']);
    const b = await post('/api/v1/simulation/charges', { rate_plan_id: plan100, usage_data: { '@action': '1000', '@outcome': '2.5' }, billing_period: '2026-11' }, dev.readOnly);
    expect(b.status).toBe(200);
    expect(b.body.charges).toEqual(a.body.charges);
  });

  it('rejects bad simulation input with the field named', async () => {
    const unit = await post('/v1/pricing/simulate', { rate_plan_id: plan100, usage: { '@tokens': 5 } });
    expect(unit.status).toBe(400);
    expect(failedPaths(unit)).toEqual(['usage.@tokens']);
    const neg = await post('/api/v1/simulation/charges', { rate_plan_id: plan100, usage_data: { '@action': -1 } });
    expect(neg.status).toBe(400);
    expect(failedPaths(neg)).toEqual(['usage_data.@action']);
    const plan = await post('/v1/pricing/simulate', { rate_plan_id: 'rp_nope', usage: {} });
    expect(plan.status).toBe(400);
    expect(failedPaths(plan)).toEqual(['rate_plan_id']);
    expect(failedPaths(await post('/v1/pricing/simulate', { usage: 3 }))).toEqual(expect.arrayContaining(['rate_plan_id', 'usage']));
  });

  it('previews the current period with the usage so far, storing nothing', async () => {
    const acct = (await post('/api/v1/account/create', { name: 'Preview' })).body.id;
    const agent = (await createAgent(stack, 'development', { accountId: acct })).id;
    const sub = await subscription(plan100, [agent], '2026-10-01T00:00:00Z', acct);
    await send('actions', [{ agent_key: agent, action_type: 'llm_call', id: 'p1' }, { agent_key: agent, action_type: 'llm_call', id: 'p2' }]);
    const from = new Date(clock().getTime() - 86_400_000).toISOString();
    const to = new Date(clock().getTime() + 86_400_000).toISOString();
    await landed(agent, from, to, 2);
    const res = await get(`/api/v1/subscription/${sub}/invoice-preview`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ preview: true, subscription_id: sub, total: '101.00' });
    expect((await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.total).toBe(0);
  });
});

describe('templates and HTML', () => {
  it('keeps one active template per environment and renders invoices with it', async () => {
    expect((await get('/api/v1/invoice/invoice-templates/active')).status).toBe(404);
    const t1 = await post('/api/v1/invoice/templates/create', { name: 'Default', template_data: { company_name: 'Tally Demo Inc', logo_url: 'https://example.com/logo.png' } });
    expect(t1.status).toBe(201);
    const t2 = await post('/api/v1/invoice/templates/create', { name: 'Second', template_data: { company_name: 'Second & Co' } });
    expect((await get('/api/v1/invoice/invoice-templates/active')).body.id).toBe(t2.body.id);
    const upd = await call(stack, 'PUT', `/api/v1/invoice/invoice-templates/${t1.body.id}`, { key: dev.admin, body: { is_active: true, template_data: { company_name: 'Tally Demo <Inc>' } } });
    expect(upd.status).toBe(200);
    expect(upd.body.template_data).toEqual({ company_name: 'Tally Demo <Inc>', logo_url: 'https://example.com/logo.png' });
    expect((await get('/api/v1/invoice/invoice-templates/active')).body.id).toBe(t1.body.id);
    const bad = await post('/api/v1/invoice/templates/create', { name: 'x', template_data: { logo_url: 'javascript:alert(1)' } });
    expect(failedPaths(bad)).toEqual(['template_data.logo_url']);

    const invoiceId = (await get('/api/v1/invoice/invoices?limit=1')).body.invoices[0].id;
    const res = await fetch(`${stack.baseUrl}/api/v1/invoice/invoices/${invoiceId}/html`, { headers: { authorization: `Bearer ${dev.readOnly}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    expect(html).toContain('Tally Demo &lt;Inc&gt;');
    expect(html).toContain('https://example.com/logo.png');
  });
});

describe('validation, permissions and isolation', () => {
  it('validates generation and bill run input', async () => {
    expect(failedPaths(await post('/v1/invoices/generate', { billing_period: '2026-13' }))).toEqual(['billing_period']);
    expect(failedPaths(await post('/v1/invoices/generate', {}))).toEqual(['billing_period']);
    expect(failedPaths(await post('/v1/invoices/generate', { billing_period: '2030-01' }))).toEqual(['billing_period']);
    expect(failedPaths(await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: 'acct_nope' }))).toEqual(['account_id']);
    expect(failedPaths(await post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-02-30' }))).toEqual(['billing_date']);
    expect(failedPaths(await post('/api/v1/invoice/bill-runs/create', {}))).toEqual(['billing_date']);
    expect((await get('/api/v1/invoice/invoices?status=open')).status).toBe(400);
    expect((await get('/api/v1/invoice/invoices?limit=101')).status).toBe(400);
    expect((await get('/api/v1/invoice/invoices/inv_nope')).status).toBe(404);
    expect((await get('/api/v1/invoice/bill-runs/br_nope')).status).toBe(404);
  });

  it('SDK keys may not call invoicing; read-only keys read and simulate but not write', async () => {
    const body = { billing_period: '2026-11' };
    expect(await statuses(stack, 'POST', '/v1/invoices/generate', [dev.sdk, dev.readOnly], body)).toEqual([403, 403]);
    expect(await statuses(stack, 'POST', '/api/v1/invoice/bill-runs/create', [dev.sdk, dev.readOnly], { billing_date: '2026-11-21' })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/invoice/invoices', [dev.sdk, dev.readOnly, dev.readWrite])).toEqual([403, 200, 200]);
    expect(await statuses(stack, 'GET', '/v1/invoices', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    expect(await statuses(stack, 'POST', '/v1/pricing/simulate', [dev.sdk], { rate_plan_id: plan100, usage: {} })).toEqual([403]);
    expect(await statuses(stack, 'POST', '/api/v1/invoice/templates/create', [dev.sdk, dev.readOnly], { name: 'n', template_data: {} })).toEqual([403, 403]);
    expect((await call(stack, 'GET', '/api/v1/invoice/invoices')).status).toBe(401);
  });

  it('another environment sees none of these invoices, bill runs or plans', async () => {
    const devInvoice = (await get('/api/v1/invoice/invoices?limit=1')).body.invoices[0].id;
    expect((await get(`/api/v1/invoice/invoices/${devInvoice}`, staging.admin)).status).toBe(404);
    expect((await post(`/api/v1/invoice/invoices/${devInvoice}/pay`, {}, staging.admin)).status).toBe(404);
    expect((await get('/api/v1/invoice/invoices', staging.admin)).body.total).toBe(0);
    expect((await get('/api/v1/invoice/bill-runs', staging.admin)).body.total).toBe(0);
    const run = await post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-21' }, staging.admin);
    expect(run.body).toMatchObject({ subscriptions_considered: 0, invoices_created: 0 });
    expect(failedPaths(await post('/v1/pricing/simulate', { rate_plan_id: plan100, usage: {} }, staging.admin))).toEqual(['rate_plan_id']);
    expect((await post('/v1/invoices/generate', { billing_period: '2026-11' }, staging.admin)).body.invoices).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('documents every invoicing path with its capability', async () => {
    const doc = (await call(stack, 'GET', '/v1/openapi.json')).body as { paths: Record<string, Record<string, { 'x-required-capability': string }>> };
    const expected: [string, string, string][] = [
      ['get', '/v1/invoices', 'read'],
      ['post', '/v1/invoices/generate', 'write'],
      ['post', '/v1/pricing/simulate', 'read'],
      ['post', '/api/v1/simulation/charges', 'read'],
      ['get', '/api/v1/invoice/invoices', 'read'],
      ['get', '/api/v1/invoice/invoices/{invoice_id}', 'read'],
      ['post', '/api/v1/invoice/invoices/{invoice_id}/pay', 'write'],
      ['post', '/api/v1/invoice/bill-runs/create', 'write'],
      ['get', '/api/v1/invoice/bill-runs', 'read'],
      ['get', '/api/v1/invoice/bill-runs/{bill_run_id}', 'read'],
      ['post', '/api/v1/invoice/templates/create', 'write'],
      ['get', '/api/v1/invoice/invoice-templates/active', 'read'],
      ['put', '/api/v1/invoice/invoice-templates/{template_id}', 'write'],
    ];
    for (const [m, p, cap] of expected) expect(doc.paths[p]?.[m]?.['x-required-capability'], `${m} ${p}`).toBe(cap);
  });
});
