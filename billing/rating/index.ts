/**
 * What the rest of billing uses of the pure rating engine (no IO) through one door: charge
 * and pricing types, billing periods, and rating of segments. Money, charge model
 * validation and the rest are imported from their own modules (money.ts, charge-models.ts).
 */
export type {
  CanonicalPricing,
  ChargeModelKind,
  RatedCharge,
  UnitOfMeasure,
} from './charge-models.ts';

export {
  BILLING_CYCLES,
  periodContaining,
  nextPeriod,
  periodFromLabel,
  previousPeriod,
  toEpochMs,
} from './periods.ts';
export type { BillingCycle, Period } from './periods.ts';

export { rateSegments } from './rate.ts';
export type {
  InvoiceLine,
  RateSegmentsInput,
  RateSegmentsResult,
  Usage,
  UsageBreakdown,
} from './rate.ts';
