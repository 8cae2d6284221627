/**
 * The one decimal type of Tally: a decimal.js clone of 40 significant digits, rounding half
 * up, never printing exponent notation. Money and quantities are computed with it wherever
 * they are (the rating engine through billing/rating/money.ts, ingest's usage deltas);
 * floating point is never used on them.
 */
import DecimalModule from 'decimal.js';
import type { Decimal as DecimalClass } from 'decimal.js';

// decimal.js ships CommonJS-style typings: under NodeNext the default import is typed as
// the module object, while at runtime (decimal.mjs) it is the Decimal constructor.
const Decimal: typeof DecimalClass =
  (DecimalModule as unknown as { default?: typeof DecimalClass }).default ?? (DecimalModule as unknown as typeof DecimalClass);

/** The decimal constructor: 40 significant digits, ROUND_HALF_UP, no exponent output. */
export const Dec = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});
/** Instance type of {@link Dec}. */
export type Dec = InstanceType<typeof Dec>;
