/**
 * Money already paid (docs/credits.md, Credits) on the real Postgres, NATS JetStream and
 * ClickHouse: correcting a paid invoice settles the replacement with the payment first,
 * what was paid beyond it becomes account credit (an `overpayment` ledger entry linked to
 * the corrected invoice), and a refund of account credit is a `refund` ledger entry.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';
import { moneyReceived, settlement } from '../invoicing/corrections.ts';

let stack: TestStack;
let dev: KeySet;
const clockMs = Date.parse('2026-12-05T12:00:00Z');
let product: string;
let flat: string;

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** An account on a plan of one flat monthly fee, its November invoice finalized: [account, invoice, fee charge]. */
async function billed(currency: string, fee: string): Promise<[string, any, string]> {
  const plan = await ok201(`/api/v1/products/${product}/rateplans`, { name: `p-${currency}-${fee}`, billing_cycle_code: 'monthly', currency });
  const charge = await ok201(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: fee } });
  const acct = await ok201('/v1/accounts', { name: `acct ${currency}` });
  const res = await post('/v1/subscriptions', { account_id: acct, rate_plan_id: plan, agent_instance_ids: [] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const from = new Date('2026-10-01T00:00:00Z');
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
  return [acct, await november(acct), charge];
}

async function november(acct: string) {
  const gen = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct });
  expect(gen.status, JSON.stringify(gen.body)).toBe(200);
  const id = gen.body.invoices[0].id;
  expect((await post(`/api/v1/invoice/invoices/${id}/finalize`)).status).toBe(200);
  return (await get(`/v1/invoices/${id}`)).body;
}

