/**
 * The rating engine: pure functions from serializable input (decimal strings) to
 * serializable invoice lines. No IO; safe in a worker thread, a test or a simulation.
 *
 * Rules (all amounts exact decimals until each line is rounded ONCE with
 * {@link roundToMinor}, half up to the currency's minor units):
 * - per_unit: quantity x unit_price. When the usage of the unit is split by agent
 *   instance, one line per instance (plus one without an instance for any
 *   unattributed remainder), each rounded on its own.
 * - tiered (graduated): each band's units are priced at the band's rate; the line is
 *   the rounded sum of its bands. Bands with no units are not listed.
 * - volume: the band holding the last unit (the total quantity) prices every unit.
 * - package: ceil(quantity / package_size) x package_price.
 *   In every tier `counter` is a package size: a band's charge is band units x price
 *   when it is 1 (fractional quantities, e.g. an @outcome sum of 2.5, are never rounded,
 *   as under per_unit), else ceil(band units / counter) x price (partial packages round up).
 * - flat (charge type recurring or usage): amount per period x proration fraction.
 * - overage: base_fee x proration fraction + max(0, quantity - included_units) x
 *   overage_unit_price (the allowance itself is not prorated).
 * - one_time, or flat with charge type one_time: amount once, never prorated; no line
 *   when `already_charged` is true.
 * - Tiered/volume/package/overage rate the total quantity of the unit (tiers apply to
 *   the whole account's usage), so their lines carry no agent_instance_id.
 * - Discounts come AFTER all charges: first those targeting a charge (`applies_to` =
 *   charge id, else charge name), then invoice-level ones, each group in input order.
 *   A percent discount is round(percent/100 x remaining), an amount discount is its
 *   amount (x the proration fraction when its charge type is recurring), capped at the
 *   remaining amount of its target, so nothing goes below zero. Discount lines are
 *   negative; a one_time discount with `already_charged` produces no line.
 * - subtotal = sum of rounded charge lines; discount_total = sum of (negative) discount
 *   lines; total = subtotal + discount_total = sum of all lines.
 * - Proration: fraction = elapsed ms of the active window within the period / period
 *   ms; prorated amounts are computed as amount x overlap_ms / period_ms (exact when it
 *   terminates). Lines show `proration` only when the fraction is not 1.
 */
import type { CanonicalPricing, ChargeModelKind, ChargeType, RatedCharge, Tier, UnitOfMeasure } from './charge-models.ts';
import { CHARGE_MODEL_KINDS, normalizeUnitOfMeasure } from './charge-models.ts';
import { Dec, formatDecimal, formatMoney, minorUnits, normalizeCurrency, tryParseDecimal } from './money.ts';
import { type Period, type ProrationRatio, prorationRatio, toEpochMs, toIso } from './periods.ts';

/** Usage of one unit split by agent instance; `total` defaults to the sum (a larger total leaves an unattributed remainder). */
export interface UsageBreakdown {
  total?: string | number;
  by_agent_instance?: Record<string, string | number>;
}

/** Quantity of one unit: a decimal string (or number), or a per-agent-instance breakdown. */
export type UsageQuantity = string | number | UsageBreakdown;

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

/** One band of a tiered/volume/package computation. `from`/`to` are 1-based unit numbers, inclusive (`to` null = unbounded). */
export interface AppliedTier {
  from: string;
  to: string | null;
  /** Units of the usage falling in (tiered) or priced by (volume, package) this band. */
  quantity: string;
  /** ceil(quantity / counter). */
  packages: string;
  /** Price per package of `counter` units. */
  price: string;
  /** packages x price, exact (not rounded). */
  amount: string;
}

/** Detail of an overage line (exact, unrounded parts). */
export interface OverageDetail {
  base_fee: string;
  included_units: string;
  overage_quantity: string;
  overage_unit_price: string;
  overage_amount: string;
}

/** Detail of a discount line. */
export interface DiscountDetail {
  /** Charge id the discount targeted, or null for the whole invoice. */
  applies_to: string | null;
  percent: string | null;
  /** Configured flat amount (before proration and capping), or null. */
  amount: string | null;
  /** Remaining amount of the target the discount was computed on (rounded money). */
  base: string;
}

