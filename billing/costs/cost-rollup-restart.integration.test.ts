/**
 * The cost rollup's floor below its last step: on the same stream (the sink's floor merely
 * behind, as after a restart that follows a SIGKILL: the consumer's ack floor then waits
 * for the messages the dead process took until JetStream redelivers them), the rollup
 * waits quietly; on a stream deleted and created again (sequences restart), it rebuilds
 * from what ClickHouse holds and counts the new stream's actions from sequence 1.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { sinkFloorOf } from '../../shared/nats/connection.ts';
import { CostRollup } from './cost-rollup.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000' } });
});
afterAll(async () => {
  vi.restoreAllMocks();
  await stack?.cleanup();
});

/** The cost rollup's log lines written while `fn` runs. */
async function rollupLog(fn: () => Promise<void>): Promise<string[]> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: any, ...rest: any[]) => {
    if (String(chunk).includes('"component":"cost-rollup"')) lines.push(String(chunk));
    return write(chunk, ...rest);
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

describe("the cost rollup's floor below its last step", () => {
  it('is no error while the stream is the same one (the sink behind after a restart); on a stream created again the rollup is rebuilt and counts every action', async () => {
    const { nc, names } = stack.tally;
    const db = stack.tally.db!;
    const database = stack.env.CLICKHOUSE_DATABASE!;
    const agent = await createAgent(stack);
    const day = new Date().toISOString().slice(0, 10);
    const rule = await call(stack, 'POST', '/v1/cost_rules', {
      key: stack.keys.development.admin,
      body: { name: 'steps', category: 'infrastructure', currency: 'USD', basis: 'per_action', rate: '1', action_type: 'step', effective_from: `${day}T00:00:00Z`, reallocate: true },
    });
    expect(rule.status).toBe(201);
    for (let i = 0; i < 3; i++) {
      const r = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: { agent_key: agent.id, action_type: 'step', id: `restart-${i}` } });
      expect(r.status).toBe(200);
    }
    await waitFor(() => sinkFloorOf(nc!, names, 0), (f) => f.floor >= 3);
    const floorOf = (w: number) => sinkFloorOf(nc!, names, w);
    await new CostRollup(db, stack.tally.ch!, database, floorOf).catchUp(1000);
    const state = async () => (await sql<{ done_seq: string; stream_created: string }>`select done_seq, stream_created from cost_rollup_state where ch_database = ${database}`.execute(db)).rows[0]!;
    const first = await state();
    const done = Number(first.done_seq);
    expect(done).toBeGreaterThanOrEqual(3);
    const { stream } = await floorOf(0);
    expect(first.stream_created).toBe(stream);

    // The same stream, the floor behind the last step: nothing to report, nothing folded.
    const behind = new CostRollup(db, stack.tally.ch!, database, async () => ({ stream, floor: done - 1 }));
    const quiet = await rollupLog(() => behind.catchUp(0));
    expect(quiet.filter((l) => /"level":"(error|warn)"/.test(l))).toEqual([]);
    expect(Number((await state()).done_seq)).toBe(done);

    // The stream deleted and created again: its sequences restart at 1. The rollup says so,
    // rebuilds from what ClickHouse holds, and goes on with the new stream's sequences
    // (a restore onto a fresh stream end to end: test/restore-fresh-stream.integration.test.ts).
    const recreated = new CostRollup(db, stack.tally.ch!, database, async () => ({ stream: '2099-01-01T00:00:00.000000000Z', floor: 1 }));
    const loud = await rollupLog(() => recreated.catchUp(0));
    expect(loud.some((l) => l.includes('"level":"warn"') && l.includes('rebuilding the rollup'))).toBe(true);
    const after = await state();
    expect(after.stream_created).toBe('2099-01-01T00:00:00.000000000Z');
    expect(Number(after.done_seq)).toBe(1);
    const rows = await (await stack.tally.ch!.query({
      query: `SELECT toString(sum(actions)) AS n FROM ${database}.costs_daily WHERE agent_instance_id = {a:String}`,
      query_params: { a: agent.id },
      format: 'JSONEachRow',
    })).json<{ n: string }>();
    expect(rows[0]?.n).toBe('3');
  });
});
