/**
 * The registry of charge models: one module per kind (see each module's doc for its
 * input fields, overrides and rating rules). Every table about kinds is derived from
 * it; adding a kind is one module plus one line here (and its fields in the structure
 * schemas of charge-models.ts when it takes new ones).
 *
 * | kind     | module       | default charge type | usage | one_time |
 * |----------|--------------|---------------------|-------|----------|
 * | flat     | flat.ts      | recurring           | no    | allowed  |
 * | per_unit | per-unit.ts  | usage               | yes   | rejected |
 * | tiered   | tiered.ts    | usage               | yes   | rejected |
 * | volume   | volume.ts    | usage               | yes   | rejected |
 * | package  | package.ts   | usage               | yes   | rejected |
 * | overage  | overage.ts   | recurring           | yes   | rejected |
 * | one_time | one-time.ts  | one_time            | no    | always   |
 * | discount | discount.ts  | recurring           | no    | allowed  |
 *
 * Shared code: fee.ts (flat, one_time), tier-list.ts (tiered, volume); building blocks
 * in ../validation-kit.ts and ../rating-kit.ts.
 */
import type { ChargeModelKind, ChargeType } from '../types.ts';
import { DISCOUNT } from './discount.ts';
import { FLAT } from './flat.ts';
import type { ChargeModel } from './model.ts';
import { ONE_TIME } from './one-time.ts';
import { OVERAGE } from './overage.ts';
import { PACKAGE } from './package.ts';
import { PER_UNIT } from './per-unit.ts';
import { TIERED } from './tiered.ts';
import { VOLUME } from './volume.ts';

/** Every charge model by kind. Key order is the canonical order of {@link CHARGE_MODEL_KINDS} (used in messages). */
export const CHARGE_MODELS: Readonly<{ [K in ChargeModelKind]: ChargeModel<K> }> = Object.freeze({
  flat: FLAT,
  per_unit: PER_UNIT,
  tiered: TIERED,
  volume: VOLUME,
  package: PACKAGE,
  overage: OVERAGE,
  one_time: ONE_TIME,
  discount: DISCOUNT,
});

/** The model of a kind, typed for dispatch over any kind. */
export function chargeModel(kind: ChargeModelKind): ChargeModel {
  return CHARGE_MODELS[kind] as ChargeModel;
}

/** All canonical charge model kinds. */
export const CHARGE_MODEL_KINDS: readonly ChargeModelKind[] = Object.freeze(Object.keys(CHARGE_MODELS) as ChargeModelKind[]);

/** Accepted input spellings (after lower-casing and mapping spaces/hyphens to "_") of each kind. */
export const CHARGE_MODEL_SPELLINGS: Readonly<Record<ChargeModelKind, readonly string[]>> = Object.freeze(
  Object.fromEntries(CHARGE_MODEL_KINDS.map((k) => [k, CHARGE_MODELS[k].spellings])) as Record<ChargeModelKind, readonly string[]>,
);

/** Kinds whose amount depends on a usage quantity (they need a unit of measure). */
export const USAGE_KINDS: readonly ChargeModelKind[] = Object.freeze(CHARGE_MODEL_KINDS.filter((k) => CHARGE_MODELS[k].usage));

/** Charge type used when a charge gives none: flat/overage/discount recurring, one_time one_time, others usage. */
export function defaultChargeType(kind: ChargeModelKind): ChargeType {
  return CHARGE_MODELS[kind]?.defaultChargeType ?? 'usage'; // an unknown kind (untyped caller): usage
}
