/**
 * package: ceil(quantity / package_size) x package_price, a price per started package
 * (charge type usage by default).
 *
 * Input: `package_size` (alias `counter`, or a single tier's `counter`) and
 * `package_price` (aliases `unit_price`, `price`, `list_price`, or a single tier's
 * `price`). A charge's `pricing.unit_price` (alias `list_price`) replaces package_price.
 * Rating: packages count from the start of the billing period, so a segment bills the
 * packages its usage adds. Rates the unit's total quantity, so the line carries no
 * agent_instance_id; its one band (from 1, unbounded) is listed unless the quantity is 0.
 */
import { formatDecimal } from '../money.ts';
import { RatingError, num, packagesOf } from '../rating-kit.ts';
import type { AppliedTier, PricingStrategy } from '../types.ts';
import { missing, nonNegative, pick, positiveInteger, singleTier } from '../validation-kit.ts';
import type { ChargeModel } from './model.ts';

export const PACKAGE: ChargeModel<'package'> = {
  kind: 'package',
  spellings: ['package', 'package_pricing', 'per_package'],
  defaultChargeType: 'usage',
  usage: true,
  oneTime: 'rejected',
  overrides: ['unit_price', 'list_price'],
  fields: ['package_size', 'counter', 'package_price', 'unit_price', 'price', 'list_price', 'tiers'],
  normalize(s, ctx) {
    const out: PricingStrategy = {};
    const t = pick(s, ['package_size', 'counter']) ? undefined : singleTier(ctx, s, 'package');
    const size = pick(s, ['package_size', 'counter']);
    if (size) out.package_size = positiveInteger(ctx, size.name, size.value, 'package_size');
    else if (t) out.package_size = t.counter;
    else if (s.tiers === undefined) ctx.fail('package_size', 'package_size is required for package pricing');
    const p = pick(s, ['package_price', 'unit_price', 'price', 'list_price']);
    if (p) out.package_price = nonNegative(ctx, p.name, p.value);
    else if (t) out.package_price = t.price;
    return out;
  },
  override(strategy, { unitPrice }) {
    if (unitPrice !== undefined) strategy.package_price = unitPrice;
    return strategy;
  },
  complete(s, ctx) {
    if (s.package_size === undefined) return missing(ctx, 'package', 'package_size');
    if (s.package_price === undefined) return missing(ctx, 'package', 'package_price');
    return { kind: 'package', package_size: s.package_size, package_price: s.package_price };
  },
  rate(p, _c, { path, line, usage, before, rounder: r }) {
    const q = usage.total;
    const size = num(p.package_size, `${path}.package_size`);
    if (!size.isInteger() || size.lt(1)) throw new RatingError(`${path}.package_size`, 'package_size must be an integer of at least 1');
    const price = num(p.package_price, `${path}.package_price`, { nonNegative: true });
    const packages = packagesOf(before.plus(q), size).minus(packagesOf(before, size));
    const amount = packages.times(price);
    const band: AppliedTier = {
      from: '1',
      to: null,
      quantity: formatDecimal(q),
      packages: formatDecimal(packages),
      price: formatDecimal(price),
      amount: formatDecimal(amount),
    };
    return [{ ...line, quantity: formatDecimal(q), unit_price: formatDecimal(price), tiers: q.isZero() ? [] : [band], proration: null, amount: r.fmt(r.round(amount)) }];
  },
};
