/**
 * Minimum commitment amounts of rate plans and subscriptions (docs/credits.md "Commitments"):
 * checked against the currency they are in, and stored as exact decimal text at its
 * minor units. Pure.
 */
import { AppError } from '../../shared/errors.ts';
import { Dec, formatMoney, minorUnits } from '../rating/money.ts';
import { plainDecimal } from '../credits/money-input.ts';

/** Integer digits a minimum may have (up to 999,999,999,999,999 and the currency's decimals). */
export const MAX_COMMITMENT_INTEGER_DIGITS = 15;
/** Significant digits a JSON number keeps exactly through a double; longer amounts must be sent as text. */
const EXACT_NUMBER_DIGITS = 15;

function invalid(field: string, message: string): AppError {
  return new AppError('validation_failed', `${field} ${message}`, { details: [{ path: field, message: `${field} ${message}` }] });
}

/**
 * A minimum commitment as stored: null when absent or null, else the amount at the
 * currency's minor units ("1000" in USD: "1000.00"). A 400 naming `field` when it is
 * negative, not a decimal, has more decimals than the currency's minor units, or more than
 * 15 integer digits; a JSON number of more than 15 significant digits (which a double
 * cannot carry exactly) is refused too: send such amounts as a decimal string.
 */
export function commitmentAmount(value: string | number | null | undefined, currency: string, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value === 'number') {
    const text = String(value);
    if (!/^-?\d+(\.\d+)?$/.test(text) || text.replace(/^-|\./g, '').replace(/^0+/, '').length > EXACT_NUMBER_DIGITS) {
      throw invalid(field, `is a JSON number a double cannot carry exactly (${text}); send it as a decimal string`);
    }
  }
  const d = plainDecimal(value);
  if (d === null) throw invalid(field, 'must be a non-negative decimal in plain notation, e.g. "100.00" (no exponent, spaces or \'+\')');
  if (d.isNegative()) throw invalid(field, 'must not be negative');
  const places = minorUnits(currency);
  if (!d.toDecimalPlaces(places, Dec.ROUND_DOWN).eq(d)) throw invalid(field, `has more than ${places} decimals, the minor units of ${currency}`);
  if (d.trunc().toFixed().length > MAX_COMMITMENT_INTEGER_DIGITS) throw invalid(field, `must be below 10^${MAX_COMMITMENT_INTEGER_DIGITS}`);
  return formatMoney(d, currency);
}

/** A stored minimum as the API shows it (Postgres numeric text, at the currency's minor units), or null. */
export function commitmentView(stored: string | null, currency: string): string | null {
  return stored === null ? null : formatMoney(new Dec(stored), currency);
}
