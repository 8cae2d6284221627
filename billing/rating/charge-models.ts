/**
 * Charge model kinds, charge types, units of measure, and validation/normalization
 * of pricing configuration into ONE canonical form. Each kind's rules live in its own
 * module under models/ (input fields, `pricing` overrides, completeness, rating), listed
 * in the registry models/index.ts; this module holds the generic steps and dispatches:
 *
 * | kind     | module               | fields (`pricing_strategy`) |
 * |----------|----------------------|-----------------------------|
 * | flat     | models/flat.ts       | `amount` per billing period |
 * | one_time | models/one-time.ts   | `amount` charged once |
 * | per_unit | models/per-unit.ts   | `unit_price` |
 * | tiered   | models/tiered.ts     | `tiers: [{start, price, counter}]` (graduated) |
 * | volume   | models/volume.ts     | `tiers: [{start, price, counter}]` (one band prices all) |
 * | package  | models/package.ts    | `package_size`, `package_price` |
 * | overage  | models/overage.ts    | `base_fee`, `included_units`, `overage_unit_price` |
 * | discount | models/discount.ts   | `percent` or `amount`, `applies_to` |
 *
 * Input spellings are case-insensitive; spaces and hyphens are read as underscores
 * (see {@link CHARGE_MODEL_SPELLINGS}). Numbers may be given as numbers or decimal
 * strings; where several field names are accepted the FIRST present one wins.
 * `unit_of_measure` (any kind): one of @action, @outcome, @user, @seat (the leading
 * "@" and a plural "s" are optional on input). Tier semantics: see validation-kit.ts.
 *
 * Validation runs in three steps, errors prefixed "pricing_strategy." or "pricing.":
 * normalize (structure check, unit of measure, then the model's fields), override (a
 * charge's `pricing` object: structure check, any field the model does not apply refused
 * (each model's `overrides`: unit_price/list_price for flat, one_time, per_unit, package and
 * overage; tiers for tiered and volume; percent/percentage/amount/applies_to for
 * discount), its `unit_price`/`list_price`, then the model's overrides), complete (every
 * price present).
 */
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { DECIMAL_STRING_RE } from './money.ts';
import { CHARGE_MODEL_KINDS, CHARGE_MODEL_SPELLINGS, USAGE_KINDS, chargeModel, defaultChargeType } from './models/index.ts';
import type { CanonicalPricing, ChargeModelKind, ChargeType, PricingStrategy, RatedCharge, Result, UnitOfMeasure, ValidationIssue } from './types.ts';
import { Ctx, type Raw, nonNegative, pick, schemaErrors } from './validation-kit.ts';

export type { CanonicalPricing, ChargeModelKind, ChargeType, RatedCharge, Tier, UnitOfMeasure, ValidationIssue } from './types.ts';
export { CHARGE_MODEL_KINDS, defaultChargeType } from './models/index.ts';

/** All canonical charge types. */
const CHARGE_TYPES: readonly ChargeType[] = ['usage', 'recurring', 'one_time'];

/** All units of measure. */
const UNITS_OF_MEASURE: readonly UnitOfMeasure[] = ['@action', '@outcome', '@user', '@seat'];

/** Accepted input spellings of each charge type. */
const CHARGE_TYPE_SPELLINGS: Readonly<Record<ChargeType, readonly string[]>> = {
  usage: ['usage', 'usage_based', 'metered'],
  recurring: ['recurring'],
  one_time: ['one_time', 'onetime'],
};

function spellingKey(input: string): string {
  return input.trim().toLowerCase().replace(/[\s-]+/g, '_');
}

function reverseIndex<K extends string>(table: Readonly<Record<K, readonly string[]>>): Map<string, K> {
  const m = new Map<string, K>();
  for (const [k, spellings] of Object.entries(table) as [K, readonly string[]][]) for (const s of spellings) m.set(s, k);
  return m;
}
const MODEL_INDEX = reverseIndex(CHARGE_MODEL_SPELLINGS);
const TYPE_INDEX = reverseIndex(CHARGE_TYPE_SPELLINGS);

