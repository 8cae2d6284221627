/**
 * chDB's queue of parameterized queries, made visible. chDB runs every query with
 * server-side parameters through one process-wide promise chain (node_modules/chdb
 * `globalParamChain`: its parameter state is not isolated per connection), so a query
 * waits for every parameterized query queued before it, whoever sent it. Tally's chDB
 * client hands its parameterized queries to chDB one at a time through this queue
 * instead (client.ts), which changes nothing of chDB's order (first in, first out, one
 * at a time) but measures it: per kind of query, how many ran, how long they waited for
 * their turn and how long they ran, and which background loop sent them
 * (`tally_chdb_param_*` on /metrics; docs/credits.md "How fast").
 *
 * The kind of a query is the name in a leading comment (`/* live-tail:inserted-above *\/
 * SELECT ...`) or else its first table.
 */
import { currentLoop } from '../loop.ts';
import { HotCounter } from '../metrics.ts';

const metrics = {
  queries: new HotCounter('tally_chdb_param_queries_total', 'Parameterized queries chDB ran (one at a time, process-wide), by kind and by the background loop that sent them (`-`: a request or a message)', ['kind', 'loop']),
  waitSeconds: new HotCounter('tally_chdb_param_wait_seconds_total', "Time parameterized queries waited for their turn in chDB's process-wide queue, by kind and loop", ['kind', 'loop']),
  runSeconds: new HotCounter('tally_chdb_param_run_seconds_total', 'Time parameterized queries ran in chDB (the queue busy with them), by kind and loop', ['kind', 'loop']),
};

/** The kind of a query: the name of its leading comment, or its first table, or `other`. */
export function queryKind(sql: string): string {
  const named = /^\s*\/\*\s*([\w:.-]+)\s*\*\//.exec(sql);
  if (named) return named[1]!;
  const table = /\bFROM\s+(?:[\w]+\.)?(\w+)/i.exec(sql);
  return table ? table[1]! : 'other';
}

/** A first-in, first-out queue that runs one task at a time and counts each kind's wait and run. */
export class ParamQueue {
  #tail: Promise<unknown> = Promise.resolve();
  /** Tasks queued or running. */
  #depth = 0;

  get depth(): number {
    return this.#depth;
  }

  run<T>(kind: string, task: () => Promise<T>): Promise<T> {
    const queued = performance.now();
    const labels = [kind, currentLoop() ?? '-'];
    this.#depth++;
    const started = this.#tail.then(() => performance.now());
    const result = started.then(async (start) => {
      const wait = start - queued;
      try {
        return await task();
      } finally {
        this.#depth--;
        metrics.queries.inc(labels);
        metrics.waitSeconds.inc(labels, wait / 1000);
        metrics.runSeconds.inc(labels, (performance.now() - start) / 1000);
      }
    });
    this.#tail = result.catch(() => {});
    return result;
  }
}
