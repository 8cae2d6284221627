/**
 * Prepaid credits end to end on the real Postgres, NATS JetStream and ClickHouse, through
 * both API families: grants (free, paid with a purchase invoice, scoped, idempotent),
 * burn-down on generated invoices (credits_applied lines, amount_due), drafts re-rated,
 * finalize burns, void and correction release, expiry, bad input, and racing generations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';
import { expireGrants } from './ledger.ts';
import { parseInvoicingConfig } from '../invoicing/config.ts';
import { createInvoicing } from '../invoicing/index.ts';
import { schedulerTick } from '../invoicing/scheduler.ts';

let stack: TestStack;
let dev: KeySet;
let clockMs = Date.parse('2026-12-05T12:00:00Z');
let productA: string;
let productB: string;
let planA: string; // USD: Platform 100 + Support 20 (recurring) + 1 per @action
let planB: string; // USD: Platform 50
let planJpy: string; // JPY: 12345
let planKwd: string; // KWD: 1000000000000000.001
let supportCharge: string;

const post = (path: string, body?: unknown, headers: Record<string, string> = {}) => call(stack, 'POST', path, { key: dev.admin, headers, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** A Family A subscription (active at once) dated back to October 1 (as invoicing.integration.test.ts does). */
async function subscription(accountId: string, planId: string, agentIds: string[] = []) {
  const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId, agent_instance_ids: agentIds });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const from = new Date('2026-10-01T00:00:00Z');
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

const account = async (name: string) => ok201('/v1/accounts', { name });
const grantA = (body: Record<string, unknown>, headers: Record<string, string> = {}) => post('/v1/credits/grants', { effective_at: '2026-10-01', ...body }, headers);
/** The ledger's balance at the clock's instant (`at`: no live pending figure; billing/live/pending.integration.test.ts tests that). */
const balance = async (accountId: string, currency = 'USD') =>
  ((await get(`/v1/accounts/${accountId}/credits/balance?at=${new Date(clockMs).toISOString()}`)).body.balances as any[]).find((b) => b.currency === currency);
