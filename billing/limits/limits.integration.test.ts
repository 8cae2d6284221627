/**
 * Spend limits end to end in one process of every role (real Postgres, NATS JetStream and
 * ClickHouse): a block limit reached refuses the agent's events with 402
 * spend_limit_reached on every ingest path (events, a mixed batch, OTLP/HTTP, OTLP/gRPC,
 * CloudEvents), raising it unblocks, money limits (spend, available balance) are rated as
 * the invoice is, a flag limit marks events, alerts fire once per threshold and period
 * (also when evaluated again and concurrently), and an agent reads its own state with
 * its secret. The real-process timing test (several processes, kill -9) is
 * test/fresh-machine/limits.integration.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { call, createAgent, startTestStack, storedActionCount, waitFor, type TestStack } from '../../test/harness.ts';
import { runProcess } from '../../test/processes.ts';
import { keySet, perActionPlan, settledLimit, type KeySet } from '../../test/api-support.ts';
import { record, measure, measureQuantities } from './evaluator.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tally, TallyApiError, TallySpendLimitError, type TallyError } from '../../sdk/src/index.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

let stack: TestStack;
let dev: KeySet;
let planPerAction: string; // USD: 1.00 per @action

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

async function ok201(path: string, body: unknown) {
  const res = await post(path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

let seq = 0;
const action = (agentKey: string) => ({ agent_key: agentKey, action_type: 'work', id: `lim-${process.pid}-${++seq}` });
/** Sends actions of agents (by key) as one batch; returns the answer. */
const send = (...keys: string[]) => call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: keys.length === 1 ? action(keys[0]!) : keys.map(action) });
const sendN = async (key: string, n: number) => {
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: Array.from({ length: n }, () => action(key)) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};
const stateOf = async (limitId: string) => (await get(`/v1/limits/${limitId}/state`)).body;
const alertsOf = async (limitId: string) => (await get(`/v1/limit-alerts?limit_id=${limitId}`)).body.alerts as any[];
/** Polls until one event of the agent is refused with 402 (the edge has the limit). */
const blocked = (key: string, timeoutMs = 15_000) => waitFor(() => send(key), (r) => r.status === 402, timeoutMs);
const unblocked = (key: string, timeoutMs = 15_000) => waitFor(() => send(key), (r) => r.status === 200, timeoutMs);

const storedActions = (agentId: string) => storedActionCount(stack, agentId);
const settled = (limitId: string, agentId: string, money = false) => settledLimit(stack, dev.admin, limitId, agentId, money);


