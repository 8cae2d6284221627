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
 * - A subscription whose open-period invoice is already issued mid-period still counts
 *   (docs/credits.md "Pending", docs/spend-limits.md): `period_total` is the period rated
 *   with all its usage so far (what was billed plus what a correction would add: spend
 *   limits count it), `total` what is not invoiced yet (pending): the rating less the
 *   issued invoice's charges (finalized or paid; never below zero), or all of it when
 *   that invoice is void (a void invoice bills nothing; a correction bills the period).
 * - The minimum-commitment true-up is left out until the period ends (mid-period it is
 *   the whole minimum less what was used so far, not usage); `total` is the charges after
 *   discounts.
 * - Fresh by construction: nothing is cached, so an event counts as soon as the sink has
 *   stored it in ClickHouse (its linger, 200 ms by default, after its acknowledgement).
 */
import { periodContaining, type Period, type RatedCharge } from '../rating/index.ts';
import { billableSegments } from '../invoicing/segments.ts';
import { Dec, formatMoney, roundToMinor } from '../rating/money.ts';
import type { CreditableLine } from '../credits/allocate.ts';
import type { Invoicing } from '../invoicing/context.ts';
import { loadAccountSubjects, type LoadedSubject } from '../invoicing/account-subjects.ts';
import { rateSubscription } from '../invoicing/rate-subscription.ts';
import type { MeasuredSegment, StoredLine } from '../invoicing/lines.ts';
import { agentShares } from './agent-spend.ts';
import { linesOf } from '../invoicing/store.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { CREDITS_LINE_TYPE } from '../credits/invoice-credits.ts';
import type { WatchDeps } from '../credits/watch.ts';
import { inlineRater } from '../invoicing/rater.ts';
import type { UsageSource } from '../invoicing/context.ts';

/** One subscription's open period rated with the usage so far. */
export interface OpenPeriodCharge {
  subscription_id: string;
  currency: string;
  period: Period;
  /** Charges after discounts so far not yet invoiced, without a minimum-commitment true-up (decimal text in the currency's minor units): the live `pending`. */
  total: string;
  /** Charges after discounts of the whole period so far, invoiced or not (no true-up): what a spend limit counts. Equals `total` unless the period's invoice is issued. */
  period_total: string;
  /** The rated lines behind `total` (no true-up line), as the credit burn-down reads them; net of an issued invoice's lines, per charge. */
  lines: CreditableLine[];
  /** The draft invoice of this period when one was generated already (its credit holds are superseded by this live figure), else null. */
  draft_invoice_id: string | null;
  /** Per agent instance, what the whole period's lines bill for it so far (agent-spend.ts), as `period_total` counts: an agent instance's spend. */
  agent_totals: Record<string, string>;
}