const liveBalance = async (accountId: string, currency = 'USD') => ((await get(`/v1/accounts/${accountId}/credits/balance`)).body.balances as any[]).find((b) => b.currency === currency);
const entries = async (q: string) => (await get(`/v1/credits/entries?limit=100&${q}`)).body.entries as any[];
const generate = async (accountId: string) => {
  const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: accountId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.invoices as any[];
};
const full = async (invoiceId: string) => (await get(`/v1/invoices/${invoiceId}`)).body;
const creditLines = (inv: any) => inv.lines.filter((l: any) => l.charge_type === 'credits_applied').map((l: any) => [l.charge_id, l.amount]);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' }, now: () => new Date(clockMs) });
  dev = await keySet(stack, 'development');
  const typeId = (await post('/api/v1/agent_type/create', { name: 'worker' })).body.id;
  productA = await ok201('/api/v1/products', { name: 'A', agent_type_id: typeId });
  productB = await ok201('/api/v1/products', { name: 'B', agent_type_id: typeId });
  const flat = await ok201('/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} });
  const perAction = await ok201('/api/v1/charge_models', { name: 'per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
  const plan = (product: string, name: string, currency: string) => ok201(`/api/v1/products/${product}/rateplans`, { name, billing_cycle_code: 'monthly', currency });
  const fee = (p: string, name: string, price: string | number) => ok201(`/api/v1/products/rateplans/${p}/charges`, { name, charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: price } });
  planA = await plan(productA, 'a', 'USD');
  await fee(planA, 'Platform', 100);
  supportCharge = await fee(planA, 'Support', '20');
  await ok201(`/api/v1/products/rateplans/${planA}/charges`, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: '1' } });
  planB = await plan(productB, 'b', 'USD');
  await fee(planB, 'Platform', 50);
  planJpy = await plan(productA, 'jpy', 'JPY');
  await fee(planJpy, 'Platform', 12345);
  planKwd = await plan(productA, 'kwd', 'KWD');
  await fee(planKwd, 'Platform', '1000000000000000.001');
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('burn-down on invoices', () => {
  let acct: string;
  let g1: string; // 30 USD, priority 10, unscoped
  let g2: string; // 200 USD, priority 5, only the Support charge
  let invA: any;
  let invB: any;

  it('applies credits after discounts by priority and scope: a credits_applied line per grant and amount_due', async () => {
    acct = await account('Burn');
    const subA = await subscription(acct, planA);
    const subB = await subscription(acct, planB);
    let res = await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '30', priority: 10 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ kind: 'free', amount: '30.00', status: 'active', remaining: '30.00', usable: 'immediately', invoice_id: null });
    g1 = res.body.id;
    res = await post('/api/v1/credit/grants/create', { account_id: acct, currency: 'usd', kind: 'free', amount: 200, priority: 5, effective_at: '2026-10-01', scope: { charge_ids: [supportCharge] } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ currency: 'USD', scope: { charge_ids: [supportCharge] } });
    g2 = res.body.id;

    const invoices = await generate(acct);
    invA = await full(invoices.find((i) => i.subscription_id === subA).id);
    invB = await full(invoices.find((i) => i.subscription_id === subB).id);
    // A: 120 = 100 + 20. g2 (priority 5) covers Support only (20), g1 the rest it has (30).
    expect(invA).toMatchObject({ status: 'draft', total: '120.00', credits_applied: '50.00', amount_due: '70.00' });
    expect(creditLines(invA)).toEqual([[g2, '-20.00'], [g1, '-30.00']]);
    // B: g1 is spent (held by A's draft); g2 does not cover product B's charge.
    expect(invB).toMatchObject({ total: '50.00', credits_applied: '0.00', amount_due: '50.00' });
    expect(creditLines(invB)).toEqual([]);
    expect(await balance(acct)).toMatchObject({ granted: '230.00', burned: '0.00', held: '50.00', available: '180.00', pending: null });
    // Live (no `at`): December is open, rated 120.00 (A) + 50.00 (B); only g2's Support scope covers any of it (20.00).
    expect(await liveBalance(acct)).toMatchObject({ held: '50.00', pending: '170.00', pending_covered: '20.00', available: '160.00' });
  });

  it('re-rating a draft recomputes its credits (no second hold); finalizing burns them once', async () => {
    await generate(acct);
    await generate(acct);
    expect(await balance(acct)).toMatchObject({ held: '50.00', available: '180.00' });
    expect(await entries(`account_id=${acct}&type=burn`)).toEqual([]);
    const fin = await post(`/api/v1/invoice/invoices/${invA.id}/finalize`);
    expect(fin.status, JSON.stringify(fin.body)).toBe(200);
    await post(`/api/v1/invoice/invoices/${invA.id}/finalize`);
    const burns = await entries(`account_id=${acct}&type=burn`);
    expect(burns.map((e) => [e.grant_id, e.amount, e.invoice_id]).sort()).toEqual([[g1, '-30.00', invA.id], [g2, '-20.00', invA.id]].sort());
    expect(await balance(acct)).toMatchObject({ burned: '50.00', held: '0.00', available: '180.00' });
    expect((await get(`/v1/credits/grants/${g1}`)).body).toMatchObject({ remaining: '0.00', status: 'depleted' });
    // Paying checks the amount due, not the total.
    const paidWrong = await post(`/v1/invoices/${invA.id}/pay`, { amount: '120.00' });
    expect(paidWrong.status).toBe(400);
    expect(paidWrong.body.error.message).toContain("amount due 70.00 (total 120.00 less credits applied 50.00)");
  });

  it('voiding an issued invoice releases its credits; they burn again on the next invoice', async () => {
    const res = await post(`/api/v1/invoice/invoices/${invA.id}/void`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const releases = await entries(`account_id=${acct}&type=release`);
    expect(releases.map((e) => [e.grant_id, e.amount, e.invoice_id]).sort()).toEqual([[g1, '30.00', invA.id], [g2, '20.00', invA.id]].sort());
    expect(await balance(acct)).toMatchObject({ burned: '0.00', available: '230.00' });
    // B's draft re-rated now finds g1's credit.
    const again = await generate(acct);
    const b = await full(again.find((i) => i.id === invB.id).id);
    expect(b).toMatchObject({ credits_applied: '30.00', amount_due: '20.00' });
    // The ledger's sum per grant equals what the grant shows left, plus what drafts hold.
    const g1now = (await get(`/v1/credits/grants/${g1}`)).body;
    expect(g1now).toMatchObject({ remaining: '0.00', held: '30.00' });
  });

  it('a correction gives the corrected invoice credits back and the replacement burns anew', async () => {
    const acct2 = await account('Correct');
    const agent = (await createAgent(stack, 'development', { accountId: acct2 })).id;
    const sub = await subscription(acct2, planA, [agent]);
    const g = (await grantA({ account_id: acct2, currency: 'USD', kind: 'free', amount: '125.50' })).body.id;
    const [draft] = await generate(acct2);
    await post(`/api/v1/invoice/invoices/${draft.id}/finalize`);
    expect(await full(draft.id)).toMatchObject({ status: 'finalized', credits_applied: '120.00', amount_due: '0.00' });
    // A late event of November: the correction re-rates 121 and the grant covers it all but 0.
    const sent = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: [{ agent_key: agent, action_type: 'x', id: 'late-1', timestamp: '2026-11-20T10:00:00Z' }] });
    expect(sent.status).toBe(200);
    await waitFor(
      () => call(stack, 'GET', `/v1/usage?start_date=2026-11-01&end_date=2026-12-01&agent_id=${agent}`, { key: dev.sdk }),
      (r) => (r.body.usage?.[0]?.actions ?? '0') === '1',
    );
    const res = await post(`/api/v1/invoice/invoices/${draft.id}/correct`, { reason: 'late event' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.credit_note).toMatchObject({ total: '-120.00', credits_applied: '-120.00', amount_due: '0.00' });
    expect(res.body.invoice).toMatchObject({ subscription_id: sub, total: '121.00', credits_applied: '121.00', amount_due: '0.00' });
    const es = await entries(`grant_id=${g}`);
    expect(es.map((e) => [e.type, e.amount, e.invoice_id])).toEqual([
      ['grant', '125.50', null],
      ['burn', '-120.00', draft.id],
      ['release', '120.00', draft.id],
      ['burn', '-121.00', res.body.invoice.id],
    ]);
    expect(await balance(acct2)).toMatchObject({ granted: '125.50', burned: '121.00', available: '4.50' });
    // Credits are how the invoice is paid, not less revenue: the period reports what it bills.
    const range = `start_date=2026-11-01&end_date=2026-12-01&customer_id=${acct2}`;
    expect((await get(`/v1/reports/revenue?${range}`)).body.total).toEqual({ USD: '121.00' });
    const byProduct = (await get(`/v1/reports/revenue?${range}&group_by=product`)).body.breakdown;
    expect(byProduct.map((b: any) => b.revenue)).toEqual(['121.00']);
  });

  it('burn order: priority, then the earliest expiry, then the oldest grant; product scope', async () => {
    const acct3 = await account('Order');
    await subscription(acct3, planA);
    const subB = await subscription(acct3, planB);
    const later = (await grantA({ account_id: acct3, currency: 'USD', kind: 'free', amount: '100', priority: 20 })).body.id;
    const expiring = (await grantA({ account_id: acct3, currency: 'USD', kind: 'free', amount: '100', priority: 20, expires_at: '2027-06-01' })).body.id;
    const first = (await grantA({ account_id: acct3, currency: 'USD', kind: 'free', amount: '10', priority: 1 })).body.id;
    const onlyB = (await grantA({ account_id: acct3, currency: 'USD', kind: 'free', amount: '45', priority: 1, scope: { product_ids: [productB] } })).body.id;
    const invoices = await generate(acct3);
    const a = await full(invoices.find((i) => i.subscription_id !== subB).id);
    const b = await full(invoices.find((i) => i.subscription_id === subB).id);
    expect(creditLines(a)).toEqual([[first, '-10.00'], [expiring, '-100.00'], [later, '-10.00']]);
    expect(creditLines(b)).toEqual([[onlyB, '-45.00'], [later, '-5.00']]);
    expect(b.amount_due).toBe('0.00');
  });
});

