/**
 * chDB's queue of parameterized queries, made visible. chDB runs every query with
 * server-side parameters through one process-wide promise chain (node_modules/chdb
 * `globalParamChain`: its parameter state is not isolated per connection), so a query
 * waits for every parameterized query queued before it, whoever sent it. Tally's chDB
 * client hands its parameterized queries to chDB one at a time through this queue
 * instead (client.ts), so chDB's own chain is always empty, and this queue decides the
 * order: a request's query (a balance read) goes before the background loops' polls,
 * and each is measured: per kind of query and the background loop that sent it, how many
 * ran, how long they waited for their turn and how long they ran (`tally_chdb_param_*` on
 * /metrics; docs/credits.md).
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

/** A background query waiting this long goes before any request's (a steady flow of requests never starves the loops). */
export const BACKGROUND_MAX_WAIT_MS = 250;

interface Waiting {
  labels: string[];
  queued: number;
  start: () => Promise<void>;
}

/**
 * Runs one task at a time and counts each kind's wait and run. Two lanes, each first in,
 * first out: what a request (or a message callback) sends goes before what a background
 * loop sends (their order among themselves never mattered: each caller awaits its own
 * query), unless the oldest background task has waited BACKGROUND_MAX_WAIT_MS.
 */
export class ParamQueue {
  readonly #requests: Waiting[] = [];
  readonly #background: Waiting[] = [];
  #running = false;

  /** Tasks queued or running. */
  get depth(): number {
    return this.#requests.length + this.#background.length + (this.#running ? 1 : 0);
  }

  run<T>(kind: string, task: () => Promise<T>): Promise<T> {
    const loop = currentLoop();
    return new Promise<T>((resolve, reject) => {
      const w: Waiting = {
        labels: [kind, loop ?? '-'],
        queued: performance.now(),
        start: async () => {
          const start = performance.now();
          try {
            resolve(await task());
          } catch (err) {
            reject(err);
          } finally {
            metrics.queries.inc(w.labels);
            metrics.waitSeconds.inc(w.labels, (start - w.queued) / 1000);
            metrics.runSeconds.inc(w.labels, (performance.now() - start) / 1000);
          }
        },
      };
      (loop === undefined ? this.#requests : this.#background).push(w);
      this.#next();
    });
  }

  #next(): void {
    if (this.#running) return;
    const bg = this.#background[0];
    const overdue = bg !== undefined && performance.now() - bg.queued >= BACKGROUND_MAX_WAIT_MS;
    const w = (overdue ? this.#background.shift() : undefined) ?? this.#requests.shift() ?? this.#background.shift();
    if (!w) return;
    this.#running = true;
    void w.start().finally(() => {
      this.#running = false;
      this.#next();
    });
  }
}
