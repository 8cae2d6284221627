/**
 * Money and decimal helpers for the rating engine.
 *
 * All money and quantities cross module boundaries as canonical decimal STRINGS
 * (plain notation, never exponent notation, e.g. "0.000002", never "2e-6") and
 * are computed with shared/decimal.ts's `Dec` (40 significant digits, half-up).
 * Floating point is never used on money.
 *
 * Rounding rule (the only one): an amount is rounded ONCE, per invoice line, to
 * the currency's minor units, half up: a value exactly halfway between two
 * minor units is rounded away from zero (2.345 USD -> 2.35, -2.345 -> -2.35).
 */
import { CURRENCY_MESSAGE, currencyDigits, isCurrency } from '../../shared/currency.ts';
import { Dec } from '../../shared/decimal.ts';

export { Dec };

/** Anything accepted where a decimal is expected: a finite JS number or a decimal string ("12", "-0.5", "2e-6"). */
type DecimalInput = number | string;

/** Thrown on malformed decimals or currency codes. `path` names the offending input field when known. */
export class MoneyError extends Error {
  readonly path: string;
  constructor(message: string, path = '') {
    super(path ? `${path}: ${message}` : message);
    this.name = 'MoneyError';
    this.path = path;
  }
}

/** True when `code` (any case) is an ISO 4217 currency Tally bills in (see shared/currency.ts). */
export function isCurrencyCode(code: unknown): code is string {
  return isCurrency(code);
}

/** Upper-cases and checks a currency code; throws {@link MoneyError} when it is not an ISO 4217 currency. */
export function normalizeCurrency(code: string): string {
  if (!isCurrency(code)) throw new MoneyError(`invalid currency code ${JSON.stringify(code)}: ${CURRENCY_MESSAGE}`, 'currency');
  return code.toUpperCase();
}

/** Number of minor-unit digits of a currency, from ISO 4217 (USD 2, JPY 0, CLP 0, BHD 3, CLF 4). */
export function minorUnits(currency: string): number {
  return currencyDigits(normalizeCurrency(currency))!;
}

/** Plain decimal syntax accepted in strings: optional sign, digits with optional fraction, optional exponent. */
export const DECIMAL_STRING_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Parses a number or decimal string into a {@link Dec}, or returns null when it is
 * not a finite decimal (NaN, Infinity, hex, empty, whitespace, non-number types).
 * Numbers are read through their shortest round-trip string (0.1 -> "0.1").
 */
export function tryParseDecimal(input: unknown): Dec | null {
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return null;
    return new Dec(String(input));
  }
  if (typeof input === 'string' && DECIMAL_STRING_RE.test(input)) return new Dec(input);
  return null;
}

/** Like {@link tryParseDecimal} but throws {@link MoneyError} (with `path`) on invalid input. */
export function parseDecimal(input: unknown, path = ''): Dec {
  const d = tryParseDecimal(input);
  if (d === null) throw new MoneyError(`expected a number or decimal string, got ${JSON.stringify(input)}`, path);
  return d;
}

/** Canonical string of a decimal: plain notation, no trailing zeros, no exponent, never "-0". */
export function formatDecimal(d: Dec): string {
  if (d.isZero()) return '0';
  return d.toFixed();
}

/** Parses then formats: canonical decimal string of a number or string input ("2e-6" -> "0.000002", 1.50 -> "1.5"). */
export function toDecimalString(input: DecimalInput, path = ''): string {
  return formatDecimal(parseDecimal(input, path));
}

/**
 * Rounds an amount to the currency's minor units, half up (ties away from zero), and
 * returns it with exactly that many decimals ("12.30" USD, "1235" JPY, "1.235" BHD).
 * This is the single rounding rule of Tally; apply it once per invoice line.
 */
export function roundToMinor(amount: DecimalInput | Dec, currency: string): string {
  const places = minorUnits(currency);
  const d = Dec.isDecimal(amount) ? new Dec(amount) : parseDecimal(amount, 'amount');
  return formatMoney(d.toDecimalPlaces(places, Dec.ROUND_HALF_UP), currency);
}

/**
 * Formats an amount ALREADY at minor-unit precision with exactly the currency's
 * decimals; throws if rounding would be needed (so callers cannot skip {@link roundToMinor}).
 */
export function formatMoney(amount: Dec, currency: string): string {
  const places = minorUnits(currency);
  if (!amount.toDecimalPlaces(places).eq(amount)) {
    throw new MoneyError(`amount ${amount.toFixed()} has more than ${places} decimals for ${currency}; round it first`);
  }
  const z = amount.isZero() ? new Dec(0) : amount;
  return z.toFixed(places);
}

/** Sums decimal strings exactly and returns a {@link Dec}. */
export function sumDecimals(values: readonly (DecimalInput | Dec)[]): Dec {
  let s = new Dec(0);
  for (const v of values) s = s.plus(Dec.isDecimal(v) ? v : parseDecimal(v));
  return s;
}

/**
 * Fixed-point decimals for joins that sum many values (reports): a plain decimal text as
 * the BigInt of its value x 10^`scale`, exact at any size. A parse and a sum cost about a
 * tenth of Decimal.js's. Throws a MoneyError for text that is not plain decimal notation
 * or has more than `scale` decimals.
 */
export function toScaled(text: string, scale: number): bigint {
  const m = PLAIN_DECIMAL.exec(text);
  if (!m || (m[3]?.length ?? 0) > scale) throw new MoneyError(`expected a decimal with at most ${scale} decimals, got ${JSON.stringify(text)}`);
  const v = BigInt(m[2]! + (m[3] ?? '').padEnd(scale, '0'));
  return m[1] ? -v : v;
}
const PLAIN_DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** A {@link toScaled} value as text, as {@link formatDecimal} prints: no trailing zeros, "0" for zero. */
export function formatScaled(v: bigint, scale: number): string {
  if (v === 0n) return '0';
  const digits = (v < 0n ? -v : v).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale).replace(/0+$/, '');
  return `${v < 0n ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/**
 * A {@link toScaled} sum as money of `currency`, as {@link formatMoney} prints it (exactly
 * the currency's decimals); a MoneyError when it has more.
 */
export function formatScaledMoney(v: bigint, scale: number, currency: string): string {
  const places = minorUnits(currency);
  if (places > scale) return formatMoney(new Dec(formatScaled(v, scale)), currency);
  if (v % 10n ** BigInt(scale - places) !== 0n) throw new MoneyError(`amount ${formatScaled(v, scale)} has more than ${places} decimals for ${currency}; round it first`);
  const digits = (v < 0n ? -v : v).toString().padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale, digits.length - scale + places);
  return `${v < 0n ? '-' : ''}${whole}${places ? `.${fraction}` : ''}`;
}

/** part / whole x 100 with two decimals, half away from zero (as ROUND_HALF_UP); null when whole is 0. Exact: no intermediate rounding. */
export function percentOf(part: bigint, whole: bigint): string | null {
  if (whole === 0n) return null;
  const p = part < 0n ? -part : part;
  const w = whole < 0n ? -whole : whole;
  const hundredths = (p * 20_000n + w) / (2n * w);
  const text = hundredths.toString().padStart(3, '0');
  const negative = hundredths !== 0n && part < 0n !== whole < 0n;
  return `${negative ? '-' : ''}${text.slice(0, -2)}.${text.slice(-2)}`;
}
