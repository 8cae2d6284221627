/**
 * Billing periods: calendar-aligned months, quarters (Jan/Apr/Jul/Oct) and years in
 * UTC. A period is half-open [start, end) and carried as ISO 8601 UTC strings with
 * milliseconds ("2026-11-01T00:00:00.000Z"). Proration is elapsed time (ms) of
 * overlap divided by the period's length in ms.
 */
import { Dec, formatDecimal } from './money.ts';

/** Canonical billing cycles. */
export type BillingCycle = 'monthly' | 'quarterly' | 'annual';
/** All canonical billing cycles. */
export const BILLING_CYCLES: readonly BillingCycle[] = ['monthly', 'quarterly', 'annual'];

/** Accepted input spellings (case-insensitive) of each cycle. */
const BILLING_CYCLE_SPELLINGS: Readonly<Record<BillingCycle, readonly string[]>> = {
  monthly: ['monthly', 'month'],
  quarterly: ['quarterly', 'quarter'],
  annual: ['annual', 'annually', 'yearly', 'year'],
};

const MONTHS: Record<BillingCycle, number> = { monthly: 1, quarterly: 3, annual: 12 };

/** Half-open billing period [start, end) as ISO UTC strings. */
export interface Period {
  start: string;
  end: string;
}

/** Thrown on malformed instants, labels or cycles. */
export class PeriodError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PeriodError';
  }
}

/** Canonical cycle of a spelling ("Month" -> "monthly", "yearly" -> "annual"), or null. */
export function normalizeBillingCycle(input: unknown): BillingCycle | null {
  if (typeof input !== 'string') return null;
  const key = input.trim().toLowerCase();
  for (const c of BILLING_CYCLES) if (BILLING_CYCLE_SPELLINGS[c].includes(key)) return c;
  return null;
}

function cycleOf(cycle: BillingCycle | string): BillingCycle {
  const c = normalizeBillingCycle(cycle);
  if (!c) throw new PeriodError(`unknown billing cycle ${JSON.stringify(cycle)} (expected monthly, quarterly or annual)`);
  return c;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Milliseconds since the epoch of an instant: a Date, epoch ms, or an ISO 8601
 * string. Date-only strings and date-times without an offset are read as UTC.
 */
export function toEpochMs(instant: string | Date | number): number {
  let ms: number;
  if (instant instanceof Date) ms = instant.getTime();
  else if (typeof instant === 'number') ms = instant;
  else if (typeof instant === 'string') {
    const m = ISO_RE.exec(instant.trim());
    if (!m) throw new PeriodError(`invalid ISO 8601 instant ${JSON.stringify(instant)}`);
    let s = instant.trim();
    if (m[4] !== undefined && m[7] === undefined) s += 'Z';
    ms = Date.parse(s);
    // Reject calendar overflow such as 2026-02-30 (Date.parse would roll it over or fail).
    const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
    if (d.getUTCMonth() !== Number(m[2]) - 1 || d.getUTCDate() !== Number(m[3])) ms = NaN;
  } else ms = NaN;
  if (!Number.isFinite(ms)) throw new PeriodError(`invalid instant ${JSON.stringify(instant)}`);
  return ms;
}

/** ISO UTC string with milliseconds of an instant. */
export function toIso(instant: string | Date | number): string {
  return new Date(toEpochMs(instant)).toISOString();
}

function periodStarting(year: number, month0: number, cycle: BillingCycle): Period {
  return {
    start: new Date(Date.UTC(year, month0, 1)).toISOString(),
    end: new Date(Date.UTC(year, month0 + MONTHS[cycle], 1)).toISOString(),
  };
}

/** The calendar period of `cycle` containing `instant` (UTC): start <= instant < end. */
export function periodContaining(instant: string | Date | number, cycle: BillingCycle | string): Period {
  const c = cycleOf(cycle);
  const d = new Date(toEpochMs(instant));
  const month0 = d.getUTCMonth();
  return periodStarting(d.getUTCFullYear(), month0 - (month0 % MONTHS[c]), c);
}

/**
 * Period from a label: "YYYY-MM" (for quarterly/annual, the period containing that
 * month); also "YYYY-Qn" and "YYYY" are accepted.
 */
export function periodFromLabel(label: string, cycle: BillingCycle | string): Period {
  const c = cycleOf(cycle);
  let m = /^(\d{4})-(\d{2})$/.exec(label);
  if (m) {
    const month = Number(m[2]);
    if (month < 1 || month > 12) throw new PeriodError(`invalid month in period label ${JSON.stringify(label)}`);
    return periodContaining(Date.UTC(Number(m[1]), month - 1, 1), c);
  }
  m = /^(\d{4})-Q([1-4])$/i.exec(label);
  if (m) return periodContaining(Date.UTC(Number(m[1]), (Number(m[2]) - 1) * 3, 1), c);
  m = /^(\d{4})$/.exec(label);
  if (m) return periodContaining(Date.UTC(Number(m[1]), 0, 1), c);
  throw new PeriodError(`invalid period label ${JSON.stringify(label)} (expected YYYY-MM, YYYY-Qn or YYYY)`);
}

/** Label "YYYY-MM" of the month a period starts in. */
export function periodLabel(period: Period): string {
  return toIso(period.start).slice(0, 7);
}

/** The period of `cycle` that follows `period` (starts at its end). */
export function nextPeriod(period: Period, cycle: BillingCycle | string): Period {
  return periodContaining(period.end, cycle);
}

/** The period of `cycle` that precedes `period` (ends at its start). */
export function previousPeriod(period: Period, cycle: BillingCycle | string): Period {
  return periodContaining(toEpochMs(period.start) - 1, cycle);
}

/** Overlap of an active window with a period, in ms, and the period's length in ms. */
export interface ProrationRatio {
  overlap_ms: number;
  period_ms: number;
}

/**
 * Elapsed overlap of [activeFrom, activeTo) with the period, and the period length.
 * A null/undefined bound means unbounded on that side.
 */
export function prorationRatio(
  activeFrom: string | Date | number | null | undefined,
  activeTo: string | Date | number | null | undefined,
  period: Period,
): ProrationRatio {
  const ps = toEpochMs(period.start);
  const pe = toEpochMs(period.end);
  if (!(pe > ps)) throw new PeriodError(`period end ${period.end} must be after its start ${period.start}`);
  const from = activeFrom === null || activeFrom === undefined ? ps : Math.max(ps, toEpochMs(activeFrom));
  const to = activeTo === null || activeTo === undefined ? pe : Math.min(pe, toEpochMs(activeTo));
  return { overlap_ms: Math.max(0, to - from), period_ms: pe - ps };
}

/**
 * Fraction of the period during which [activeFrom, activeTo) was active, as a decimal
 * string: overlap ms / period ms, exact when it terminates, else 40 significant digits.
 * Example: 15 of 30 days -> "0.5"; a full period -> "1"; no overlap -> "0".
 */
export function prorationFraction(
  activeFrom: string | Date | number | null | undefined,
  activeTo: string | Date | number | null | undefined,
  period: Period,
): string {
  const r = prorationRatio(activeFrom, activeTo, period);
  return formatDecimal(new Dec(r.overlap_ms).div(r.period_ms));
}
