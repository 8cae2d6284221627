/**
 * The billing role's scheduler. Each tick, under a Postgres advisory lock (one
 * scheduler works at a time across processes; the unique (subscription, period)
 * constraint still guards every invoice):
 *
 * 1. generate: for every non-draft subscription, every ended period of its cycle after
 *    its latest invoice (from its contract's first period when it has none), oldest
 *    first, that had billable time: a draft, or finalized at once when the grace period
 *    is already over. Periods that ended while the billing role was down are caught up,
 *    whatever the length of the outage;
 * 2. finalize: every draft whose `grace_until` has passed is re-rated (late events
 *    land on it) and finalized; finalized invoices never change;
 * 3. commitments: prepaid commitment installments that came due are invoiced, and ended
 *    terms renew (billing/credits/commitments.ts); before expiry, so a renewed term's
 *    grant exists when the old one's remainder leaves;
 * 4. expire: every credit grant past its `expires_at` gets its `expiry` ledger entry
 *    (dated at the expiry instant) and `credits.expired` event, once;
 * 5. top up and watch: recurring credit top-ups due grant (once per rule and period),
 *    then every credit balance changed since it was last looked at is compared with its
 *    lines (`credits.balance_low`, `credits.depleted`, threshold top-ups), once per crossing.
 *
 * The clock is injected (`Invoicing.now`) so tests can move time.
 */
import { sql } from 'kysely';
import { logger } from '../../shared/log.ts';
import { startLoop } from '../../shared/loop.ts';
import { schedulerPassed, schedulerStarted } from '../metrics.ts';
import { BILLING_CYCLES, periodContaining, previousPeriod, toEpochMs, type Period } from '../rating/index.ts';
import type { Invoicing } from './context.ts';
import { finalizeInvoice, generateInvoice, nextPeriodOf } from './generate.ts';
import { loadSubject } from './rate-subscription.ts';
import { billableSegments } from './segments.ts';
import { BatchedUsage } from './batched-usage.ts';
import { expireGrants } from '../credits/ledger.ts';
import { advanceCommitments } from '../credits/commitments.ts';
import { runRecurringTopups } from '../credits/topups.ts';
import { watchBalances } from '../credits/watch.ts';
import { watchDeps } from '../live/open-period.ts';

const log = logger('billing-scheduler');

/** Advisory lock key of the scheduler ("tally-billing-scheduler"). */
export const SCHEDULER_LOCK_KEY = 7_341_902_115;

/** What one tick did. */
interface TickReport {
  /** False when another process held the lock. */
  ran: boolean;
  generated: number;
  finalized: number;
  skipped: number;
  failures: number;
  /** Credit grants whose expiry entry was written (billing/credits/ledger.ts). */
  expired: number;
  /** Prepaid commitment invoices issued and terms renewed (billing/credits/commitments.ts). */
  commitments: number;
  /** Grants written by recurring top-ups (billing/credits/topups.ts). */
  topups: number;
  /** Credit balances looked at by the balance watch (billing/credits/watch.ts). */
  watched: number;
}

/** At most this many ended periods of one subscription are caught up in one pass (the next pass goes on). */
const MAX_PERIODS_A_PASS = 120;

/**
 * Subscriptions that may have ended periods without an invoice (by their current plan's
 * cycle), with the time to look from: the end of their latest invoice, or their contract
 * date. The pass invoices every period from there to the last that ended, oldest first,
 * however long the billing role was down; periods without billable time make none.
 */
async function dueSubscriptions(inv: Invoicing, now: Date) {
  const out: { environmentId: string; subscriptionId: string; from: Date }[] = [];
  for (const cycle of BILLING_CYCLES) {
    const lastEnded = previousPeriod(periodContaining(now, cycle), cycle);
    const lastEnd = new Date(lastEnded.end);
    const rows = await inv.db
      .selectFrom('subscriptions as s')
      .innerJoin('rate_plans as rp', 'rp.id', 's.rate_plan_id')
      .leftJoin(
        (eb) => eb.selectFrom('invoices').select(['subscription_id', (e) => e.fn.max('period_end').as('invoiced_to')]).where('kind', '=', 'invoice').groupBy('subscription_id').as('i'),
        (join) => join.onRef('i.subscription_id', '=', 's.id'),
      )
      .select(['s.id', 's.environment_id', 's.contract_effective_date', 'i.invoiced_to'])
      .where('rp.billing_cycle_code', '=', cycle)
      .where('s.status', '!=', 'draft')
      .where('s.contract_effective_date', '<', lastEnd)
      .where((eb) => eb.or([eb('i.invoiced_to', 'is', null), eb('i.invoiced_to', '<', lastEnd)]))
      .orderBy('s.id')
      .execute();
    for (const r of rows) out.push({ environmentId: r.environment_id, subscriptionId: r.id, from: r.invoiced_to ? new Date(r.invoiced_to) : new Date(r.contract_effective_date) });
  }
  return out;
}

