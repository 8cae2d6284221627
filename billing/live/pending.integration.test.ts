/**
 * The live `pending` credit balance end to end (real Postgres, NATS JetStream and
 * ClickHouse): the open period rated with the usage so far, through both API families and
 * the agent's own endpoint. Lago's failure cases each have a test: a balance right after a
 * grant is created, right once invoices of the period or an earlier one exist (draft and
 * issued), and usage spilling from an exhausted grant to the next. Freshness: an
 * acknowledged event shows in `pending` within 2 s. Exactness: `pending` equals the total
 * of the draft generated at the same instant, and `pending_covered` its credits.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, untilStored, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';
import { UsageStore, type UsageQuery } from '../usage/usage-query.ts';
import { LiveUsage } from './tail.ts';
import { createInvoicing } from '../invoicing/index.ts';
import { parseInvoicingConfig } from '../invoicing/config.ts';
import { accountBalances } from '../credits/ledger.ts';
import { openPeriodCharges } from './open-period.ts';

let stack: TestStack;
let dev: KeySet;
// November 2026 is the open period (its events are in the past of the real clock, as ingest requires).
const clockMs = Date.parse('2026-11-20T12:00:00Z');
let planUsage: string; // USD: 0.25 per @action, 10% off
let planMixed: string; // USD: Platform 30 (recurring) + 1 per @action
let planMinimum: string; // USD: 1 per @action, minimum commitment 500 per period
let actionCharge: string;

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** A subscription active since October 1 (dated back as invoicing tests do), account-wide. */
async function subscription(accountId: string, planId: string) {
  const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const from = new Date('2026-10-01T00:00:00Z');
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

const account = (name: string) => ok201('/v1/accounts', { name });
const grant = async (accountId: string, body: Record<string, unknown>) => ok201('/v1/credits/grants', { account_id: accountId, effective_at: '2026-10-01', currency: 'USD', kind: 'free', ...body });
const balanceA = async (accountId: string) => ((await get(`/v1/accounts/${accountId}/credits/balance`)).body.balances as any[]).find((b) => b.currency === 'USD');
const balanceB = async (accountId: string) => ((await get(`/api/v1/account/${accountId}/credit-balance`)).body.balances as any[]).find((b) => b.currency === 'USD');
const generate = async (accountId: string, label: string) => {
  const res = await post('/v1/invoices/generate', { billing_period: label, account_id: accountId });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.invoices as any[];
};
const full = async (invoiceId: string) => (await get(`/v1/invoices/${invoiceId}`)).body;
const creditLines = (inv: any) => inv.lines.filter((l: any) => l.charge_type === 'credits_applied').map((l: any) => [l.charge_id, l.amount]);

let seq = 0;
/** Sends `n` actions of November for an agent; resolves when they are acknowledged. */
async function actions(agentId: string, n: number, timestamp = '2026-11-10T10:00:00Z') {
  const body = Array.from({ length: n }, () => ({ agent_key: agentId, action_type: 'work', id: `live-${process.pid}-${++seq}`, timestamp }));
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/**
 * Waits until the sink has stored `n` actions of the agent. An invoice is generated from what
 * ClickHouse holds; the live figure counts an event as soon as its usage delta arrives, which
 * can be before the sink stores it, so a test comparing the two waits for both.
 */
const storedActions = (agentId: string, n: number) => untilStored(stack, agentId, n);

/** Polls a balance until `pending` is `want`; returns it. */
const pendingIs = (accountId: string, want: string, timeoutMs = 15_000) => waitFor(() => balanceA(accountId), (b) => b?.pending === want, timeoutMs);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' }, now: () => new Date(clockMs) });
  dev = await keySet(stack, 'development');
  const typeId = (await post('/api/v1/agent_type/create', { name: 'worker' })).body.id;
  const product = await ok201('/api/v1/products', { name: 'Live', agent_type_id: typeId });
  const flat = await ok201('/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} });
  const perAction = await ok201('/api/v1/charge_models', { name: 'per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
  const plan = (name: string, extra: Record<string, unknown> = {}) => ok201(`/api/v1/products/${product}/rateplans`, { name, billing_cycle_code: 'monthly', currency: 'USD', ...extra });
  const usage = (p: string, price: string) => ok201(`/api/v1/products/rateplans/${p}/charges`, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: price } });
  planUsage = await plan('usage');
  actionCharge = await usage(planUsage, '0.25');
  const discount = await ok201('/api/v1/charge_models', { name: 'ten off', description: 'ten off', type: 'discount', pricing_strategy: {} });
  await ok201(`/api/v1/products/rateplans/${planUsage}/charges`, { name: 'Ten off', charge_model_id: discount, charge_type_code: 'recurring', pricing: { percent: '10' } });
  planMixed = await plan('mixed');
  await ok201(`/api/v1/products/rateplans/${planMixed}/charges`, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: '30' } });
  await usage(planMixed, '1');
  planMinimum = await plan('minimum', { minimum_commitment: '500' });
  await usage(planMinimum, '1');
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('live pending balance', () => {
  it('is right at once after a grant is created, and falls within 2 s of acknowledged events (both families)', async () => {
    const acct = await account('Fresh');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planUsage);
    await grant(acct, { amount: '100.00' });
    // Not zero, not stale: the grant counts at once, and the open period has no usage yet.
    expect(await balanceA(acct)).toMatchObject({ granted: '100.00', pending: '0.00', pending_covered: '0.00', available: '100.00' });
    const acked = Date.now();
    await actions(agent.id, 8);
    // 8 x 0.25 = 2.00, 10% off = 1.80.
    const b = await pendingIs(acct, '1.80', 2000);
    const latency = Date.now() - acked;
    expect(latency).toBeLessThan(2000);
    expect(b).toMatchObject({ pending: '1.80', pending_covered: '1.80', held: '0.00', available: '98.20' });
    expect(await balanceB(acct)).toEqual(b);
    // At an explicit instant the balance is the ledger's alone: no live figure.
    const at = (await get(`/v1/accounts/${acct}/credits/balance?at=2026-11-20T12:00:00Z`)).body.balances[0];
    expect(at).toMatchObject({ pending: null, pending_covered: null, available: '100.00' });
  });

  it('equals the draft invoice generated at the same instant, and the draft does not count twice', async () => {
    const acct = await account('Same as the draft');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planMixed);
    const g = await grant(acct, { amount: '40.00' });
    await actions(agent.id, 7);
    const before = await pendingIs(acct, '37.00');
    expect(before).toMatchObject({ pending_covered: '37.00', available: '3.00' });
    await storedActions(agent.id, 7);
    const [draft] = await generate(acct, '2026-11');
    const inv = await full(draft.id);
    expect(inv).toMatchObject({ status: 'draft', total: before.pending, credits_applied: before.pending_covered });
    expect(creditLines(inv)).toEqual([[g, '-37.00']]);
    // The open period's draft holds the credits it shows; the live figure replaces that hold.
    expect(await balanceA(acct)).toEqual(before);
    await actions(agent.id, 2);
    expect(await pendingIs(acct, '39.00')).toMatchObject({ held: '0.00', pending_covered: '39.00', available: '1.00' });
  });

  it('is right once an earlier period has an invoice: a draft holds, an issued one burns, and the open period takes what is left', async () => {
    const acct = await account('Earlier period');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planMixed);
    await grant(acct, { amount: '100.00' });
    await actions(agent.id, 5, '2026-10-20T10:00:00Z'); // October: 30 + 5
    await actions(agent.id, 3); // November: 30 + 3
    await pendingIs(acct, '33.00');
    await storedActions(agent.id, 8);
    const [october] = await generate(acct, '2026-10');
    expect(october).toMatchObject({ status: 'draft', total: '35.00', credits_applied: '35.00' });
    expect(await balanceA(acct)).toMatchObject({ held: '35.00', pending: '33.00', pending_covered: '33.00', available: '32.00' });
    await post(`/api/v1/invoice/invoices/${october.id}/finalize`);
    expect(await balanceA(acct)).toMatchObject({ burned: '35.00', held: '0.00', pending: '33.00', pending_covered: '33.00', available: '32.00' });
    // Usage beyond the credit: pending keeps counting, the credits pay what is left, available stays at zero.
    await actions(agent.id, 40);
    expect(await pendingIs(acct, '73.00')).toMatchObject({ pending_covered: '65.00', available: '0.00' });
  });

  it('spills usage from an exhausted grant to the next, as the invoice burns them', async () => {
    const acct = await account('Spill');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planMixed);
    const first = await grant(acct, { amount: '31.00', priority: 1 });
    const scoped = await grant(acct, { amount: '50.00', priority: 2, scope: { charge_ids: [actionCharge] } }); // another plan's charge: covers nothing here
    const next = await grant(acct, { amount: '20.00', priority: 3 });
    await actions(agent.id, 6);
    const b = await pendingIs(acct, '36.00');
    // 36.00: 31.00 from the first grant, the scoped one covers no line, 5.00 spill to the next.
    expect(b).toMatchObject({ granted: '101.00', pending_covered: '36.00', available: '65.00' });
    await storedActions(agent.id, 6);
    const [draft] = await generate(acct, '2026-11');
    expect(creditLines(await full(draft.id))).toEqual([[first, '-31.00'], [next, '-5.00']]);
    const grants = await Promise.all([first, scoped, next].map(async (id) => (await get(`/v1/credits/grants/${id}`)).body));
    expect(grants.map((x) => x.held)).toEqual(['31.00', '0.00', '5.00']);
    expect(await balanceA(acct)).toEqual(b);
  });

  it('leaves the minimum-commitment true-up out until the period ends', async () => {
    const acct = await account('Minimum');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const sub = await subscription(acct, planMinimum);
    await grant(acct, { amount: '1000.00' });
    await actions(agent.id, 4);
    expect(await pendingIs(acct, '4.00')).toMatchObject({ pending_covered: '4.00', available: '996.00' });
    // The preview of the same instant bills the true-up (the minimum as if the period ended now); pending does not.
    expect((await get(`/api/v1/subscription/${sub}/invoice-preview`)).body.total).toBe('500.00');
  });

  it("an agent reads its account's live available credit with its own secret", async () => {
    const acct = await account('Agent live');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planUsage);
    await grant(acct, { amount: '10.00' });
    await actions(agent.id, 4); // 1.00 less 10% = 0.90
    await pendingIs(acct, '0.90');
    for (const path of ['/v1/agents/me/credit-balance', '/api/v1/agent_instance/credit-balance']) {
      const res = await call(stack, 'GET', path, { headers: { 'x-agent-secret': agent.secret } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.balances).toEqual([{ currency: 'USD', available: '9.10' }]);
    }
  });

  it('reads usage and rates the open periods only when the answer uses them', async () => {
    const store = new UsageStore(stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!);
    let usageQueries = 0;
    const counted = { query: (q: UsageQuery) => (usageQueries++, store.query(q)), firstSeenUsers: store.firstSeenUsers.bind(store) };
    const inv = createInvoicing({ db: stack.tally.db!, usage: counted, config: parseInvoicingConfig(stack.env), now: () => new Date(clockMs), inline: true });
    const env = stack.keys.development.id;
    const now = new Date(clockMs);
    const acct = await account('Rated when used');
    await subscription(acct, planUsage);
    const live = (opts: { availableOnly?: boolean } = {}) => accountBalances(stack.tally.db!, env, acct, now, (needed) => openPeriodCharges(inv, env, acct, { now, needed }), undefined, opts);
    // No grants: no balance to show, so no usage query (the full live balance and an available-only read alike).
    expect(await live()).toEqual([]);
    expect(await live({ availableOnly: true })).toEqual([]);
    expect(usageQueries).toBe(0);
    // A grant: the full balance rates the open period (pending), an available-only read too while credit is left.
    const g = await grant(acct, { amount: '10.00' });
    expect((await live())[0]).toMatchObject({ pending: '0.00', available: '10.00' });
    expect(usageQueries).toBeGreaterThan(0);
    usageQueries = 0;
    expect((await live({ availableOnly: true }))[0]).toMatchObject({ pending: '0.00', available: '10.00' });
    expect(usageQueries).toBeGreaterThan(0);
    // Nothing left of it: pending is still part of the full balance, but an available-only read skips the rating.
    const adj = await post('/v1/credits/adjustments', { grant_id: g, amount: '-10.00', reason: 'used elsewhere' });
    expect(adj.status, JSON.stringify(adj.body)).toBe(201);
    usageQueries = 0;
    expect((await live())[0]).toMatchObject({ pending: '0.00', available: '0.00' });
    expect(usageQueries).toBeGreaterThan(0);
    usageQueries = 0;
    expect((await live({ availableOnly: true }))[0]).toMatchObject({ pending: null, available: '0.00' });
    expect(usageQueries).toBe(0);
  });

  it('the usage cache answers repeated reads without ClickHouse and drops an answer once new events of its account are stored', async () => {
    const acct = await account('Cache');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const other = await createAgent(stack, 'development', { accountId: await account('Cache other') });
    const live = new LiveUsage(
      { nc: stack.tally.nc!, names: stack.tally.names, ch: stack.tally.ch!, database: stack.env.CLICKHOUSE_DATABASE!, usage: new UsageStore(stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!) },
      { pollMs: 50, maxEntries: 100_000 },
    ).start();
    const cache = live.cache;
    try {
      const q = { environmentId: stack.keys.development.id, from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z'), groupBy: 'none' as const, accountIds: [acct] };
      const actionsNow = async () => (await live.query(q))[0]?.actions ?? '0';
      await actions(agent.id, 2);
      await waitFor(actionsNow, (n) => n === '2');
      // Stored: the tail no longer holds them.
      await waitFor(async () => live.entries, (n) => n === 0);
      await actionsNow();
      const misses = cache.misses;
      expect(await actionsNow()).toBe('2');
      expect(await actionsNow()).toBe('2');
      expect(cache.misses).toBe(misses); // answered from the cache
      // Another account's events leave this answer alone.
      await actions(other.id, 3);
      await new Promise((r) => setTimeout(r, 500));
      expect(await actionsNow()).toBe('2');
      expect(cache.misses).toBe(misses);
      // Its own event counts at once (the tail), and once stored drops the answer: the next read asks ClickHouse.
      await actions(agent.id, 1);
      await waitFor(actionsNow, (n) => n === '3', 2000);
      await waitFor(async () => live.entries, (n) => n === 0);
      expect(await actionsNow()).toBe('3');
      expect(cache.misses).toBeGreaterThan(misses);
    } finally {
      await live.stop();
    }
  });

  it('bulk answers (one query for every agent instance or account of a shape, refreshed in one query) give the same figures as each scope asked alone', async () => {
    const env = stack.keys.development.id;
    const accts: string[] = [];
    const agents: string[] = [];
    for (let i = 0; i < 4; i++) {
      const acct = await account(`Bulk ${i}`);
      accts.push(acct);
      // Two agent instances of account 0 (an account's answer has a row per agent instance); none sends for account 3.
      for (let k = 0; k < (i === 0 ? 2 : 1); k++) agents.push((await createAgent(stack, 'development', { accountId: acct })).id);
    }
    const sent = [3, 1, 2, 0, 0];
    for (const [k, n] of sent.entries()) if (n > 0) await actions(agents[k]!, n);
    await storedActions(agents[0]!, 3);
    const source = () => ({ nc: stack.tally.nc!, names: stack.tally.names, ch: stack.tally.ch!, database: stack.env.CLICKHOUSE_DATABASE!, usage: new UsageStore(stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!) });
    const single = new LiveUsage(source(), { pollMs: 50, maxEntries: 100_000, bulkAfterMisses: 0 }).start();
    const bulk = new LiveUsage(source(), { pollMs: 50, maxEntries: 100_000, bulkAfterMisses: 1 }).start();
    const period = { environmentId: env, from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z'), groupBy: 'agent' as const };
    const queries: UsageQuery[] = [...agents.map((id) => ({ ...period, agentInstanceIds: [id] })), { ...period, agentInstanceIds: [agents[0]!, agents[2]!] }, ...accts.map((id) => ({ ...period, accountIds: [id] }))];
    const sorted = (rows: { agent_instance_id?: string }[]) => [...rows].sort((a, b) => (a.agent_instance_id ?? '').localeCompare(b.agent_instance_id ?? ''));
    /** Every query through both (the bulk one all at once: coalesced), each answer compared. */
    const same = async () => {
      const mine = await Promise.all(queries.map((q) => bulk.query(q)));
      for (const [i, q] of queries.entries()) expect(sorted(mine[i]!), JSON.stringify(q)).toEqual(sorted(await single.query(q)));
    };
    try {
      await waitFor(async () => single.polls > 0 && bulk.polls > 0, Boolean);
      await waitFor(async () => (await single.query(queries[0]!))[0]?.actions, (n) => n === '3');
      // The first miss of each shape starts its environment-wide query; then every other scope is answered from it.
      await bulk.query(queries[0]!);
      await bulk.query(queries.at(-1)!);
      await waitFor(async () => bulk.cache.bulkShapes, (n) => n === 2);
      expect(bulk.cache.bulk.fills).toBe(2);
      await same();
      expect(bulk.cache.bulk.hits).toBe(queries.length - 2);
      // New events: the tail counts them at once, and once stored their scopes are asked again in one query.
      await actions(agents[1]!, 2);
      await actions(agents[3]!, 4);
      await storedActions(agents[3]!, 4);
      await waitFor(async () => single.entries + bulk.entries, (n) => n === 0);
      const refreshes = bulk.cache.bulk.refreshes;
      await same();
      expect(bulk.cache.bulk.refreshes).toBeGreaterThan(refreshes);
      expect((await bulk.query(queries[1]!))[0]?.actions).toBe('3');
      expect((await bulk.query(queries[3]!))[0]?.actions).toBe('4');
      expect(await bulk.query(queries[4]!)).toEqual([]); // no usage: no rows, as its own query answers
    } finally {
      await single.stop();
      await bulk.stop();
    }
  });
});
