/**
 * Validation shared by the two tier-list kinds, tiered and volume (each has its own
 * module, registry entry and rating: tiered.ts, volume.ts).
 *
 * Input: `tiers: [{start, price, counter}]`, required (see validation-kit.ts for 0-/1-based
 * starts and `counter`). A charge's `pricing.tiers` replaces the tiers; any other
 * `pricing` field (a `unit_price`, say) is refused.
 */
import type { PricingOf, PricingStrategy } from '../types.ts';
import { missing, normalizeTiers } from '../validation-kit.ts';
import type { ChargeModel } from './model.ts';

type TierListKind = 'tiered' | 'volume';

/** normalize, override and complete of a tier-list kind. */
export function tierListPricing<K extends TierListKind>(kind: K): Pick<ChargeModel<K>, 'overrides' | 'fields' | 'normalize' | 'override' | 'complete'> {
  return {
    overrides: ['tiers'],
    fields: ['tiers'],
    normalize(s, ctx) {
      const out: PricingStrategy = {};
      if (s.tiers === undefined || s.tiers === null) ctx.fail('tiers', `tiers are required for ${kind} pricing`);
      else out.tiers = normalizeTiers(ctx, 'tiers', s.tiers);
      return out;
    },
    override(strategy, { fields: p }, ctx) {
      if (p.tiers !== undefined && p.tiers !== null) {
        const t = normalizeTiers(ctx, 'tiers', p.tiers);
        if (t) strategy.tiers = t;
      }
      return strategy;
    },
    complete(s, ctx) {
      if (!s.tiers) return missing(ctx, kind, 'tiers');
      return { kind, tiers: s.tiers.map((t) => ({ ...t })) } as PricingOf<K>;
    },
  };
}
