/**
 * Rules of spend limits and the live balance found wanting by a tester (issues 31 and 32),
 * end to end (real Postgres, NATS JetStream and ClickHouse):
 * - an invoice issued mid-period (finalized or voided) does not reset `spend` nor leave
 *   later usage out of `pending` (docs/credits.md "Pending", docs/spend-limits.md);
 * - day and week windows count events by ingestion time, so backdated events count;
 * - a limit raised and reached again alerts again (once per limit value);
 * - money limits and credit settings in a currency that is not the account's are 400s;
 * - strict limit values, `remaining` in the currency's minor units, the window named in
 *   the 402 message, and `window`/`thresholds` in the limit state.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, perActionPlan, settledLimit, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let planPerAction: string; // USD: 1.00 per @action
let planEur: string; // EUR: 1.00 per @action
let eurCharge: string;
let eurProduct: string;

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

let seq = 0;
const action = (agentKey: string, timestamp?: string) => ({ agent_key: agentKey, action_type: 'work', id: `rules-${process.pid}-${++seq}`, ...(timestamp ? { timestamp } : {}) });
/** Actions acknowledged per agent key (what the sink must have stored before a figure is settled). */
const acked = new Map<string, number>();
const send = async (key: string) => {
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: action(key) });
  if (res.status === 200) acked.set(key, (acked.get(key) ?? 0) + 1);
  return res;
};
const sendN = async (key: string, n: number, timestamp?: string) => {
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: Array.from({ length: n }, () => action(key, timestamp)) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  acked.set(key, (acked.get(key) ?? 0) + n);
};
const stateOf = async (limitId: string) => (await get(`/v1/limits/${limitId}/state`)).body;
const alertsOf = async (limitId: string) => (await get(`/v1/limit-alerts?limit_id=${limitId}`)).body.alerts as any[];
const blocked = (key: string, timeoutMs = 15_000) => waitFor(() => send(key), (r) => r.status === 402, timeoutMs);
const unblocked = (key: string, timeoutMs = 15_000) => waitFor(() => send(key), (r) => r.status === 200, timeoutMs);
const balance = async (accountId: string) => ((await get(`/v1/accounts/${accountId}/credits/balance`)).body.balances as any[]).find((b) => b.currency === 'USD');


/** A subscription active since the start of the month (dated back as invoicing tests do). */
async function subscription(accountId: string, planId: string) {
  const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const from = monthStart();
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
}
const monthStart = () => new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
const monthLabel = () => monthStart().toISOString().slice(0, 7);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' } });
  dev = await keySet(stack, 'development');
  const { plan, typeId, chargeModel: perAction } = await perActionPlan(stack, dev.admin, 'Limited');
  planPerAction = plan;
  eurProduct = await ok201('/api/v1/products', { name: 'Euro only', agent_type_id: typeId });
  planEur = await ok201(`/api/v1/products/${eurProduct}/rateplans`, { name: 'per action EUR', billing_cycle_code: 'monthly', currency: 'EUR' });
  eurCharge = await ok201(`/api/v1/products/rateplans/${planEur}/charges`, { name: 'Actions EUR', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: '1' } });
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('an invoice issued mid-period', () => {
  it.each(['finalize', 'void'] as const)('does not reset spend, and usage after it is pending (%s)', async (how) => {
    const acct = await ok201('/v1/accounts', { name: `Issued early (${how})` });
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planPerAction);
    await ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '1000.00', effective_at: monthStart().toISOString() });
    const lim = await ok201('/v1/limits', { scope: 'account', account_id: acct, metric: 'spend', currency: 'USD', value: '5', action: 'block' });
    await sendN(agent.id, 7);
    await blocked(agent.id);
    // The state may count events before the sink stores them (the live tail), and the invoice only stored ones: wait until both agree.
    const first = (await settledLimit(stack, dev.admin, lim, agent.id, true, acked.get(agent.id))).stored;

    // The period's invoice, generated and issued mid-period.
    const gen = await post('/v1/invoices/generate', { billing_period: monthLabel(), account_id: acct });
    expect(gen.status, JSON.stringify(gen.body)).toBe(200);
    const invoice = gen.body.invoices[0];
    expect(invoice.total).toBe(`${first}.00`);
    expect((await post(`/api/v1/invoice/invoices/${invoice.id}/finalize`)).status).toBe(200);
    if (how === 'void') expect((await post(`/api/v1/invoice/invoices/${invoice.id}/void`)).status).toBe(200);
    // Nothing new yet: finalized, all of it is invoiced (burned); voided, all of it is pending again.
    const b0 = await waitFor(() => balance(acct), (b) => b.pending === (how === 'void' ? `${first}.00` : '0.00'));
    expect(b0.available).toBe(`${1000 - first}.00`);

    // Raised by 3.00: the spend so far still counts (not 0.00), so it blocks again after a few more.
    const raised = first + 3;
    expect((await call(stack, 'PATCH', `/v1/limits/${lim}`, { key: dev.admin, body: { value: String(raised) } })).status).toBe(200);
    expect(await waitFor(() => stateOf(lim), (s) => s.value === `${raised}.00` && s.reached === false)).toMatchObject({ current: `${first}.00` });
    await unblocked(agent.id);
    await waitFor(
      async () => {
        await send(agent.id);
        return stateOf(lim);
      },
      (s) => s.reached === true,
    );
    await blocked(agent.id);
    // The state may count events before the sink stores them (the live tail): wait until both agree.
    const settled = await settledLimit(stack, dev.admin, lim, agent.id, true, acked.get(agent.id));
    const all = settled.stored;
    expect(all).toBeGreaterThanOrEqual(raised);
    expect(settled.state).toMatchObject({ reached: true, blocked: true });
    // pending: what a correction would add (finalized), or all of the period (void).
    const pending = how === 'void' ? all : all - first;
    expect(await waitFor(() => balance(acct), (b) => b.pending === `${pending}.00`)).toMatchObject({ pending_covered: `${pending}.00`, available: `${1000 - all}.00` });
  });
});