/** One invoice line. Money in `amount` has exactly the currency's minor-unit decimals. */
export interface InvoiceLine {
  charge_id: string;
  charge_name: string;
  model: ChargeModelKind;
  charge_type: ChargeType;
  unit: UnitOfMeasure | null;
  /** Units rated ("1" for flat, one-time and discount lines). */
  quantity: string;
  /** per_unit price, flat/one_time amount, volume band price, package price, overage unit price; null for tiered and discounts. */
  unit_price: string | null;
  /** Bands applied (tiered, volume, package), else null. */
  tiers: AppliedTier[] | null;
  overage?: OverageDetail;
  discount?: DiscountDetail;
  /** Proration fraction applied (decimal string), null when none or 1. */
  proration: string | null;
  /** Rounded once to minor units; negative for discounts. */
  amount: string;
  /** Present when the usage was split by agent instance. */
  agent_instance_id?: string;
  /** The part of the billing period this line covers. */
  service_period: Period;
}

/** Output of {@link rate}. */
export interface RateResult {
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
export interface RateSegment {
  from: string;
  to: string;
  charges: RatedCharge[];
  usage: Usage;
}

/** Input of {@link rateSegments}. */
export interface RateSegmentsInput {
  currency: string;
  period: Period;
  segments: RateSegment[];
}

/** One rated segment. */
export interface SegmentResult extends RateResult {
  from: string;
  to: string;
  /** Fraction of the period the segment covers. */
  proration: string;
}

/** Output of {@link rateSegments}: every segment's lines, then totals over all of them. */
export interface RateSegmentsResult extends RateResult {
  segments: SegmentResult[];
}

/** Thrown on invalid rating input; `path` names the offending field. */
export class RatingError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'RatingError';
    this.path = path;
  }
}

// ---------------------------------------------------------------------------

function num(value: unknown, path: string, opts: { nonNegative?: boolean } = {}): Dec {
  const d = tryParseDecimal(value);
  if (d === null) throw new RatingError(path, `expected a decimal string, got ${JSON.stringify(value)}`);
  if (opts.nonNegative && d.isNeg() && !d.isZero()) throw new RatingError(path, 'must not be negative');
  return d;
}

/** ceil(q / size) computed exactly for q >= 0. */
function packagesOf(q: Dec, size: Dec): Dec {
  const rem = q.mod(size);
  const whole = q.minus(rem).div(size);
  return rem.isZero() ? whole : whole.plus(1);
}

/**
 * What a band charges for: its units as they are (counter 1: 2.5 units cost 2.5 x price,
 * as under per_unit; quantities are never rounded), or whole packages of `counter`
 * units (partial packages round up, as package pricing does).
 */
function unitsOrPackages(units: Dec, counter: Dec): Dec {
  return counter.eq(1) ? units : packagesOf(units, counter);
}

interface UnitUsage {
  total: Dec;
  /** Per-instance quantities sorted by instance id, or null when not split. */
  parts: { id: string; quantity: Dec }[] | null;
  unattributed: Dec;
}

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

/** Canonical tiers as numeric bands: lower = units before the band, upper = units up to its end (null = unbounded). */
function bands(tiers: readonly Tier[], path: string) {
  if (!tiers.length) throw new RatingError(path, 'tiers must contain at least one tier');
  return tiers.map((t, i) => {
    const start = num(t.start, `${path}[${i}].start`);
    const next = tiers[i + 1];
    const nextStart = next ? num(next.start, `${path}[${i + 1}].start`) : null;
    if (i === 0 && !start.eq(1)) throw new RatingError(`${path}[0].start`, 'canonical tiers start at 1');
    if (nextStart && !nextStart.gt(start)) throw new RatingError(`${path}[${i + 1}].start`, 'tiers must be strictly increasing');
    const counter = num(t.counter ?? '1', `${path}[${i}].counter`);
    if (!counter.isInteger() || counter.lt(1)) throw new RatingError(`${path}[${i}].counter`, 'counter must be an integer of at least 1');
    return {
      start,
      lower: start.minus(1),
      upper: nextStart ? nextStart.minus(1) : null,
      price: num(t.price, `${path}[${i}].price`, { nonNegative: true }),
      counter,
    };
  });
}

/** Graduated tiers: every band with units, priced at its own rate. Exported for simulations and tests. */
export function tieredBands(tiers: readonly Tier[], quantity: string): AppliedTier[] {
  return tieredBandsBetween(tiers, new Dec(0), num(quantity, 'quantity', { nonNegative: true }));
}

/**
 * The bands of the units after `before` up to `end` (units counted from the start of the
 * billing period): what a segment of the period adds when earlier segments used `before`.
 * A band's packages are those up to `end` less those up to `before`.
 */
