/**
 * Invoicing: generation (on demand, bill runs, the billing role's scheduler), the
 * invoice lifecycle, simulation, previews and templates. See each module's doc.
 */
import type { Db } from '../../shared/db/postgres.ts';
import type { InvoicingConfig } from './config.ts';
import type { Invoicing, UsageSource } from './context.ts';
import { inlineRater, poolRater } from './rater.ts';

export { parseInvoicingConfig, type InvoicingConfig } from './config.ts';
export type { Invoicing } from './context.ts';
export { startScheduler, runSchedulerPass } from './scheduler.ts';

/** Builds the invoicing context; rating runs on piscina workers unless `inline` (tests). */
export function createInvoicing(opts: { db: Db; usage: UsageSource; config: InvoicingConfig; now?: () => Date; inline?: boolean }): Invoicing {
  return Object.freeze({
    db: opts.db,
    usage: opts.usage,
    config: opts.config,
    now: opts.now ?? (() => new Date()),
    rater: opts.inline ? inlineRater() : poolRater({ threads: opts.config.ratingThreads, maxQueue: opts.config.ratingMaxQueue }),
  });
}
