/**
 * discount: a reduction of one charge or of the whole invoice (charge type recurring
 * by default; one_time allowed).
 *
 * Input: exactly one of `percent` (alias `percentage`, 0 < p <= 100) or `amount` (> 0);
 * optional `applies_to` (alias `applies_to_charge_id`): the charge id (or name) it
 * targets, else the whole invoice. A charge's `pricing.percent`/`amount` replace the
 * discount and `pricing.applies_to` sets the target.
 *
 * Rating is not per charge: discounts come AFTER all charges of a window, so `rate`
 * gives no lines and rate.ts's rateWindow orders them (those targeting a charge first,
 * then invoice-level ones, each group in input order), finds each target and keeps the
 * remaining amounts, calling {@link applyDiscount} for each one's amount and line:
 * - percent: round(percent/100 x remaining);
 * - amount: the amount, x the window's proration fraction when the charge type is
 *   recurring;
 * capped at the remaining amount of its target, so nothing goes below zero. Discount
 * lines are negative; a one_time discount with `already_charged` produces no line
 * ({@link alreadyApplied}).
 */
import { Dec, formatDecimal, tryParseDecimal } from '../money.ts';
import { type ChargeWindow, RatingError, billsOnce, num, prorate } from '../rating-kit.ts';
import type { InvoiceLine, PricingOf, PricingStrategy, RatedCharge } from '../types.ts';
import { type Ctx, type Raw, pick } from '../validation-kit.ts';
import type { ChargeModel } from './model.ts';

/** Writes the discount fields of `s` into `out` (errors recorded). */
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

export const DISCOUNT: ChargeModel<'discount'> = {
  kind: 'discount',
  spellings: ['discount', 'discounts'],
  defaultChargeType: 'recurring',
  usage: false,
  oneTime: 'allowed',
  overrides: ['percent', 'percentage', 'amount', 'applies_to', 'applies_to_charge_id'],
  fields: ['percent', 'percentage', 'amount', 'applies_to', 'applies_to_charge_id'],
  normalize(s, ctx) {
    const out: PricingStrategy = {};
    normalizeDiscount(ctx, s, out);
    return out;
  },
  override(strategy, { fields: p }, ctx) {
    const sub: PricingStrategy = {};
    normalizeDiscount(ctx, p, sub);
    if (pick(p, ['percent', 'percentage', 'amount'])) {
      delete strategy.percent;
      delete strategy.amount;
      if (sub.percent !== undefined) strategy.percent = sub.percent;
      if (sub.amount !== undefined) strategy.amount = sub.amount;
    }
    if (sub.applies_to !== undefined) strategy.applies_to = sub.applies_to;
    return strategy;
  },
  complete(s, ctx) {
    if (s.percent === undefined && s.amount === undefined) {
      ctx.errors.push({ path: 'pricing_strategy.percent', message: 'discount requires percent or amount' });
      return undefined;
    }
    return { kind: 'discount', percent: s.percent ?? null, amount: s.percent === undefined ? (s.amount ?? null) : null, applies_to: s.applies_to ?? null };
  },
  /** Discounts give no charge lines: rate.ts applies them after all charges ({@link applyDiscount}). */
  rate: () => [],
};

/** True for a one-time discount already invoiced: it produces no line (and its target is not looked up). */
export function alreadyApplied(c: RatedCharge): boolean {
  return billsOnce(DISCOUNT.oneTime, c) && Boolean(c.already_charged);
}

/**
 * One discount's value (positive, capped at `base`, the remaining amount of its target)
 * and its negative line. `target` is the id of the charge it targets, null for the invoice.
 */
export function applyDiscount(
  c: RatedCharge,
  target: string | null,
  base: Dec,
  { path, window: w, rounder: r }: Pick<ChargeWindow, 'path' | 'window' | 'rounder'>,
): { value: Dec; line: InvoiceLine } {
  const p = c.pricing as PricingOf<'discount'>;
  let value: Dec;
  let proration: string | null = null;
  if (p.percent !== null) {
    const pct = num(p.percent, `${path}.percent`);
    if (!pct.gt(0) || pct.gt(100)) throw new RatingError(`${path}.percent`, 'percent must be greater than 0 and at most 100');
    value = r.round(base.times(pct).div(100));
  } else if (p.amount !== null) {
    const amt = num(p.amount, `${path}.amount`, { nonNegative: true });
    const prorated = c.charge_type === 'recurring' && !billsOnce(DISCOUNT.oneTime, c);
    if (prorated) proration = w.fraction;
    value = r.round(prorated ? prorate(amt, w) : amt);
  } else {
    throw new RatingError(path, 'discount needs percent or amount');
  }
  value = Dec.min(value, base);
  const line: InvoiceLine = {
    charge_id: c.id,
    charge_name: c.name,
    model: 'discount',
    charge_type: c.charge_type,
    unit: null,
    quantity: '1',
    unit_price: null,
    tiers: null,
    discount: { applies_to: target, percent: p.percent, amount: p.amount, base: r.fmt(base) },
    proration,
    amount: r.fmt(value.neg()),
    service_period: w.servicePeriod,
  };
  return { value, line };
}