function tieredBandsBetween(tiers: readonly Tier[], before: Dec, end: Dec): AppliedTier[] {
  const out: AppliedTier[] = [];
  for (const b of bands(tiers, 'tiers')) {
    if (!end.gt(b.lower)) break;
    const upTo = (x: Dec) => Dec.max(0, (b.upper ? Dec.min(x, b.upper) : x).minus(b.lower));
    const inBand = upTo(end).minus(upTo(before));
    if (!inBand.gt(0)) continue;
    const packages = unitsOrPackages(upTo(end), b.counter).minus(unitsOrPackages(upTo(before), b.counter));
    out.push({
      from: formatDecimal(b.start),
      to: b.upper ? formatDecimal(b.upper) : null,
      quantity: formatDecimal(inBand),
      packages: formatDecimal(packages),
      price: formatDecimal(b.price),
      amount: formatDecimal(packages.times(b.price)),
    });
  }
  return out;
}

/** Volume tiers: the single band holding the total quantity, pricing all units (null when quantity is 0). */
export function volumeBand(tiers: readonly Tier[], quantity: string, periodQuantity: string = quantity): AppliedTier | null {
  const q = num(quantity, 'quantity', { nonNegative: true });
  if (q.isZero()) return null;
  // The band holding the period's last unit prices every unit (of this segment too).
  const total = Dec.max(q, num(periodQuantity, 'periodQuantity', { nonNegative: true }));
  const b = bands(tiers, 'tiers').find((x) => total.gt(x.lower) && (x.upper === null || total.lte(x.upper)));
  if (!b) throw new RatingError('tiers', 'no tier covers the quantity'); // unreachable: first tier starts at 1
  const packages = unitsOrPackages(q, b.counter);
  return {
    from: formatDecimal(b.start),
    to: b.upper ? formatDecimal(b.upper) : null,
    quantity: formatDecimal(q),
    packages: formatDecimal(packages),
    price: formatDecimal(b.price),
    amount: formatDecimal(packages.times(b.price)),
  };
}

