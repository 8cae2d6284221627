/**
 * The cost rollup's error "the events stream sequence went back" is logged only when it
 * is true (the stream was deleted and created again), not when the sink's floor is merely
 * behind the last step, as after a restart that follows a SIGKILL: the consumer's ack
 * floor then waits for the messages the dead process took until JetStream redelivers them.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { deleteEventsStream, ensureEventsStream, sinkAckFloor, streamPosition } from '../../shared/nats/connection.ts';
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
  it('is no error while the stream is the same one (the sink behind after a restart), and an error once the stream is created again', async () => {
    const { nc, names } = stack.tally;
    const db = stack.tally.db!;
    const database = stack.env.CLICKHOUSE_DATABASE!;
    const agent = await createAgent(stack);
    for (let i = 0; i < 3; i++) {
      const r = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: { agent_key: agent.id, action_type: 'step', id: `restart-${i}` } });
      expect(r.status).toBe(200);
    }
    await waitFor(() => sinkAckFloor(nc!, names, 0), (f) => f >= 3);
    await new CostRollup(db, stack.tally.ch!, database, (w) => sinkAckFloor(nc!, names, w)).catchUp(1000);
    const state = await sql<{ done_seq: string }>`select done_seq from cost_rollup_state where ch_database = ${database}`.execute(db);
    const done = Number(state.rows[0]!.done_seq);
    expect(done).toBeGreaterThanOrEqual(3);
    const stream = () => streamPosition(nc!, names);

    // The same stream, the floor behind the last step: nothing to report.
    const behind = new CostRollup(db, stack.tally.ch!, database, async () => done - 1, { stream });
    const quiet = await rollupLog(() => behind.catchUp(0));
    expect(quiet.filter((l) => /"level":"(error|warn)"/.test(l))).toEqual([]);

    // The stream deleted and created again: its sequences restart, which is an error to report.
    await deleteEventsStream(nc!, names);
    await ensureEventsStream(nc!, names, { maxBytes: 64 * 1024 * 1024, duplicateWindowMs: 120_000 });
    const recreated = new CostRollup(db, stack.tally.ch!, database, async () => 1, { stream });
    const loud = await rollupLog(() => recreated.catchUp(0));
    expect(loud.some((l) => l.includes('"level":"error"') && l.includes('sequence went back'))).toBe(true);
  });
});
