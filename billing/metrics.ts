/**
 * The billing core's metrics, on the process registry served at GET /metrics (see
 * shared/metrics.ts): plain counters and clock readings, folded into prom-client when
 * scraped.
 */
import { Gauge, HotCounter, registry } from '../shared/metrics.ts';

/**
 * What generated or finalized an invoice: the billing role's scheduler, an API call
 * (generate, finalize), a bill run, or a correction (its replacement invoice, issued
 * finalized; credit notes are not invoices and not counted).
 */
export type InvoiceSource = 'scheduler' | 'api' | 'bill_run' | 'correction';

const invoicesGenerated = new HotCounter('tally_billing_invoices_generated_total', 'Invoices created, by what created them', ['source']);
const invoicesFinalized = new HotCounter('tally_billing_invoices_finalized_total', 'Invoices finalized, by what finalized them', ['source']);
const webhookAttempts = new HotCounter(
  'tally_billing_webhook_attempts_total',
  'Webhook delivery attempts, by outcome: delivered, or why it failed (status, timeout, refused, tls, dns, blocked_address, connection_failed)',
  ['outcome'],
);

export function countInvoiceGenerated(source: InvoiceSource): void {
  invoicesGenerated.inc([source]);
}

export function countInvoiceFinalized(source: InvoiceSource): void {
  invoicesFinalized.inc([source]);
}

/** One webhook attempt: `failure` null when the receiver took it. */
export function countWebhookAttempt(failure: string | null): void {
  webhookAttempts.inc([failure ?? 'delivered']);
}

/** The billing schedulers of this process: how many run, since when, and their last completed pass (ms since the epoch). */
const scheduler = { running: 0, startedAt: 0, lastPassAt: 0 };

new Gauge({
  name: 'tally_billing_scheduler_lag_seconds',
  help: "Seconds since this process's billing scheduler last completed a pass (since it started, before its first); 0 when none runs here. Across processes, the lowest is the system's lag.",
  registers: [registry],
  collect() {
    this.set(scheduler.running === 0 ? 0 : (Date.now() - Math.max(scheduler.startedAt, scheduler.lastPassAt)) / 1000);
  },
});

/** A billing scheduler starts in this process; call the function returned when it stops. */
export function schedulerStarted(): () => void {
  if (scheduler.running++ === 0) scheduler.startedAt = Date.now();
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    if (--scheduler.running === 0) scheduler.lastPassAt = 0;
  };
}

/** A scheduler pass ran to its end (this process held the lock). */
export function schedulerPassed(): void {
  scheduler.lastPassAt = Date.now();
}

/** When this process's cost rollup last read the sink position that a completed step then folded in (ms since the epoch; 0 before the first). */
let rollupCaughtUpAt = 0;

new Gauge({
  name: 'tally_billing_cost_rollup_lag_seconds',
  help: "How far the daily cost rollup is behind what the sink stored, in seconds: since the sink position its last completed step folded in was read (grows while steps fail or fall behind); 0 before this process's first step",
  registers: [registry],
  collect() {
    this.set(rollupCaughtUpAt === 0 ? 0 : (Date.now() - rollupCaughtUpAt) / 1000);
  },
});

/** For the cost rollup, after each step: it now holds everything the sink had stored at `floorReadAt` (ms since the epoch). */
export function rollupCaughtUp(floorReadAt: number): void {
  rollupCaughtUpAt = Math.max(rollupCaughtUpAt, floorReadAt);
}

/**
 * A piscina pool's wait-time record (piscina keeps one per pool: `recordTiming`, on by
 * default): milliseconds from `run` to a worker taking the task.
 */
interface TimedPool {
  readonly completed: number;
  readonly waitTime: { mean: number; p50: number; p90: number; p99: number } | null;
}

const QUANTILES = [
  [0.5, 'p50'],
  [0.9, 'p90'],
  [0.99, 'p99'],
] as const;
const ratingPools = new Set<TimedPool>();

/**
 * The rating queue wait as a Prometheus summary, read from the rating pools' own records
 * when scraped: `_count` and `_sum` add up the pools' tasks, each quantile is the highest
 * of the pools' (a process has one pool outside tests). Over each pool's lifetime.
 */
class RatingWaitSummary {
  readonly name = 'tally_billing_rating_queue_wait_seconds';
  readonly help = 'Time a rating task waited for a worker thread';
  readonly type = 'summary';
  readonly aggregator = 'sum';

  get() {
    const pools = [...ratingPools].filter((p) => p.completed > 0 && p.waitTime);
    const quantiles = QUANTILES.map(([q, key]) => ({ labels: { quantile: q }, value: Math.max(0, ...pools.map((p) => p.waitTime![key] / 1000)) }));
    let sum = 0;
    let count = 0;
    for (const p of pools) {
      sum += (p.waitTime!.mean / 1000) * p.completed;
      count += p.completed;
    }
    const values = [...quantiles, { labels: {}, value: sum, metricName: `${this.name}_sum` }, { labels: {}, value: count, metricName: `${this.name}_count` }];
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  reset(): void {}
}
registry.registerMetric(new RatingWaitSummary() as unknown as Parameters<typeof registry.registerMetric>[0]);

/** Reports a rating pool's queue wait until the function returned is called (when the pool closes). */
export function trackRatingPool(pool: TimedPool): () => void {
  ratingPools.add(pool);
  return () => void ratingPools.delete(pool);
}
