/**
 * Credit balance alerts (credits.balance_low, credits.depleted) and top-ups (recurring,
 * threshold) end to end on the real Postgres, NATS JetStream and ClickHouse, through both
 * API families: once per crossing and once per trigger, whatever runs the watch again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';
import { parseInvoicingConfig } from '../invoicing/config.ts';
import { createInvoicing } from '../invoicing/index.ts';
import { schedulerTick } from '../invoicing/scheduler.ts';
import { watchDeps as liveWatchDeps } from '../live/open-period.ts';
import { webhookBodyProblems } from '../webhooks/payloads.ts';
import { crossOrRearm, watchBalances } from './watch.ts';
import { latestTrigger, thresholdAmount, triggerAt } from './topups.ts';

let stack: TestStack;
let dev: KeySet;
let clockMs = Date.parse('2026-12-05T12:00:00Z');
let planA: string; // USD: Platform 100 + Support 20 a month
let planJpy: string; // JPY: 12345 a month
let planKwd: string; // KWD: 1.500 a month

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const put = (path: string, body: unknown) => call(stack, 'PUT', path, { key: dev.admin, body });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

async function subscription(accountId: string, planId: string) {
  const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId, agent_instance_ids: [] });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const from = new Date('2026-10-01T00:00:00Z');
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

/**
 * Ends a subscription with November: the open period (December, the test clock's) bills
 * nothing live, so the live available balance the watch compares (pending included) is the
 * ledger's, and these tests see what invoices burn and hold alone.
 * billing/credits/live-watch.integration.test.ts tests the lines crossed by live usage.
 */
async function endingWithNovember(subscriptionId: string) {
  const res = await post(`/api/v1/subscription/${subscriptionId}/cancel`, { cancel_date: '2026-12-01T00:00:00Z', reason: 'test' });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const account = async (name: string) => ok201('/v1/accounts', { name });
const grant = (body: Record<string, unknown>) => ok201('/v1/credits/grants', { effective_at: '2026-10-01', kind: 'free', ...body });
// The ledger's balance at the test clock (the live one also counts the open period: nothing here, see endingWithNovember).
const balance = async (accountId: string, currency = 'USD') => ((await get(`/v1/accounts/${accountId}/credits/balance?at=${new Date(clockMs).toISOString()}`)).body.balances as any[]).find((b) => b.currency === currency);
const generate = async (accountId: string) => {
  const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: accountId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.invoices as any[];
};
const invoicing = () => createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({ TALLY_INVOICE_GRACE_HOURS: '720' }), now: () => new Date(clockMs) });
const tick = () => schedulerTick(invoicing());
const watchDeps = () => liveWatchDeps(invoicing());

