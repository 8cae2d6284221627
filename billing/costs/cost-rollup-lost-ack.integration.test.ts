/**
 * Costs follow usage within seconds even when the sink's acknowledgement of a batch is
 * lost (as in a NATS crash): the rollup reads up to what the sink recorded as inserted,
 * not only up to the consumer's ack floor, which would wait for JetStream's redelivery
 * (ack_wait, 60 s). And an answer from a rollup that is still folding says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { CostRollup } from './cost-rollup.ts';

let stack: TestStack;
let release: () => void = () => {};
let held = 0;

beforeAll(async () => {
  stack = await startTestStack({
    env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' },
    // The first batch is inserted but its acknowledgement never leaves (held until the end).
    sinkHooks: {
      afterInsert: () => {
        if (held++ > 0) return;
        return new Promise<void>((r) => (release = r));
      },
    },
  });
});
afterAll(async () => {
  release();
  await stack?.cleanup();
});

describe('cost rollup', () => {
  it('shows an action whose batch is inserted but not acknowledged within seconds, not after redelivery', async () => {
    const admin = stack.keys.development.admin;
    const day = new Date().toISOString().slice(0, 10);
    const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const rule = await call(stack, 'POST', '/v1/cost_rules', { key: admin, body: { name: 'per action', category: 'infrastructure', currency: 'EUR', basis: 'per_action', rate: '0.25', effective_from: `${day}T00:00:00Z`, reallocate: true } });
    expect(rule.status).toBe(201);
    const agent = await createAgent(stack);
    const sent = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: { agent_key: agent.id, action_type: 'step', id: 'held-1' } });
    expect(sent.status).toBe(200);
    await waitFor(() => Promise.resolve(held), (n) => n > 0);
    const started = Date.now();
    const costs = await waitFor(
      () => call(stack, 'GET', `/v1/costs?start_date=${day}&end_date=${next}`, { key: admin }),
      // A reader whose catch-up step outlasts its budget (a busy machine) answers from the
      // rollup as it stands and says so (costs_behind); the next one finds the step done.
      (r) => r.body.total?.EUR === '0.25' && r.body.costs_behind === false,
      10_000,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(costs.body.costs_behind).toBe(false);
    // The acknowledgement really is outstanding: the consumer's ack floor has not moved.
    expect(held).toBe(1);
  });

  it('says when it answers from a rollup that is still catching up', async () => {
    const slow = new CostRollup(stack.tally.db!, stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!, () => new Promise((r) => setTimeout(() => r({ stream: '', floor: 0 }), 2000)), { readBudgetMs: 100 });
    const from = new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00Z');
    const coverage = await slow.coverage(stack.keys.development.id, from, new Date(from.getTime() + 86_400_000));
    expect(coverage.behind).toBe(true);
    await slow.stop();
  });
});
