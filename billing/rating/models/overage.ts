/**
 * overage: a base fee per period that includes an allowance of units, plus a price per
 * unit beyond it (charge type recurring by default; one_time rejected).
 *
 * Input: `base_fee` and `included_units` (both required), `overage_unit_price` (alias
 * `unit_price`). A charge's `pricing.unit_price` (alias `list_price`) replaces
 * overage_unit_price.
 * Rating: base_fee x the window's proration fraction + max(0, quantity - included_units)
 * x overage_unit_price; the allowance itself is not prorated and counts from the start
 * of the billing period (a segment bills the overage its usage adds). Rates the unit's
 * total quantity, so the line carries no agent_instance_id.
 */
import { Dec, formatDecimal } from '../money.ts';
import { num, prorate } from '../rating-kit.ts';
import type { PricingStrategy } from '../types.ts';
import { missing, nonNegative, pick } from '../validation-kit.ts';
import type { ChargeModel } from './model.ts';

export const OVERAGE: ChargeModel<'overage'> = {
  kind: 'overage',
  spellings: ['overage', 'overage_pricing'],
  defaultChargeType: 'recurring',
  usage: true,
  oneTime: 'rejected',
  overrides: ['unit_price', 'list_price'],
  fields: ['base_fee', 'included_units', 'overage_unit_price', 'unit_price'],
  normalize(s, ctx) {
    const out: PricingStrategy = {};
    const base = pick(s, ['base_fee']);
    if (base) out.base_fee = nonNegative(ctx, 'base_fee', base.value);
    else ctx.fail('base_fee', 'base_fee is required for overage pricing');
    const inc = pick(s, ['included_units']);
    if (inc) out.included_units = nonNegative(ctx, 'included_units', inc.value);
    else ctx.fail('included_units', 'included_units is required for overage pricing');
    const p = pick(s, ['overage_unit_price', 'unit_price']);
    if (p) out.overage_unit_price = nonNegative(ctx, p.name, p.value, 'overage_unit_price');
    return out;
  },
  override(strategy, { unitPrice }) {
    if (unitPrice !== undefined) strategy.overage_unit_price = unitPrice;
    return strategy;
  },
  complete(s, ctx) {
    if (s.base_fee === undefined || s.included_units === undefined) return undefined; // already reported
    if (s.overage_unit_price === undefined) return missing(ctx, 'overage', 'overage_unit_price');
    return { kind: 'overage', base_fee: s.base_fee, included_units: s.included_units, overage_unit_price: s.overage_unit_price };
  },
  rate(p, _c, { path, line, usage, before, window, rounder: r }) {
    const q = usage.total;
    const fee = prorate(num(p.base_fee, `${path}.base_fee`, { nonNegative: true }), window);
    const included = num(p.included_units, `${path}.included_units`, { nonNegative: true });
    const rate = num(p.overage_unit_price, `${path}.overage_unit_price`, { nonNegative: true });
    const over = Dec.max(0, before.plus(q).minus(included)).minus(Dec.max(0, before.minus(included)));
    const overAmount = over.times(rate);
    return [
      {
        ...line,
        quantity: formatDecimal(q),
        unit_price: formatDecimal(rate),
        tiers: null,
        overage: {
          base_fee: formatDecimal(fee),
          included_units: formatDecimal(included),
          overage_quantity: formatDecimal(over),
          overage_unit_price: formatDecimal(rate),
          overage_amount: formatDecimal(overAmount),
        },
        proration: window.fraction,
        amount: r.fmt(r.round(fee.plus(overAmount))),
      },
    ];
  },
};