async function events(event: string, accountId: string) {
  const rows = await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', event).orderBy('created_at').execute();
  return rows.map((r) => JSON.parse(r.body)).filter((b) => b.data.account_id === accountId);
}
const topupGrants = async (topupId: string) => ((await get(`/v1/credits/grants?limit=100`)).body.grants as any[]).filter((g) => g.metadata.topup_id === topupId);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' }, now: () => new Date(clockMs) });
  dev = await keySet(stack, 'development');
  const typeId = (await post('/api/v1/agent_type/create', { name: 'worker' })).body.id;
  const product = await ok201('/api/v1/products', { name: 'A', agent_type_id: typeId });
  const flat = await ok201('/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} });
  const plan = (name: string, currency: string) => ok201(`/api/v1/products/${product}/rateplans`, { name, billing_cycle_code: 'monthly', currency });
  const fee = (p: string, name: string, price: string | number) => ok201(`/api/v1/products/rateplans/${p}/charges`, { name, charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: price } });
  planA = await plan('a', 'USD');
  await fee(planA, 'Platform', 100);
  await fee(planA, 'Support', '20');
  planJpy = await plan('jpy', 'JPY');
  await fee(planJpy, 'Platform', 12345);
  planKwd = await plan('kwd', 'KWD');
  await fee(planKwd, 'Platform', '1.500');
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('pure rules', () => {
  it.each([
    ['2026-01-31T10:00:00Z', 'month', 1, '2026-02-28T10:00:00.000Z'],
    ['2026-01-31T10:00:00Z', 'month', 2, '2026-03-31T10:00:00.000Z'],
    ['2026-01-31T10:00:00Z', 'month', 13, '2027-02-28T10:00:00.000Z'],
    ['2024-01-31T00:00:00Z', 'month', 1, '2024-02-29T00:00:00.000Z'],
    ['2026-12-01T00:00:00Z', 'week', 3, '2026-12-22T00:00:00.000Z'],
  ] as const)('trigger of %s every %s, #%i is %s', (start, interval, k, want) => {
    expect(triggerAt(new Date(start), interval, k).toISOString()).toBe(want);
  });
  it.each([
    ['2026-01-31T10:00:00Z', 'month', '2026-01-31T09:59:59Z', -1],
    ['2026-01-31T10:00:00Z', 'month', '2026-02-28T09:59:59Z', 0],
    ['2026-01-31T10:00:00Z', 'month', '2026-02-28T10:00:00Z', 1],
    ['2026-12-01T00:00:00Z', 'week', '2026-12-15T00:00:00Z', 2],
  ] as const)('latest trigger of %s every %s at %s is #%i', (start, interval, now, want) => {
    expect(latestTrigger(new Date(start), interval, new Date(now))).toBe(want);
  });
  it.each([
    [{ amount: '25', target_balance: null, currency: 'USD' }, '3.10', '25.00'],
    [{ amount: null, target_balance: '200.00', currency: 'USD' }, '3.10', '196.90'],
    [{ amount: null, target_balance: '1000000000000000.000', currency: 'KWD' }, '0.001', '999999999999999.999'],
    [{ amount: null, target_balance: '500', currency: 'JPY' }, '0', '500'],
  ])('threshold top-up %o at %s grants %s', (rule, available, want) => {
    expect(thresholdAmount(rule, available)).toBe(want);
  });
});

