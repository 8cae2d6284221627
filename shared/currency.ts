/**
 * Currencies: which codes are money, and their minor units, from ISO 4217.
 *
 * The data is the maintained `currency-codes` package (the ISO 4217 list one, with
 * its publish date), not a hand-written table. Codes that are not money a customer
 * can be billed in are refused: precious metals, bond-market units, special drawing
 * rights and units of account, the testing code and "no currency" (XAG, XAU, XBA–XBD,
 * XDR, XPD, XPT, XSU, XTS, XUA, XXX).
 */
import currencyCodes from 'currency-codes';

const NOT_MONEY = new Set(['XAG', 'XAU', 'XBA', 'XBB', 'XBC', 'XBD', 'XDR', 'XPD', 'XPT', 'XSU', 'XTS', 'XUA', 'XXX']);

const DIGITS: ReadonlyMap<string, number> = new Map(
  currencyCodes.data.filter((c) => !NOT_MONEY.has(c.code)).map((c) => [c.code, c.digits] as const),
);

/** Every accepted currency code, sorted. */
export const CURRENCY_CODES: readonly string[] = [...DIGITS.keys()].sort();

/** True when `code` (any case) is an ISO 4217 currency Tally bills in. */
export function isCurrency(code: unknown): code is string {
  return typeof code === 'string' && code.length === 3 && DIGITS.has(code.toUpperCase());
}

/** Minor units (decimals) of an accepted currency (USD 2, JPY 0, CLP 0, BHD 3, CLF 4); undefined for others. */
export function currencyDigits(code: string): number | undefined {
  return DIGITS.get(code.toUpperCase());
}

/** The message every refusal of a currency uses. */
export const CURRENCY_MESSAGE = 'must be an ISO 4217 currency code, e.g. USD, EUR, JPY';
