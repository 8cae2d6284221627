/**
 * Building blocks the charge model modules (models/*.ts) use to validate pricing
 * input: an error collector ({@link Ctx}), field pickers and checks, tier lists, and
 * the wording of TypeBox errors. Pure; imports neither the registry nor charge-models.ts.
 *
 * Tier semantics: `start` is the first unit of the band (inclusive) and the band ends
 * where the next tier starts. Input may be 0-based or 1-based, told by the FIRST
 * tier: a first start of 0 means starts are offsets (0, 100 = "first 100 units, then
 * the rest"); a first start of 1 means unit ordinals (1, 101 = the same bands). The
 * canonical form is 1-based (first tier start "1"). `counter` is the package size
 * the band's price applies to (default 1; partial packages round up).
 */
import type { TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { fieldProblems } from '../../shared/validation/typebox-errors.ts';
import { Dec, formatDecimal, tryParseDecimal } from './money.ts';
import type { ChargeModelKind, Tier, ValidationIssue } from './types.ts';

/** A raw input object (after its structure check). */
export type Raw = Record<string, unknown>;

/** Collects validation issues under a path prefix ("pricing_strategy", "pricing" or ""). */
export class Ctx {
  readonly errors: ValidationIssue[] = [];
  constructor(readonly prefix: string) {}
  path(field: string): string {
    return this.prefix ? `${this.prefix}.${field}` : field;
  }
  fail(field: string, message: string): void {
    this.errors.push({ path: this.path(field), message });
  }
}

/**
 * Structure errors of `value` against a compiled schema, one per path (the shared
 * reading of TypeBox's errors), each worded like the semantic messages: the field's last
 * key ("price", "tiers[1]") then what is wrong with it.
 */
export function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix: string): ValidationIssue[] {
  return fieldProblems(check.Errors(value), prefix).map(({ path, message }) => {
    const name = /([A-Za-z_][\w]*(?:\[\d+\])*)$/.exec(path)?.[1] ?? (path || 'value');
    return { path, message: `${name} ${message}` };
  });
}

/** First present field among `names`: its name and value. */
export function pick(obj: Raw, names: readonly string[]): { name: string; value: unknown } | null {
  for (const n of names) if (obj[n] !== undefined && obj[n] !== null) return { name: n, value: obj[n] };
  return null;
}

/** Non-negative decimal field (money or quantity) in canonical form, or undefined if absent/invalid (error recorded). */
export function nonNegative(ctx: Ctx, field: string, value: unknown, label = field): string | undefined {
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

/** Integer field of at least 1 in canonical form, or undefined if invalid (error recorded). */
export function positiveInteger(ctx: Ctx, field: string, value: unknown, label = field): string | undefined {
  const d = tryParseDecimal(value);
  if (d === null || !d.isInteger() || d.lt(1)) {
    ctx.fail(field, `${label} must be an integer of at least 1`);
    return undefined;
  }
  return formatDecimal(d);
}

/** Validates and canonicalizes a tier list (see module doc for 0-/1-based starts). */
export function normalizeTiers(ctx: Ctx, field: string, raw: unknown): Tier[] | undefined {
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
export function singleTier(ctx: Ctx, s: Raw, kind: ChargeModelKind): Tier | undefined {
  if (s.tiers === undefined || s.tiers === null) return undefined;
  const tiers = normalizeTiers(ctx, 'tiers', s.tiers);
  if (!tiers) return undefined;
  if (tiers.length !== 1) {
    ctx.fail('tiers', `${kind} pricing takes a single price; use tiered or volume for several tiers`);
    return undefined;
  }
  return tiers[0];
}

/** Records that a complete pricing of `kind` lacks `field` (neither the model nor the charge gave it); returns undefined. */
export function missing(ctx: Ctx, kind: ChargeModelKind, field: string): undefined {
  ctx.errors.push({
    path: `pricing_strategy.${field}`,
    message: `${field} is required for ${kind} pricing (on the charge model's pricing_strategy or the charge's pricing.unit_price)`,
  });
  return undefined;
}
