/**
 * The rating engine: pure functions from serializable input (decimal strings) to
 * serializable invoice lines. No IO; safe in a worker thread, a test or a simulation.
 *
 * Each charge model's rating rule is in its module (registry: models/index.ts):
 * flat and one_time (models/flat.ts, one-time.ts, fee.ts), per_unit (per-unit.ts),
 * tiered (tiered.ts), volume (volume.ts), package (package.ts), overage (overage.ts),
 * discount (discount.ts). Bands, packages, proration and rounding: rating-kit.ts.
 * This module parses usage, builds windows and dispatches each charge to its model.
 *
 * Rules common to all kinds:
 * - All amounts are exact decimals until each line is rounded ONCE with
 *   {@link roundToMinor}, half up to the currency's minor units. A charge whose lines
 *   span several segments of a period ({@link rateSegments}) is rounded once for the
 *   period and shared over its lines by largest remainder.
 * - Charges are rated first, in input order. Discounts come AFTER all charges: first
 *   those targeting a charge (`applies_to` = charge id, else charge name), then
 *   invoice-level ones, each group in input order, each on the remaining amount of its
 *   target (models/discount.ts computes its value and line).
 * - subtotal = sum of rounded charge lines; discount_total = sum of (negative) discount
 *   lines; total = subtotal + discount_total = sum of all lines.
 * - Minimum commitment ({@link rateSegments}, minimum-commitment.ts): after charges and
 *   discounts, a `minimum_commitment` line brings the period's total up to the segments'
 *   prorated minimum; it is a charge line (in the subtotal) that no discount reduces.
 * - Proration: fraction = elapsed ms of the active window within the period / period
 *   ms; prorated amounts are computed as amount x overlap_ms / period_ms (exact when it
 *   terminates). Lines show `proration` only when the fraction is not 1.
 */
import { CHARGE_MODEL_KINDS, chargeModel } from './models/index.ts';
import { alreadyApplied, applyDiscount } from './models/discount.ts';
import { normalizeUnitOfMeasure } from './charge-models.ts';
import { Dec, formatDecimal, normalizeCurrency } from './money.ts';
import { type Period, prorationRatio, toEpochMs, toIso } from './periods.ts';
import { type CommitmentSegment, minimumCommitmentLine } from './minimum-commitment.ts';
import { type ChargeWindow, RatingError, Rounder, type UnitUsage, type Window, num } from './rating-kit.ts';
import type { InvoiceLine, PricingOf, RatedCharge, UnitOfMeasure } from './types.ts';

export type { InvoiceLine } from './types.ts';
export { RatingError } from './rating-kit.ts';

/** Usage of one unit split by agent instance; `total` defaults to the sum (a larger total leaves an unattributed remainder). */
export interface UsageBreakdown {
  total?: string | number;
  by_agent_instance?: Record<string, string | number>;
}

/** Quantity of one unit: a decimal string (or number), or a per-agent-instance breakdown. */
type UsageQuantity = string | number | UsageBreakdown;

/** Usage of a period per unit of measure (keys in any accepted spelling, e.g. "@action"). */
export type Usage = Partial<Record<UnitOfMeasure, UsageQuantity>>;

/** Input of {@link rate}. */
export interface RateInput {
  currency: string;
  /** The billing period [start, end). */
  period: Period;
  /** Window the subscription was active in the period; recurring fees are prorated by it. Default: the whole period. */
  active?: { from?: string | null; to?: string | null };
  charges: RatedCharge[];
  usage: Usage;
}

/** Output of {@link rate}. */
interface RateResult {
  currency: string;
  lines: InvoiceLine[];
  /** Sum of the charge lines. */
  subtotal: string;
  /** Sum of the discount lines (zero or negative). */
  discount_total: string;
  /** subtotal + discount_total, never negative. */
  total: string;
}

/** One segment of a period for {@link rateSegments}: [from, to), the charges in force, and the usage within it. */
interface RateSegment {
  from: string;
  to: string;
  charges: RatedCharge[];
  usage: Usage;
  /** Minimum commitment per whole billing period in force on the segment (decimal text); absent or null: none. See minimum-commitment.ts. */
  minimum_commitment?: string | null;
}

