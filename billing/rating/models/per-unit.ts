/**
 * per_unit: quantity x unit_price (charge type usage by default).
 *
 * Input: `unit_price` (aliases `price`, `list_price`, or a single tier with counter 1).
 * A charge's `pricing.unit_price` (alias `list_price`) replaces it.
 * Rating: one line of the unit's quantity, rounded once. When the usage of the unit is
 * split by agent instance, one line per instance (plus one without an instance for any
 * unattributed remainder): the charge's rounded amount shared by largest remainder
 * (Rounder.allocate in rating-kit.ts), so an invoice never depends on how usage is spread over agents.
 */
import type { Dec } from '../money.ts';
import { formatDecimal } from '../money.ts';
import { num } from '../rating-kit.ts';
import type { InvoiceLine, PricingStrategy } from '../types.ts';
import { missing, nonNegative, pick, singleTier } from '../validation-kit.ts';
import type { ChargeModel } from './model.ts';

export const PER_UNIT: ChargeModel<'per_unit'> = {
  kind: 'per_unit',
  spellings: ['per_unit', 'perunit', 'unit'],
  defaultChargeType: 'usage',
  usage: true,
  oneTime: 'rejected',
  overrides: ['unit_price', 'list_price'],
  fields: ['unit_price', 'price', 'list_price', 'tiers'],
  normalize(s, ctx) {
    const out: PricingStrategy = {};
    const p = pick(s, ['unit_price', 'price', 'list_price']);
    if (p) out.unit_price = nonNegative(ctx, p.name, p.value);
    else {
      const t = singleTier(ctx, s, 'per_unit');
      if (t && t.counter !== '1') ctx.fail('tiers[0].counter', 'per_unit pricing has counter 1; use package for a package size');
      else if (t) out.unit_price = t.price;
    }
    return out;
  },
  override(strategy, { unitPrice }) {
    if (unitPrice !== undefined) strategy.unit_price = unitPrice;
    return strategy;
  },
  complete(s, ctx) {
    if (s.unit_price === undefined) return missing(ctx, 'per_unit', 'unit_price');
    return { kind: 'per_unit', unit_price: s.unit_price };
  },
  rate(p, _c, { path, line: base, usage: u, rounder: r }) {
    const price = num(p.unit_price, `${path}.unit_price`, { nonNegative: true });
    const line = (q: Dec, amount: Dec, agent?: string): InvoiceLine => ({
      ...base,
      quantity: formatDecimal(q),
      unit_price: formatDecimal(price),
      tiers: null,
      proration: null,
      amount: r.fmt(amount),
      ...(agent === undefined ? {} : { agent_instance_id: agent }),
    });
    if (!u.parts) return [line(u.total, r.round(u.total.times(price)))];
    // Rounded once for the charge; the per-agent lines share that amount (largest
    // remainder), so an invoice never depends on how usage is spread over agents.
    const parts = [...u.parts, ...(u.unattributed.gt(0) ? [{ id: undefined, quantity: u.unattributed }] : [])];
    const shares = r.allocate(r.round(u.total.times(price)), parts.map((part) => part.quantity.times(price)));
    return parts.map((part, i) => line(part.quantity, shares[i]!, part.id));
  },
};
