/**
 * volume: the band holding the last unit (the period's total quantity) prices every
 * unit (charge type usage by default).
 *
 * Input and overrides as in tier-list.ts: `tiers: [{start, price, counter}]`; a charge's
 * `pricing.tiers` replaces them.
 * Rating: the window's units at the band of the period's total (a segment's units are
 * priced at the band the whole period reaches); no band and amount 0 when there are no
 * units. Rates the unit's total quantity, so the line carries no agent_instance_id.
 */
import { Dec, formatDecimal } from '../money.ts';
import { volumeBand } from '../rating-kit.ts';
import type { ChargeModel } from './model.ts';
import { tierListPricing } from './tier-list.ts';

export const VOLUME: ChargeModel<'volume'> = {
  kind: 'volume',
  spellings: ['volume', 'volume_pricing', 'volume_tiered'],
  defaultChargeType: 'usage',
  usage: true,
  oneTime: 'rejected',
  ...tierListPricing('volume'),
  rate(p, _c, { line, usage, periodTotal, rounder: r }) {
    const q = usage.total;
    const band = volumeBand(p.tiers, formatDecimal(q), formatDecimal(periodTotal));
    return [
      {
        ...line,
        quantity: formatDecimal(q),
        unit_price: band ? band.price : null,
        tiers: band ? [band] : [],
        proration: null,
        amount: r.fmt(r.round(band ? new Dec(band.amount) : new Dec(0))),
      },
    ];
  },
};
