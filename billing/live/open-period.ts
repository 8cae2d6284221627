/**
 * Live rating of the open period: what each of an account's subscriptions would bill for
 * its current period with the usage ClickHouse holds now, rated by the invoice's own
 * path (rate-subscription.ts, as the invoice preview and generation do), so the figure is
 * exact decimal and equal to the draft invoice generated at the same instant.
 *
 * Used by the credit balance (`pending`, docs/credits.md "Credits") and meant for spend limits at
 * the ingest edge (issue 32): `openPeriodCharges` is the one entry point.
 *
 * Rules:
 * - The open period of a subscription is the period of its cycle containing `now`.
 * - A subscription whose open-period invoice is already issued (finalized, paid, void)
 *   contributes nothing: later usage of that period is a correction's, not pending.
 * - The minimum-commitment true-up is left out until the period ends (mid-period it is
 *   the whole minimum less what was used so far, not usage); `total` is the charges after
 *   discounts.
 * - Fresh by construction: nothing is cached, so an event counts as soon as the sink has
 *   stored it in ClickHouse (its linger, 200 ms by default, after its acknowledgement).
 */
import { periodContaining, type Period } from '../rating/index.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import type { CreditableLine } from '../credits/allocate.ts';
import type { Invoicing } from '../invoicing/context.ts';
import { loadAccountSubjects, type LoadedSubject } from '../invoicing/account-subjects.ts';
import { rateSubscription } from '../invoicing/rate-subscription.ts';
import type { StoredLine } from '../invoicing/lines.ts';
import type { WatchDeps } from '../credits/watch.ts';
import { inlineRater } from '../invoicing/rater.ts';
import type { UsageSource } from '../invoicing/context.ts';

/** One subscription's open period rated with the usage so far. */
export interface OpenPeriodCharge {
  subscription_id: string;
  currency: string;
  period: Period;
  /** Charges after discounts so far, without a minimum-commitment true-up (decimal text in the currency's minor units). */
  total: string;
  /** The rated lines behind `total` (no true-up line), as the credit burn-down reads them. */
  lines: CreditableLine[];
  /** The draft invoice of this period when one was generated already (its credit holds are superseded by this live figure), else null. */
  draft_invoice_id: string | null;
}

/** Charges after discounts, without the true-up line (which counts only once the period ends). */
export function withoutTrueUp(total: string, lines: readonly StoredLine[], currency: string): { total: string; lines: StoredLine[] } {
  const trueUp = lines.filter((l) => l.model === 'minimum_commitment');
  const rest = lines.filter((l) => l.model !== 'minimum_commitment');
  const amount = trueUp.reduce((s, l) => s.plus(l.amount), new Dec(0));
  return { total: formatMoney(new Dec(total).minus(amount), currency), lines: rest };
}

/** The lines with the product each bills (through the line's rate plan), as the burn-down sees them. */
function creditable(lines: readonly StoredLine[], products: ReadonlyMap<string, string>): CreditableLine[] {
  return lines.map((l) => ({ position: l.position, charge_id: l.charge_id, product_id: products.get(l.rate_plan_id) ?? null, unit: l.unit, amount: l.amount }));
}

/** One subscription's open period at `now`, or null when it bills nothing live (not billable, or that period's invoice is issued). */
async function openPeriodOf(inv: Invoicing, loaded: LoadedSubject, now: Date): Promise<OpenPeriodCharge | null> {
  const { subject } = loaded;
  const period = periodContaining(now, subject.cycleAt(now.getTime()));
  const start = new Date(period.start).getTime();
  const existing = loaded.openInvoices.find((i) => i.period_start.getTime() === start);
  if (existing && existing.status !== 'draft') return null;
  const rated = await rateSubscription(inv, subject, period, { catalog: loaded.catalog(new Date(period.start)) });
  if (!rated) return null;
  const { total, lines } = withoutTrueUp(rated.result.total, rated.lines, subject.currency);
  return { subscription_id: subject.sub.id, currency: subject.currency, period, total, lines: creditable(lines, loaded.products), draft_invoice_id: existing?.id ?? null };
}

/**
 * The open periods of an account's billable subscriptions at `now` (default the service's
 * clock), in subscription order (created, then id): the order the live credit burn-down
 * takes them in. Optionally of one currency. What the ratings read of Postgres is loaded
 * in one round trip (invoicing/account-subjects.ts).
 */
export async function openPeriodCharges(inv: Invoicing, environmentId: string, accountId: string, opts: { now?: Date; currency?: string } = {}): Promise<OpenPeriodCharge[]> {
  const now = opts.now ?? inv.now();
  const loaded = await loadAccountSubjects(inv.db, environmentId, accountId, now);
  const out = await Promise.all(loaded.map((l) => openPeriodOf(inv, l, now)));
  return out.filter((c): c is OpenPeriodCharge => c !== null && (opts.currency === undefined || c.currency === opts.currency));
}

/** What the balance watch (credits/watch.ts) needs of an invoicing context: its balances include the open periods rated live. */
export function watchDeps(inv: Invoicing, now: Date = inv.now()): WatchDeps {
  return { db: inv.db, now, netDays: inv.config.netDays, live: (environmentId, accountId, at) => openPeriodCharges(inv, environmentId, accountId, { now: at }) };
}

/**
 * The invoicing context of live figures: usage from the live usage cache (usage-cache.ts),
 * and one account's open period rated inline (the same pure rating, without a worker
 * hand-off on every read).
 */
export function liveInvoicing(inv: Invoicing, usage: UsageSource | undefined): Invoicing {
  return { ...inv, usage: usage ?? inv.usage, rater: inlineRater() };
}
