/**
 * Code shared by the two fixed-fee kinds, flat and one_time (each has its own module
 * and registry entry: flat.ts, one-time.ts).
 *
 * Input: `amount` (aliases `price`, `unit_price`, `list_price`, or a single tier's
 * `price`). A charge's `pricing.unit_price` (alias `list_price`) replaces the amount.
 * Rating: one line of quantity 1 at the amount; a fee that bills once (see
 * {@link billsOnce}) is never prorated and produces no line when `already_charged`;
 * any other is prorated by the window.
 */
import { formatDecimal } from '../money.ts';
import { billsOnce, num, prorate } from '../rating-kit.ts';
import type { PricingOf, PricingStrategy } from '../types.ts';
import { missing, nonNegative, pick, singleTier } from '../validation-kit.ts';
import type { ChargeModel } from './model.ts';

type FeeKind = 'flat' | 'one_time';

/** A fixed-fee model of `kind` with its own spellings, default charge type and one-time rule. */
export function feeModel<K extends FeeKind>(def: Pick<ChargeModel<K>, 'kind' | 'spellings' | 'defaultChargeType' | 'oneTime'>): ChargeModel<K> {
  const { kind } = def;
  return {
    ...def,
    usage: false,
    overrides: ['unit_price', 'list_price'],
    fields: ['amount', 'price', 'unit_price', 'list_price', 'tiers'],
    normalize(s, ctx) {
      const out: PricingStrategy = {};
      const p = pick(s, ['amount', 'price', 'unit_price', 'list_price']);
      if (p) out.amount = nonNegative(ctx, p.name, p.value);
      else {
        const t = singleTier(ctx, s, kind);
        if (t) out.amount = t.price;
      }
      return out;
    },
    override(strategy, { unitPrice }) {
      if (unitPrice !== undefined) strategy.amount = unitPrice;
      return strategy;
    },
    complete(s, ctx) {
      if (s.amount === undefined) return missing(ctx, kind, 'amount');
      return { kind, amount: s.amount } as PricingOf<K>;
    },
    rate(p, c, { path, line, window, rounder: r }) {
      const amount = num((p as PricingOf<FeeKind>).amount, `${path}.amount`, { nonNegative: true });
      if (billsOnce(def.oneTime, c)) {
        if (c.already_charged) return [];
        return [{ ...line, quantity: '1', unit_price: formatDecimal(amount), tiers: null, proration: null, amount: r.fmt(r.round(amount)) }];
      }
      return [
        { ...line, quantity: '1', unit_price: formatDecimal(amount), tiers: null, proration: window.fraction, amount: r.fmt(r.round(prorate(amount, window))) },
      ];
    },
  };
}
