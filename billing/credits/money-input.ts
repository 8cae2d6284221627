/**
 * Pure: checks of the money a credits request sends (grant amounts, adjustments), each a
 * problem message or null, so the API answers one clear 400 and changes nothing.
 */
import { currencyDigits } from '../../shared/currency.ts';
import { Dec } from '../rating/money.ts';

/** The largest credit amount one grant or adjustment may carry (in currency units). */
export const MAX_CREDIT_AMOUNT = '1000000000000000';

/** A JSON number keeps its digits only up to 15 significant ones; beyond that it must be sent as a string. */
const MAX_NUMBER_DIGITS = 15;

/** Money as credits and commitments take it: plain decimal digits, an optional '-', at most one '.' with digits on both sides; no exponent, no whitespace, no '+'. */
const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * The one parser of every money input of credits and commitments: a string or a JSON
 * number (as JavaScript prints it) in plain decimal notation, else null ("1e2", " 100",
 * "+5", "1." and "" are refused).
 */
export function plainDecimal(input: unknown): Dec | null {
  const text = typeof input === 'string' ? input : typeof input === 'number' && Number.isFinite(input) ? String(input) : null;
  return text !== null && PLAIN_DECIMAL.test(text) ? new Dec(text) : null;
}

/**
 * The exact decimal of a money field, or a problem: `{value}` or `{problem}`.
 * `signed` allows a negative value (adjustments); zero is never accepted.
 */
export function creditAmount(input: unknown, currency: string, field: string, signed = false): { value: string } | { problem: string } {
  if (typeof input === 'number' && String(Math.abs(input)).replace(/[.-]|e.*$/g, '').replace(/^0+/, '').length > MAX_NUMBER_DIGITS) {
    return { problem: `${field} has more than ${MAX_NUMBER_DIGITS} significant digits: send it as a decimal string to keep every digit` };
  }
  const d = plainDecimal(input);
  if (!d) return { problem: `${field} must be a decimal number, e.g. "100.00"` };
  if (d.isZero()) return { problem: `${field} must not be zero` };
  if (d.isNeg() && !signed) return { problem: `${field} must be positive` };
  const digits = currencyDigits(currency) ?? 0;
  if (d.decimalPlaces() > digits) return { problem: `${field} has ${d.decimalPlaces()} decimals; ${currency.toUpperCase()} has ${digits}` };
  if (d.abs().gt(MAX_CREDIT_AMOUNT)) return { problem: `${field} must be at most ${MAX_CREDIT_AMOUNT} in absolute value` };
  return { value: d.toFixed(digits) };
}

/** Minor units of a currency as a fixed string: "0.00" for USD, "0" for JPY, "0.000" for KWD. */
export function zeroOf(currency: string): string {
  return new Dec(0).toFixed(currencyDigits(currency) ?? 0);
}
