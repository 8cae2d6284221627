/**
 * tiered (graduated): each band's units are priced at the band's rate (charge type
 * usage by default).
 *
 * Input and overrides as in tier-list.ts: `tiers: [{start, price, counter}]`; a charge's
 * `pricing.tiers` replaces them.
 * Rating: the rounded sum of the bands the window's usage falls in, counting units from
 * the start of the billing period (a segment bills what its usage adds). Bands with no
 * units are not listed. Rates the unit's total quantity (tiers apply to the whole
 * account's usage), so the line carries no agent_instance_id.
 */
import { Dec, formatDecimal } from '../money.ts';
import { tieredBandsBetween } from '../rating-kit.ts';
import type { ChargeModel } from './model.ts';
import { tierListPricing } from './tier-list.ts';

export const TIERED: ChargeModel<'tiered'> = {
  kind: 'tiered',
  spellings: ['tiered', 'tier', 'tiers', 'graduated'],
  defaultChargeType: 'usage',
  usage: true,
  oneTime: 'rejected',
  ...tierListPricing('tiered'),
  rate(p, _c, { line, usage, before, rounder: r }) {
    const q = usage.total;
    const applied = tieredBandsBetween(p.tiers, before, before.plus(q));
    const sum = applied.reduce((s, b) => s.plus(b.amount), new Dec(0));
    return [{ ...line, quantity: formatDecimal(q), unit_price: null, tiers: applied, proration: null, amount: r.fmt(r.round(sum)) }];
  },
};