interface Window {
  period: Period;
  servicePeriod: Period;
  ratio: ProrationRatio;
  /** Display fraction, null when 1. */
  fraction: string | null;
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

function prorate(amount: Dec, w: Window): Dec {
  return w.fraction === null ? amount : amount.times(w.ratio.overlap_ms).div(w.ratio.period_ms);
}

class Rounder {
  readonly places: number;
  constructor(readonly currency: string) {
    this.places = minorUnits(currency);
  }
  round(d: Dec): Dec {
    return d.toDecimalPlaces(this.places, Dec.ROUND_HALF_UP);
  }
  fmt(d: Dec): string {
    return formatMoney(d, this.currency);
  }
  /**
   * Splits `rounded` (a non-negative amount in minor units) over parts in proportion to
   * their exact amounts: each part rounded down to minor units, the minor units left
   * going to the largest remainders (ties: the earlier part). The shares sum to `rounded`.
   */
  allocate(rounded: Dec, exact: readonly Dec[]): Dec[] {
    const unit = new Dec(1).div(new Dec(10).pow(this.places));
    const shares = exact.map((e) => e.toDecimalPlaces(this.places, Dec.ROUND_DOWN));
    let left = rounded.minus(shares.reduce((a, b) => a.plus(b), new Dec(0)));
    const order = exact.map((e, i) => ({ i, rem: e.minus(shares[i]!) })).sort((a, b) => b.rem.comparedTo(a.rem) || a.i - b.i);
    for (const { i } of order) {
      if (!left.gt(0)) break;
      shares[i] = shares[i]!.plus(unit);
      left = left.minus(unit);
    }
    return shares;
  }
}

function checkCharge(c: RatedCharge, path: string): void {
  if (!c || typeof c !== 'object') throw new RatingError(path, 'charge must be an object');
  if (typeof c.id !== 'string' || !c.id) throw new RatingError(`${path}.id`, 'id must be a non-empty string');
  if (!CHARGE_MODEL_KINDS.includes(c.model)) throw new RatingError(`${path}.model`, `unknown charge model ${JSON.stringify(c.model)}`);
  if (!c.pricing || c.pricing.kind !== c.model) throw new RatingError(`${path}.pricing`, `pricing.kind must equal model ${c.model}`);
}

function isOneTime(c: RatedCharge): boolean {
  return c.model === 'one_time' || (c.charge_type === 'one_time' && (c.model === 'flat' || c.model === 'discount'));
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

/** Rates the charge lines (no discounts) of one window. */
function rateCharge(c: RatedCharge, path: string, usage: Map<UnitOfMeasure, UnitUsage>, w: Window, r: Rounder, period: PeriodUsage): InvoiceLine[] {
  const base = {
    charge_id: c.id,
    charge_name: c.name,
    model: c.model,
    charge_type: c.charge_type,
    unit: c.unit_of_measure ?? null,
    service_period: w.servicePeriod,
  };
  const unitUsage = (): UnitUsage => {
    const u = c.unit_of_measure ? usage.get(c.unit_of_measure) : undefined;
    return u ?? { total: new Dec(0), parts: null, unattributed: new Dec(0) };
  };
  const before = (c.unit_of_measure && period.before.get(c.unit_of_measure)) || new Dec(0);
  const periodTotal = (q: Dec) => (c.unit_of_measure && period.total.get(c.unit_of_measure)) || q;
  const p: CanonicalPricing = c.pricing;
  const pp = `${path}.pricing`;
  switch (p.kind) {
    case 'flat':
    case 'one_time': {
      const amount = num(p.amount, `${pp}.amount`, { nonNegative: true });
      if (isOneTime(c)) {
        if (c.already_charged) return [];
        return [{ ...base, quantity: '1', unit_price: formatDecimal(amount), tiers: null, proration: null, amount: r.fmt(r.round(amount)) }];
      }
      return [
        { ...base, quantity: '1', unit_price: formatDecimal(amount), tiers: null, proration: w.fraction, amount: r.fmt(r.round(prorate(amount, w))) },
      ];
    }
    case 'per_unit': {
      const price = num(p.unit_price, `${pp}.unit_price`, { nonNegative: true });
      const u = unitUsage();
      const line = (q: Dec, amount: Dec, agent?: string): InvoiceLine => ({
        ...base,
        quantity: formatDecimal(q),
        unit_price: formatDecimal(price),
        tiers: null,
        proration: null,
        amount: r.fmt(amount),
        ...(agent === undefined ? {} : { agent_instance_id: agent }),
      });
      if (!u.parts) return [line(u.total, r.round(u.total.times(price)))];
      // Rounded once for the charge; the per-agent lines share that amount (largest
      // remainder), so an invoice never depends on how usage is spread over agents.
      const parts = [...u.parts, ...(u.unattributed.gt(0) ? [{ id: undefined, quantity: u.unattributed }] : [])];
      const shares = r.allocate(r.round(u.total.times(price)), parts.map((part) => part.quantity.times(price)));
      return parts.map((part, i) => line(part.quantity, shares[i]!, part.id));
    }
    case 'tiered': {
      const q = unitUsage().total;
      const applied = tieredBandsBetween(p.tiers, before, before.plus(q));
      const sum = applied.reduce((s, b) => s.plus(b.amount), new Dec(0));
      return [{ ...base, quantity: formatDecimal(q), unit_price: null, tiers: applied, proration: null, amount: r.fmt(r.round(sum)) }];
    }
    case 'volume': {
      const q = unitUsage().total;
      const band = volumeBand(p.tiers, formatDecimal(q), formatDecimal(periodTotal(q)));
      return [
        {
          ...base,
          quantity: formatDecimal(q),
          unit_price: band ? band.price : null,
          tiers: band ? [band] : [],
          proration: null,
          amount: r.fmt(r.round(band ? new Dec(band.amount) : new Dec(0))),
        },
      ];
    }
    case 'package': {
      const q = unitUsage().total;
      const size = num(p.package_size, `${pp}.package_size`);
      if (!size.isInteger() || size.lt(1)) throw new RatingError(`${pp}.package_size`, 'package_size must be an integer of at least 1');
      const price = num(p.package_price, `${pp}.package_price`, { nonNegative: true });
      const packages = packagesOf(before.plus(q), size).minus(packagesOf(before, size));
      const amount = packages.times(price);
      const band: AppliedTier = {
        from: '1',
        to: null,
        quantity: formatDecimal(q),
        packages: formatDecimal(packages),
        price: formatDecimal(price),
        amount: formatDecimal(amount),
      };
      return [{ ...base, quantity: formatDecimal(q), unit_price: formatDecimal(price), tiers: q.isZero() ? [] : [band], proration: null, amount: r.fmt(r.round(amount)) }];
    }
    case 'overage': {
      const q = unitUsage().total;
      const fee = prorate(num(p.base_fee, `${pp}.base_fee`, { nonNegative: true }), w);
      const included = num(p.included_units, `${pp}.included_units`, { nonNegative: true });
      const rate = num(p.overage_unit_price, `${pp}.overage_unit_price`, { nonNegative: true });
      const over = Dec.max(0, before.plus(q).minus(included)).minus(Dec.max(0, before.minus(included)));
      const overAmount = over.times(rate);
      return [
        {
          ...base,
          quantity: formatDecimal(q),
          unit_price: formatDecimal(rate),
          tiers: null,
          overage: {
            base_fee: formatDecimal(fee),
            included_units: formatDecimal(included),
            overage_quantity: formatDecimal(over),
            overage_unit_price: formatDecimal(rate),
            overage_amount: formatDecimal(overAmount),
          },
          proration: w.fraction,
          amount: r.fmt(r.round(fee.plus(overAmount))),
        },
      ];
    }
    case 'discount':
      return [];
  }
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

  const discounts = charges
    .map((c, i) => ({ c, i }))
    .filter(({ c }) => c.model === 'discount')
    .map(({ c, i }) => ({ c, i, p: c.pricing as Extract<CanonicalPricing, { kind: 'discount' }> }));
  const ordered = [...discounts.filter((d) => d.p.applies_to !== null), ...discounts.filter((d) => d.p.applies_to === null)];

  let invoiceRemaining = subtotal;
  let discountTotal = new Dec(0);
  for (const { c, i, p } of ordered) {
    const pp = `${path}.charges[${i}].pricing`;
    if (isOneTime(c) && c.already_charged) continue;
    let targetId: string | null = null;
    if (p.applies_to !== null) {
      const target = charges.find((x) => x.model !== 'discount' && x.id === p.applies_to) ?? charges.find((x) => x.model !== 'discount' && x.name === p.applies_to);
      if (!target) throw new RatingError(`${pp}.applies_to`, `discount targets unknown charge ${JSON.stringify(p.applies_to)}`);
      targetId = target.id;
    }
    const baseAmount = targetId === null ? invoiceRemaining : Dec.min(remainingByCharge.get(targetId) ?? new Dec(0), invoiceRemaining);
    let value: Dec;
    let proration: string | null = null;
    if (p.percent !== null) {
      const pct = num(p.percent, `${pp}.percent`);
      if (!pct.gt(0) || pct.gt(100)) throw new RatingError(`${pp}.percent`, 'percent must be greater than 0 and at most 100');
      value = r.round(baseAmount.times(pct).div(100));
    } else if (p.amount !== null) {
      const amt = num(p.amount, `${pp}.amount`, { nonNegative: true });
      const prorated = c.charge_type === 'recurring' && !isOneTime(c);
      if (prorated) proration = w.fraction;
      value = r.round(prorated ? prorate(amt, w) : amt);
    } else {
      throw new RatingError(pp, 'discount needs percent or amount');
    }
    value = Dec.min(value, baseAmount);
    invoiceRemaining = invoiceRemaining.minus(value);
    if (targetId !== null) remainingByCharge.set(targetId, (remainingByCharge.get(targetId) ?? new Dec(0)).minus(value));
    discountTotal = discountTotal.minus(value);
    lines.push({
      charge_id: c.id,
      charge_name: c.name,
      model: 'discount',
      charge_type: c.charge_type,
      unit: null,
      quantity: '1',
      unit_price: null,
      tiers: null,
      discount: { applies_to: targetId, percent: p.percent, amount: p.amount, base: r.fmt(baseAmount) },
      proration,
      amount: r.fmt(value.neg()),
      service_period: w.servicePeriod,
    });
  }
  return { lines, subtotal, discountTotal };
}

/**
 * Rates one billing period: charge lines, then discount lines, with totals.
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
  input.segments.forEach((seg, i) => {
    const path = `input.segments[${i}]`;
    const from = toEpochMs(seg.from);
    const to = toEpochMs(seg.to);
    if (!(to > from)) throw new RatingError(path, 'segment "to" must be after "from"');
    if (from < ps || to > pe) throw new RatingError(path, 'segment must lie within the period');
    if (from < prevEnd) throw new RatingError(path, 'segments must be ordered and must not overlap');
    prevEnd = to;
    const w = makeWindow(input.period, seg.from, seg.to);
    const res = rateWindow(seg.charges, seg.usage, w, r, path, () => ({ before: new Map(before), total }));
    for (const [unit, q] of unitTotals[i]!) before.set(unit, (before.get(unit) ?? new Dec(0)).plus(q.total));
    segments.push({
      from: w.servicePeriod.start,
      to: w.servicePeriod.end,
      proration: w.fraction ?? '1',
      currency,
      lines: res.lines,
      subtotal: r.fmt(res.subtotal),
      discount_total: r.fmt(res.discountTotal),
      total: r.fmt(res.subtotal.plus(res.discountTotal)),
    });
    lines.push(...res.lines);
    subtotal = subtotal.plus(res.subtotal);
    discountTotal = discountTotal.plus(res.discountTotal);
  });
  return {
    currency,
    segments,
    lines,
    subtotal: r.fmt(subtotal),
    discount_total: r.fmt(discountTotal),
    total: r.fmt(subtotal.plus(discountTotal)),
  };
}
