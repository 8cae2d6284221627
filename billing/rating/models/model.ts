/**
 * The contract of one charge model module (models/<kind>.ts). Everything the engine
 * knows about a kind is here: its spellings, defaults, how its `pricing_strategy` is
 * validated and canonicalized, how a charge's `pricing` overrides it, and how it rates.
 * The generic steps around these (structure checks of the input, `unit_of_measure`,
 * dropping fields that failed, windows, usage, discounts after charges) stay in
 * charge-models.ts and rate.ts.
 */
import type { ChargeWindow } from '../rating-kit.ts';
import type { ChargeModelKind, ChargeType, InvoiceLine, OneTimeRule, PricingOf, PricingStrategy, RatedCharge } from '../types.ts';
import type { Ctx, Raw } from '../validation-kit.ts';

/** A charge's `pricing` object after its structure check, with its price override already validated. */
interface ChargePricing {
  /** The raw `pricing` fields. */
  fields: Raw;
  /** `unit_price` (alias `list_price`; `unit_price` wins) in canonical form, if given and valid. */
  unitPrice: string | undefined;
}

/** One charge model kind. `K` ties its canonical pricing to its kind. */
export interface ChargeModel<K extends ChargeModelKind = ChargeModelKind> {
  readonly kind: K;
  /** Accepted input spellings, after lower-casing and mapping spaces/hyphens to "_". Unique across kinds. */
  readonly spellings: readonly string[];
  /** Charge type used when a charge gives none. */
  readonly defaultChargeType: ChargeType;
  /** True when the amount depends on a usage quantity (the charge needs a unit of measure; "@action" by default). */
  readonly usage: boolean;
  /**
   * How the kind takes charge type one_time: 'always' (the charge type is forced to
   * one_time), 'allowed' (a one_time charge bills once, never prorated, and not again
   * once `already_charged`) or 'rejected' (charge type one_time is an error).
   */
  readonly oneTime: OneTimeRule;
  /**
   * The fields of a charge's `pricing` object this kind applies (first the preferred
   * spelling). Any other field is refused (400 naming these), never dropped.
   */
  readonly overrides: readonly string[];
  /**
   * The fields of a model's `pricing_strategy` this kind reads (besides `unit_of_measure`),
   * first the preferred spelling. Any other field is refused (400 naming these), never dropped.
   */
  readonly fields: readonly string[];
  /**
   * The kind's fields of a raw `pricing_strategy` (structure already checked) in
   * canonical stored form, in a fixed field order; errors recorded in `ctx`. Fields that
   * failed may be left undefined. Prices a charge may supply may be absent.
   */
  normalize(strategy: Raw, ctx: Ctx): PricingStrategy;
  /** Applies a charge's `pricing` overrides to `strategy` (the caller's own copy, which may be changed and returned). */
  override(strategy: PricingStrategy, pricing: ChargePricing, ctx: Ctx): PricingStrategy;
  /** The complete canonical pricing of a stored strategy, or undefined with the missing fields recorded. */
  complete(strategy: PricingStrategy, ctx: Ctx): PricingOf<K> | undefined;
  /** The charge's lines in one window (before discounts, which rate.ts applies after all charges). */
  rate(pricing: PricingOf<K>, charge: RatedCharge, w: ChargeWindow): InvoiceLine[];
}