/** The catalog fixed: the fee is now `amount` (a correction re-rates with it). */
const reprice = (charge: string, amount: string) => stack.tally.db!.updateTable('charges').set({ resolved_pricing: JSON.stringify({ kind: 'flat', amount }) }).where('id', '=', charge).execute();
const correct = async (id: string) => {
  const res = await post(`/api/v1/invoice/invoices/${id}/correct`, { reason: 'price fixed' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
};
const entries = async (acct: string) => (await get(`/v1/credits/entries?limit=100&account_id=${acct}`)).body.entries as any[];
// The ledger's balance at the test clock; the live one also counts the open period.
const balance = async (acct: string, currency: string) => ((await get(`/v1/accounts/${acct}/credits/balance?at=${new Date(clockMs).toISOString()}`)).body.balances as any[]).find((b) => b.currency === currency);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INVOICE_GRACE_HOURS: '720' }, now: () => new Date(clockMs) });
  dev = await keySet(stack, 'development');
  const typeId = (await post('/api/v1/agent_type/create', { name: 'worker' })).body.id;
  product = await ok201('/api/v1/products', { name: 'A', agent_type_id: typeId });
  flat = await ok201('/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} });
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('settlement (pure)', () => {
  it.each([
    ['100.00', '60.00', { applied: '60', due: '0', paid: true, excess: '40' }],
    ['60.00', '130.00', { applied: '60', due: '70', paid: false, excess: '0' }],
    ['0.00', '50.00', { applied: '0', due: '50', paid: false, excess: '0' }],
    ['12345', '0', { applied: '0', due: '0', paid: true, excess: '12345' }],
    ['1000000000000000.001', '0.001', { applied: '0.001', due: '0', paid: true, excess: '1000000000000000' }],
  ])('received %s on a replacement owing %s', (received, due, want) => {
    expect(settlement(received, due)).toEqual(want);
  });
  it.each([
    [{ status: 'paid', amount_due: '70.00', payment_applied: '30.00' }, '100'],
    [{ status: 'finalized', amount_due: '70.00', payment_applied: '30.00' }, '30'],
    [{ status: 'void', amount_due: '70.00', payment_applied: '0' }, '0'],
  ])('money received on %o is %s', (head, want) => {
    expect(moneyReceived(head)).toBe(want);
  });
});

describe('correcting a paid invoice', () => {
  it('less to pay: the payment settles the replacement (paid), the rest is account credit linked to the invoices; refunds are ledger moves', async () => {
    const [acct, original, charge] = await billed('USD', '100');
    expect((await post(`/v1/invoices/${original.id}/pay`, { amount: '100.00', reference: 'wire 1' })).status).toBe(200);
    await reprice(charge, '60');
    const res = await correct(original.id);
    expect(res.invoice).toMatchObject({ total: '60.00', payment_applied: '60.00', amount_due: '0.00', status: 'paid', payment_reference: `payment of ${original.number}`, replaces_invoice_id: original.id });
    expect(res.credit_note).toMatchObject({ total: '-100.00', corrects_invoice_id: original.id });
    const ledger = await entries(acct);
    expect(ledger.map((e) => [e.type, e.amount, e.invoice_id])).toEqual([['overpayment', '40.00', original.id]]);
    expect(ledger[0].reason).toContain(res.invoice.id);
    const grant = (await get(`/v1/credits/grants/${ledger[0].grant_id}`)).body;
    expect(grant).toMatchObject({ kind: 'paid', amount: '40.00', price: '40.00', status: 'active', remaining: '40.00', metadata: { source: 'overpayment', corrected_invoice_id: original.id, replacement_invoice_id: res.invoice.id } });
    expect(await balance(acct, 'USD')).toMatchObject({ granted: '40.00', available: '40.00' });
    // The replacement's events: created (its amount due after the payment), then paid.
    const events = await stack.tally.db!.selectFrom('webhook_events').select(['event', 'body']).where('body', 'like', `%${res.invoice.id}%`).orderBy('created_at').orderBy('id').execute();
    const mine = events.map((e) => ({ event: e.event, data: JSON.parse(e.body).data })).filter((e) => e.data.invoice_id === res.invoice.id);
    // The paid pair is written in one transaction (same created_at): compared by name.
    mine.sort((a, b) => a.event.localeCompare(b.event));
    expect(mine.map((e) => [e.event, e.data.status, e.data.amount_due])).toEqual([
      ['invoice.created', 'finalized', '0.00'],
      ['invoice.paid', 'paid', '0.00'],
      ['payment.successful', 'paid', '0.00'],
    ]);

    // Refunds: a recorded move with its reason, never more than is left; both families.
    const refund = await post('/v1/credits/refunds', { grant_id: grant.id, amount: '15.00', reason: 'customer asked for the difference back' });
    expect(refund.status, JSON.stringify(refund.body)).toBe(201);
    expect(refund.body).toMatchObject({ type: 'refund', amount: '-15.00', reason: 'customer asked for the difference back', grant_id: grant.id });
    for (const bad of [{ amount: '25.01' }, { amount: '1.001' }, { amount: '0' }, { amount: '-1' }, { reason: '' }]) {
      const r = await post('/api/v1/credit/refunds/create', { grant_id: grant.id, amount: '1', reason: 'x', ...bad });
      expect(r.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await balance(acct, 'USD')).available).toBe('25.00');
    expect((await post('/api/v1/credit/refunds/create', { grant_id: grant.id, amount: '25.00', reason: 'closing' })).status).toBe(201);
    expect(await balance(acct, 'USD')).toMatchObject({ available: '0.00', adjusted: '-40.00' });
    expect((await entries(acct)).map((e) => [e.type, e.amount])).toEqual([
      ['overpayment', '40.00'],
      ['refund', '-15.00'],
      ['refund', '-25.00'],
    ]);
    const free = await ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '5' });
    expect((await post('/v1/credits/refunds', { grant_id: free, amount: '1', reason: 'no' })).status).toBe(409);
  });

  it('refunds a purchase only once its invoice is paid, and never more than was paid for what is left', async () => {
    const [acct] = await billed('USD', '10');
    // Usable at once, but its purchase invoice is unpaid: 409 (void that invoice instead).
    const g = (await post('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'paid', amount: '50.00', price: '40.00', usable: 'immediately' })).body;
    const unpaid = await post('/v1/credits/refunds', { grant_id: g.id, amount: '1.00', reason: 'too early' });
    expect(unpaid.status, JSON.stringify(unpaid.body)).toBe(409);
    expect(unpaid.body.error.message).toContain('not paid for yet');
    expect((await post(`/v1/invoices/${g.invoice_id}/pay`, { amount: '40.00', reference: 'card' })).status).toBe(200);
    // 50.00 of credit bought for 40.00: at most 40.00 back, and 40.00 takes all 50.00 of credit.
    const tooMuch = await post('/v1/credits/refunds', { grant_id: g.id, amount: '50.00', reason: 'all of it' });
    expect(tooMuch.status, JSON.stringify(tooMuch.body)).toBe(400);
    expect(tooMuch.body.error.message).toContain('at most 40.00');
    expect((await post('/v1/credits/refunds', { grant_id: g.id, amount: '40.01', reason: 'x' })).status).toBe(400);
    // 10.00 back takes 12.50 of credit; then 30.00 (all that was paid for the 37.50 left) takes the rest.
    const part = await post('/v1/credits/refunds', { grant_id: g.id, amount: '10.00', reason: 'part' });
    expect(part.body).toMatchObject({ type: 'refund', amount: '-12.50', refunded: '10.00' });
    expect((await post('/v1/credits/refunds', { grant_id: g.id, amount: '30.01', reason: 'x' })).status).toBe(400);
    const rest = await post('/api/v1/credit/refunds/create', { grant_id: g.id, amount: '30.00', reason: 'rest' });
    expect(rest.body).toMatchObject({ amount: '-37.50', refunded: '30.00' });
    expect((await get(`/v1/credits/grants/${g.id}`)).body).toMatchObject({ remaining: '0.00', status: 'depleted' });
  });

  it('more to pay: the payment settles part of the replacement (still due), nothing is credited; correcting again carries what was paid', async () => {
    const [acct, original, charge] = await billed('USD', '60');
    expect((await post(`/v1/invoices/${original.id}/pay`, {})).status).toBe(200);
    await reprice(charge, '130');
    const first = await correct(original.id);
    expect(first.invoice).toMatchObject({ total: '130.00', payment_applied: '60.00', amount_due: '70.00', status: 'finalized' });
    expect(await entries(acct)).toEqual([]);
    // Paying the rest: exactly what is due.
    expect((await post(`/v1/invoices/${first.invoice.id}/pay`, { amount: '130.00' })).status).toBe(400);
    expect((await post(`/v1/invoices/${first.invoice.id}/pay`, { amount: '70.00' })).status).toBe(200);
    // Down to 0: all 130.00 received (60 + 70) becomes credit, linked to the replacement corrected.
    await reprice(charge, '0');
    const second = await correct(first.invoice.id);
    expect(second.invoice).toMatchObject({ total: '0.00', payment_applied: '0.00', amount_due: '0.00', status: 'paid' });
    expect((await entries(acct)).map((e) => [e.type, e.amount, e.invoice_id])).toEqual([['overpayment', '130.00', first.invoice.id]]);
  });

  it('with credits applied, in JPY: the credits come back and burn anew, the payment settles what is left, the rest is credit', async () => {
    const [, , charge] = await billed('JPY', '12345');
    // A second account on the same plan, with a free grant usable on November's invoice.
    const acct2 = await ok201('/v1/accounts', { name: 'jpy credits' });
    await ok201('/v1/credits/grants', { account_id: acct2, currency: 'JPY', kind: 'free', amount: 2000, effective_at: '2026-10-01' });
    const sub = await post('/v1/subscriptions', { account_id: acct2, rate_plan_id: (await stack.tally.db!.selectFrom('charges').select('rate_plan_id').where('id', '=', charge).executeTakeFirstOrThrow()).rate_plan_id, agent_instance_ids: [] });
    const from = new Date('2026-10-01T00:00:00Z');
    await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', sub.body.id).execute();
    await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', sub.body.id).execute();
    const inv = await november(acct2);
    expect(inv).toMatchObject({ total: '12345', credits_applied: '2000', amount_due: '10345' });
    expect((await post(`/v1/invoices/${inv.id}/pay`, { amount: '10345' })).status).toBe(200);
    await reprice(charge, '10000');
    const res = await correct(inv.id);
    // 10000 - 2000 credits = 8000 due, settled by the 10345 paid: 2345 credited.
    expect(res.invoice).toMatchObject({ total: '10000', credits_applied: '2000', payment_applied: '8000', amount_due: '0', status: 'paid' });
    expect((await entries(acct2)).filter((e) => e.type === 'overpayment').map((e) => [e.amount, e.invoice_id])).toEqual([['2345', inv.id]]);
    expect((await balance(acct2, 'JPY')).available).toBe('2345');
  });

  it('KWD at the largest amount: paid 1000000000000000.001, corrected to 0.001, credits 1000000000000000.000 to the last fils', async () => {
    const [acct, original, charge] = await billed('KWD', '1000000000000000.001');
    expect((await post(`/v1/invoices/${original.id}/pay`, { amount: '1000000000000000.001' })).status).toBe(200);
    await reprice(charge, '0.001');
    const res = await correct(original.id);
    expect(res.invoice).toMatchObject({ total: '0.001', payment_applied: '0.001', amount_due: '0.000', status: 'paid' });
    expect((await entries(acct)).map((e) => [e.type, e.amount])).toEqual([['overpayment', '1000000000000000.000']]);
    expect((await balance(acct, 'KWD')).available).toBe('1000000000000000.000');
  });
});