describe('grants', () => {
  it('an Idempotency-Key grants once; the same key with another request is a 409', async () => {
    const acct = await account('Idem');
    const body = { account_id: acct, currency: 'USD', kind: 'free', amount: '5', metadata: { campaign: 'spring' } };
    const [a, b] = await Promise.all([grantA(body, { 'idempotency-key': 'k-1' }), grantA(body, { 'idempotency-key': 'k-1' })]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.id).toBe(b.body.id);
    const c = await grantA(body, { 'idempotency-key': 'k-1' });
    expect(c.body.id).toBe(a.body.id);
    expect(c.headers.get('idempotent-replayed')).toBe('true');
    expect((await grantA({ ...body, amount: '6' }, { 'idempotency-key': 'k-1' })).status).toBe(409);
    expect(await entries(`account_id=${acct}`)).toHaveLength(1);
    expect((await get(`/api/v1/credit/grants?account_id=${acct}`)).body).toMatchObject({ total: 1, skip: 0 });
    const granted = await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', 'credits.granted').execute();
    expect(granted.filter((e) => JSON.parse(e.body).data.grant_id === a.body.id)).toHaveLength(1);
  });

  it('bad input is a 400 naming the field, and changes nothing', async () => {
    const acct = await account('Bad');
    await subscription(acct, planA);
    const jpyAcct = await account('Yen');
    await subscription(jpyAcct, planJpy);
    const cases: [Record<string, unknown>, string][] = [
      [{ amount: '-5' }, 'amount'],
      [{ amount: '0' }, 'amount'],
      [{ amount: '1.001' }, 'amount'],
      [{ amount: '1000000000000000.01' }, 'amount'],
      [{ amount: 12345678901234567 }, 'amount'],
      [{ currency: 'XYZ' }, 'currency'],
      [{ currency: 'EUR' }, 'currency'],
      [{ account_id: jpyAcct, amount: '1.5', currency: 'JPY' }, 'amount'],
      [{ expires_at: '2026-09-01' }, 'expires_at'],
      [{ expires_at: '2026-10-01' }, 'expires_at'],
      [{ scope: { charge_ids: ['ch_nope'] } }, 'scope.charge_ids'],
      [{ scope: { product_ids: ['prod_nope'] } }, 'scope.product_ids'],
      [{ scope: { units: ['@nothing'] } }, 'scope.units'],
      [{ scope: {} }, 'scope'],
      [{ priority: 0 }, 'priority'],
      [{ usable: 'on_payment' }, 'usable'],
      [{ account_id: 'acct_nope' }, 'account_id'],
      [{ kind: 'gift' }, 'kind'],
      // Unknown fields (a misspelt expires_at would grant credit that never expires).
      [{ expire_at: '2027-01-01' }, 'expire_at'],
      // One money parser: plain decimal digits only.
      [{ amount: '1e2' }, 'amount'],
      [{ amount: ' 100' }, 'amount'],
      [{ amount: '+5' }, 'amount'],
      [{ amount: '1.' }, 'amount'],
      [{ amount: 1e21 }, 'amount'],
    ];
    for (const [patch, field] of cases) {
      const res = await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '10', ...patch });
      expect(res.status, `${JSON.stringify(patch)} -> ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.details.map((d: any) => d.path), JSON.stringify(patch)).toContain(field);
    }
    const nested = await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '10', metadata: { a: { b: 1 } } });
    expect(nested.status).toBe(400);
    expect(nested.body.error.details).toEqual([expect.objectContaining({ path: 'metadata.a', message: expect.stringContaining('no nested objects') })]);
    for (const key of ['', '   ']) {
      const res = await post('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '10' }, { 'Idempotency-Key': key });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details.map((d: any) => d.path)).toContain('Idempotency-Key');
    }
    for (const [path, body, field] of [
      ['/v1/credits/adjustments', { grant_id: 'cgr_nope', amount: '1', reason: 'x', note: 'y' }, 'note'],
      ['/v1/credits/topups', { account_id: acct, currency: 'USD', type: 'threshold', threshold: '5', amount: '10', expires_at: '2027-01-01' }, 'expires_at'],
    ] as const) {
      const res = await post(path, body);
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(400);
      expect(JSON.stringify(res.body.error), path).toContain(field);
    }
    expect((await get(`/v1/credits/grants?account_id=${acct}`)).body.total).toBe(0);
    expect((await get(`/v1/credits/grants?account_id=${jpyAcct}`)).body.total).toBe(0);
    expect(await entries(`account_id=${acct}`)).toEqual([]);
  });

  it('a paid grant bills its purchase on an invoice of its own and becomes usable when that is paid', async () => {
    const acct = await account('Buyer');
    const res = await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '500', price: '450' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ kind: 'paid', usable: 'on_payment', status: 'pending_payment', price: '450.00' });
    const purchase = await full(res.body.invoice_id);
    expect(purchase).toMatchObject({ subscription_id: null, status: 'finalized', total: '450.00', amount_due: '450.00' });
    expect(purchase.number).toMatch(/^INV-/);
    expect(purchase.lines.map((l: any) => [l.charge_type, l.charge_id, l.amount])).toEqual([['credit_purchase', res.body.id, '450.00']]);
    const created = await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', 'invoice.created').execute();
    expect(created.some((e) => JSON.parse(e.body).data.invoice_id === purchase.id)).toBe(true);
    expect(await balance(acct)).toMatchObject({ granted: '0.00', available: '0.00' });
    expect((await post(`/v1/invoices/${purchase.id}/pay`, { amount: '450.00' })).status).toBe(200);
    expect((await get(`/v1/credits/grants/${res.body.id}`)).body).toMatchObject({ status: 'active', remaining: '500.00' });
    expect(await balance(acct)).toMatchObject({ granted: '500.00', available: '500.00' });
    // Paid but usable at once: granted before any payment.
    const now = await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '10', usable: 'immediately' });
    expect(now.body).toMatchObject({ status: 'active', remaining: '10.00' });
    // A purchase voided unpaid voids its grant.
    const unpaid = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '7' })).body;
    expect((await post(`/api/v1/invoice/invoices/${unpaid.invoice_id}/void`)).status).toBe(200);
    expect((await get(`/api/v1/credit/grants/${unpaid.id}`)).body.status).toBe('void');
    expect((await post(`/api/v1/invoice/invoices/${unpaid.invoice_id}/correct`)).status).toBe(409);
    // A purchase is not revenue (the usage its credits pay for is).
    const thisMonth = `start_date=2026-12-01&end_date=2027-01-01&customer_id=${acct}`;
    expect((await get(`/v1/reports/revenue?${thisMonth}`)).body).toMatchObject({ total: {}, invoice_count: 0 });
  });

  it('voiding a purchase\'s grant voids its unpaid invoice (not payable after); a paid one is refunded instead (409)', async () => {
    const acct = await account('Void purchase');
    // Void the grant, then pay: the invoice went void with the grant.
    const g = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '50' })).body;
    let res = await post(`/v1/credits/grants/${g.id}/void`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ status: 'void', remaining: '0.00' });
    expect(await full(g.invoice_id)).toMatchObject({ status: 'void' });
    res = await post(`/v1/invoices/${g.invoice_id}/pay`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    // Usable at once: what was left leaves with a void entry naming the purchase invoice.
    const now = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '20', usable: 'immediately' })).body;
    expect((await post(`/api/v1/credit/grants/${now.id}/void`, { reason: 'wrong account' })).status).toBe(200);
    expect(await full(now.invoice_id)).toMatchObject({ status: 'void' });
    expect((await entries(`grant_id=${now.id}`)).map((e) => [e.type, e.amount, e.invoice_id])).toEqual([['grant', '20.00', null], ['void', '-20.00', now.invoice_id]]);
    // So does voiding the purchase invoice itself, as an installment's void does.
    const viaInvoice = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '3', usable: 'immediately' })).body;
    expect((await post(`/api/v1/invoice/invoices/${viaInvoice.invoice_id}/void`)).status).toBe(200);
    expect((await entries(`grant_id=${viaInvoice.id}`)).map((e) => [e.type, e.amount, e.invoice_id])).toEqual([['grant', '3.00', null], ['void', '-3.00', viaInvoice.invoice_id]]);
    // Pay, then void the grant: 409 naming the refund; the credit stays and is refundable.
    const paid = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '30' })).body;
    expect((await post(`/v1/invoices/${paid.invoice_id}/pay`, {})).status).toBe(200);
    res = await post(`/v1/credits/grants/${paid.id}/void`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(res.body.error.message).toContain('refund');
    expect((await get(`/v1/credits/grants/${paid.id}`)).body).toMatchObject({ status: 'active', remaining: '30.00' });
    expect((await post('/v1/credits/refunds', { grant_id: paid.id, amount: '30', reason: 'cancelled' })).status).toBe(201);
    // A grant voided before this rule (its invoice left unpaid) cannot be paid for either.
    const old = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '5' })).body;
    await stack.tally.db!.updateTable('credit_grants').set({ voided_at: new Date(clockMs) }).where('id', '=', old.id).execute();
    res = await post(`/v1/invoices/${old.invoice_id}/pay`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    expect(await full(old.invoice_id)).toMatchObject({ status: 'finalized' });
    expect(await balance(acct)).toMatchObject({ granted: '53.00', adjusted: '-30.00', voided: '23.00', available: '0.00' });
  });

  it('paying, voiding the purchase invoice and voiding its grant at once: never a paid invoice with a void grant', async () => {
    const acct = await account('Void race');
    for (let run = 0; run < 6; run++) {
      const g = (await grantA({ account_id: acct, currency: 'USD', kind: 'paid', amount: '50' })).body;
      const racers = [() => post(`/v1/invoices/${g.invoice_id}/pay`, {}), () => post(`/v1/credits/grants/${g.id}/void`, {}), () => post(`/api/v1/invoice/invoices/${g.invoice_id}/void`)];
      if (run % 2) racers.reverse();
      const answers = await Promise.all(racers.map((r) => r()));
      for (const a of answers) expect([200, 409], JSON.stringify(a.body)).toContain(a.status);
      const invoice = await full(g.invoice_id);
      const grant = (await get(`/v1/credits/grants/${g.id}`)).body;
      if (invoice.status === 'paid') expect(grant).toMatchObject({ status: 'active', remaining: '50.00' });
      else expect([invoice.status, grant.status]).toEqual(['void', 'void']);
    }
  });

  it('a grant created already expired has nothing remaining, before and after its expiry entry is written', async () => {
    const acct = await account('Born expired');
    const res = await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '10', expires_at: '2026-11-01' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'expired', remaining: '0.00', held: '0.00' });
    expect(await balance(acct)).toMatchObject({ granted: '10.00', expired: '10.00', available: '0.00' });
    await expireGrants(stack.tally.db!, new Date(clockMs));
    expect((await get(`/v1/credits/grants/${res.body.id}`)).body).toMatchObject({ status: 'expired', remaining: '0.00' });
  });

  it('void a remainder, adjust by hand with a reason; the ledger lists every move, filtered and paged', async () => {
    const acct = await account('Moves');
    const g = (await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '40' })).body.id;
    let res = await post('/api/v1/credit/adjustments/create', { grant_id: g, amount: '-15.25', reason: 'goodwill reversed' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ type: 'adjustment', amount: '-15.25', reason: 'goodwill reversed' });
    expect((await post('/v1/credits/adjustments', { grant_id: g, amount: '-100', reason: 'too much' })).status).toBe(400);
    expect((await post('/v1/credits/adjustments', { grant_id: g, amount: '1', reason: '' })).status).toBe(400);
    res = await post(`/v1/credits/grants/${g}/void`, { reason: 'churned' });
    expect(res.body).toMatchObject({ status: 'void', remaining: '0.00', void_reason: 'churned' });
    expect((await post(`/v1/credits/grants/${g}/void`)).status).toBe(409);
    const all = await entries(`account_id=${acct}`);
    expect(all.map((e) => [e.type, e.amount])).toEqual([['grant', '40.00'], ['adjustment', '-15.25'], ['void', '-24.75']]);
    const page = (await get(`/api/v1/credit/entries?account_id=${acct}&skip=1&limit=1`)).body;
    expect(page).toMatchObject({ total: 3, skip: 1, limit: 1 });
    expect(page.entries[0].type).toBe('adjustment');
    expect((await entries(`account_id=${acct}&type=void`)).map((e) => e.amount)).toEqual(['-24.75']);
    expect(await balance(acct)).toMatchObject({ granted: '40.00', adjusted: '-15.25', voided: '24.75', available: '0.00' });
    expect((await get(`/v1/credits/entries?type=nope`)).status).toBe(400);
    const reversed = await get(`/api/v1/credit/entries?account_id=${acct}&from=2026-12-02&to=2026-12-01`);
    expect(reversed.status, JSON.stringify(reversed.body)).toBe(400);
    expect(reversed.body.error.details.map((d: any) => d.path)).toEqual(['to']);
    expect((await get(`/v1/accounts/acct_nope/credits/balance`)).status).toBe(404);
  });

  it('voiding a grant a draft holds: the draft keeps what it held (and burns it), no other invoice gets the rest', async () => {
    const acct = await account('Void held');
    await subscription(acct, planA);
    const g = (await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '200' })).body.id;
    const [draft] = await generate(acct);
    expect(draft).toMatchObject({ credits_applied: '120.00' });
    expect((await post(`/v1/credits/grants/${g}/void`)).body).toMatchObject({ status: 'void', remaining: '0.00', held: '120.00' });
    expect(await balance(acct)).toMatchObject({ voided: '80.00', held: '120.00', available: '0.00' });
    // A subscription added later: its invoice finds nothing of the void grant.
    const subB = await subscription(acct, planB);
    const again = await generate(acct);
    expect(again.find((i) => i.id === draft.id)).toMatchObject({ credits_applied: '120.00', amount_due: '0.00' });
    expect(again.find((i) => i.subscription_id === subB)).toMatchObject({ credits_applied: '0.00', amount_due: '50.00' });
    await post(`/api/v1/invoice/invoices/${draft.id}/finalize`);
    expect(await balance(acct)).toMatchObject({ granted: '200.00', burned: '120.00', voided: '80.00', held: '0.00', available: '0.00' });
  });

  it("an agent's own secret reads its account's available credit, and nothing else of the ledger", async () => {
    const acct = await account('Agent reads');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const loner = await createAgent(stack, 'development');
    await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '12.34' });
    const asAgent = (path: string, secret = agent.secret) => call(stack, 'GET', path, { headers: { 'x-agent-secret': secret } });
    for (const path of ['/v1/agents/me/credit-balance', '/api/v1/agent_instance/credit-balance']) {
      const res = await asAgent(path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toMatchObject({ agent_instance_id: agent.id, account_id: acct, balances: [{ currency: 'USD', available: '12.34' }] });
      expect(Object.keys(res.body.balances[0]).sort()).toEqual(['available', 'currency']);
      expect((await asAgent(path, loner.secret)).body).toMatchObject({ account_id: null, balances: [] });
      // An API key is refused with what to use instead.
      const asAdmin = await get(path);
      expect(asAdmin.status).toBe(403);
      expect(asAdmin.body.error.message).toContain('X-Agent-Secret');
      expect(asAdmin.body.error.message).toContain('/v1/accounts/{id}/credits/balance');
    }
    expect((await asAgent(`/v1/accounts/${acct}/credits/balance`)).status).toBe(403);
    expect((await asAgent(`/v1/credits/entries?account_id=${acct}`)).status).toBe(403);
  });

  it("an agent's own balance leaves out grants scoped to charges, products or units its subscriptions do not bill", async () => {
    const acct = await account('Agent scopes');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '12.00' });
    await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '40.00', scope: { product_ids: [productB] } });
    await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '7.00', scope: { charge_ids: [supportCharge] } });
    const agentAvailable = async () => (await call(stack, 'GET', '/v1/agents/me/credit-balance', { headers: { 'x-agent-secret': agent.secret } })).body.balances[0].available;
    // No subscription bills the agent: only the account-wide grant may pay for its usage.
    expect(await agentAvailable()).toBe('12.00');
    expect((await liveBalance(acct)).available).toBe('59.00');
  });

  it('an expired remainder leaves the balance at the expiry instant; the scheduler writes its entry and event once', async () => {
    const acct = await account('Expiry');
    const g = (await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '60', expires_at: '2026-12-10T00:00:00Z' })).body.id;
    expect(await balance(acct)).toMatchObject({ available: '60.00', expired: '0.00' });
    clockMs = Date.parse('2026-12-11T00:00:00Z');
    try {
      // Right at once, before any job ran (computed from the entries and the instant).
      expect(await balance(acct)).toMatchObject({ available: '0.00', expired: '60.00' });
      expect((await get(`/v1/accounts/${acct}/credits/balance?at=2026-12-09T23:59:59Z`)).body.balances[0]).toMatchObject({ available: '60.00' });
      // The billing scheduler's pass writes it (and would not again: the step is idempotent).
      const inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({ TALLY_INVOICE_GRACE_HOURS: '720' }), now: () => new Date(clockMs), inline: true });
      try {
        expect(await schedulerTick(inv)).toMatchObject({ ran: true, expired: 1 });
      } finally {
        await inv.rater.close();
      }
      expect(await expireGrants(stack.tally.db!, new Date(clockMs))).toBe(0);
      const es = await entries(`grant_id=${g}&type=expiry`);
      expect(es.map((e) => [e.amount, e.occurred_at])).toEqual([['-60.00', '2026-12-10T00:00:00.000Z']]);
      expect(await balance(acct)).toMatchObject({ available: '0.00', expired: '60.00' });
      const events = await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', 'credits.expired').execute();
      expect(events.map((e) => JSON.parse(e.body).data).filter((d) => d.grant_id === g)).toMatchObject([{ amount: '60.00', occurred_at: '2026-12-10T00:00:00.000Z' }]);
    } finally {
      clockMs = Date.parse('2026-12-05T12:00:00Z');
    }
  });
});

describe('money at the edges', () => {
  it('JPY (0 decimals) and KWD (3 decimals): a grant of 10^15 burns to the last fils', async () => {
    const yen = await account('Yen2');
    await subscription(yen, planJpy);
    await grantA({ account_id: yen, currency: 'JPY', kind: 'free', amount: 10000 });
    const [j] = await generate(yen);
    expect(j).toMatchObject({ total: '12345', credits_applied: '10000', amount_due: '2345' });
    const kw = await account('Dinar');
    await subscription(kw, planKwd);
    const g = (await grantA({ account_id: kw, currency: 'KWD', kind: 'free', amount: '1000000000000000.000' })).body;
    expect(g.amount).toBe('1000000000000000.000');
    const [k] = await generate(kw);
    expect(k).toMatchObject({ total: '1000000000000000.001', credits_applied: '1000000000000000.000', amount_due: '0.001' });
    await post(`/v1/invoices/${k.id}/pay`, { amount: '0.001' });
    expect((await get(`/v1/credits/grants/${g.id}`)).body).toMatchObject({ remaining: '0.000', status: 'depleted' });
    expect(await balance(kw, 'KWD')).toMatchObject({ granted: '1000000000000000.000', burned: '1000000000000000.000', available: '0.000' });
  });
});

describe('races', () => {
  it.each([1, 2, 3])('two generates, two bill runs and the scheduler at once, then finalizes of two invoices at once: each credit burns once (round %i)', async (round) => {
    const acct = await account(`Race ${round}`);
    const s1 = await subscription(acct, planA);
    const s2 = await subscription(acct, planB);
    const inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({ TALLY_INVOICE_GRACE_HOURS: '720' }), now: () => new Date(clockMs), inline: true });
    const [runs, tick] = await Promise.all([
      Promise.all([
        post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct }),
        post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-12-01' }),
        post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-12-01' }),
        post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct }),
      ]),
      // The scheduler also bills October (the subscriptions start October 1) and November.
      schedulerTick(inv).finally(() => inv.rater.close()),
    ]);
    expect(runs.map((r) => r.status)).toEqual([200, 201, 201, 200]);
    expect(tick.ran).toBe(true);
    const all = (await get(`/v1/invoices?account_id=${acct}`)).body.invoices;
    expect(all.filter((i: any) => i.period_start === '2026-11-01T00:00:00.000Z')).toHaveLength(2);
    const ids = all.map((i: any) => i.id);
    // Granted now: both drafts (two subscriptions, stored in parallel) find the same free credit.
    const g = (await grantA({ account_id: acct, currency: 'USD', kind: 'free', amount: '100' })).body.id;
    await Promise.all([
      ...ids.flatMap((id: string) => [post(`/api/v1/invoice/invoices/${id}/finalize`), post(`/api/v1/invoice/invoices/${id}/finalize`), post(`/v1/invoices/${id}/pay`)]),
      post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct }),
      post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-12-01' }),
    ]);
    const burns = await entries(`grant_id=${g}&type=burn`);
    const burned = burns.reduce((s, e) => s - Number(e.amount), 0);
    expect(burned).toBe(100);
    expect(new Set(burns.map((e) => e.invoice_id)).size).toBe(burns.length);
    const invs = await Promise.all(ids.map((id: string) => full(id)));
    const applied = invs.reduce((s, i) => s + Number(i.credits_applied), 0);
    expect(applied).toBe(100);
    expect([...new Set(invs.map((i) => i.subscription_id))].sort()).toEqual([s1, s2].sort());
    expect(await balance(acct)).toMatchObject({ burned: '100.00', held: '0.00', available: '0.00' });
  });

  it('the database itself refuses a second burn (or release) of a grant for one invoice', async () => {
    const burn = await stack.tally.db!.selectFrom('credit_entries').selectAll().where('type', '=', 'burn').limit(1).executeTakeFirstOrThrow();
    const again = stack.tally.db!.insertInto('credit_entries').values({ ...burn, id: 'cle_dup', seq: undefined as never, occurred_at: new Date() }).execute();
    await expect(again).rejects.toMatchObject({ constraint: 'credit_entries_once' });
  });
});

describe('published', () => {
  it('the OpenAPI document lists every credits route of both families, the Idempotency-Key header and the credits webhooks', async () => {
    const doc = (await call(stack, 'GET', '/v1/openapi.json')).body;
    for (const [m, p] of [
      ['post', '/v1/credits/grants'],
      ['get', '/v1/credits/grants'],
      ['get', '/v1/credits/grants/{grant_id}'],
      ['post', '/v1/credits/grants/{grant_id}/void'],
      ['get', '/v1/credits/entries'],
      ['post', '/v1/credits/adjustments'],
      ['get', '/v1/accounts/{account_id}/credits/balance'],
      ['post', '/api/v1/credit/grants/create'],
      ['get', '/api/v1/credit/grants'],
      ['get', '/api/v1/credit/grants/{grant_id}'],
      ['post', '/api/v1/credit/grants/{grant_id}/void'],
      ['get', '/api/v1/credit/entries'],
      ['post', '/api/v1/credit/adjustments/create'],
      ['get', '/api/v1/account/{account_id}/credit-balance'],
      ['get', '/v1/agents/me/credit-balance'],
      ['get', '/api/v1/agent_instance/credit-balance'],
    ]) {
      expect(doc.paths[p!]?.[m!], `${m} ${p}`).toBeDefined();
    }
    expect(doc.paths['/v1/credits/grants'].post.parameters.map((x: any) => [x.name, x.in])).toContainEqual(['Idempotency-Key', 'header']);
    expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(['credits.granted', 'credits.expired']));
  });
});