/** What the period's lines bill for each agent instance (agent-spend.ts), rounded half up to the currency's minor units. */
export function agentTotals(lines: readonly StoredLine[], segments: readonly MeasuredSegment[], currency: string): Record<string, string> {
  return Object.fromEntries([...agentShares(lines, segments)].map(([id, sum]) => [id, roundToMinor(sum, currency)]));
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

/**
 * What is not invoiced yet of a period whose invoice was issued (finalized or paid): the live
 * lines less the issued ones (credit and true-up lines left out), netted per charge, unit and
 * product, and the total less the issued total; never below zero (a correction that would
 * bill less gives back only when it is issued).
 */
async function notInvoiced(db: Db, issuedId: string, products: ReadonlyMap<string, string>, live: CreditableLine[], liveTotal: string, currency: string): Promise<{ total: string; lines: CreditableLine[] }> {
  const issued = (await db.selectFrom('invoices').select('total').where('id', '=', issuedId).executeTakeFirstOrThrow());
  const rows = (await linesOf(db, issuedId)).filter((l) => l.charge_type !== CREDITS_LINE_TYPE);
  const stored = rows.map((l) => ({ ...l, rate_plan_id: (l.detail as { rate_plan_id?: string }).rate_plan_id ?? '' })) as unknown as StoredLine[];
  const issuedNet = withoutTrueUp(issued.total, stored, currency);
  const key = (l: CreditableLine) => `${l.charge_id}\u0000${l.unit ?? ''}\u0000${l.product_id ?? ''}`;
  const net = new Map<string, CreditableLine>();
  for (const l of live) {
    const k = key(l);
    const prev = net.get(k);
    net.set(k, prev ? { ...prev, amount: new Dec(prev.amount).plus(l.amount).toFixed() } : { ...l });
  }
  for (const l of creditable(issuedNet.lines, products)) {
    const k = key(l);
    const prev = net.get(k);
    net.set(k, prev ? { ...prev, amount: new Dec(prev.amount).minus(l.amount).toFixed() } : { ...l, amount: new Dec(l.amount).neg().toFixed() });
  }
  const total = Dec.max(new Dec(liveTotal).minus(issuedNet.total), 0);
  const lines = [...net.values()].map((l) => ({ ...l, amount: formatMoney(new Dec(l.amount), currency) })).filter((l) => !new Dec(l.amount).isZero());
  return { total: formatMoney(total, currency), lines };
}

/** Called before a subscription's open period is rated, with the charges in force on each of its billable segments; throws to stop the rating. */
export type RatingCheck = (segmentCharges: readonly (readonly RatedCharge[])[]) => void;

/** One subscription's open period at `now`, or null when it bills nothing live (not billable). */
async function openPeriodOf(inv: Invoicing, loaded: LoadedSubject, now: Date, check?: RatingCheck): Promise<OpenPeriodCharge | null> {
  const { subject } = loaded;
  const period = periodContaining(now, subject.cycleAt(now.getTime()));
  const start = new Date(period.start).getTime();
  const existing = loaded.openInvoices.find((i) => i.period_start.getTime() === start);
  const catalog = loaded.catalog(new Date(period.start));
  check?.(billableSegments(subject.changes, period).map((s) => catalog.charges.get(s.rate_plan_id) ?? []));
  const rated = await rateSubscription(inv, subject, period, { catalog });
  if (!rated) return null;
  const { total, lines } = withoutTrueUp(rated.result.total, rated.lines, subject.currency);
  const live = creditable(lines, loaded.products);
  const base = { subscription_id: subject.sub.id, currency: subject.currency, period, period_total: total, agent_totals: agentTotals(lines, rated.segments, subject.currency) };
  if (!existing || existing.status === 'draft') return { ...base, total, lines: live, draft_invoice_id: existing?.id ?? null };
  // Issued mid-period: a void invoice bills nothing (all of it is pending); a finalized or paid one its own total.
  if (existing.status === 'void') return { ...base, total, lines: live, draft_invoice_id: null };
  return { ...base, ...(await notInvoiced(inv.db, existing.id, loaded.products, live, total, subject.currency)), draft_invoice_id: null };
}

/**
 * The open periods of an account's billable subscriptions at `now` (default the service's
 * clock), in subscription order (created, then id): the order the live credit burn-down
 * takes them in. Optionally of one currency. What the ratings read of Postgres is loaded
 * in one round trip (invoicing/account-subjects.ts). With `needed` (the credit balance's
 * ledger read, credits/ledger.ts), the usage is read and rated only once it resolves true;
 * false gives no periods (the caller does not use them). With `check`, each subscription is
 * checked before it is rated (the fast pass of money limits: billing/limits/monotone.ts).
 */
export async function openPeriodCharges(inv: Invoicing, environmentId: string, accountId: string, opts: { now?: Date; currency?: string; needed?: Promise<boolean>; check?: RatingCheck } = {}): Promise<OpenPeriodCharge[]> {
  const now = opts.now ?? inv.now();
  const loaded = await loadAccountSubjects(inv.db, environmentId, accountId, now);
  if (opts.needed && !(await opts.needed)) return [];
  const out = await Promise.all(loaded.map((l) => openPeriodOf(inv, l, now, opts.check)));
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
