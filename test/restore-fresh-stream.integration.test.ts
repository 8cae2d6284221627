/**
 * An operator's restore onto a fresh stream: Postgres and ClickHouse hold what they held
 * (as `tally restore` puts them back), but the events stream is a new one (the embedded
 * NATS store is not in a backup, or another server): its sequences restart at 1, below
 * the positions the cost rollup and the outcome notifier kept. Costs must still equal
 * usage exactly, and every outcome derived by a rule must be announced once.
 *
 * The "restore" here keeps this test's Postgres database and ClickHouse database and
 * starts Tally again on another NATS name prefix (a stream that never existed).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type TallyProcess } from '../app/start.ts';
import { deleteEventsStream } from '../shared/nats/connection.ts';
import { call, createAgent, startTestStack, uniqueSuffix, waitFor, type TestStack } from './harness.ts';

let stack: TestStack;
let restored: TallyProcess | undefined;
let agent: string;
const day = new Date().toISOString().slice(0, 10);
const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const RANGE = `start_date=${day}&end_date=${next}`;
const ENV = { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_OUTCOME_POLL_INTERVAL_MS: '100' };

beforeAll(async () => {
  stack = await startTestStack({ env: ENV });
  const admin = stack.keys.development.admin;
  agent = (await createAgent(stack)).id;
  const rule = await call(stack, 'POST', '/v1/cost_rules', {
    key: admin,
    body: { name: 'steps', category: 'infrastructure', currency: 'JPY', basis: 'per_action', rate: '7', action_type: 'step', effective_from: `${day}T00:00:00Z`, reallocate: true },
  });
  expect(rule.status).toBe(201);
  const outcomes = await call(stack, 'POST', '/api/v1/outcome_rules', { key: admin, body: { name: 'done', action_type: 'step', metadata_match: { done: true }, outcome_type: 'task_done' } });
  expect(outcomes.status).toBe(201);
});
afterAll(async () => {
  if (restored) {
    if (restored.nc && !restored.nc.isClosed()) await deleteEventsStream(restored.nc, restored.names).catch(() => {});
    await restored.stop();
  }
  await stack?.cleanup();
});

/** Sends `messages` requests of 5 actions each (one stream message a request), every other one done. */
async function ingest(on: TestStack, prefix: string, messages: number): Promise<void> {
  for (let m = 0; m < messages; m++) {
    const body = Array.from({ length: 5 }, (_, i) => ({ agent_key: agent, action_type: 'step', id: `${prefix}-${m}-${i}`, metadata: { done: i % 2 === 0 } }));
    const r = await call(on, 'POST', '/v1/actions', { key: on.keys.development.sdk, body });
    expect(r.status).toBe(200);
  }
}

const usageActions = async (on: TestStack) => Number((await call(on, 'GET', `/v1/usage?${RANGE}&agent_id=${agent}`, { key: on.keys.development.admin })).body.usage?.[0]?.actions ?? 0);
const costs = (on: TestStack) => call(on, 'GET', `/v1/costs?${RANGE}&agent_id=${agent}`, { key: on.keys.development.admin });
const costActions = (r: { body: { costs?: { actions: number }[] } }) => (r.body.costs ?? []).reduce((n, c) => n + c.actions, 0);
const announced = async (p: TallyProcess) =>
  (await p.db!.selectFrom('webhook_events').select('body').where('event', '=', 'outcome.completed').execute()).map((r) => (JSON.parse(r.body) as { data: { event_id: string } }).data.event_id);

describe('a restore onto a fresh stream', () => {
  it('keeps /v1/costs equal to usage, and announces every derived outcome once', async () => {
    // Before the backup: 12 messages, 60 actions, 36 derived outcomes (3 of 5 actions done).
    await ingest(stack, 'before', 12);
    await waitFor(() => usageActions(stack), (n) => n === 60);
    const before = await waitFor(() => costs(stack), (r) => costActions(r) === 60);
    expect(before.body.total).toEqual({ JPY: '420' });
    await waitFor(() => announced(stack.tally), (ids) => ids.length === 36);
    await stack.tally.stop();

    // Restored: the same Postgres and ClickHouse, a stream that starts again at sequence 1.
    restored = await stack.startAnother([...ROLES], { env: { TALLY_NATS_PREFIX: `R${uniqueSuffix()}_` } });
    const after: TestStack = { ...stack, tally: restored, baseUrl: `http://127.0.0.1:${restored.port}` };
    // Fewer messages than before: every new sequence is below the positions kept.
    await ingest(after, 'after', 8);
    await waitFor(() => usageActions(after), (n) => n === 100);
    // (A loaded machine may answer from a rollup still folding, costs_behind: true, for a while.)
    const now = await waitFor(() => costs(after), (r) => costActions(r) === 100 && r.body.costs_behind === false);
    expect(now.status).toBe(200);
    expect(now.body.total).toEqual({ JPY: '700' });
    // Outcomes derived by the rule: 36 + 24, each announced once.
    const ids = await waitFor(() => announced(restored!), (a) => a.length >= 60);
    expect(ids.length).toBe(60);
    expect(new Set(ids).size).toBe(60);
    const outcomeUsage = (await call(after, 'GET', `/v1/usage?${RANGE}&agent_id=${agent}`, { key: after.keys.development.admin })).body.usage[0];
    expect(Number(outcomeUsage.outcomes)).toBe(60);
    // And it stays exact: the rollup answers (not behind) with every action, again.
    const again = await waitFor(() => costs(after), (r) => r.body.costs_behind === false);
    expect(costActions(again)).toBe(100);
    expect(again.body.total).toEqual({ JPY: '700' });
  });
});