/** Input of {@link rateSegments}. */
export interface RateSegmentsInput {
  currency: string;
  period: Period;
  segments: RateSegment[];
}

/** One rated segment. */
interface SegmentResult extends RateResult {
  from: string;
  to: string;
  /** Fraction of the period the segment covers. */
  proration: string;
}

/** Output of {@link rateSegments}: every segment's lines, then totals over all of them. */
export interface RateSegmentsResult extends RateResult {
  segments: SegmentResult[];
  /** The minimum commitment true-up line (also the last of `lines`), or null. */
  minimum_commitment: InvoiceLine | null;
}

// ---------------------------------------------------------------------------

function parseUsage(usage: Usage | undefined, path: string): Map<UnitOfMeasure, UnitUsage> {
  const out = new Map<UnitOfMeasure, UnitUsage>();
  if (usage === undefined || usage === null) return out;
  if (typeof usage !== 'object') throw new RatingError(path, 'usage must be an object keyed by unit of measure');
  for (const [key, value] of Object.entries(usage)) {
    const unit = normalizeUnitOfMeasure(key);
    const p = `${path}.${key}`;
    if (!unit) throw new RatingError(p, 'unknown unit of measure (expected @action, @outcome, @user or @seat)');
    if (out.has(unit)) throw new RatingError(p, `duplicate usage for ${unit}`);
    if (value === undefined || value === null) continue;
    if (typeof value === 'string' || typeof value === 'number') {
      const total = num(value, p, { nonNegative: true });
      out.set(unit, { total, parts: null, unattributed: total });
      continue;
    }
    const parts: { id: string; quantity: Dec }[] = [];
    let sum = new Dec(0);
    for (const [id, q] of Object.entries(value.by_agent_instance ?? {})) {
      const quantity = num(q, `${p}.by_agent_instance.${id}`, { nonNegative: true });
      parts.push({ id, quantity });
      sum = sum.plus(quantity);
    }
    parts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const total = value.total === undefined || value.total === null ? sum : num(value.total, `${p}.total`, { nonNegative: true });
    if (total.lt(sum)) throw new RatingError(`${p}.total`, 'total is less than the sum of by_agent_instance');
    out.set(unit, { total, parts: parts.length ? parts : null, unattributed: total.minus(sum) });
  }
  return out;
}

function makeWindow(period: Period, from: string | null | undefined, to: string | null | undefined): Window {
  const norm = { start: toIso(period.start), end: toIso(period.end) };
  const ratio = prorationRatio(from, to, norm);
  const ps = toEpochMs(norm.start);
  const s = from === null || from === undefined ? ps : Math.min(toEpochMs(norm.end), Math.max(ps, toEpochMs(from)));
  const e = Math.max(s, to === null || to === undefined ? toEpochMs(norm.end) : Math.min(toEpochMs(norm.end), toEpochMs(to)));
  const full = ratio.overlap_ms === ratio.period_ms;
  return {
    period: norm,
    servicePeriod: { start: new Date(s).toISOString(), end: new Date(e).toISOString() },
    ratio,
    fraction: full ? null : formatDecimal(new Dec(ratio.overlap_ms).div(ratio.period_ms)),
  };
}

function checkCharge(c: RatedCharge, path: string): void {
  if (!c || typeof c !== 'object') throw new RatingError(path, 'charge must be an object');
  if (typeof c.id !== 'string' || !c.id) throw new RatingError(`${path}.id`, 'id must be a non-empty string');
  if (!CHARGE_MODEL_KINDS.includes(c.model)) throw new RatingError(`${path}.model`, `unknown charge model ${JSON.stringify(c.model)}`);
  if (!c.pricing || c.pricing.kind !== c.model) throw new RatingError(`${path}.pricing`, `pricing.kind must equal model ${c.model}`);
}