/** Canonical kind of a charge model spelling ("Flat-Fee" -> "flat", "overage-pricing" -> "overage"), or null if unknown. */
export function normalizeChargeModel(input: unknown): ChargeModelKind | null {
  return typeof input === 'string' ? (MODEL_INDEX.get(spellingKey(input)) ?? null) : null;
}

/** Canonical charge type of a spelling ("one-time" -> "one_time"), or null if unknown. */
export function normalizeChargeType(input: unknown): ChargeType | null {
  return typeof input === 'string' ? (TYPE_INDEX.get(spellingKey(input)) ?? null) : null;
}

/** Canonical unit of measure ("@Action", "action", "actions" -> "@action"), or null if unknown. */
export function normalizeUnitOfMeasure(input: unknown): UnitOfMeasure | null {
  if (typeof input !== 'string') return null;
  let s = input.trim().toLowerCase();
  if (!s.startsWith('@')) s = '@' + s;
  if (s.endsWith('s')) s = s.slice(0, -1);
  return (UNITS_OF_MEASURE as readonly string[]).includes(s) ? (s as UnitOfMeasure) : null;
}

/** A charge model after validation. */
interface ChargeModelDef {
  type: ChargeModelKind;
  pricing_strategy: PricingStrategy;
}

/** Raw input of {@link buildRatedCharge}: charge model fields plus charge fields, as clients send them. */
interface RatedChargeInput {
  id: string;
  name: string;
  /** Charge model `type` (any accepted spelling). */
  model_type: unknown;
  /** Charge model `pricing_strategy` (raw, or a stored {@link PricingStrategy}). */
  pricing_strategy: unknown;
  /** Charge `charge_type_code` or `charge_type` (any accepted spelling); defaults per {@link defaultChargeType}. */
  charge_type_code?: unknown;
  charge_type?: unknown;
  /** Charge unit of measure; overrides the model's. */
  unit_of_measure?: unknown;
  /** Charge `pricing` object (overrides, see each model's module doc). */
  pricing?: unknown;
  already_charged?: boolean;
}

// ---------------------------------------------------------------------------
// TypeBox schemas (structure) of the fields of every kind; a kind with new fields adds
// them here. Semantic checks are in each kind's module (models/<kind>.ts).

const DecimalT = Type.Union([Type.Number(), Type.String({ pattern: DECIMAL_STRING_RE.source })], {
  errorMessage: 'must be a number or a decimal string',
});
const IntegerT = Type.Union([Type.Integer(), Type.String({ pattern: '^[+-]?\\d+$' })], {
  errorMessage: 'must be an integer',
});
const TextT = Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' });
const TierT = Type.Object(
  { price: DecimalT, start: Type.Optional(IntegerT), counter: Type.Optional(IntegerT) },
  { additionalProperties: false, unknownMessage: 'is not a field of a tier (a tier takes price, start and counter)', errorMessage: 'must be an object {price, start, counter}' },
);
const TiersT = Type.Array(TierT, { errorMessage: 'must be an array of tiers' });

const StrategySchema = Type.Object(
  {
    unit_of_measure: Type.Optional(Type.String({ errorMessage: 'must be one of @action, @outcome, @user, @seat' })),
    tiers: Type.Optional(TiersT),
    amount: Type.Optional(DecimalT),
    price: Type.Optional(DecimalT),
    unit_price: Type.Optional(DecimalT),
    list_price: Type.Optional(DecimalT),
    package_size: Type.Optional(IntegerT),
    counter: Type.Optional(IntegerT),
    package_price: Type.Optional(DecimalT),
    base_fee: Type.Optional(DecimalT),
    included_units: Type.Optional(DecimalT),
    overage_unit_price: Type.Optional(DecimalT),
    percent: Type.Optional(DecimalT),
    percentage: Type.Optional(DecimalT),
    applies_to: Type.Optional(TextT),
    applies_to_charge_id: Type.Optional(TextT),
  },
  { errorMessage: 'must be an object' },
);

