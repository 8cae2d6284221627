/**
 * Public surface of the pure rating engine (no IO): money, charge models and
 * pricing validation, billing periods, and rating of periods and segments.
 */
export {
  Dec,
  DECIMAL_STRING_RE,
  MoneyError,
  formatDecimal,
  formatMoney,
  isCurrencyCode,
  minorUnits,
  normalizeCurrency,
  parseDecimal,
  roundToMinor,
  sumDecimals,
  toDecimalString,
  tryParseDecimal,
} from './money.ts';
export type { DecimalInput } from './money.ts';

export {
  CHARGE_MODEL_KINDS,
  CHARGE_MODEL_SPELLINGS,
  CHARGE_TYPES,
  CHARGE_TYPE_SPELLINGS,
  PRICING_VALIDATORS,
  UNITS_OF_MEASURE,
  USAGE_KINDS,
  buildRatedCharge,
  defaultChargeType,
  normalizeChargeModel,
  normalizeChargeType,
  normalizeUnitOfMeasure,
  validateChargeModel,
  validatePricing,
} from './charge-models.ts';
export type {
  CanonicalPricing,
  ChargeModelDef,
  ChargeModelKind,
  ChargeType,
  PricingStrategy,
  RatedCharge,
  RatedChargeInput,
  Result,
  Tier,
  UnitOfMeasure,
  ValidationIssue,
} from './charge-models.ts';

export {
  BILLING_CYCLES,
  BILLING_CYCLE_SPELLINGS,
  PeriodError,
  nextPeriod,
  normalizeBillingCycle,
  periodContaining,
  periodFromLabel,
  periodLabel,
  previousPeriod,
  prorationFraction,
  prorationRatio,
  toEpochMs,
  toIso,
} from './periods.ts';
export type { BillingCycle, Period, ProrationRatio } from './periods.ts';

export { RatingError, rate, rateSegments, tieredBands, volumeBand } from './rate.ts';
export type {
  AppliedTier,
  DiscountDetail,
  InvoiceLine,
  OverageDetail,
  RateInput,
  RateResult,
  RateSegment,
  RateSegmentsInput,
  RateSegmentsResult,
  SegmentResult,
  Usage,
  UsageBreakdown,
  UsageQuantity,
} from './rate.ts';