/**
 * The billing period's usage around one segment, per unit: what earlier segments of the
 * period used (`before`) and the whole period's (`total`). Tiers, volume bands, packages
 * and included units count from the start of the period, so a pause or a plan change
 * never grants them again. A period rated whole has nothing before and its own total.
 */
interface PeriodUsage {
  before: Map<UnitOfMeasure, Dec>;
  total: Map<UnitOfMeasure, Dec>;
}

/** The window as the charge's model sees it (see {@link ChargeWindow}). */
function chargeWindow(c: RatedCharge, path: string, usage: Map<UnitOfMeasure, UnitUsage>, w: Window, r: Rounder, period: PeriodUsage): ChargeWindow {
  const unit = c.unit_of_measure;
  const unitUsage = (unit ? usage.get(unit) : undefined) ?? { total: new Dec(0), parts: null, unattributed: new Dec(0) };
  return {
    path: `${path}.pricing`,
    line: {
      charge_id: c.id,
      charge_name: c.name,
      model: c.model,
      charge_type: c.charge_type,
      unit: unit ?? null,
      service_period: w.servicePeriod,
    },
    usage: unitUsage,
    before: (unit && period.before.get(unit)) || new Dec(0),
    periodTotal: (unit && period.total.get(unit)) || unitUsage.total,
    window: w,
    rounder: r,
  };
}

/** Rates the charge lines (no discounts) of one window: the charge's model rates them. */
function rateCharge(c: RatedCharge, path: string, usage: Map<UnitOfMeasure, UnitUsage>, w: Window, r: Rounder, period: PeriodUsage): InvoiceLine[] {
  return chargeModel(c.model).rate(c.pricing, c, chargeWindow(c, path, usage, w, r, period));
}

interface WindowResult {
  lines: InvoiceLine[];
  subtotal: Dec;
  discountTotal: Dec;
}

/** Rates one window (the whole or part of a period): charge lines, then discount lines. */
function rateWindow(charges: RatedCharge[], usageIn: Usage, w: Window, r: Rounder, path: string, periodOf?: (usage: Map<UnitOfMeasure, UnitUsage>) => PeriodUsage): WindowResult {
  if (!Array.isArray(charges)) throw new RatingError(`${path}.charges`, 'charges must be an array');
  const usage = parseUsage(usageIn, `${path}.usage`);
  charges.forEach((c, i) => checkCharge(c, `${path}.charges[${i}]`));
  const period = periodOf ? periodOf(usage) : { before: new Map(), total: new Map() };

  const lines: InvoiceLine[] = [];
  const remainingByCharge = new Map<string, Dec>();
  let subtotal = new Dec(0);
  charges.forEach((c, i) => {
    if (c.model === 'discount') return;
    for (const line of rateCharge(c, `${path}.charges[${i}]`, usage, w, r, period)) {
      lines.push(line);
      const a = new Dec(line.amount);
      subtotal = subtotal.plus(a);
      remainingByCharge.set(c.id, (remainingByCharge.get(c.id) ?? new Dec(0)).plus(a));
    }
  });

  // Discounts after all charges: those targeting a charge first, then invoice-level ones.
  const discounts = charges
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.model === 'discount')
    .map(({ c, i }) => ({ c, i, p: c.pricing as PricingOf<'discount'> }));
  const ordered = [...discounts.filter((d) => d.p.applies_to !== null), ...discounts.filter((d) => d.p.applies_to === null)];

  let invoiceRemaining = subtotal;
  let discountTotal = new Dec(0);
  for (const { c, i, p } of ordered) {
    const pp = `${path}.charges[${i}].pricing`;
    if (alreadyApplied(c)) continue;
    let targetId: string | null = null;
    if (p.applies_to !== null) {
      const target = charges.find((x) => x.model !== 'discount' && x.id === p.applies_to) ?? charges.find((x) => x.model !== 'discount' && x.name === p.applies_to);
      if (!target) throw new RatingError(`${pp}.applies_to`, `discount targets unknown charge ${JSON.stringify(p.applies_to)}`);
      targetId = target.id;
    }
    const baseAmount = targetId === null ? invoiceRemaining : Dec.min(remainingByCharge.get(targetId) ?? new Dec(0), invoiceRemaining);
    const { value, line } = applyDiscount(c, targetId, baseAmount, { path: pp, window: w, rounder: r });
    invoiceRemaining = invoiceRemaining.minus(value);
    if (targetId !== null) remainingByCharge.set(targetId, (remainingByCharge.get(targetId) ?? new Dec(0)).minus(value));
    discountTotal = discountTotal.minus(value);
    lines.push(line);
  }
  return { lines, subtotal, discountTotal };
}