const ChargePricingSchema = Type.Object(
  {
    unit_price: Type.Optional(DecimalT),
    list_price: Type.Optional(DecimalT),
    tiers: Type.Optional(TiersT),
    percent: Type.Optional(DecimalT),
    percentage: Type.Optional(DecimalT),
    amount: Type.Optional(DecimalT),
    applies_to: Type.Optional(TextT),
    applies_to_charge_id: Type.Optional(TextT),
  },
  { errorMessage: 'must be an object' },
);

const StrategyCheck = TypeCompiler.Compile(StrategySchema);
const ChargePricingCheck = TypeCompiler.Compile(ChargePricingSchema);

/**
 * Structure check and unit of measure of a raw strategy, then the kind's own fields
 * (models/<kind>.ts `normalize`); returns the canonical stored strategy. Prices a charge
 * may supply may be missing (`complete` checks).
 */
function normalizeStrategy(kind: ChargeModelKind, raw: unknown, ctx: Ctx): PricingStrategy | undefined {
  if (raw === undefined || raw === null) raw = {};
  const structural = schemaErrors(StrategyCheck, raw, ctx.prefix);
  if (structural.length) {
    ctx.errors.push(...structural);
    return undefined;
  }
  const s = raw as Raw;
  const accepted = chargeModel(kind).fields;
  for (const field of Object.keys(s)) {
    if (field !== 'unit_of_measure' && !accepted.includes(field)) {
      ctx.fail(field, `pricing_strategy.${field} does not apply to the ${kind} charge model; its pricing_strategy takes ${listWithOr(accepted)} (and unit_of_measure)`);
    }
  }
  oneSpellingEach(s, accepted, ctx);
  const out: PricingStrategy = {};
  if (s.unit_of_measure !== undefined) {
    const u = normalizeUnitOfMeasure(s.unit_of_measure);
    if (u) out.unit_of_measure = u;
    else ctx.fail('unit_of_measure', 'unit_of_measure must be one of @action, @outcome, @user, @seat');
  }
  Object.assign(out, chargeModel(kind).normalize(s, ctx));
  // Drop fields left undefined by failed checks.
  for (const k of Object.keys(out) as (keyof PricingStrategy)[]) if (out[k] === undefined) delete out[k];
  return out;
}

/**
 * Spellings of one value: a pricing object gives each value once. Two of a group (a
 * `price` and a `unit_price`), or `tiers` beside a price where a single tier is another
 * way to give it (flat, per_unit, package), would leave one silently unused.
 */
const SPELLINGS: readonly (readonly string[])[] = [
  ['amount', 'price', 'unit_price', 'list_price', 'package_price', 'overage_unit_price'],
  ['package_size', 'counter'],
  ['percent', 'percentage'],
  ['applies_to', 'applies_to_charge_id'],
];

/** Records an error (and returns false) for each value `fields` gives in more than one spelling of those `accepted`. */
function oneSpellingEach(fields: Raw, accepted: readonly string[], ctx: Ctx): boolean {
  const given = (names: readonly string[]) => names.filter((n) => accepted.includes(n) && fields[n] !== undefined && fields[n] !== null);
  let ok = true;
  const groups = SPELLINGS.map(given);
  for (const names of groups) {
    if (names.length < 2) continue;
    ok = false;
    ctx.fail(names[1]!, `${names.join(' and ')} give the same value: give one of them`);
  }
  const others = accepted.filter((n) => n !== 'tiers' && !['percent', 'percentage', 'applies_to', 'applies_to_charge_id'].includes(n));
  if (accepted.includes('tiers') && others.length > 0 && fields.tiers !== undefined && given(others).length > 0) {
    ok = false;
    ctx.fail('tiers', `tiers and ${given(others).join(' and ')} both give the price: give one of them`);
  }
  return ok;
}

/** The fields of a charge's `pricing` that a model of `kind` cannot apply (see each model's `overrides`). */
function refusedOverrides(kind: ChargeModelKind, pricing: Raw): string[] {
  const accepted = chargeModel(kind).overrides;
  return Object.keys(pricing).filter((f) => !accepted.includes(f));
}

