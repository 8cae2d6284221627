/**
 * Pure rules of spend limits (README "Stopping runaway spend"): the window a limit counts
 * over, what its current value means (reached, which thresholds), and which alerts an
 * evaluation fires. No IO: the evaluator (evaluator.ts) reads and writes around these.
 */
import type { Period } from '../rating/index.ts';
import { Dec } from '../rating/money.ts';

export type LimitMetric = 'spend' | 'available_balance' | 'quantity';

/** The units a quantity limit may count, and the usage figure (billing/usage/usage-query.ts UsageRow) each reads. */
export const QUANTITY_UNITS = {
  '@action': 'actions',
  '@outcome': 'outcome_value',
  '@user': 'users',
  tokens: 'total_tokens',
  input_tokens: 'input_tokens',
  output_tokens: 'output_tokens',
} as const;
export type QuantityUnit = keyof typeof QUANTITY_UNITS;

const DAY_MS = 86_400_000;

/** The UTC day or ISO week (Monday to Monday) containing `now`. */
export function calendarWindow(window: 'day' | 'week', now: Date): Period {
  const day = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  // 1970-01-01 was a Thursday: days since a Monday are (days + 3) mod 7.
  const start = window === 'day' ? day : day - ((Math.floor(day / DAY_MS) + 3) % 7) * DAY_MS;
  const length = window === 'day' ? DAY_MS : 7 * DAY_MS;
  return { start: new Date(start).toISOString(), end: new Date(start + length).toISOString() };
}

/** The UTC calendar month containing `now`: the billing period of a scope without a subscription. */
export function calendarMonth(now: Date): Period {
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

/**
 * How far a limit is used, in percent (a Dec, uncapped). Spend and quantity: current /
 * value (a limit of 0 is 100 % used at once). Available balance: reached (100 %) when the
 * available balance is at or below the value, else 0 (a balance has no fraction of a
 * floor; `credits.balance_low` is the early warning there).
 */
export function usedPercent(metric: LimitMetric, current: string, value: string): Dec {
  const c = new Dec(current);
  const v = new Dec(value);
  if (metric === 'available_balance') return c.lte(v) ? new Dec(100) : new Dec(0);
  if (v.isZero()) return new Dec(100);
  return c.div(v).times(100);
}

/** Whether the limit is reached (its action applies): at or past 100 %. */
export function isReached(metric: LimitMetric, current: string, value: string): boolean {
  return usedPercent(metric, current, value).gte(100);
}

/** An alert to fire: a threshold (percent) reached in a period; 0 is the period's reset. */
export interface AlertToFire {
  threshold: number;
  event: 'limit.threshold_reached' | 'limit.exceeded' | 'limit.reset';
}

/**
 * The alerts an evaluation may fire (the database keeps each once per threshold, period
 * and limit value): every threshold at or under the used percent (100 and beyond are
 * `limit.exceeded`, as is the limit itself when 100 is not listed), and `limit.reset` when
 * the previous evaluation was of an earlier period in which the limit was reached.
 */
export function alertsFor(metric: LimitMetric, thresholds: readonly number[], current: string, value: string, resetFromReached: boolean): AlertToFire[] {
  const used = usedPercent(metric, current, value);
  const out: AlertToFire[] = [];
  if (resetFromReached) out.push({ threshold: 0, event: 'limit.reset' });
  const all = [...new Set([...thresholds, 100])].sort((a, b) => a - b);
  for (const t of all) if (used.gte(t)) out.push({ threshold: t, event: t >= 100 ? 'limit.exceeded' : 'limit.threshold_reached' });
  return out;
}

/** Remaining before the limit is reached (never negative): value - current, or for a balance floor, available - value. */
export function remaining(metric: LimitMetric, current: string, value: string): string {
  const r = metric === 'available_balance' ? new Dec(current).minus(value) : new Dec(value).minus(current);
  return (r.isNeg() ? new Dec(0) : r).toFixed();
}
