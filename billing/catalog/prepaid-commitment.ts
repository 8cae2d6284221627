/**
 * Prepaid commitments of rate plans and subscriptions (docs/credits.md "Commitments"): the input
 * checked against the plan's currency, its installments split exactly, and the dates of a
 * term. Pure.
 */
import type { PrepaidCommitment } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { Dec, formatMoney, minorUnits } from '../rating/money.ts';
import { periodContaining } from '../rating/periods.ts';
import { commitmentAmount } from './commitments.ts';

/** A prepaid commitment as the API takes it (the shape is checked by the request schema). */
export interface PrepaidCommitmentInput {
  amount: string | number;
  term_months?: number | undefined;
  installments?: number | undefined;
  renews?: boolean | undefined;
}

export const DEFAULT_TERM_MONTHS = 12;
export const MAX_TERM_MONTHS = 120;

/**
 * The commitment as stored, or null when absent or null. A 400 naming the field when the
 * amount is not money of the currency (commitments.ts) or the installments do not divide
 * the term into whole months.
 */
export function prepaidCommitment(input: PrepaidCommitmentInput | null | undefined, currency: string, field = 'prepaid_commitment'): PrepaidCommitment | null {
  if (input === undefined || input === null) return null;
  const amount = commitmentAmount(input.amount, currency, `${field}.amount`)!;
  const term_months = input.term_months ?? DEFAULT_TERM_MONTHS;
  const installments = input.installments ?? 1;
  if (term_months % installments !== 0) {
    const message = `${field}.installments (${installments}) must divide term_months (${term_months}) into whole months`;
    throw new AppError('validation_failed', message, { details: [{ path: `${field}.installments`, message }] });
  }
  const smallest = new Dec(1).div(new Dec(10).pow(minorUnits(currency))).times(installments);
  if (new Dec(amount).gt(0) && new Dec(amount).lt(smallest)) {
    const message = `${field}.amount (${amount}) must be at least one minor unit of ${currency} per installment (${formatMoney(smallest, currency)} for ${installments}), or 0 for none`;
    throw new AppError('validation_failed', message, { details: [{ path: `${field}.amount`, message }] });
  }
  return { amount, term_months, installments, renews: input.renews ?? true };
}

/** A stored commitment as the API shows it (amount at the currency's minor units). */
export function prepaidCommitmentView(stored: PrepaidCommitment | null, currency: string): PrepaidCommitment | null {
  return stored === null ? null : { ...stored, amount: formatMoney(new Dec(stored.amount), currency) };
}

/** The commitment in force: the subscription's, else its plan's; none when neither has one or its amount is 0. */
export function commitmentInForce(subscription: PrepaidCommitment | null, plan: PrepaidCommitment | null): PrepaidCommitment | null {
  const c = subscription ?? plan;
  return c && new Dec(c.amount).gt(0) ? c : null;
}

/** `amount` in `n` equal parts at the currency's minor units, rounded down; the remainder on the last part. Exact: the parts add up to `amount`. */
export function splitInstallments(amount: string, n: number, currency: string): string[] {
  const total = new Dec(amount);
  const part = total.div(n).toDecimalPlaces(minorUnits(currency), Dec.ROUND_DOWN);
  const last = total.minus(part.times(n - 1));
  return [...Array.from({ length: n - 1 }, () => formatMoney(part, currency)), formatMoney(last, currency)];
}

/** `t` plus `months` calendar months (UTC), the day clamped to the month's last (January 31 + 1 month: February 28 or 29). */
export function addMonths(t: Date, months: number): Date {
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(t.getUTCDate(), lastDay), t.getUTCHours(), t.getUTCMinutes(), t.getUTCSeconds(), t.getUTCMilliseconds()));
}

/** One installment of a term: its number (1..n), when it is invoiced and its amount. */
export interface InstallmentPlan {
  n: number;
  due_at: Date;
  amount: string;
}

/** A term of `c` starting at `start`: its end and installments (the first at the start, then every term_months / installments months). */
export function termPlan(c: PrepaidCommitment, start: Date, currency: string): { ends_at: Date; installments: InstallmentPlan[] } {
  const every = c.term_months / c.installments;
  const amounts = splitInstallments(c.amount, c.installments, currency);
  return { ends_at: addMonths(start, c.term_months), installments: amounts.map((amount, i) => ({ n: i + 1, due_at: addMonths(start, i * every), amount })) };
}

/**
 * When a term's grant expires: 1 ms after the end of the billing period (of `cycle`) in
 * which the term ends, so the period the term ends in still draws on it (a term of
 * November 10 to February 10 on a monthly plan: through February, expiring
 * March 1 00:00:00.001; a term ending on a period boundary: 1 ms after it).
 */
export function termGrantExpiry(endsAt: Date, cycle: string): Date {
  const lastPeriod = periodContaining(endsAt.getTime() - 1, cycle);
  return new Date(Date.parse(lastPeriod.end) + 1);
}