/** Sums of a list of lines: charges (subtotal) and discounts (zero or negative). */
function lineTotals(lines: readonly InvoiceLine[]): { subtotal: Dec; discountTotal: Dec } {
  let subtotal = new Dec(0);
  let discountTotal = new Dec(0);
  for (const l of lines) {
    if (l.model === 'discount') discountTotal = discountTotal.plus(l.amount);
    else subtotal = subtotal.plus(l.amount);
  }
  return { subtotal, discountTotal };
}

/**
 * Each charge (and discount) whose lines span several segments is rounded once: the sum
 * of its lines' exact amounts, rounded to minor units, shared over those lines by largest
 * remainder (as a charge's per-agent lines are within a segment). `exact` holds the same
 * lines rated with {@link Rounder.exact}.
 */
function roundOncePerCharge(rounded: InvoiceLine[][], exact: InvoiceLine[][], r: Rounder): void {
  const byCharge = new Map<string, { line: InvoiceLine; exact: Dec; segment: number }[]>();
  rounded.forEach((lines, i) => {
    const twins = exact[i]!;
    if (twins.length !== lines.length) throw new Error(`exact rating of segment ${i} gave ${twins.length} lines, not ${lines.length}`);
    lines.forEach((line, j) => {
      const twin = twins[j]!;
      if (twin.charge_id !== line.charge_id || twin.agent_instance_id !== line.agent_instance_id) throw new Error(`exact rating of segment ${i} differs at line ${j}`);
      const group = byCharge.get(line.charge_id);
      const entry = { line, exact: new Dec(twin.amount), segment: i };
      if (group) group.push(entry);
      else byCharge.set(line.charge_id, [entry]);
    });
  });
  for (const group of byCharge.values()) {
    if (group.every((g) => g.segment === group[0]!.segment)) continue;
    const sum = group.reduce((a, g) => a.plus(g.exact), new Dec(0));
    const negative = sum.isNegative();
    const shares = r.allocate(r.roundSum(sum.abs()), group.map((g) => g.exact.abs()));
    group.forEach((g, k) => (g.line.amount = r.fmt(negative ? shares[k]!.neg() : shares[k]!)));
  }
}

/**
 * Rates one billing period: charge lines, then discount lines, with totals (no minimum
 * commitment: invoices, previews and simulations rate with {@link rateSegments}).
 * Throws {@link RatingError} (or MoneyError/PeriodError) on invalid input.
 */
export function rate(input: RateInput): RateResult {
  const currency = normalizeCurrency(input.currency);
  const r = new Rounder(currency);
  const w = makeWindow(input.period, input.active?.from, input.active?.to);
  const res = rateWindow(input.charges, input.usage, w, r, 'input');
  return {
    currency,
    lines: res.lines,
    subtotal: r.fmt(res.subtotal),
    discount_total: r.fmt(res.discountTotal),
    total: r.fmt(res.subtotal.plus(res.discountTotal)),
  };
}

/**
 * Rates a period split into segments (plan changes, pauses): each segment [from, to)
 * is rated with its own charges and usage; recurring fees (flat, overage base fee,
 * recurring amount discounts) are prorated by the segment's share of the period;
 * usage charges bill the segment's own usage, but tiers, volume bands, packages and
 * included units count the unit's usage from the start of the period (whatever plan
 * earlier segments were on): a pause or a plan change never grants them again. A
 * segment bills what its usage adds (tiered, package, overage), or its units at the
 * band of the period's total (volume).
 * Segments must lie within the period, be non-empty, ordered and not overlap (gaps allowed).
 * Example: 100/month until mid-month, then 200/month: 50 + 100 = 150.
 */
