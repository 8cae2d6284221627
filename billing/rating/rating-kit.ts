/**
 * Building blocks the charge model modules (models/*.ts) use to rate one window:
 * exact decimal parsing ({@link num}), packages and tier bands, proration by a
 * {@link Window}, rounding ({@link Rounder}), and the {@link ChargeWindow} a model's
 * `rate` receives. Pure; imports neither the registry nor rate.ts.
 *
 * In every tier `counter` is a package size: a band's charge is band units x price
 * when it is 1 (fractional quantities, e.g. an @outcome sum of 2.5, are never rounded,
 * as under per_unit), else ceil(band units / counter) x price (partial packages round up).
 */
import { Dec, formatDecimal, formatMoney, minorUnits, tryParseDecimal } from './money.ts';
import type { Period, ProrationRatio } from './periods.ts';
import type { AppliedTier, InvoiceLine, OneTimeRule, RatedCharge, Tier } from './types.ts';

/** Thrown on invalid rating input; `path` names the offending field. */
export class RatingError extends Error {
  readonly path: string;
  constructor(path: string, message: string) {
    super(`${path}: ${message}`);
    this.name = 'RatingError';
    this.path = path;
  }
}

/** A decimal of the rating input, or a {@link RatingError} at `path`. */
export function num(value: unknown, path: string, opts: { nonNegative?: boolean } = {}): Dec {
  const d = tryParseDecimal(value);
  if (d === null) throw new RatingError(path, `expected a decimal string, got ${JSON.stringify(value)}`);
  if (opts.nonNegative && d.isNeg() && !d.isZero()) throw new RatingError(path, 'must not be negative');
  return d;
}

/** ceil(q / size) computed exactly for q >= 0. */
export function packagesOf(q: Dec, size: Dec): Dec {
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

/** Usage of one unit of measure in one window. */
export interface UnitUsage {
  total: Dec;
  /** Per-instance quantities sorted by instance id, or null when not split. */
  parts: { id: string; quantity: Dec }[] | null;
  unattributed: Dec;
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

/**
 * The bands of the units after `before` up to `end` (units counted from the start of the
 * billing period): what a segment of the period adds when earlier segments used `before`.
 * A band's packages are those up to `end` less those up to `before`.
 */
export function tieredBandsBetween(tiers: readonly Tier[], before: Dec, end: Dec): AppliedTier[] {
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

/** True when the charge bills once (never prorated; no line once `already_charged`) under its kind's {@link OneTimeRule}. */
export function billsOnce(rule: OneTimeRule, c: RatedCharge): boolean {
  return rule === 'always' || (rule === 'allowed' && c.charge_type === 'one_time');
}

/** The part of a billing period being rated (the whole period, or one segment of it). */
export interface Window {
  period: Period;
  servicePeriod: Period;
  ratio: ProrationRatio;
  /** Display fraction, null when 1. */
  fraction: string | null;
}

/** `amount` x the window's share of the period (exact when it terminates). */
export function prorate(amount: Dec, w: Window): Dec {
  return w.fraction === null ? amount : amount.times(w.ratio.overlap_ms).div(w.ratio.period_ms);
}

/**
 * Decimals an {@link Rounder.exact} rounder keeps (truncating). A sum of such parts is
 * within n x 1e-30 of the exact sum; {@link Rounder.roundSum} snaps it to 24 decimals
 * first, which gives the exact sum whenever it is a half-way value (prorated amounts
 * and prices have denominators far below 1e24), and then rounds it.
 */
const EXACT_PLACES = 30;
const SNAP_PLACES = 24;

/** Rounds and formats money of one currency (half up, to its minor units). */
export class Rounder {
  readonly places: number;
  readonly #exact: boolean;
  constructor(
    readonly currency: string,
    opts: { exact?: boolean } = {},
  ) {
    this.#exact = opts.exact ?? false;
    this.places = this.#exact ? EXACT_PLACES : minorUnits(currency);
  }
  /**
   * A rounder that keeps amounts as good as exact (18 decimals, truncated): lines rated
   * with it carry what each would bill before rounding, so that amounts rated in parts
   * (segments of a period) can be rounded once for the whole.
   */
  static exact(currency: string): Rounder {
    return new Rounder(currency, { exact: true });
  }
  round(d: Dec): Dec {
    return d.toDecimalPlaces(this.places, this.#exact ? Dec.ROUND_DOWN : Dec.ROUND_HALF_UP);
  }
  /** Rounds a sum of amounts rated with an exact rounder (see EXACT_PLACES) to minor units. */
  roundSum(d: Dec): Dec {
    return this.round(d.toDecimalPlaces(SNAP_PLACES, Dec.ROUND_HALF_UP));
  }
  fmt(d: Dec): string {
    return this.#exact ? d.toFixed(this.places) : formatMoney(d, this.currency);
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

/** The fields every line of a charge starts with (in this order). */
type LineBase = Pick<InvoiceLine, 'charge_id' | 'charge_name' | 'model' | 'charge_type' | 'unit' | 'service_period'>;

/**
 * What a model's `rate` sees of one window. Tiers, volume bands, packages and included
 * units count from the start of the billing period, so `before` and `periodTotal` carry
 * the unit's usage outside this window (a period rated whole: zero and its own total).
 */
export interface ChargeWindow {
  /** Path of the charge's pricing in the input, for errors ("input.charges[2].pricing"). */
  path: string;
  /** The first fields of each of the charge's lines. */
  line: LineBase;
  /** Usage of the charge's unit in this window (zero when it has no unit or no usage). */
  usage: UnitUsage;
  /** Usage of the charge's unit in earlier segments of the period (zero when rated whole). */
  before: Dec;
  /** The period's total usage of the charge's unit (this window's usage when rated whole). */
  periodTotal: Dec;
  window: Window;
  rounder: Rounder;
}
