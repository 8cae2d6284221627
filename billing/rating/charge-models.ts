/**
 * Charge model kinds, charge types, units of measure, and validation/normalization
 * of pricing configuration into ONE canonical form.
 *
 * Canonical kinds: flat | per_unit | tiered | volume | package | overage | one_time | discount.
 * Input spellings are case-insensitive; spaces and hyphens are read as underscores
 * (see {@link CHARGE_MODEL_SPELLINGS}).
 *
 * Pricing input fields per kind (`pricing_strategy` of a charge model; numbers or
 * decimal strings; where several names are listed the FIRST present one wins):
 *
 * | kind      | fields |
 * |-----------|--------|
 * | flat      | `amount` (aliases `price`, `unit_price`, `list_price`, or a single tier's `price`): fee per billing period |
 * | one_time  | same as flat: fee charged once |
 * | per_unit  | `unit_price` (aliases `price`, `list_price`, or a single tier with counter 1): price per unit |
 * | tiered    | `tiers: [{start, price, counter}]` (graduated: each band at its own rate) |
 * | volume    | `tiers: [{start, price, counter}]` (the band holding the total prices every unit) |
 * | package   | `package_size` (alias `counter`, or a single tier's `counter`) and `package_price` (aliases `unit_price`, `price`, `list_price`, single tier's `price`): price per started package |
 * | overage   | `base_fee` (per period, includes the allowance), `included_units`, `overage_unit_price` (alias `unit_price`) |
 * | discount  | exactly one of `percent` (alias `percentage`, 0 < p <= 100) or `amount` (> 0); optional `applies_to` (alias `applies_to_charge_id`): the charge id (or name) it targets, else the whole invoice |
 *
 * `unit_of_measure` (any kind): one of @action, @outcome, @user, @seat (the leading
 * "@" and a plural "s" are optional on input).
 *
 * Tier semantics: `start` is the first unit of the band (inclusive) and the band ends
 * where the next tier starts. Input may be 0-based or 1-based, told by the FIRST
 * tier: a first start of 0 means starts are offsets (0, 100 = "first 100 units, then
 * the rest"); a first start of 1 means unit ordinals (1, 101 = the same bands). The
 * canonical form is 1-based (first tier start "1"). `counter` is the package size
 * the band's price applies to (default 1; partial packages round up).
 *
 * A charge's `pricing` object may override the model's price: `unit_price` (alias
 * `list_price`; `unit_price` wins) replaces `amount` (flat, one_time), `unit_price`
 * (per_unit), `package_price` (package) or `overage_unit_price` (overage); for
 * tiered and volume, `pricing.tiers` replaces the tiers and `unit_price` is ignored;
 * for discount, `percent`/`amount` replace the discount and `applies_to` sets the target.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { ValueErrorType } from '@sinclair/typebox/errors';
import { DECIMAL_STRING_RE, Dec, formatDecimal, tryParseDecimal } from './money.ts';

/** Canonical charge model kinds. */
export type ChargeModelKind = 'flat' | 'per_unit' | 'tiered' | 'volume' | 'package' | 'overage' | 'one_time' | 'discount';
/** All canonical charge model kinds. */
export const CHARGE_MODEL_KINDS: readonly ChargeModelKind[] = ['flat', 'per_unit', 'tiered', 'volume', 'package', 'overage', 'one_time', 'discount'];

/** Canonical charge types. */
export type ChargeType = 'usage' | 'recurring' | 'one_time';
/** All canonical charge types. */
export const CHARGE_TYPES: readonly ChargeType[] = ['usage', 'recurring', 'one_time'];

/** Units of measure of the computed data model. */
export type UnitOfMeasure = '@action' | '@outcome' | '@user' | '@seat';
/** All units of measure. */
export const UNITS_OF_MEASURE: readonly UnitOfMeasure[] = ['@action', '@outcome', '@user', '@seat'];

