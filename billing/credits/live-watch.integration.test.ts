/**
 * Balance alerts and threshold top-ups on the live balance (real Postgres, NATS JetStream
 * and ClickHouse, all roles in one process): usage alone, with no invoice generated,
 * lowers the available balance through `pending`, and the api role's watch of accounts
 * with new usage (TALLY_CREDIT_USAGE_WATCH_MS) sends `credits.balance_low` and
 * `credits.depleted` and makes a threshold top-up's grant, each once per crossing; more
 * usage, scheduler ticks and watches again send nothing more.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, untilStored, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, perActionPlan, type KeySet } from '../../test/api-support.ts';
import { parseInvoicingConfig } from '../invoicing/config.ts';
import { createInvoicing } from '../invoicing/index.ts';
import { schedulerTick } from '../invoicing/scheduler.ts';
import { watchDeps } from '../live/open-period.ts';
import { watchBalances } from './watch.ts';
import { measure } from '../limits/evaluator.ts';

let stack: TestStack;
let dev: KeySet;
// November 2026 is the open period (its events are in the past of the real clock, as ingest requires).
const clockMs = Date.parse('2026-11-20T12:00:00Z');
let plan: string; // USD: 1.00 per @action, nothing else

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });
async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** An account with an agent, a subscription listing it (active since October 1) and a free grant of 10.00 (none with `withGrant` false). */
async function account(name: string, withGrant = true) {
  const acct = await ok201('/v1/accounts', { name });
  const agent = await createAgent(stack, 'development', { accountId: acct });
  const sub = await ok201('/v1/subscriptions', { account_id: acct, rate_plan_id: plan, agent_instance_ids: [agent.id] });
  const from = new Date('2026-10-01T00:00:00Z');
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', sub).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', sub).execute();
  if (withGrant) await ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '10.00', effective_at: '2026-10-01' });
  return { acct, agent: agent.id, secret: agent.secret, sub };
}

let seq = 0;
/** `n` actions of November in one request; resolves when they are acknowledged. */
async function actions(agentId: string, n: number) {
  const body = Array.from({ length: n }, () => ({ agent_key: agentId, action_type: 'work', id: `watch-${process.pid}-${++seq}`, timestamp: '2026-11-10T10:00:00Z' }));
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

const live = async (acct: string) => ((await get(`/v1/accounts/${acct}/credits/balance`)).body.balances as any[]).find((b) => b.currency === 'USD');
async function events(event: string, acct: string) {
  const rows = await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', event).orderBy('created_at').execute();
  return rows.map((r) => JSON.parse(r.body)).filter((b) => b.data.account_id === acct);
}
const topupGrants = async (acct: string) => ((await get(`/v1/credits/grants?account_id=${acct}&limit=100`)).body.grants as any[]).filter((g) => g.metadata.topup_id);
/** The watch of every path once more (scheduler tick, a watch pass), then a few usage-watch intervals. */
async function everyWatchAgain() {
  const inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({}), now: () => new Date(clockMs) });
  await schedulerTick(inv);
  await watchBalances(watchDeps(inv));
  await new Promise((r) => setTimeout(r, 600));
}

