import { CURRENCY_MESSAGE, isCurrency } from '../../../shared/currency.ts';
import {
  COST_CATEGORIES,
  MAX_COST_AMOUNT_DECIMALS,
  MAX_COST_QUANTITY,
  MAX_UNITS_DECIMALS,
} from '../../../shared/events/limits.ts';

/**
 * The metadata an action's cost is computed from, checked at ingest so that a cost is
 * never negative, never silently truncated and never overflows (see MAX_COST_QUANTITY):
 *
 * - `api_calls` (per-API-call rules): a JSON integer, 0 to 10^12.
 * - `units` (per-unit rules' default field): a number or decimal string, 0 to 10^12, at
 *   most 6 decimals.
 * - `cost` (an explicit cost): an object with `amount` (number or decimal string, 0 to
 *   10^12, at most 12 decimals), `currency` (ISO 4217) and optional `category`
 *   (llm, api or infrastructure; default llm).
 *
 * Returns the first problem (the field and a message naming it), or undefined.
 */
export function costInputsProblem(m: Record<string, unknown>): { path: string; message: string } | undefined {
  const calls = m['api_calls'];
  if (calls !== undefined && !(typeof calls === 'number' && Number.isInteger(calls) && calls >= 0 && calls <= MAX_COST_QUANTITY)) {
    return problem('metadata.api_calls', 'must be a whole number from 0 to 10^12');
  }
  const units = m['units'];
  if (units !== undefined && !isBoundedDecimal(units, MAX_UNITS_DECIMALS)) {
    return problem('metadata.units', `must be a number or decimal string from 0 to 10^12 with at most ${MAX_UNITS_DECIMALS} decimals`);
  }
  const cost = m['cost'];
  if (cost === undefined) return undefined;
  if (cost === null || typeof cost !== 'object' || Array.isArray(cost)) return problem('metadata.cost', 'must be an object {amount, currency, category}');
  const c = cost as Record<string, unknown>;
  if (!isBoundedDecimal(c['amount'], MAX_COST_AMOUNT_DECIMALS)) {
    return problem('metadata.cost.amount', `must be a number or decimal string from 0 to 10^12 with at most ${MAX_COST_AMOUNT_DECIMALS} decimals`);
  }
  if (!isCurrency(c['currency'])) return problem('metadata.cost.currency', CURRENCY_MESSAGE);
  if (c['category'] !== undefined && !(COST_CATEGORIES as readonly unknown[]).includes(c['category'])) {
    return problem('metadata.cost.category', 'must be llm, api or infrastructure');
  }
  return undefined;
}

/** A problem of one field, its message naming it ("`metadata.units` must be ..."). */
const problem = (path: string, what: string) => ({ path, message: `\`${path}\` ${what}` });

const PLAIN_DECIMAL = /^\d+(?:\.(\d+))?$/;

/** A non-negative decimal (JSON number or string) of at most 10^12 with at most `decimals` decimals. */
function isBoundedDecimal(v: unknown, decimals: number): boolean {
  if (typeof v === 'number') return Number.isFinite(v) && v >= 0 && v <= MAX_COST_QUANTITY && decimalPlaces(v) <= decimals;
  if (typeof v !== 'string') return false;
  const match = PLAIN_DECIMAL.exec(v);
  if (!match || (match[1]?.length ?? 0) > decimals) return false;
  const whole = v.split('.')[0]!.replace(/^0+(?=\d)/, '');
  const limit = String(MAX_COST_QUANTITY);
  if (whole.length !== limit.length) return whole.length < limit.length;
  return whole < limit || (whole === limit && !/[1-9]/.test(match[1] ?? ''));
}

/** Decimals of a number's shortest text ("0.25" 2, "1.5e-7" 8). */
function decimalPlaces(n: number): number {
  const [mantissa, exponent] = String(n).split(/e/i) as [string, string | undefined];
  const fraction = mantissa.split('.')[1]?.length ?? 0;
  return Math.max(0, fraction - Number(exponent ?? 0));
}
