/**
 * Data types of the pure rating engine, shared by the charge model modules
 * (models/*.ts), the validation and rating kits, charge-models.ts and rate.ts.
 * Types only: importing this module runs no code. Re-exported from charge-models.ts,
 * rate.ts and index.ts, where callers import them.
 */
import type { Period } from './periods.ts';

/** Canonical charge model kinds (one module each under models/). */
export type ChargeModelKind = 'flat' | 'per_unit' | 'tiered' | 'volume' | 'package' | 'overage' | 'one_time' | 'discount';

/** Canonical charge types. */
export type ChargeType = 'usage' | 'recurring' | 'one_time';

/**
 * How a kind takes charge type one_time: 'always' (the charge type is forced to
 * one_time), 'allowed' (a charge of type one_time bills once) or 'rejected'.
 */
export type OneTimeRule = 'always' | 'allowed' | 'rejected';

/** Units of measure of the computed data model. */
export type UnitOfMeasure = '@action' | '@outcome' | '@user' | '@seat';

/** One canonical tier: 1-based `start` (first tier "1"), `price` per package of `counter` units. */
export interface Tier {
  start: string;
  price: string;
  counter: string;
}

/** Complete canonical pricing of one charge, ready for rating (decimal strings). */
export type CanonicalPricing =
  | { kind: 'flat'; amount: string }
  | { kind: 'one_time'; amount: string }
  | { kind: 'per_unit'; unit_price: string }
  | { kind: 'tiered'; tiers: Tier[] }
  | { kind: 'volume'; tiers: Tier[] }
  | { kind: 'package'; package_size: string; package_price: string }
  | { kind: 'overage'; base_fee: string; included_units: string; overage_unit_price: string }
  | { kind: 'discount'; percent: string | null; amount: string | null; applies_to: string | null };

/** The canonical pricing of one kind. */
export type PricingOf<K extends ChargeModelKind> = Extract<CanonicalPricing, { kind: K }>;

/**
 * Canonical stored `pricing_strategy` of a charge model: canonical field names only,
 * decimal strings; price fields a charge may supply may be absent. Valid input again.
 */
export interface PricingStrategy {
  unit_of_measure?: UnitOfMeasure;
  tiers?: Tier[];
  amount?: string;
  unit_price?: string;
  package_size?: string;
  package_price?: string;
  base_fee?: string;
  included_units?: string;
  overage_unit_price?: string;
  percent?: string;
  applies_to?: string;
}

/** One validation problem: `path` (e.g. "pricing_strategy.tiers[1].start") and a human message. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Validation outcome. */
export type Result<T> = { ok: true; value: T } | { ok: false; errors: ValidationIssue[] };

/** A charge ready for the rating engine (serializable). */
export interface RatedCharge {
  id: string;
  name: string;
  model: ChargeModelKind;
  charge_type: ChargeType;
  /** Required for usage kinds; null for flat/one_time/discount unless given. */
  unit_of_measure: UnitOfMeasure | null;
  pricing: CanonicalPricing;
  /** One-time charges only: true when the fee was already invoiced (then it produces no line). */
  already_charged?: boolean;
}

/** One band of a tiered/volume/package computation. `from`/`to` are 1-based unit numbers, inclusive (`to` null = unbounded). */
export interface AppliedTier {
  from: string;
  to: string | null;
  /** Units of the usage falling in (tiered) or priced by (volume, package) this band. */
  quantity: string;
  /** ceil(quantity / counter). */
  packages: string;
  /** Price per package of `counter` units. */
  price: string;
  /** packages x price, exact (not rounded). */
  amount: string;
}

/** Detail of an overage line (exact, unrounded parts). */
interface OverageDetail {
  base_fee: string;
  included_units: string;
  overage_quantity: string;
  overage_unit_price: string;
  overage_amount: string;
}

/** Detail of a discount line. */
interface DiscountDetail {
  /** Charge id the discount targeted, or null for the whole invoice. */
  applies_to: string | null;
  percent: string | null;
  /** Configured flat amount (before proration and capping), or null. */
  amount: string | null;
  /** Remaining amount of the target the discount was computed on (rounded money). */
  base: string;
}

/**
 * Detail of a minimum commitment true-up line (minimum-commitment.ts): what the minimum
 * was, what the period billed and how the minimum was prorated.
 */
export interface MinimumCommitmentDetail {
  /** Minimum per whole period when the same on every billed segment, else null (see parts). */
  minimum: string | null;
  /** The minimum owed for the billed time: sum of parts' minimum x proration, rounded once. */
  prorated_minimum: string;
  /** The period's charges after discounts (subtotal + discount_total, without this line). */
  billed: string;
  /** prorated_minimum - billed (the line's amount). */
  true_up: string;
  /** Each billed segment: its time, its minimum per whole period (null: none) and its share of the period. */
  parts: { from: string; to: string; minimum: string | null; proration: string }[];
}

/** What made an invoice line: a charge model, or the minimum commitment true-up. */
export type LineModel = ChargeModelKind | 'minimum_commitment';

/** One invoice line. Money in `amount` has exactly the currency's minor-unit decimals. */
export interface InvoiceLine {
  charge_id: string;
  charge_name: string;
  model: LineModel;
  charge_type: ChargeType;
  unit: UnitOfMeasure | null;
  /** Units rated ("1" for flat, one-time and discount lines). */
  quantity: string;
  /** per_unit price, flat/one_time amount, volume band price, package price, overage unit price; null for tiered and discounts. */
  unit_price: string | null;
  /** Bands applied (tiered, volume, package), else null. */
  tiers: AppliedTier[] | null;
  overage?: OverageDetail;
  discount?: DiscountDetail;
  /** Present on the minimum commitment true-up line. */
  minimum_commitment?: MinimumCommitmentDetail;
  /** Proration fraction applied (decimal string), null when none or 1. */
  proration: string | null;
  /** Rounded once to minor units; negative for discounts. */
  amount: string;
  /** Present when the usage was split by agent instance. */
  agent_instance_id?: string;
  /** The part of the billing period this line covers. */
  service_period: Period;
}
