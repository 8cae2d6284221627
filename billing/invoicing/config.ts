import { Type } from '@sinclair/typebox';
import { parseEnv, type Env } from '../../shared/config/parse.ts';

/** Days from an invoice's issue date to its due date unless TALLY_INVOICE_NET_DAYS says otherwise. */
export const DEFAULT_NET_DAYS = 30;

const InvoicingEnv = Type.Object({
  /** How long after its period ends a draft invoice is re-rated for late events before it is finalized. */
  TALLY_INVOICE_GRACE_HOURS: Type.Number({ minimum: 0, maximum: 24 * 35, default: 48 }),
  /** Days from the issue date to the due date. */
  TALLY_INVOICE_NET_DAYS: Type.Integer({ minimum: 0, maximum: 365, default: DEFAULT_NET_DAYS }),
  /** Interval of the billing role's scheduler (generate ended periods, finalize drafts past grace). */
  TALLY_BILLING_SCHEDULER_INTERVAL_MS: Type.Integer({ minimum: 100, default: 60_000 }),
  /** Interval of the billing role's daily cost rollup (folds new actions into the report figures). */
  TALLY_COST_ROLLUP_INTERVAL_MS: Type.Integer({ minimum: 100, default: 5000 }),
  /** Actions one cost rollup step (and each part of its first build) folds at most, so its memory is bounded (billing/costs/cost-rollup.ts). */
  TALLY_COST_ROLLUP_STEP_ACTIONS: Type.Integer({ minimum: 1000, default: 100_000 }),
  /** Rating worker threads (piscina). */
  TALLY_RATING_THREADS: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
  /** Rating tasks that may wait for a worker; beyond it requests get 503. */
  TALLY_RATING_MAX_QUEUE: Type.Integer({ minimum: 1, default: 1000 }),
  /** How often the live tail (api and billing roles) reads the events stream and the sink's progress (billing/live/tail.ts). */
  TALLY_LIVE_USAGE_POLL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 100 }),
  /** The most usage entries the live tail holds (billing/live/tail.ts); beyond it live usage is ClickHouse's alone until the sink catches up. */
  TALLY_LIVE_TAIL_MAX_ENTRIES: Type.Integer({ minimum: 1000, maximum: 100_000_000, default: 500_000 }),
  /** Bytes of messages a live-tail poll reads from the stream at most; a larger backlog (no usage delta of theirs heard) is left to the sink (billing/live/tail.ts READ_BACKLOG_MAX_BYTES). */
  TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES: Type.Integer({ minimum: 1, default: 4 * 1024 * 1024 }),
  /** How often the api role looks at the credit balances of accounts with new usage (alerts and threshold top-ups on the live pending). */
  TALLY_CREDIT_USAGE_WATCH_MS: Type.Integer({ minimum: 50, maximum: 3_600_000, default: 1000 }),
});

export interface InvoicingConfig {
  readonly graceMs: number;
  readonly netDays: number;
  readonly schedulerIntervalMs: number;
  readonly costRollupIntervalMs: number;
  readonly costRollupStepActions: number;
  readonly ratingThreads: number;
  readonly ratingMaxQueue: number;
  readonly liveUsagePollMs: number;
  readonly liveTailMaxEntries: number;
  readonly liveTailReadBacklogMaxBytes: number;
  readonly creditUsageWatchMs: number;
}

export function parseInvoicingConfig(env: Env): InvoicingConfig {
  const e = parseEnv(InvoicingEnv, env);
  return Object.freeze({
    graceMs: Math.round(e.TALLY_INVOICE_GRACE_HOURS * 3_600_000),
    netDays: e.TALLY_INVOICE_NET_DAYS,
    schedulerIntervalMs: e.TALLY_BILLING_SCHEDULER_INTERVAL_MS,
    costRollupIntervalMs: e.TALLY_COST_ROLLUP_INTERVAL_MS,
    costRollupStepActions: e.TALLY_COST_ROLLUP_STEP_ACTIONS,
    ratingThreads: e.TALLY_RATING_THREADS,
    ratingMaxQueue: e.TALLY_RATING_MAX_QUEUE,
    liveUsagePollMs: e.TALLY_LIVE_USAGE_POLL_MS,
    liveTailMaxEntries: e.TALLY_LIVE_TAIL_MAX_ENTRIES,
    liveTailReadBacklogMaxBytes: e.TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES,
    creditUsageWatchMs: e.TALLY_CREDIT_USAGE_WATCH_MS,
  });
}