/** One pass of generation and finalization (see module doc). */
export async function runSchedulerPass(base: Invoicing): Promise<Omit<TickReport, 'ran'>> {
  // A pass rates many subscriptions of the same periods: one usage query per period.
  const inv: Invoicing = { ...base, usage: new BatchedUsage(base.usage) };
  const now = inv.now();
  const report = { generated: 0, finalized: 0, skipped: 0, failures: 0, commitments: 0, expired: 0, topups: 0, watched: 0 };
  for (const due of await dueSubscriptions(inv, now)) {
    try {
      const subject = await loadSubject(inv.db, due.environmentId, due.subscriptionId);
      // Each period in the cycle of the plan in force when it starts.
      const periods: Period[] = [];
      const start = due.from.getTime();
      for (let p = periodContaining(start, subject.cycleAt(start)); toEpochMs(p.end) <= now.getTime() && periods.length < MAX_PERIODS_A_PASS; p = nextPeriodOf(subject, p)) periods.push(p);
      for (const period of periods) {
        // Time that was never billable (paused, cancelled, not yet active) makes no invoice.
        if (billableSegments(subject.changes, period).length === 0) continue;
        const finalize = now.getTime() >= toEpochMs(period.end) + inv.config.graceMs;
        const r = await generateInvoice(inv, subject, period, { finalize, source: 'scheduler' });
        if (r.outcome === 'created') report.generated++;
        else report.skipped++;
      }
    } catch (err) {
      report.failures++;
      log.warn('scheduled generation failed', { subscription_id: due.subscriptionId, err });
    }
  }
  const drafts = await inv.db.selectFrom('invoices').select(['id', 'environment_id']).where('status', '=', 'draft').where('grace_until', '<=', now).orderBy('id').execute();
  for (const d of drafts) {
    try {
      await finalizeInvoice(inv, d.environment_id, d.id, 'scheduler');
      report.finalized++;
    } catch (err) {
      report.failures++;
      log.warn('scheduled finalization failed', { invoice_id: d.id, err });
    }
  }
  // Prepaid commitments: installments due, terms ended (renewed).
  try {
    const c = await advanceCommitments(inv.db, now, inv.config.netDays);
    report.commitments = c.invoiced + c.renewed;
  } catch (err) {
    report.failures++;
    log.warn('prepaid commitments failed', { err });
  }
  // Expired credit remainders leave the ledger with an entry at their expiry instant.
  try {
    report.expired = await expireGrants(inv.db, now);
  } catch (err) {
    report.failures++;
    log.warn('credit expiry failed', { err });
  }
  // Recurring top-ups due, then every balance changed and not yet looked at (alerts, threshold top-ups).
  const watch = watchDeps(inv, now);
  try {
    report.topups = await runRecurringTopups(watch);
    report.watched = await watchBalances(watch);
  } catch (err) {
    report.failures++;
    log.warn('credit top-ups or balance watch failed', { err });
  }
  return report;
}

/** One tick: the pass, if this process gets the advisory lock. */
export async function schedulerTick(inv: Invoicing): Promise<TickReport> {
  // A session lock lives on one connection: hold that connection for the whole pass.
  return inv.db.connection().execute(async (conn) => {
    const got = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${SCHEDULER_LOCK_KEY}) AS ok`.execute(conn);
    if (!got.rows[0]?.ok) return { ran: false, generated: 0, finalized: 0, skipped: 0, failures: 0, commitments: 0, expired: 0, topups: 0, watched: 0 };
    try {
      return { ran: true, ...(await runSchedulerPass(inv)) };
    } finally {
      await sql`SELECT pg_advisory_unlock(${SCHEDULER_LOCK_KEY})`.execute(conn);
    }
  });
}

/** Runs {@link schedulerTick} every `intervalMs` (the first after one interval) until stopped; ticks never overlap. */
export function startScheduler(inv: Invoicing, intervalMs: number): { stop(): Promise<void> } {
  const stopped = schedulerStarted();
  const loop = startLoop({
    name: 'billing-scheduler',
    intervalMs,
    firstDelayMs: intervalMs,
    run: async () => {
      const r = await schedulerTick(inv);
      if (r.ran) schedulerPassed();
      if (r.generated || r.finalized || r.failures || r.expired || r.topups || r.watched) log.info('billing scheduler tick', { ...r });
    },
  });
  return {
    async stop() {
      await loop.stop();
      stopped();
    },
  };
}