beforeAll(async () => {
  stack = await startTestStack({
    env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720', TALLY_CREDIT_USAGE_WATCH_MS: '100' },
    now: () => new Date(clockMs),
  });
  dev = await keySet(stack, 'development');
  plan = (await perActionPlan(stack, dev.admin, 'Watch')).plan;
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('alerts and threshold top-ups on live usage', () => {
  it('credits.balance_low, then credits.depleted, fire from usage alone (no invoice), each once', async () => {
    const { acct, agent } = await account('Live alerts');
    expect((await put(acct, { currency: 'USD', low_balance_threshold: '4.00' })).status).toBe(200);
    await actions(agent, 5); // available 5.00: above the threshold
    await waitFor(() => live(acct), (b) => b?.pending === '5.00');
    await everyWatchAgain();
    expect(await events('credits.balance_low', acct)).toEqual([]);
    await actions(agent, 2); // available 3.00: below 4.00
    const low = await waitFor(() => events('credits.balance_low', acct), (e) => e.length > 0, 5000);
    expect(low.map((e) => [e.data.available, e.data.threshold, e.data.crossing])).toEqual([['3.00', '4.00', 1]]);
    expect(await events('credits.depleted', acct)).toEqual([]);
    // No invoice burned or holds anything: the ledger has the grant alone, the live pending did it.
    expect(((await get(`/v1/credits/entries?account_id=${acct}`)).body.entries as any[]).map((e) => e.type)).toEqual(['grant']);
    expect((await live(acct)).held).toBe('0.00');
    await actions(agent, 3); // available 0.00
    const depleted = await waitFor(() => events('credits.depleted', acct), (e) => e.length > 0, 5000);
    expect(depleted.map((e) => [e.data.available, e.data.threshold, e.data.crossing])).toEqual([['0.00', '0.00', 1]]);
    // Still past both lines: more usage, the scheduler and the watch again send nothing more.
    await actions(agent, 2);
    await waitFor(() => live(acct), (b) => b?.pending === '12.00');
    await everyWatchAgain();
    expect(await events('credits.balance_low', acct)).toHaveLength(1);
    expect(await events('credits.depleted', acct)).toHaveLength(1);
    expect(await live(acct)).toMatchObject({ granted: '10.00', pending: '12.00', pending_covered: '10.00', available: '0.00' });
  });

  it('a threshold top-up grants once when usage takes the available balance below its line', async () => {
    const { acct, agent } = await account('Live top-up');
    const rule = await ok201('/v1/credits/topups', { account_id: acct, currency: 'USD', type: 'threshold', threshold: '4', amount: '5', kind: 'free' });
    await actions(agent, 7); // available 3.00: below 4, tops up 5.00 (available 8.00)
    const grants = await waitFor(() => topupGrants(acct), (g) => g.length > 0, 5000);
    expect(grants.map((g) => [g.amount, g.metadata.topup_id, g.metadata.trigger])).toEqual([['5.00', rule, 'crossing:1']]);
    const crossing = await stack.tally.db!.selectFrom('credit_crossings').select(['available', 'crossing']).where('account_id', '=', acct).where('watch', '=', `topup:${rule}`).execute();
    expect(crossing).toEqual([{ available: '3.00', crossing: 1 }]);
    // 3.00 more usage: 5.00 left, above the line: nothing more, however often the watch looks.
    await actions(agent, 3);
    await waitFor(() => live(acct), (b) => b?.pending === '10.00');
    await everyWatchAgain();
    expect(await topupGrants(acct)).toHaveLength(1);
    expect(await live(acct)).toMatchObject({ granted: '15.00', pending: '10.00', available: '5.00' });
  });
});

const put = (acct: string, body: unknown) => call(stack, 'PUT', `/v1/accounts/${acct}/credits/settings`, { key: dev.admin, body });

describe('voiding a grant the open period\'s draft holds', () => {
  const freeGrant = (acct: string, amount: string, priority: number) => ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount, priority, effective_at: '2026-10-01' });
  /**
   * Generates the open period's draft once the sink has stored the agent's `n` actions: the
   * live balance counts an acknowledged event from the stream before ClickHouse holds it, an
   * invoice only from what ClickHouse holds.
   */
  const generate = async (acct: string, agent: string, n: number) => {
    await untilStored(stack, agent, n);
    const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: acct });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.invoices[0];
  };
  /** Every reader of the available balance: the balance (both families), the agent's own, the spend limit's measure, and the grant list (granted - burned - voided = remaining + held). */
  async function readers(acct: string, secret: string, limitId: string) {
    const a = await live(acct);
    const b = ((await get(`/api/v1/account/${acct}/credit-balance`)).body.balances as any[]).find((x) => x.currency === 'USD');
    const agent = (await call(stack, 'GET', '/v1/agents/me/credit-balance', { headers: { 'x-agent-secret': secret } })).body.balances[0].available;
    const inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({}), now: () => new Date(clockMs) });
    const row = await stack.tally.db!.selectFrom('spend_limits').selectAll().where('id', '=', limitId).executeTakeFirstOrThrow();
    const limit = (await measure(inv, row, new Date(clockMs))).current;
    const grants = (await get(`/v1/credits/grants?account_id=${acct}&limit=100`)).body.grants as any[];
    const kept = grants.reduce((s, g) => s + Number(g.remaining) + Number(g.held), 0).toFixed(2);
    const ledger = (Number(a.granted) + Number(a.adjusted) - Number(a.burned) - Number(a.expired) - Number(a.voided)).toFixed(2);
    return { available: [a.available, b.available, agent, limit], kept: [kept, ledger], a };
  }

  it('keeps the draft\'s hold of it in the live figure: available is the same before and after the draft is finalized, for every reader', async () => {
    const { acct, agent, secret } = await account('Void held live', false);
    const g = await freeGrant(acct, '8', 1);
    await freeGrant(acct, '5', 90);
    const limit = await ok201('/v1/limits', { scope: 'account', account_id: acct, metric: 'available_balance', currency: 'USD', value: '0', action: 'block' });
    expect((await put(acct, { currency: 'USD', low_balance_threshold: '3.00' })).status).toBe(200);
    await actions(agent, 3);
    await waitFor(() => live(acct), (b) => b?.pending === '3.00');
    const draft = await generate(acct, agent, 3);
    expect(draft).toMatchObject({ status: 'draft', credits_applied: '3.00' });
    await actions(agent, 1);
    await waitFor(() => live(acct), (b) => b?.pending === '4.00');
    expect((await readers(acct, secret, limit)).available).toEqual(['9.00', '9.00', '9.00', '9.00']);
    // The void takes what the draft does not hold (5.00); the draft keeps its 3.00 and the open period uses it first.
    expect((await post(`/v1/credits/grants/${g}/void`, {})).body).toMatchObject({ status: 'void', remaining: '0.00', held: '3.00' });
    let r = await readers(acct, secret, limit);
    expect(r.a).toMatchObject({ granted: '13.00', voided: '5.00', held: '0.00', pending: '4.00', pending_covered: '4.00', available: '4.00' });
    expect(r.available).toEqual(['4.00', '4.00', '4.00', '4.00']);
    expect(r.kept[0]).toBe(r.kept[1]);
    // 4.00 is above the 3.00 line: the watch (which the void woke) sends nothing.
    await everyWatchAgain();
    expect(await events('credits.balance_low', acct)).toEqual([]);
    // Finalized: what it held of the void grant burns; nothing else changed, so neither does available.
    expect((await post(`/api/v1/invoice/invoices/${draft.id}/finalize`)).status).toBe(200);
    r = await readers(acct, secret, limit);
    expect(r.a).toMatchObject({ burned: '4.00', voided: '5.00', held: '0.00', pending: '0.00', available: '4.00' });
    expect(r.available).toEqual(['4.00', '4.00', '4.00', '4.00']);
    expect(r.kept[0]).toBe(r.kept[1]);
  });

  it('a void that lowers the available balance wakes the watch: balance_low and a threshold top-up, once, at the figure the balance shows', async () => {
    const { acct, agent } = await account('Void crosses', false);
    const g = await freeGrant(acct, '20', 1);
    await freeGrant(acct, '50', 90);
    expect((await put(acct, { currency: 'USD', low_balance_threshold: '55.00' })).status).toBe(200);
    const rule = await ok201('/v1/credits/topups', { account_id: acct, currency: 'USD', type: 'threshold', threshold: '55', target_balance: '100', kind: 'free' });
    await actions(agent, 5);
    await waitFor(() => live(acct), (b) => b?.pending === '5.00');
    await generate(acct, agent, 5);
    await everyWatchAgain();
    expect(await events('credits.balance_low', acct)).toEqual([]);
    // Void: 15.00 leaves (the draft keeps 5.00): available 65.00 -> 50.00, below 55.00.
    expect((await post(`/v1/credits/grants/${g}/void`, {})).status).toBe(200);
    // Looked at by the void's request (waited for in case a usage-watch pass held the balance's lock then).
    const low = await waitFor(() => events('credits.balance_low', acct), (e) => e.length > 0, 5000);
    expect(low.map((e) => [e.data.available, e.data.crossing])).toEqual([['50.00', 1]]);
    expect((await waitFor(() => topupGrants(acct), (g) => g.length > 0, 5000)).map((t) => [t.amount, t.metadata.topup_id])).toEqual([['50.00', rule]]);
    await everyWatchAgain();
    expect(await events('credits.balance_low', acct)).toHaveLength(1);
    expect(await topupGrants(acct)).toHaveLength(1);
    expect(await live(acct)).toMatchObject({ voided: '15.00', pending_covered: '5.00', available: '100.00' });
  });
});