/** "pricing.unit_price does not apply to a tiered charge model; its charges' pricing accepts tiers". */
function refusedOverrideMessage(kind: ChargeModelKind, field: string): string {
  return `pricing.${field} does not apply to the ${kind} charge model; its charges' pricing accepts ${listWithOr(chargeModel(kind).overrides)}`;
}

/**
 * Applies a charge's `pricing` overrides onto a normalized strategy (errors recorded
 * under "pricing"): structure check, its price (`unit_price`, alias `list_price`), then
 * the kind's own overrides (models/<kind>.ts `override`).
 */
function applyChargePricing(kind: ChargeModelKind, base: PricingStrategy, raw: unknown, ctx: Ctx): PricingStrategy | undefined {
  if (raw === undefined || raw === null) return base;
  const structural = schemaErrors(ChargePricingCheck, raw, ctx.prefix);
  if (structural.length) {
    ctx.errors.push(...structural);
    return undefined;
  }
  const fields = raw as Raw;
  const refused = refusedOverrides(kind, fields);
  if (refused.length) {
    ctx.errors.push(...refused.map((f) => ({ path: ctx.path(f), message: refusedOverrideMessage(kind, f) })));
    return undefined;
  }
  if (!oneSpellingEach(fields, chargeModel(kind).overrides, ctx)) return undefined;
  const price = pick(fields, ['unit_price', 'list_price']);
  const unitPrice = price ? nonNegative(ctx, price.name, price.value) : undefined;
  return chargeModel(kind).override({ ...base }, { fields, unitPrice }, ctx);
}

/**
 * Validates the pricing of one kind, optionally merged with a charge's `pricing`
 * overrides, and returns complete {@link CanonicalPricing} (every price present).
 * Error paths are prefixed "pricing_strategy." or "pricing.".
 */
export function validatePricing(kind: ChargeModelKind, pricingStrategy: unknown, chargePricing?: unknown): Result<CanonicalPricing> {
  const sctx = new Ctx('pricing_strategy');
  const strategy = normalizeStrategy(kind, pricingStrategy, sctx);
  if (!strategy || sctx.errors.length) return { ok: false, errors: sctx.errors };
  const pctx = new Ctx('pricing');
  const merged = applyChargePricing(kind, strategy, chargePricing, pctx);
  if (!merged || pctx.errors.length) return { ok: false, errors: pctx.errors };
  const cctx = new Ctx('');
  const value = chargeModel(kind).complete(merged, cctx);
  if (!value || cctx.errors.length) {
    const errors = cctx.errors.length ? cctx.errors : [{ path: 'pricing', message: `${kind} pricing is incomplete` }];
    return { ok: false, errors };
  }
  return { ok: true, value };
}

/** Per-kind validators (each: `(pricing_strategy, charge pricing?) => Result<CanonicalPricing>`). */
export const PRICING_VALIDATORS: Readonly<Record<ChargeModelKind, (pricingStrategy: unknown, chargePricing?: unknown) => Result<CanonicalPricing>>> =
  Object.fromEntries(CHARGE_MODEL_KINDS.map((k) => [k, (s: unknown, p?: unknown) => validatePricing(k, s, p)])) as Record<
    ChargeModelKind,
    (pricingStrategy: unknown, chargePricing?: unknown) => Result<CanonicalPricing>
  >;

/**
 * Validates a charge model `{ type, pricing_strategy }` as sent by a client and
 * returns its canonical form. Prices a charge may supply (flat/one_time amount,
 * per_unit unit_price, package price, overage unit price, discount value) may be absent.
 */
