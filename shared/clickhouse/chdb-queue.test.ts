import { describe, expect, it } from 'vitest';
import { BACKGROUND_MAX_WAIT_MS, ParamQueue, queryKind } from './chdb-queue.ts';
import { registry } from '../metrics.ts';
import { startLoop, type Loop } from '../loop.ts';

/** Queues a task from inside a background loop's run (as the live tail's poll does): the task's promise once queued, and the loop to stop. */
async function fromLoop(q: ParamQueue, kind: string, task: () => Promise<unknown>): Promise<{ done: Promise<unknown>; loop: Loop }> {
  let loop!: Loop;
  const queued = await new Promise<{ done: Promise<unknown> }>((resolve) => {
    loop = startLoop({ name: 'test-loop', intervalMs: 3_600_000, run: () => resolve({ done: q.run(kind, task) }) });
  });
  return { ...queued, loop };
}

describe('chDB parameterized-query queue', () => {
  it.each([
    ['/* usage */ SELECT 1 FROM db.actions', 'usage'],
    ['  /* live-tail:inserted-above */\nSELECT DISTINCT x FROM db.sink_inserted', 'live-tail:inserted-above'],
    ['SELECT e FROM (SELECT * FROM tally.outcomes FINAL)', 'outcomes'],
    ['SELECT 1', 'other'],
  ])('names %j %s', (sql, kind) => {
    expect(queryKind(sql)).toBe(kind);
  });

  it('runs one task at a time, in order, and counts each kind\'s queries, wait and run', async () => {
    const q = new ParamQueue();
    const order: string[] = [];
    let running = 0;
    const task = (name: string, ms: number) => async () => {
      running++;
      expect(running).toBe(1);
      order.push(name);
      await new Promise((r) => setTimeout(r, ms));
      running--;
      if (name === 'b') throw new Error('b failed');
      return name;
    };
    const results = await Promise.allSettled([q.run('test-a', task('a', 30)), q.run('test-b', task('b', 5)), q.run('test-c', task('c', 5))]);
    expect(order).toEqual(['a', 'b', 'c']);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(q.depth).toBe(0);
    const value = async (name: string, kind: string) => (await registry.getSingleMetric(name)!.get()).values.find((v) => v.labels.kind === kind)?.value ?? 0;
    expect(await value('tally_chdb_param_queries_total', 'test-c')).toBe(1);
    // c waited for a and b (about 35 ms) and ran about 5.
    expect(await value('tally_chdb_param_wait_seconds_total', 'test-c')).toBeGreaterThan(0.025);
    expect(await value('tally_chdb_param_run_seconds_total', 'test-a')).toBeGreaterThan(0.025);
  });

  it.each([
    ['goes after a request queued later', 100, ['a', 'c', 'b']],
    [`goes first once it waited ${BACKGROUND_MAX_WAIT_MS} ms`, BACKGROUND_MAX_WAIT_MS + 50, ['a', 'b', 'c']],
  ])('a background loop\'s query %s', async (_name, firstMs, want) => {
    const q = new ParamQueue();
    const order: string[] = [];
    const task = (name: string, ms: number) => async () => {
      order.push(name);
      await new Promise((r) => setTimeout(r, ms));
    };
    const a = q.run('test-lanes', task('a', firstMs));
    const b = await fromLoop(q, 'test-lanes', task('b', 1));
    const c = q.run('test-lanes', task('c', 1));
    await Promise.all([a, b.done, c, b.loop.stop()]);
    expect(order).toEqual(want);
  });
});