describe('credits.balance_low and credits.depleted', () => {
  it('settings: both families set, read and remove the threshold; bad input is a 400 that changes nothing', async () => {
    const acct = await account('settings');
    await subscription(acct, planA);
    expect((await put(`/v1/accounts/${acct}/credits/settings`, { currency: 'usd', low_balance_threshold: 30 })).body).toEqual({ account_id: acct, currency: 'USD', low_balance_threshold: '30.00' });
    for (const bad of [{ currency: 'USD', low_balance_threshold: '1.001' }, { currency: 'XXQ', low_balance_threshold: '1' }, { currency: 'USD', low_balance_threshold: -1 }, { currency: 'USD', low_balance_threshold: 'abc' }]) {
      const res = await put(`/v1/accounts/${acct}/credits/settings`, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect((await get(`/api/v1/account/${acct}/credit-settings`)).body.settings).toEqual([{ account_id: acct, currency: 'USD', low_balance_threshold: '30.00' }]);
    expect((await post(`/api/v1/account/${acct}/credit-settings/update`, { currency: 'USD', low_balance_threshold: null })).status).toBe(200);
    expect((await get(`/v1/accounts/${acct}/credits/settings`)).body.settings).toEqual([]);
    expect((await get(`/v1/accounts/acct_nope/credits/settings`)).status).toBe(404);
  });

  it('a burn that crosses both lines sends each once, re-rating and scheduler ticks send nothing more; a top-up re-arms them', async () => {
    const acct = await account('alerts');
    await endingWithNovember(await subscription(acct, planA));
    await put(`/v1/accounts/${acct}/credits/settings`, { currency: 'USD', low_balance_threshold: '30' });
    await grant({ account_id: acct, currency: 'USD', amount: '100' });
    expect(await events('credits.balance_low', acct)).toEqual([]);
    // The November draft (120.00) holds the whole 100.00: available 0.
    await generate(acct);
    expect((await balance(acct)).available).toBe('0.00');
    const low = await events('credits.balance_low', acct);
    const depleted = await events('credits.depleted', acct);
    expect(low.map((e) => e.data)).toEqual([{ account_id: acct, currency: 'USD', available: '0.00', threshold: '30.00', crossing: 1, crossed_at: new Date(clockMs).toISOString() }]);
    expect(depleted.map((e) => [e.data.available, e.data.threshold, e.data.crossing])).toEqual([['0.00', '0.00', 1]]);
    for (const e of [...low, ...depleted]) expect(webhookBodyProblems(e.event, e)).toEqual([]);
    // Re-rating the draft, the scheduler, the watch again: still past both lines, nothing new.
    await generate(acct);
    await tick();
    await watchBalances(watchDeps());
    expect(await events('credits.balance_low', acct)).toHaveLength(1);
    expect(await events('credits.depleted', acct)).toHaveLength(1);
    // 25.00 more: 20.00 go to the draft on its next re-rating; above 0, below 30: depleted re-arms, low does not.
    await grant({ account_id: acct, currency: 'USD', amount: '25' });
    expect((await balance(acct)).available).toBe('25.00');
    await generate(acct);
    expect((await balance(acct)).available).toBe('5.00');
    expect(await events('credits.balance_low', acct)).toHaveLength(1);
    expect(await events('credits.depleted', acct)).toHaveLength(1);
    // Back above 30, then down to 0 again: crossing 2 of each.
    const big = await grant({ account_id: acct, currency: 'USD', amount: '50' });
    expect((await balance(acct)).available).toBe('55.00');
    await post(`/v1/credits/grants/${big}/void`, { reason: 'test' });
    await post('/v1/credits/adjustments', { grant_id: (await get(`/v1/credits/grants?account_id=${acct}`)).body.grants[1].id, amount: '-5', reason: 'test' });
    expect((await balance(acct)).available).toBe('0.00');
    expect((await events('credits.balance_low', acct)).map((e) => e.data.crossing)).toEqual([1, 2]);
    expect((await events('credits.depleted', acct)).map((e) => e.data.crossing)).toEqual([1, 2]);
  });

  it('a change the watch never saw (a crash between the change and the watch) is caught by the scheduler, once', async () => {
    const acct = await account('crash'); // no subscription: no invoice is generated by the ticks
    await put(`/v1/accounts/${acct}/credits/settings`, { currency: 'JPY', low_balance_threshold: 1000 });
    await grant({ account_id: acct, currency: 'JPY', amount: 5000 });
    expect(await stack.tally.db!.selectFrom('credit_watch_dirty').selectAll().where('account_id', '=', acct).execute()).toEqual([]);
    // A change committed with no watch after it (as a kill -9 right after its commit leaves it): the trigger marks the balance.
    await stack.tally.db!.transaction().execute(async (tx) => {
      const g = await tx.selectFrom('credit_grants').select('id').where('account_id', '=', acct).executeTakeFirstOrThrow();
      await tx.insertInto('credit_entries').values({ id: `cle_crash_${acct}`, environment_id: stack.keys.development.id, account_id: acct, currency: 'JPY', grant_id: g.id, type: 'adjustment', amount: '-4500', invoice_id: null, reason: 'crash test', created_by: null, occurred_at: new Date(clockMs) }).execute();
    });
    expect(await stack.tally.db!.selectFrom('credit_watch_dirty').select('currency').where('account_id', '=', acct).execute()).toEqual([{ currency: 'JPY' }]);
    await Promise.all([tick(), tick(), watchBalances(watchDeps())]);
    await tick();
    expect((await events('credits.balance_low', acct)).map((e) => [e.data.available, e.data.threshold])).toEqual([['500', '1000']]);
    expect(await events('credits.depleted', acct)).toEqual([]);
  });

  it('two processes writing the same crossing at once: the constraint lets one in', async () => {
    const acct = await account('race');
    const where = { environmentId: stack.keys.development.id, accountId: acct, currency: 'USD', available: '0.00', now: new Date(clockMs) };
    const line = { watch: 'balance_low', threshold: '10.00' };
    const results = await Promise.all(Array.from({ length: 6 }, () => stack.tally.db!.transaction().execute((tx) => crossOrRearm(tx, where, line))));
    expect(results.filter((r) => r === 1)).toHaveLength(1);
    expect(results.filter((r) => r === null)).toHaveLength(5);
  });
});

describe('top-ups', () => {
  it('threshold: a burn that falls below it grants up to the target once, paid, with its purchase invoice', async () => {
    const acct = await account('threshold');
    await endingWithNovember(await subscription(acct, planA));
    await grant({ account_id: acct, currency: 'USD', amount: '100' });
    const rule = (await post('/v1/credits/topups', { account_id: acct, currency: 'USD', type: 'threshold', threshold: '50', target_balance: '200' })).body;
    expect(rule).toMatchObject({ type: 'threshold', kind: 'paid', threshold: '50.00', target_balance: '200.00', amount: null, usable: 'immediately', status: 'active' });
    expect(await topupGrants(rule.id)).toEqual([]);
    await generate(acct); // the draft holds 100.00: available 0, below 50: top up to 200
    const grants = await topupGrants(rule.id);
    expect(grants.map((g) => [g.kind, g.amount, g.metadata.trigger])).toEqual([['paid', '200.00', 'crossing:1']]);
    const purchase = (await get(`/v1/invoices/${grants[0].invoice_id}`)).body;
    expect(purchase.total).toBe('200.00');
    // The top-up is effective from now (after November): 200 left, above the threshold, nothing more.
    await generate(acct);
    await tick();
    await watchBalances(watchDeps());
    expect((await balance(acct)).available).toBe('200.00');
    expect(await topupGrants(rule.id)).toHaveLength(1);
    const runs = await stack.tally.db!.selectFrom('credit_topup_runs').selectAll().where('topup_id', '=', rule.id).execute();
    expect(runs.map((r) => [r.trigger, r.grant_id])).toEqual([['crossing:1', grants[0].id]]);
  });

  it('threshold with an amount, Family B, KWD to the last fils; a new rule below its line tops up at once', async () => {
    const acct = await account('kwd');
    await endingWithNovember(await subscription(acct, planKwd));
    const res = await post('/api/v1/credit/topups/create', { account_id: acct, currency: 'KWD', type: 'threshold', threshold: '0.001', target_balance: '1000000000000000.000', kind: 'free' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const grants = await topupGrants(res.body.id);
    expect(grants.map((g) => [g.kind, g.amount])).toEqual([['free', '1000000000000000.000']]);
    expect((await balance(acct, 'KWD')).available).toBe('1000000000000000.000');
    // Down to 0.001 (not below the line), then to 0: crossing 2 tops up to the target again, to the last fils.
    const adjust = (amount: string) => post('/api/v1/credit/adjustments/create', { grant_id: grants[0].id, amount, reason: 'spent' });
    expect((await adjust('-999999999999999.999')).status).toBe(201);
    expect((await balance(acct, 'KWD')).available).toBe('0.001');
    expect(await topupGrants(res.body.id)).toHaveLength(1);
    expect((await adjust('-0.001')).status).toBe(201);
    expect((await topupGrants(res.body.id)).map((g) => [g.amount, g.metadata.trigger])).toEqual([
      ['1000000000000000.000', 'crossing:1'],
      ['1000000000000000.000', 'crossing:2'],
    ]);
    expect((await balance(acct, 'KWD')).available).toBe('1000000000000000.000');
    expect((await get(`/api/v1/credit/topups/${res.body.id}`)).body.id).toBe(res.body.id);
    expect((await get(`/api/v1/credit/topups?account_id=${acct}`)).body.topups.map((t: any) => t.id)).toEqual([res.body.id]);
  });

  it('recurring: the scheduler grants once per period (JPY), catches up to the latest period, and a disabled rule grants nothing', async () => {
    const acct = await account('recurring');
    await subscription(acct, planJpy);
    const rule = (await post('/v1/credits/topups', { account_id: acct, currency: 'JPY', type: 'recurring', interval: 'month', amount: 3000, kind: 'free', starts_at: '2026-12-01T00:00:00Z' })).body;
    expect(rule.next_run_at).toBe('2026-12-01T00:00:00.000Z');
    await Promise.all([tick(), tick()]);
    await tick();
    let grants = await topupGrants(rule.id);
    expect(grants.map((g) => [g.amount, g.effective_at, g.metadata.trigger])).toEqual([['3000', '2026-12-01T00:00:00.000Z', 'period:2026-12-01T00:00:00.000Z']]);
    expect((await get(`/v1/credits/topups/${rule.id}`)).body.next_run_at).toBe('2027-01-01T00:00:00.000Z');
    // Three months pass with billing down: the latest period is granted, once.
    clockMs = Date.parse('2027-03-15T00:00:00Z');
    await tick();
    await tick();
    grants = await topupGrants(rule.id);
    expect(grants.map((g) => g.metadata.trigger)).toEqual(['period:2026-12-01T00:00:00.000Z', 'period:2027-03-01T00:00:00.000Z']);
    expect((await post(`/v1/credits/topups/${rule.id}/disable`)).body.status).toBe('disabled');
    expect((await post(`/api/v1/credit/topups/${rule.id}/disable`)).status).toBe(409);
    clockMs = Date.parse('2027-05-15T00:00:00Z');
    await tick();
    expect(await topupGrants(rule.id)).toHaveLength(2);
    clockMs = Date.parse('2026-12-05T12:00:00Z');
  });

  it.each([
    [{ type: 'recurring', amount: '10' }, 'interval'],
    [{ type: 'recurring', interval: 'month' }, 'amount'],
    [{ type: 'recurring', interval: 'day', amount: '10' }, 'interval'],
    [{ type: 'threshold', threshold: '10' }, 'amount'],
    [{ type: 'threshold', threshold: '10', amount: '5', target_balance: '50' }, 'amount'],
    [{ type: 'threshold', threshold: '10', target_balance: '10' }, 'target_balance'],
    [{ type: 'threshold', threshold: '10.001', amount: '5' }, 'threshold'],
    [{ type: 'threshold', threshold: '0', amount: '5' }, 'threshold'],
    [{ type: 'recurring', interval: 'week', amount: '-5' }, 'amount'],
    [{ type: 'recurring', interval: 'week', amount: '5', kind: 'free', price: '4' }, 'price'],
    [{ type: 'recurring', interval: 'week', amount: '5', currency: 'EUR' }, 'currency'],
  ])('bad top-up %o is a 400 naming %s and writes nothing', async (body, field) => {
    const acct = await account('bad');
    await subscription(acct, planA);
    const res = await post('/v1/credits/topups', { account_id: acct, currency: 'USD', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain(field);
    expect((await get(`/v1/credits/topups?account_id=${acct}`)).body.topups).toEqual([]);
  });
});

describe('OpenAPI', () => {
  it('documents the settings, top-up and refund paths of both families and the two alert webhooks', async () => {
    const doc = (await get('/v1/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/accounts/{account_id}/credits/settings',
        '/api/v1/account/{account_id}/credit-settings/update',
        '/v1/credits/topups',
        '/v1/credits/topups/{topup_id}/disable',
        '/api/v1/credit/topups/create',
        '/api/v1/credit/topups/{topup_id}',
        '/v1/credits/refunds',
        '/api/v1/credit/refunds/create',
      ]),
    );
    expect(Object.keys(doc.webhooks)).toEqual(expect.arrayContaining(['credits.balance_low', 'credits.depleted']));
  });
});