export function validateChargeModel(input: unknown): Result<ChargeModelDef> {
  if (typeof input !== 'object' || input === null) return { ok: false, errors: [{ path: '', message: 'charge model must be an object' }] };
  const raw = input as Raw;
  const kind = normalizeChargeModel(raw.type);
  if (!kind) {
    return {
      ok: false,
      errors: [{ path: 'type', message: `type must be one of ${CHARGE_MODEL_KINDS.join(', ')} (got ${JSON.stringify(raw.type)})` }],
    };
  }
  if (raw.pricing_strategy === undefined || raw.pricing_strategy === null) {
    return { ok: false, errors: [{ path: 'pricing_strategy', message: 'pricing_strategy is required' }] };
  }
  const ctx = new Ctx('pricing_strategy');
  const strategy = normalizeStrategy(kind, raw.pricing_strategy, ctx);
  if (!strategy || ctx.errors.length) return { ok: false, errors: ctx.errors };
  return { ok: true, value: { type: kind, pricing_strategy: strategy } };
}

/** "a, b or c". */
function listWithOr(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

/** "a, b and c". */
function listWithAnd(items: readonly string[]): string {
  return items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** Kinds that take charge type one_time, for messages ("flat, one_time and discount"). */
const ONE_TIME_KINDS = listWithAnd(CHARGE_MODEL_KINDS.filter((k) => chargeModel(k).oneTime !== 'rejected'));

/**
 * Builds a {@link RatedCharge} from a charge model and a charge (raw client spellings
 * or stored canonical forms). Charge type defaults per kind; a kind's `oneTime` rule
 * forces (one_time), allows (flat, discount) or rejects (usage kinds) charge type one_time.
 * Unit of measure: the charge's, else the model's, else "@action" for usage kinds.
 */
export function buildRatedCharge(input: RatedChargeInput): Result<RatedCharge> {
  const errors: ValidationIssue[] = [];
  if (typeof input.id !== 'string' || !input.id) errors.push({ path: 'id', message: 'id must be a non-empty string' });
  if (typeof input.name !== 'string') errors.push({ path: 'name', message: 'name must be a string' });
  const kind = normalizeChargeModel(input.model_type);
  if (!kind) {
    errors.push({ path: 'type', message: `type must be one of ${CHARGE_MODEL_KINDS.join(', ')} (got ${JSON.stringify(input.model_type)})` });
    return { ok: false, errors };
  }
  const rawType = input.charge_type_code ?? input.charge_type;
  let chargeType: ChargeType | null = rawType === undefined || rawType === null ? defaultChargeType(kind) : normalizeChargeType(rawType);
  if (!chargeType) {
    errors.push({ path: 'charge_type_code', message: `charge_type_code must be one of ${CHARGE_TYPES.join(', ')} (got ${JSON.stringify(rawType)})` });
  } else if (chargeModel(kind).oneTime === 'always') {
    chargeType = 'one_time';
  } else if (chargeType === 'one_time' && chargeModel(kind).oneTime === 'rejected') {
    errors.push({ path: 'charge_type_code', message: `charge_type one_time is only valid for ${ONE_TIME_KINDS} charges, not ${kind}` });
  }
  const pricing = validatePricing(kind, input.pricing_strategy, input.pricing ?? undefined);
  if (!pricing.ok) errors.push(...pricing.errors);
  let unit: UnitOfMeasure | null = null;
  if (input.unit_of_measure !== undefined && input.unit_of_measure !== null) {
    unit = normalizeUnitOfMeasure(input.unit_of_measure);
    if (!unit) errors.push({ path: 'unit_of_measure', message: 'unit_of_measure must be one of @action, @outcome, @user, @seat' });
  } else {
    const ps = input.pricing_strategy as Raw | null | undefined;
    unit = ps && typeof ps === 'object' ? normalizeUnitOfMeasure(ps.unit_of_measure) : null;
    if (!unit && USAGE_KINDS.includes(kind)) unit = '@action';
  }
  if (errors.length || !pricing.ok || !chargeType) return { ok: false, errors };
  const charge: RatedCharge = {
    id: input.id,
    name: input.name,
    model: kind,
    charge_type: chargeType,
    unit_of_measure: unit,
    pricing: pricing.value,
  };
  if (input.already_charged !== undefined) charge.already_charged = input.already_charged === true;
  return { ok: true, value: charge };
}