/** A subscription active since the start of the month (dated back as invoicing tests do). */
async function subscription(accountId: string, planId: string) {
  const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const now = new Date();
  const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
}

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' } });
  dev = await keySet(stack, 'development');
  planPerAction = (await perActionPlan(stack, dev.admin, 'Limited')).plan;
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('a block limit at the edge', () => {
  it('refuses the agent with 402 once reached, only its events in a mixed batch, keeps what crossed, alerts once, and unblocks when raised', async () => {
    const agent = await createAgent(stack);
    const other = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 10, thresholds: [50, 100], action: 'block' });
    await sendN(agent.id, 6);
    await waitFor(() => alertsOf(lim), (a) => a.length === 1);
    await sendN(agent.id, 5); // 11: past the limit; every one of them acknowledged
    const refused = await blocked(agent.id);
    expect(refused.body.error).toMatchObject({ code: 'spend_limit_reached', limit: { id: lim, scope: 'agent_instance', value: '10', unit: '@action' } });
    expect(Date.parse(refused.body.error.limit.resets_at)).toBeGreaterThan(Date.now());
    // What crossed is kept and counted (billed): every acknowledged event (the 11, and those the polling sent before the block arrived), none refused.
    const { state, stored } = await settled(lim, agent.id);
    expect(stored).toBeGreaterThanOrEqual(11);
    expect(state).toMatchObject({ remaining: '0', reached: true, blocked: true });

    // A batch of both agents: only the blocked agent's events are refused, per event.
    const mixed = await send(other.id, agent.id, other.id);
    expect(mixed.status).toBe(207);
    expect(mixed.body.results.map((r: any) => r.status)).toEqual(['processed', 'rejected', 'processed']);
    expect(mixed.body.results[1].error).toMatchObject({ code: 'spend_limit_reached', limit: { id: lim } });
    // Every event refused: the first rejection's status, with every result.
    const all = await send(agent.id, agent.id);
    expect(all.status).toBe(402);
    expect(all.body.error.code).toBe('spend_limit_reached');

    // Family B sees the same state; the alerts: 50 % then exceeded, once each.
    expect((await call(stack, 'GET', `/api/v1/limit/${lim}/state`, { key: dev.readOnly })).body).toMatchObject({ reached: true, blocked: true });
    const alerts = await alertsOf(lim);
    expect(alerts.map((a) => [a.event, a.threshold])).toEqual([
      ['limit.threshold_reached', 50],
      ['limit.exceeded', 100],
    ]);
    expect(Number(alerts[1].value)).toBeGreaterThanOrEqual(10);
    expect((await call(stack, 'GET', `/api/v1/limit-alert/all?limit_id=${lim}`, { key: dev.readOnly })).body.total).toBe(2);
    const events = await stack.tally.db!.selectFrom('webhook_events').select(['event', 'body']).where('event', 'like', 'limit.%').execute();
    expect(events.filter((e) => JSON.parse(e.body).data.limit_id === lim)).toHaveLength(2);

    // Raising it unblocks (evaluated again at once).
    expect((await call(stack, 'PATCH', `/v1/limits/${lim}`, { key: dev.admin, body: { value: '100' } })).status).toBe(200);
    await unblocked(agent.id);
    expect(await stateOf(lim)).toMatchObject({ reached: false, blocked: false, value: '100' });
  });

  it('never blocks nor alerts on copies of events (a client\'s retries sent at once, a resend with other tokens) before the billed figure reaches the limit', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 10, thresholds: [100], action: 'block' });
    const tokens = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: 'input_tokens', window: 'day', value: 1000, thresholds: [100], action: 'block' });
    const ids = Array.from({ length: 9 }, (_, i) => `copy-${process.pid}-${agent.id}-${i}`);
    const batch = (input: number) => call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: ids.map((id) => ({ agent_key: agent.id, action_type: 'work', id, metadata: { input_tokens: input } })) });
    // Nine events with 100 tokens each (900), sent four times at once: billed once.
    const answers = await Promise.all([batch(100), batch(100), batch(100), batch(100)]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    // Resent once stored, with ten times the tokens: the first copies are billed.
    await waitFor(() => storedActions(agent.id), (n) => n === 9);
    expect((await batch(1000)).status).toBe(200);
    await waitFor(() => storedActions(agent.id), (n) => n === 9, 5000);
    await new Promise((r) => setTimeout(r, 1500)); // passes (every 100 ms) and fast passes meanwhile
    for (const l of [lim, tokens]) {
      expect(await alertsOf(l)).toEqual([]);
      expect(await stateOf(l)).toMatchObject({ reached: false, blocked: false });
    }
    expect((await stateOf(lim)).current).toBe('9');
    expect((await stateOf(tokens)).current).toBe('900');
    // The tenth event, fresh: blocked, one alert.
    expect((await send(agent.id)).status).toBe(200);
    await blocked(agent.id);
    const alerts = await alertsOf(lim);
    expect(alerts.map((a) => a.event)).toEqual(['limit.exceeded']);
    expect(Number(alerts[0].value)).toBeGreaterThanOrEqual(10);
  });

  it('refuses OTLP/HTTP and OTLP/gRPC exports of a blocked agent with their permanent failures, and CloudEvents with 402', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/api/v1/limit/create', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: 'tokens', window: 'week', value: 0, action: 'block' });
    await blocked(agent.id);
    const span = { traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', name: 'chat', startTimeUnixNano: String(BigInt(Date.now() - 1000) * 1_000_000n), endTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n), attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }] };
    const http = await call(stack, 'POST', '/v1/traces', { headers: { 'x-agent-secret': agent.secret }, body: { resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [span] }] }] } });
    expect(http.status).toBe(402);
    expect(http.body).toMatchObject({ code: grpc.status.FAILED_PRECONDITION, error: { code: 'spend_limit_reached' } });
    expect(http.headers.get('retry-after')).toBeNull();

    const spans = recordSpans();
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${stack.tally.ingest!.grpcPort}`, metadata: metadata({ 'x-agent-secret': agent.secret }) });
    const started = Date.now();
    const r = await new Promise<{ code: number; error?: Error & { code?: number } }>((resolve) => exporter.export(spans, resolve));
    await exporter.shutdown();
    expect(r.code).not.toBe(0);
    expect(String(r.error?.message ?? r.error)).toContain('spend limit');
    // Not retried: the exporter gives up on its first answer (its retries back off 1 s and more).
    expect(Date.now() - started).toBeLessThan(1000);

    const ce = await call(stack, 'POST', '/api/v1/events', {
      key: dev.sdk,
      headers: { 'content-type': 'application/cloudevents+json' },
      body: { specversion: '1.0', id: `ce-${seq++}`, source: 'test', type: 'tool_call', subject: agent.id, data: { tool: 'search' } },
    });
    expect(ce.status).toBe(402);
    await call(stack, 'DELETE', `/api/v1/limit/${lim}`, { key: dev.admin });
    await unblocked(agent.id);
  });
});

describe('money limits', () => {
  it('blocks an account when its open period, rated as the invoice rates it, reaches the spend limit', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Spender' });
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planPerAction);
    const lim = await ok201('/v1/limits', { scope: 'account', account_id: acct, metric: 'spend', currency: 'USD', value: '5', action: 'block' });
    expect((await get(`/v1/limits/${lim}`)).body).toMatchObject({ value: '5.00', currency: 'USD', window: 'billing_period', thresholds: [50, 80, 100] });
    await sendN(agent.id, 5);
    await blocked(agent.id);
    // Rated as the invoice would: 1.00 per stored action (the 5, and those polling sent before the block arrived).
    const { state, stored } = await settled(lim, agent.id, true);
    expect(stored).toBeGreaterThanOrEqual(5);
    expect(state).toMatchObject({ remaining: '0.00', reached: true, blocked: true });
  });

  it('blocks one agent instance when what its account\'s open period bills for it reaches its spend limit, not its account\'s other agents', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Two agents' });
    const [x, y] = [await createAgent(stack, 'development', { accountId: acct }), await createAgent(stack, 'development', { accountId: acct })];
    await subscription(acct, planPerAction);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: x.id, metric: 'spend', currency: 'USD', value: '3', action: 'block' });
    expect((await get(`/v1/limits/${lim}`)).body).toMatchObject({ scope: 'agent_instance', value: '3.00', currency: 'USD', window: 'billing_period' });
    await sendN(y.id, 4); // the account's other agent: billed to the account, not to x
    await sendN(x.id, 3);
    await blocked(x.id);
    expect((await send(y.id)).status).toBe(200);
    // x's lines on the invoice (1.00 per stored action of x), not the account's total.
    const { state, stored } = await settled(lim, x.id, true);
    expect(stored).toBeGreaterThanOrEqual(3);
    expect(state).toMatchObject({ remaining: '0.00', reached: true, blocked: true });
    // Moved to another account mid-period: what the first account bills for it still counts.
    const other = await ok201('/v1/accounts', { name: 'Second home' });
    await subscription(other, planPerAction);
    const z = await createAgent(stack, 'development', { accountId: acct });
    const zLimit = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: z.id, metric: 'spend', currency: 'USD', value: '100', action: 'notify' });
    await sendN(z.id, 2);
    await waitFor(() => stateOf(zLimit), (st) => st.current === '2.00');
    expect((await call(stack, 'PUT', `/api/v1/agent_instance/${z.id}`, { key: dev.admin, body: { account_id: other } })).status).toBe(200);
    await sendN(z.id, 1);
    expect(await waitFor(() => stateOf(zLimit), (st) => st.current === '3.00')).toMatchObject({ reached: false });
    // An agent instance without an account bills nothing, and money is in its account's currency.
    const loose = await createAgent(stack);
    const res = await post('/v1/limits', { scope: 'agent_instance', agent_instance_id: loose.id, metric: 'spend', currency: 'USD', value: '3' });
    expect([res.status, res.body.error?.details?.[0]?.path]).toEqual([400, 'agent_instance_id']);
    expect((await post('/v1/limits', { scope: 'agent_instance', agent_instance_id: x.id, metric: 'spend', currency: 'EUR', value: '3' })).status).toBe(400);
  });

  it('blocks when the available balance is gone, and a new grant unblocks', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Prepaid' });
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await subscription(acct, planPerAction);
    await ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '3.00' });
    const lim = await ok201('/v1/limits', { scope: 'account', account_id: acct, metric: 'available_balance', currency: 'USD', value: 0, action: 'block' });
    await sendN(agent.id, 3);
    await blocked(agent.id);
    expect(await stateOf(lim)).toMatchObject({ current: '0.00', reached: true, blocked: true });
    await ok201('/v1/credits/grants', { account_id: acct, currency: 'USD', kind: 'free', amount: '1000.00' });
    await unblocked(agent.id);
  });

  it.each([
    ['JPY', '500', '500'],
    ['KWD', '1.5', '1.500'],
  ])('keeps %s limits in its minor units and refuses more decimals', async (currency, value, shown) => {
    const acct = await ok201('/v1/accounts', { name: `In ${currency}` });
    const res = await post('/v1/limits', { scope: 'account', account_id: acct, metric: 'spend', currency, value });
    expect(res.body.value).toBe(shown);
    const bad = await post('/v1/limits', { scope: 'account', account_id: acct, metric: 'spend', currency, value: '1.0001' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details[0].path).toBe('value');
  });

  it('answers clear 400s and 404s', async () => {
    const cases = [
      [{ scope: 'agent_instance', metric: 'available_balance', currency: 'USD', value: 1, agent_instance_id: 'ai_x' }, 'scope'],
      [{ scope: 'environment', metric: 'spend', currency: 'USD', value: 1 }, 'scope'],
      [{ scope: 'environment', metric: 'quantity', unit: 'dollars', value: 1 }, 'unit'],
      [{ scope: 'environment', metric: 'quantity', unit: '@action', value: -1 }, 'value'],
      [{ scope: 'environment', metric: 'quantity', unit: '@action', value: '1000000000000000001' }, 'value'],
      [{ scope: 'environment', metric: 'quantity', unit: '@action', value: 1, thresholds: [0] }, 'thresholds'],
      [{ scope: 'account', metric: 'quantity', unit: '@action', value: 1 }, 'account_id'],
    ] as const;
    for (const [body, path] of cases) {
      const res = await post('/v1/limits', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
    expect((await post('/v1/limits', { scope: 'account', account_id: 'acct_missing', metric: 'quantity', unit: '@action', value: 1 })).status).toBe(404);
    expect((await get('/v1/limits/lim_missing')).status).toBe(404);
    expect((await get('/v1/limit-alerts?limit_id=lim_missing')).status).toBe(404);
    expect((await get('/api/v1/limit-alert/all?limit_id=lim_missing')).status).toBe(404);
    expect((await call(stack, 'POST', '/v1/limits', { key: dev.readOnly, body: {} })).status).toBe(403);
  });
});

describe('flag limits, agent state, alerts once', () => {
  it('marks events over a flag limit and still accepts them', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'billing_period', value: 1, action: 'flag' });
    await sendN(agent.id, 1);
    await waitFor(() => stateOf(lim), (s) => s.reached === true);
    const id = `flagged-${process.pid}-${seq++}`;
    // Sent until one is marked (the edge has the state a moment after the API shows it); each is accepted.
    const flaggedRows = await waitFor(
      async () => {
        expect((await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: { agent_key: agent.id, action_type: 'work', id: `${id}-${seq++}`, metadata: { step: 1 } } })).status).toBe(200);
        const rs = await stack.tally.ch!.query({
          query: `SELECT metadata FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE agent_instance_id = {a:String} AND JSONExtractString(metadata, 'tally_over_limit') = {l:String}`,
          query_params: { a: agent.id, l: lim },
          format: 'JSONEachRow',
        });
        return rs.json<{ metadata: string }>();
      },
      (r) => r.length > 0,
    );
    expect(JSON.parse(flaggedRows[0]!.metadata)).toMatchObject({ tally_over_limit: lim, step: 1 });
  });

  it('lets an agent read its own limits with its secret (both families)', async () => {
    const acct = await ok201('/v1/accounts', { name: 'Self' });
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const lim = await ok201('/v1/limits', { scope: 'account', account_id: acct, metric: 'quantity', unit: '@action', window: 'day', value: 100, action: 'block' });
    await sendN(agent.id, 2);
    const mine = await waitFor(
      async () => (await call(stack, 'GET', '/v1/agents/me/limits', { headers: { 'x-agent-secret': agent.secret } })).body,
      (b) => b.limits?.find((l: any) => l.limit_id === lim)?.current === '2',
    );
    expect(mine).toMatchObject({ agent_instance_id: agent.id, account_id: acct, blocked: false });
    expect(mine.limits.find((l: any) => l.limit_id === lim)).toMatchObject({ remaining: '98', blocked: false });
    const b = await call(stack, 'GET', '/api/v1/agent_instance/limits', { headers: { 'x-agent-secret': agent.secret } });
    expect(b.body.limits.find((l: any) => l.limit_id === lim)).toMatchObject({ current: '2' });
  });

  it('fires each alert once when evaluated again and by two evaluators at once', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 4, thresholds: [25, 50, 100], action: 'notify' });
    await sendN(agent.id, 4);
    await waitFor(() => alertsOf(lim), (a) => a.length === 3);
    // Two more evaluations of the same figures, at once (as two billing processes would), then another: nothing new.
    const db = stack.tally.db!;
    const row = await db.selectFrom('spend_limits').selectAll().where('id', '=', lim).executeTakeFirstOrThrow();
    const inv = { db, usage: stack.tally.usage!, now: () => new Date() } as never;
    const m = await measure(inv, row, new Date());
    expect(m.current).toBe('4');
    // Measured in a group (one query for the limits of a scope and window) it is the same, and a limit without usage is 0.
    const quiet = await createAgent(stack);
    const quietLim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: quiet.id, metric: 'quantity', unit: '@action', window: 'day', value: 4, action: 'notify' });
    const quietRow = await db.selectFrom('spend_limits').selectAll().where('id', '=', quietLim).executeTakeFirstOrThrow();
    const group = await measureQuantities(inv, [row, quietRow], new Date());
    expect([group.get(row), group.get(quietRow)]).toEqual([m, { period: m.period, current: '0' }]);
    await Promise.all([record(db, row, m, new Date()), record(db, row, m, new Date())]);
    await record(db, row, m, new Date());
    expect((await alertsOf(lim)).map((a) => a.threshold)).toEqual([25, 50, 100]);
    const rows = await db.selectFrom('webhook_events').select('body').where('event', 'in', ['limit.threshold_reached', 'limit.exceeded']).execute();
    expect(rows.filter((r) => JSON.parse(r.body).data.limit_id === lim)).toHaveLength(3);
    // A notify limit never blocks.
    expect((await send(agent.id)).status).toBe(200);
  });

  it('fires limit.reset when a new period follows a reached one', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 1, action: 'block' });
    await sendN(agent.id, 1);
    await blocked(agent.id);
    // As if the limit's day had ended: its state is of yesterday, reached.
    const db = stack.tally.db!;
    const day = 86_400_000;
    const start = Math.floor(Date.now() / day) * day - day;
    await db.updateTable('spend_limit_states').set({ period_start: new Date(start), period_end: new Date(start + day) }).where('limit_id', '=', lim).execute();
    // Today's single action still reaches it: reset, then exceeded again for today.
    await waitFor(() => alertsOf(lim), (a) => a.some((x) => x.event === 'limit.reset'));
    const alerts = await alertsOf(lim);
    expect(alerts.filter((a) => a.event === 'limit.reset')).toHaveLength(1);
  });
});

describe('the SDKs on a reached limit', () => {
  it('TypeScript: a TallySpendLimitError per refused event, never retried; limits() reads the agent state', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 0, action: 'block' });
    await blocked(agent.id);
    const errors: TallyError[] = [];
    const client = new Tally({ baseUrl: stack.baseUrl, agentKey: agent.secret, flushOnExit: false, onError: (e) => errors.push(e) });
    const state = await client.limits();
    expect(state).toMatchObject({ agent_instance_id: agent.id, blocked: true });
    expect(state.limits.find((l) => l.limit_id === lim)).toMatchObject({ remaining: '0', blocked: true });
    client.sendAction({ action_type: 'work' });
    client.sendAction({ action_type: 'work' });
    await client.close();
    expect(errors).toHaveLength(2);
    expect(errors[0]).toBeInstanceOf(TallySpendLimitError);
    expect((errors[0] as TallySpendLimitError).limit).toMatchObject({ id: lim, value: '0' });
    expect(client.stats).toMatchObject({ retries: 0, rejected: 2, buffered: 0 });
  });

  it('Python: TallySpendLimitError through on_error, never retried; limits() reads the agent state', async () => {
    const agent = await createAgent(stack);
    const lim = await ok201('/v1/limits', { scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: 0, action: 'block' });
    await blocked(agent.id);
    const script = [
      'import dataclasses, json, sys',
      'from tally import Tally, TallySpendLimitError',
      'errors = []',
      'client = Tally(sys.argv[1], agent_key=sys.argv[2], on_error=errors.append)',
      'state = client.limits()',
      'client.send_action("work")',
      'client.close()',
      'print(json.dumps({"blocked": state["blocked"], "limit": [l for l in state["limits"] if l["limit_id"] == sys.argv[3]][0]["blocked"],',
      '  "errors": [[type(e).__name__, e.code, (e.limit or {}).get("id")] for e in errors], "stats": dataclasses.asdict(client.stats)}))',
    ].join('\n');
    // Spawned, not spawnSync: the service answering it runs in this process.
    const run = await python(['-c', script, stack.baseUrl, agent.secret, lim]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ blocked: true, limit: true, errors: [['TallySpendLimitError', 'spend_limit_reached', lim]] });
    expect(out.stats).toMatchObject({ retries: 0, rejected: 1 });
  });
});

describe('the SDKs manage limits with an API key', () => {
  it('TypeScript: tally.spendLimits creates a block limit, reads its state and alerts, raises it (unblocked), deletes it; bad input is a TallyApiError', async () => {
    const agent = await createAgent(stack);
    const admin = new Tally({ baseUrl: stack.baseUrl, apiKey: dev.admin, flushOnExit: false });
    const lim = await admin.spendLimits.create({ scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', window: 'day', value: '2', thresholds: [50, 100], action: 'block' });
    expect(lim).toMatchObject({ scope: 'agent_instance', agent_instance_id: agent.id, value: '2', thresholds: [50, 100], action: 'block', window: 'day' });
    expect(await admin.spendLimits.get(lim.id)).toMatchObject({ id: lim.id, value: '2' });
    expect((await admin.spendLimits.list({ agent_instance_id: agent.id })).limits.map((l) => l.id)).toEqual([lim.id]);
    await sendN(agent.id, 2);
    await blocked(agent.id);
    // `blocked` sends until one is refused: what it sent before the edge had the block counts too.
    const st = await admin.spendLimits.state(lim.id);
    expect(st).toMatchObject({ limit_id: lim.id, remaining: '0', reached: true, blocked: true });
    expect(Number(st.current)).toBeGreaterThanOrEqual(2);
    const alerts = await waitFor(() => admin.spendLimits.listAlerts({ limit_id: lim.id }), (p) => p.alerts.length === 2);
    expect(alerts.alerts.map((a) => [a.event, a.threshold, a.limit_value]).sort()).toEqual([['limit.exceeded', 100, '2'], ['limit.threshold_reached', 50, '2']]);
    expect((await admin.spendLimits.update(lim.id, { value: 1000, description: 'raised' })).value).toBe('1000');
    await unblocked(agent.id);
    expect(await admin.spendLimits.delete(lim.id)).toEqual({ id: lim.id, deleted: true });
    const gone = await admin.spendLimits.get(lim.id).then(() => null, (e: unknown) => e);
    expect(gone).toBeInstanceOf(TallyApiError);
    expect(gone).toMatchObject({ status: 404, code: 'not_found', retryable: false });
    const bad = await admin.spendLimits.create({ scope: 'agent_instance', agent_instance_id: agent.id, metric: 'quantity', unit: '@action', value: '1e3' }).then(() => null, (e: unknown) => e);
    expect(bad).toMatchObject({ status: 400, code: 'validation_failed', retryable: false });
    await admin.close();
  });

  it('runs the spend-limit examples of docs/sdk.md (TypeScript) and sdk/python/README.md as they are', async () => {
    const doc = readFileSync(path.join(repo, 'docs/sdk.md'), 'utf8');
    const tsExample = /\*\*Spend limits\.\*\* `tally\.spendLimits`[\s\S]*?```ts\n([\s\S]*?)```/.exec(doc)![1]!;
    const agent = await createAgent(stack);
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<any>;
    const run = new AsyncFunction('Tally', 'agentId', 'process', `${tsExample.replaceAll('http://localhost:8080', stack.baseUrl)}\nreturn { limit, state, alerts, ops };`);
    const out = await run(Tally, agent.id, { env: { TALLY_API_KEY: dev.admin } });
    await out.ops.close();
    expect(out.limit).toMatchObject({ agent_instance_id: agent.id, value: '10000', thresholds: [80, 100], action: 'block' });
    expect(out.state).toMatchObject({ limit_id: out.limit.id, blocked: false });
    expect(out.alerts).toEqual([]);
    expect((await stateOf(out.limit.id)).value).toBe('20000');

    const readme = readFileSync(path.join(repo, 'sdk/python/README.md'), 'utf8');
    const pyExample = /## Spend limits[\s\S]*?```python\n([\s\S]*?)```/.exec(readme)![1]!;
    const other = await createAgent(stack);
    const py = await python(['-c', pyExample.replaceAll('http://localhost:8080', stack.baseUrl)], { TALLY_API_KEY: dev.admin, AGENT_ID: other.id });
    expect(py.code, py.stderr).toBe(0);
    expect(py.stdout.trim()).toBe('10000 20000 False');
  });

  it('Python: tally.spend_limits does the same', async () => {
    const agent = await createAgent(stack);
    const create = [
      'import json, sys',
      'from decimal import Decimal',
      'from tally import Tally, TallyApiError',
      'admin = Tally(sys.argv[1], api_key=sys.argv[2])',
      'lim = admin.spend_limits.create("agent_instance", "quantity", Decimal("2"), agent_instance_id=sys.argv[3], unit="@action", window="day", thresholds=[50, 100], action="block")',
      'try:',
      '    admin.spend_limits.create("agent_instance", "quantity", "1e3", agent_instance_id=sys.argv[3], unit="@action")',
      '    bad = None',
      'except TallyApiError as e:',
      '    bad = [e.status, e.code, e.retryable]',
      'print(json.dumps({"id": lim["id"], "value": lim["value"], "action": lim["action"], "get": admin.spend_limits.get(lim["id"])["value"],',
      '  "listed": [l["id"] for l in admin.spend_limits.list(agent_instance_id=sys.argv[3])["limits"]], "bad": bad}))',
    ].join('\n');
    const made = await python(['-c', create, stack.baseUrl, dev.admin, agent.id]);
    expect(made.code, made.stderr).toBe(0);
    const c = JSON.parse(made.stdout);
    expect(c).toMatchObject({ value: '2', action: 'block', get: '2', listed: [c.id], bad: [400, 'validation_failed', false] });
    await sendN(agent.id, 2);
    await blocked(agent.id);
    await waitFor(() => alertsOf(c.id), (a) => a.length === 2);
    const manage = [
      'import json, sys',
      'from tally import Tally, TallyApiError',
      'admin = Tally(sys.argv[1], api_key=sys.argv[2])',
      'state = admin.spend_limits.state(sys.argv[3])',
      'alerts = admin.spend_limits.list_alerts(limit_id=sys.argv[3])["alerts"]',
      'raised = admin.spend_limits.update(sys.argv[3], value=1000, description=None)',
      'print(json.dumps({"state": [state["current"], state["remaining"], state["blocked"]], "alerts": sorted([a["event"], a["threshold"]] for a in alerts),',
      '  "raised": raised["value"], "account": admin.spend_limits.account_states(sys.argv[4])["account_id"] if sys.argv[4] else None}))',
    ].join('\n');
    const acct = (await call(stack, 'GET', `/v1/agents/${agent.id}`, { key: dev.admin })).body.account_id ?? '';
    const run = await python(['-c', manage, stack.baseUrl, dev.admin, c.id, acct]);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ alerts: [['limit.exceeded', 100], ['limit.threshold_reached', 50]], raised: '1000' });
    expect([Number(out.state[0]) >= 2, out.state[1], out.state[2]]).toEqual([true, '0', true]);
    await unblocked(agent.id);
    const del = await python(['-c', ['import json, sys', 'from tally import Tally, TallyApiError', 'admin = Tally(sys.argv[1], api_key=sys.argv[2])', 'print(json.dumps(admin.spend_limits.delete(sys.argv[3])))', 'try:', '    admin.spend_limits.get(sys.argv[3])', 'except TallyApiError as e:', '    print(json.dumps([e.status, e.code]))'].join('\n'), stack.baseUrl, dev.admin, c.id]);
    expect(del.code, del.stderr).toBe(0);
    expect(del.stdout.trim().split('\n').map((l) => JSON.parse(l))).toEqual([{ id: c.id, deleted: true }, [404, 'not_found']]);
  });
});

/** Runs python3 with the SDK's source on PYTHONPATH; resolves when it exits (killed after 60 s). */
const python = (args: string[], env: Record<string, string> = {}) => runProcess('python3', args, { env: { ...process.env, ...env, PYTHONPATH: path.join(repo, 'sdk/python') } });

function recordSpans(): ReadableSpan[] {
  const mem = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(mem)] });
  provider.getTracer('limits-test').startSpan('chat', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.usage.input_tokens': 5 } }).end();
  return mem.getFinishedSpans();
}

function metadata(values: Record<string, string>): grpc.Metadata {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(values)) md.set(k, v);
  return md;
}