/** Accepted input spellings (after lower-casing and mapping spaces/hyphens to "_") of each kind. */
export const CHARGE_MODEL_SPELLINGS: Readonly<Record<ChargeModelKind, readonly string[]>> = {
  flat: ['flat', 'flat_fee', 'flatfee', 'flat_rate', 'fixed', 'fixed_fee'],
  per_unit: ['per_unit', 'perunit', 'unit'],
  tiered: ['tiered', 'tier', 'tiers', 'graduated'],
  volume: ['volume', 'volume_pricing', 'volume_tiered'],
  package: ['package', 'package_pricing', 'per_package'],
  overage: ['overage', 'overage_pricing'],
  one_time: ['one_time', 'onetime', 'one_time_fee'],
  discount: ['discount', 'discounts'],
};

/** Accepted input spellings of each charge type. */
export const CHARGE_TYPE_SPELLINGS: Readonly<Record<ChargeType, readonly string[]>> = {
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

/** Kinds whose amount depends on a usage quantity (they need a unit of measure). */
export const USAGE_KINDS: readonly ChargeModelKind[] = ['per_unit', 'tiered', 'volume', 'package', 'overage'];

/** Charge type used when a charge gives none: flat/overage/discount recurring, one_time one_time, others usage. */
export function defaultChargeType(kind: ChargeModelKind): ChargeType {
  switch (kind) {
    case 'flat':
    case 'overage':
    case 'discount':
      return 'recurring';
    case 'one_time':
      return 'one_time';
    default:
      return 'usage';
  }
}

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

/** A charge model after validation. */
export interface ChargeModelDef {
  type: ChargeModelKind;
  pricing_strategy: PricingStrategy;
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

/** Raw input of {@link buildRatedCharge}: charge model fields plus charge fields, as clients send them. */
export interface RatedChargeInput {
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
  /** Charge `pricing` object (overrides, see module doc). */
  pricing?: unknown;
  already_charged?: boolean;
}

// ---------------------------------------------------------------------------
// TypeBox schemas (structure); semantic checks follow in code.

const DecimalT = Type.Union([Type.Number(), Type.String({ pattern: DECIMAL_STRING_RE.source })], {
  errorMessage: 'must be a number or a decimal string',
});
const IntegerT = Type.Union([Type.Integer(), Type.String({ pattern: '^[+-]?\\d+$' })], {
  errorMessage: 'must be an integer',
});
const TextT = Type.String({ minLength: 1, errorMessage: 'must be a non-empty string' });
const TierT = Type.Object(
  { price: DecimalT, start: Type.Optional(IntegerT), counter: Type.Optional(IntegerT) },
  { errorMessage: 'must be an object {price, start, counter}' },
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

type Raw = Record<string, unknown>;

/** Converts a TypeBox JSON pointer ("/tiers/0/price") into "prefix.tiers[0].price". */
function joinPath(prefix: string, pointer: string): string {
  let out = prefix;
  for (const seg of pointer.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix: string): ValidationIssue[] {
  const seen = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const e of check.Errors(value)) {
    const path = joinPath(prefix, e.path);
    if (seen.has(path)) continue;
    seen.add(path);
    const custom = (e.schema as { errorMessage?: string }).errorMessage;
    const message = e.type === ValueErrorType.ObjectRequiredProperty ? 'is required' : (custom ?? e.message);
    // Name the field by its last key ("price", "tiers[1]"), as semantic messages do.
    const name = /([A-Za-z_][\w]*(?:\[\d+\])*)$/.exec(path)?.[1] ?? (path || 'value');
    out.push({ path, message: `${name} ${message}` });
  }
  return out;
}

class Ctx {
  readonly errors: ValidationIssue[] = [];
  constructor(readonly prefix: string) {}
  path(field: string): string {
    return this.prefix ? `${this.prefix}.${field}` : field;
  }
  fail(field: string, message: string): void {
    this.errors.push({ path: this.path(field), message });
  }
}

/** First present field among `names`: its name and value. */
function pick(obj: Raw, names: readonly string[]): { name: string; value: unknown } | null {
  for (const n of names) if (obj[n] !== undefined && obj[n] !== null) return { name: n, value: obj[n] };
  return null;
}

/** Non-negative decimal field (money or quantity) in canonical form, or undefined if absent/invalid (error recorded). */
function nonNegative(ctx: Ctx, field: string, value: unknown, label = field): string | undefined {
  const d = tryParseDecimal(value);
  if (d === null) {
    ctx.fail(field, `${label} must be a number or a decimal string`);
    return undefined;
  }
  if (d.isNeg() && !d.isZero()) {
    ctx.fail(field, `${label} must not be negative`);
    return undefined;
  }
  return formatDecimal(d);
}

function positiveInteger(ctx: Ctx, field: string, value: unknown, label = field): string | undefined {
  const d = tryParseDecimal(value);
  if (d === null || !d.isInteger() || d.lt(1)) {
    ctx.fail(field, `${label} must be an integer of at least 1`);
    return undefined;
  }
  return formatDecimal(d);
}

/** Validates and canonicalizes a tier list (see module doc for 0-/1-based starts). */
function normalizeTiers(ctx: Ctx, field: string, raw: unknown): Tier[] | undefined {
  if (!Array.isArray(raw) || raw.length === 0) {
    ctx.fail(field, 'tiers must contain at least one tier');
    return undefined;
  }
  const before = ctx.errors.length;
  const starts: Dec[] = [];
  const tiers: Tier[] = [];
  raw.forEach((t: Raw, i) => {
    const f = `${field}[${i}]`;
    const price = nonNegative(ctx, `${f}.price`, t.price, 'price');
    const counter = t.counter === undefined || t.counter === null ? '1' : positiveInteger(ctx, `${f}.counter`, t.counter, 'counter');
    let start: Dec | null;
    if (t.start === undefined || t.start === null) {
      start = i === 0 ? new Dec(0) : null;
      if (start === null) ctx.fail(`${f}.start`, 'start is required on every tier after the first');
    } else {
      start = tryParseDecimal(t.start);
      if (start === null || !start.isInteger() || start.isNeg()) {
        ctx.fail(`${f}.start`, 'start must be a non-negative integer');
        start = null;
      }
    }
    if (start) starts.push(start);
    tiers.push({ start: '', price: price ?? '0', counter: counter ?? '1' });
  });
  if (ctx.errors.length > before) return undefined;
  const first = starts[0]!;
  let ordered = first.lte(1);
  for (let i = 1; i < starts.length; i++) if (!starts[i]!.gt(starts[i - 1]!)) ordered = false;
  if (!ordered) {
    ctx.fail(field, 'tiers must start at 0 or 1 and be strictly increasing');
    return undefined;
  }
  // 0-based input (first start 0) is shifted to 1-based unit ordinals.
  const shift = first.isZero() ? 1 : 0;
  tiers.forEach((t, i) => (t.start = formatDecimal(starts[i]!.plus(shift))));
  return tiers;
}

/** Price of a single-tier list used as shorthand for a one-price kind; records an error if there are several tiers. */
function singleTier(ctx: Ctx, s: Raw, kind: ChargeModelKind): Tier | undefined {
  if (s.tiers === undefined || s.tiers === null) return undefined;
  const tiers = normalizeTiers(ctx, 'tiers', s.tiers);
  if (!tiers) return undefined;
  if (tiers.length !== 1) {
    ctx.fail('tiers', `${kind} pricing takes a single price; use tiered or volume for several tiers`);
    return undefined;
  }
  return tiers[0];
}

/**
 * Structure + semantic checks of a raw strategy for one kind; returns the canonical
 * stored strategy. Prices a charge may supply may be missing ({@link complete} checks).
 */
function normalizeStrategy(kind: ChargeModelKind, raw: unknown, ctx: Ctx): PricingStrategy | undefined {
  if (raw === undefined || raw === null) raw = {};
  const structural = schemaErrors(StrategyCheck, raw, ctx.prefix);
  if (structural.length) {
    ctx.errors.push(...structural);
    return undefined;
  }
  const s = raw as Raw;
  const out: PricingStrategy = {};
  if (s.unit_of_measure !== undefined) {
    const u = normalizeUnitOfMeasure(s.unit_of_measure);
    if (u) out.unit_of_measure = u;
    else ctx.fail('unit_of_measure', 'unit_of_measure must be one of @action, @outcome, @user, @seat');
  }
  switch (kind) {
    case 'flat':
    case 'one_time': {
      const p = pick(s, ['amount', 'price', 'unit_price', 'list_price']);
      if (p) out.amount = nonNegative(ctx, p.name, p.value);
      else {
        const t = singleTier(ctx, s, kind);
        if (t) out.amount = t.price;
      }
      break;
    }
    case 'per_unit': {
      const p = pick(s, ['unit_price', 'price', 'list_price']);
      if (p) out.unit_price = nonNegative(ctx, p.name, p.value);
      else {
        const t = singleTier(ctx, s, kind);
        if (t && t.counter !== '1') ctx.fail('tiers[0].counter', 'per_unit pricing has counter 1; use package for a package size');
        else if (t) out.unit_price = t.price;
      }
      break;
    }
    case 'tiered':
    case 'volume': {
      if (s.tiers === undefined || s.tiers === null) ctx.fail('tiers', `tiers are required for ${kind} pricing`);
      else out.tiers = normalizeTiers(ctx, 'tiers', s.tiers);
      break;
    }
    case 'package': {
      const t = pick(s, ['package_size', 'counter']) ? undefined : singleTier(ctx, s, kind);
      const size = pick(s, ['package_size', 'counter']);
      if (size) out.package_size = positiveInteger(ctx, size.name, size.value, 'package_size');
      else if (t) out.package_size = t.counter;
      else if (s.tiers === undefined) ctx.fail('package_size', 'package_size is required for package pricing');
      const p = pick(s, ['package_price', 'unit_price', 'price', 'list_price']);
      if (p) out.package_price = nonNegative(ctx, p.name, p.value);
      else if (t) out.package_price = t.price;
      break;
    }
    case 'overage': {
      const base = pick(s, ['base_fee']);
      if (base) out.base_fee = nonNegative(ctx, 'base_fee', base.value);
      else ctx.fail('base_fee', 'base_fee is required for overage pricing');
      const inc = pick(s, ['included_units']);
      if (inc) out.included_units = nonNegative(ctx, 'included_units', inc.value);
      else ctx.fail('included_units', 'included_units is required for overage pricing');
      const p = pick(s, ['overage_unit_price', 'unit_price']);
      if (p) out.overage_unit_price = nonNegative(ctx, p.name, p.value, 'overage_unit_price');
      break;
    }
    case 'discount': {
      normalizeDiscount(ctx, s, out);
      break;
    }
  }
  // Drop fields left undefined by failed checks.
  for (const k of Object.keys(out) as (keyof PricingStrategy)[]) if (out[k] === undefined) delete out[k];
  return out;
}

function normalizeDiscount(ctx: Ctx, s: Raw, out: PricingStrategy): void {
  const pct = pick(s, ['percent', 'percentage']);
  const amt = pick(s, ['amount']);
  if (pct && amt) {
    ctx.fail('percent', 'discount takes either percent or amount, not both');
    return;
  }
  if (pct) {
    const d = tryParseDecimal(pct.value);
    if (d === null || !d.gt(0) || d.gt(100)) ctx.fail(pct.name, 'percent must be greater than 0 and at most 100');
    else out.percent = formatDecimal(d);
  } else if (amt) {
    const d = tryParseDecimal(amt.value);
    if (d === null || !d.gt(0)) ctx.fail('amount', 'discount amount must be greater than 0');
    else out.amount = formatDecimal(d);
  }
  const target = pick(s, ['applies_to', 'applies_to_charge_id']);
  if (target) out.applies_to = String(target.value);
}

/** Applies a charge's `pricing` overrides onto a normalized strategy (errors recorded under "pricing"). */
function applyChargePricing(kind: ChargeModelKind, base: PricingStrategy, raw: unknown, ctx: Ctx): PricingStrategy | undefined {
  if (raw === undefined || raw === null) return base;
  const structural = schemaErrors(ChargePricingCheck, raw, ctx.prefix);
  if (structural.length) {
    ctx.errors.push(...structural);
    return undefined;
  }
  const p = raw as Raw;
  const out: PricingStrategy = { ...base };
  const price = pick(p, ['unit_price', 'list_price']);
  const priceValue = price ? nonNegative(ctx, price.name, price.value) : undefined;
  switch (kind) {
    case 'flat':
    case 'one_time':
      if (priceValue !== undefined) out.amount = priceValue;
      break;
    case 'per_unit':
      if (priceValue !== undefined) out.unit_price = priceValue;
      break;
    case 'package':
      if (priceValue !== undefined) out.package_price = priceValue;
      break;
    case 'overage':
      if (priceValue !== undefined) out.overage_unit_price = priceValue;
      break;
    case 'tiered':
    case 'volume':
      if (p.tiers !== undefined && p.tiers !== null) {
        const t = normalizeTiers(ctx, 'tiers', p.tiers);
        if (t) out.tiers = t;
      }
      break;
    case 'discount': {
      const sub: PricingStrategy = {};
      normalizeDiscount(ctx, p, sub);
      if (pick(p, ['percent', 'percentage', 'amount'])) {
        delete out.percent;
        delete out.amount;
        if (sub.percent !== undefined) out.percent = sub.percent;
        if (sub.amount !== undefined) out.amount = sub.amount;
      }
      if (sub.applies_to !== undefined) out.applies_to = sub.applies_to;
      break;
    }
  }
  return out;
}

/** Turns a complete stored strategy into {@link CanonicalPricing}; records missing-price errors. */
function complete(kind: ChargeModelKind, s: PricingStrategy, ctx: Ctx): CanonicalPricing | undefined {
  const miss = (field: string) => {
    ctx.errors.push({
      path: `pricing_strategy.${field}`,
      message: `${field} is required for ${kind} pricing (on the charge model's pricing_strategy or the charge's pricing.unit_price)`,
    });
  };
  switch (kind) {
    case 'flat':
    case 'one_time':
      if (s.amount === undefined) return miss('amount'), undefined;
      return { kind, amount: s.amount };
    case 'per_unit':
      if (s.unit_price === undefined) return miss('unit_price'), undefined;
      return { kind, unit_price: s.unit_price };
    case 'tiered':
    case 'volume':
      if (!s.tiers) return miss('tiers'), undefined;
      return { kind, tiers: s.tiers.map((t) => ({ ...t })) };
    case 'package':
      if (s.package_size === undefined) return miss('package_size'), undefined;
      if (s.package_price === undefined) return miss('package_price'), undefined;
      return { kind, package_size: s.package_size, package_price: s.package_price };
    case 'overage':
      if (s.base_fee === undefined || s.included_units === undefined) return undefined; // already reported
      if (s.overage_unit_price === undefined) return miss('overage_unit_price'), undefined;
      return { kind, base_fee: s.base_fee, included_units: s.included_units, overage_unit_price: s.overage_unit_price };
    case 'discount':
      if (s.percent === undefined && s.amount === undefined) {
        ctx.errors.push({ path: 'pricing_strategy.percent', message: 'discount requires percent or amount' });
        return undefined;
      }
      return { kind, percent: s.percent ?? null, amount: s.percent === undefined ? (s.amount ?? null) : null, applies_to: s.applies_to ?? null };
  }
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
  const value = complete(kind, merged, cctx);
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

/**
 * Builds a {@link RatedCharge} from a charge model and a charge (raw client spellings
 * or stored canonical forms). Charge type defaults per kind; `one_time` kind forces
 * charge type one_time; usage kinds and overage reject charge type one_time.
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
  } else if (kind === 'one_time') {
    chargeType = 'one_time';
  } else if (chargeType === 'one_time' && kind !== 'flat' && kind !== 'discount') {
    errors.push({ path: 'charge_type_code', message: `charge_type one_time is only valid for flat, one_time and discount charges, not ${kind}` });
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