export function rateSegments(input: RateSegmentsInput): RateSegmentsResult {
  const currency = normalizeCurrency(input.currency);
  const r = new Rounder(currency);
  if (!Array.isArray(input.segments) || input.segments.length === 0) throw new RatingError('input.segments', 'at least one segment is required');
  const ps = toEpochMs(input.period.start);
  const pe = toEpochMs(input.period.end);
  let prevEnd = ps;
  // Each unit's usage over the whole period, and before each segment (see PeriodUsage).
  const unitTotals = input.segments.map((seg, i) => parseUsage(seg?.usage, `input.segments[${i}].usage`));
  const total = new Map<UnitOfMeasure, Dec>();
  for (const u of unitTotals) for (const [unit, q] of u) total.set(unit, (total.get(unit) ?? new Dec(0)).plus(q.total));
  const before = new Map<UnitOfMeasure, Dec>();
  const segments: SegmentResult[] = [];
  const lines: InvoiceLine[] = [];
  let subtotal = new Dec(0);
  let discountTotal = new Dec(0);
  // With several segments, each is also rated as good as exactly, so that a charge
  // split over segments (a pause, a plan change and back) is rounded once for the
  // period: an invoice never depends on how its time is split.
  const exactRounder = input.segments.length > 1 ? Rounder.exact(currency) : undefined;
  const exactLines: InvoiceLine[][] = [];
  const commitment: CommitmentSegment[] = [];
  input.segments.forEach((seg, i) => {
    const path = `input.segments[${i}]`;
    const from = toEpochMs(seg.from);
    const to = toEpochMs(seg.to);
    if (!(to > from)) throw new RatingError(path, 'segment "to" must be after "from"');
    if (from < ps || to > pe) throw new RatingError(path, 'segment must lie within the period');
    if (from < prevEnd) throw new RatingError(path, 'segments must be ordered and must not overlap');
    prevEnd = to;
    const w = makeWindow(input.period, seg.from, seg.to);
    commitment.push({ minimum: seg.minimum_commitment, window: w, path: `${path}.minimum_commitment` });
    const periodUsage = () => ({ before: new Map(before), total });
    const res = rateWindow(seg.charges, seg.usage, w, r, path, periodUsage);
    if (exactRounder) exactLines.push(rateWindow(seg.charges, seg.usage, w, exactRounder, path, periodUsage).lines);
    for (const [unit, q] of unitTotals[i]!) before.set(unit, (before.get(unit) ?? new Dec(0)).plus(q.total));
    segments.push({ from: w.servicePeriod.start, to: w.servicePeriod.end, proration: w.fraction ?? '1', currency, lines: res.lines, subtotal: '', discount_total: '', total: '' });
  });
  if (exactRounder) roundOncePerCharge(segments.map((s) => s.lines), exactLines, r);
  for (const seg of segments) {
    const t = lineTotals(seg.lines);
    seg.subtotal = r.fmt(t.subtotal);
    seg.discount_total = r.fmt(t.discountTotal);
    seg.total = r.fmt(t.subtotal.plus(t.discountTotal));
    lines.push(...seg.lines);
    subtotal = subtotal.plus(t.subtotal);
    discountTotal = discountTotal.plus(t.discountTotal);
  }
  // After charges and discounts: the minimum commitment true-up (a charge, in the subtotal).
  const trueUp = minimumCommitmentLine(commitment, subtotal.plus(discountTotal), r);
  if (trueUp) {
    lines.push(trueUp);
    subtotal = subtotal.plus(trueUp.amount);
  }
  return {
    currency,
    segments,
    minimum_commitment: trueUp,
    lines,
    subtotal: r.fmt(subtotal),
    discount_total: r.fmt(discountTotal),
    total: r.fmt(subtotal.plus(discountTotal)),
  };
}