describe('day and week windows', () => {
  it('count backdated events on the day they arrive', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 5, action: 'block' });
    // Dated two days back (billed in their own day, or the previous period): they still count today.
    await sendN(agent.id, 6, new Date(Date.now() - 2 * 86_400_000).toISOString());
    // Counted without any event of today (polling with new events would reach it anyway).
    expect(await waitFor(() => stateOf(lim), (s) => s.current === '6')).toMatchObject({ reached: true, blocked: true });
    await blocked(agent.id);
  });
});

describe('a limit raised and reached again', () => {
  it('alerts again for its new value, once', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 2, thresholds: [50, 100], action: 'notify' });
    await sendN(agent.id, 2);
    await waitFor(() => alertsOf(lim), (a) => a.length === 2);
    expect((await call(stack, 'PATCH', `/v1/limits/${lim}`, { key: dev.admin, body: { value: 6 } })).status).toBe(200);
    await sendN(agent.id, 4);
    const alerts = await waitFor(() => alertsOf(lim), (a) => a.length === 4);
    expect(alerts.map((a) => [a.event, a.threshold, a.limit_value])).toEqual([
      ['limit.threshold_reached', 50, '2'],
      ['limit.exceeded', 100, '2'],
      ['limit.threshold_reached', 50, '6'],
      ['limit.exceeded', 100, '6'],
    ]);
    // Evaluated again (a change of its description, a full pass): nothing twice.
    expect((await call(stack, 'PATCH', `/v1/limits/${lim}`, { key: dev.admin, body: { description: 'again' } })).status).toBe(200);
    await waitFor(() => stateOf(lim), (s) => Date.parse(s.evaluated_at) > Date.now() - 1000);
    await new Promise((r) => setTimeout(r, 500));
    expect(await alertsOf(lim)).toHaveLength(4);
    const events = await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', 'limit.exceeded').execute();
    expect(events.filter((e) => JSON.parse(e.body).data.limit_id === lim).map((e) => JSON.parse(e.body).data.limit_value).sort()).toEqual(['2', '6']);
  });
});

describe('currencies', () => {
  it("refuses a money limit or a credit setting in a currency that is not the account's", async () => {
    const acct = await ok201('/v1/accounts', { name: 'Dollar account' });
    await subscription(acct, planPerAction);
    for (const metric of ['spend', 'available_balance']) {
      const res = await post('/v1/limits', { scope: 'account', account_id: acct, metric, currency: 'EUR', value: 0, action: 'block' });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details[0]).toMatchObject({ path: 'currency' });
      expect(res.body.error.message).toContain('USD');
    }
    expect((await get(`/v1/limits?account_id=${acct}`)).body.limits).toEqual([]);
    const settings = await call(stack, 'PUT', `/v1/accounts/${acct}/credits/settings`, { key: dev.admin, body: { currency: 'EUR', low_balance_threshold: '10.00' } });
    expect(settings.status, JSON.stringify(settings.body)).toBe(400);
    expect(settings.body.error.details[0]).toMatchObject({ path: 'currency' });
    expect((await call(stack, 'PUT', `/v1/accounts/${acct}/credits/settings`, { key: dev.admin, body: { currency: 'USD', low_balance_threshold: '10.00' } })).status).toBe(200);
    expect((await post('/v1/limits', { scope: 'account', account_id: acct, metric: 'spend', currency: 'usd', value: '1' })).status).toBe(201);
  });
});

describe('credit grant scopes', () => {
  it('refuse a charge or product that never bills in the grant currency', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Scoped' });
    const grant = (scope: unknown) => post('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '10', scope });
    for (const [scope, path] of [
      [{ charge_ids: [eurCharge] }, 'scope.charge_ids'],
      [{ product_ids: [eurProduct] }, 'scope.product_ids'],
    ] as const) {
      const res = await grant(scope);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details[0]).toMatchObject({ path });
      expect(res.body.error.message).toContain('USD grant can never pay');
    }
    expect((await get(`/v1/credits/grants?account_id=${acct}`)).body.total).toBe(0);
    // In EUR they are fine.
    expect((await post('/v1/credits/grants', { account_id: acct, currency: 'EUR', kind: 'free', amount: '10', scope: { charge_ids: [eurCharge], product_ids: [eurProduct] } })).status).toBe(201);
  });
});

describe('small things', () => {
  it('limit values take the strict parser of credits; messages say an, and name the window', async () => {
    const agent = await createAgent(stack);
    const q = { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day' };
    for (const value of ['1e3', '+5', '5.', '.5', '1e-2', ' 5', '5 ', '', '0x10']) {
      const res = await post('/v1/limits', { ...q, value });
      expect(res.status, `${JSON.stringify(value)}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error.details[0].path).toBe('value');
    }
    for (const value of ['-0', '-1', -1]) {
      const res = await post('/v1/limits', { ...q, value });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe('value must not be negative');
    }
    expect((await post('/v1/limits', { ...q, value: '2.5' })).body.value).toBe('2.5');
    const an = await post('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'available_balance', currency: 'USD', value: 0 });
    expect(an.body.error.message).toContain('for an available_balance limit');

    // The 402 names the window.
    const lim = await ok201('/v1/limits', { ...q, value: 0, action: 'block' });
    const refused = await blocked(agent.id);
    expect(refused.body.error.message).toContain(`spend limit ${lim} (0 @action per day, agent_instance)`);
    // The state says its window and thresholds.
    expect(await stateOf(lim)).toMatchObject({ window: 'day', thresholds: [50, 80, 100] });
    // Family B changes a limit with PUT (PATCH is Family A's).
    expect((await call(stack, 'PUT', `/api/v1/limit/${lim}`, { key: dev.admin, body: { value: 100 } })).status).toBe(200);
  });

  it('shows remaining money in the currency minor units', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Minor units' });
    await subscription(acct, planPerAction);
    const lim = await ok201('/v1/limits', { scope: 'account', account_id: acct, metric: 'spend', currency: 'USD', value: '5', action: 'notify' });
    expect(await waitFor(() => stateOf(lim), (s) => s.current !== null)).toMatchObject({ current: '0.00', remaining: '5.00', window: 'billing_period' });
  });

  it('refuses an adjustment that takes a grant past the 10^15 cap', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Huge' });
    const g = await ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '999999999999999.00' });
    const res = await post('/v1/credits/adjustments', { grant_id: g, amount: '2.00', reason: 'too much' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details[0].path).toBe('amount');
    expect((await post('/v1/credits/adjustments', { grant_id: g, amount: '1.00', reason: 'just fits' })).status).toBe(201);
  });
});
