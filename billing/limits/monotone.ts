/**
 * Pure: when a lower bound of usage gives a lower bound of money (the evaluator's fast pass
 * of money limits, evaluator.ts `fastPass`, docs/spend-limits.md). The fast pass rates an
 * open period from the live usage's lower bound (`LiveUsage.lowerBound`); what it rates is
 * at or below what the exact usage rates only when every amount of the rating is monotonic
 * non-decreasing in usage. Otherwise the limit waits for the normal pass's exact figure.
 *
 * Rating (billing/rating/), in a period rated as one segment (`before` is 0 for every charge):
 * - per_unit: round(q x price); tiered (graduated): the sum of each band's ceil(units /
 *   counter) x price, each band's units growing with q; package: ceil(q / size) x price;
 *   overage: fee + max(0, q - included) x price; flat, one_time and fees do not read usage.
 *   Prices are never negative (validated), rounding half up never decreases: monotonic.
 * - volume: every unit at the price of the band the quantity reached, so crossing into a
 *   cheaper band lowers the total (1-100 at 1.00, then 0.10: 100 units bill 100.00, 101 bill
 *   10.10): NOT monotonic.
 * - discounts (after the charges, each on the remaining amount r of its target, a multiple
 *   of the minor unit): percent leaves r - round(r x p), amount leaves max(0, r - a); both
 *   grow with r (round(x + d) = round(x) + d for d a multiple of the minor unit, and x x p
 *   grows by at most d): monotonic.
 * - the minimum commitment's true-up is left out of spend and `pending` until the period
 *   ends (open-period.ts `withoutTrueUp`): not read.
 * - several segments in the period (a plan change or a pause): a later segment's tiered or
 *   package charge bills f(before + q) - f(before), which may shrink as `before` grows (a
 *   concave tier list, a package boundary): not monotonic in general, so such a period waits.
 *
 * Credits (the available balance): a balance bound is an upper bound only when what the
 * credits cover grows with the charges. With unscoped grants, usable on every open period
 * alike (one period end, none voided: a voided grant may pay only the period whose draft
 * held it), the burn-down covers min(grants left, sum of the periods' `total`) in burn
 * order, which grows with each `total`; scoped grants cover lines in position order, so
 * more of one line can leave another line's only grant unused: not proven, so they wait.
 */
import type { ChargeModelKind, RatedCharge } from '../rating/index.ts';
import type { CreditScope } from '../../shared/db/schema.ts';

/** Charge models whose amount never decreases as usage grows, in a period rated as one segment. */
const MONOTONIC_MODELS: ReadonlySet<ChargeModelKind> = new Set(['flat', 'one_time', 'per_unit', 'tiered', 'package', 'overage', 'discount']);

/**
 * Whether rating an open period from a lower bound of its usage gives a lower bound of its
 * amount: `segments` are the charges in force on each of the period's billable segments.
 */
export function ratesMonotonically(segments: readonly (readonly Pick<RatedCharge, 'model'>[])[]): boolean {
  return segments.length === 1 && segments[0]!.every((c) => MONOTONIC_MODELS.has(c.model));
}

/** A grant as {@link creditsCoverMonotonically} reads it. */
export interface GrantShape {
  currency: string;
  scope: CreditScope | null;
  voided_at: Date | null;
}

/**
 * Whether what the credits of `currency` cover of the open periods grows with their amounts
 * (so a lower bound of the periods gives an upper bound of the available balance): every
 * grant of the currency unscoped and not voided, and the periods of that currency all
 * ending at one instant (every grant usable on all of them or on none).
 */
export function creditsCoverMonotonically(grants: readonly GrantShape[], currency: string, periodEnds: readonly string[]): boolean {
  const unscoped = (s: CreditScope | null) => !s || (s.subscription_id === undefined && [s.charge_ids, s.product_ids, s.units].every((l) => !l?.length));
  return grants.every((g) => g.currency !== currency || (unscoped(g.scope) && g.voided_at === null)) && new Set(periodEnds).size <= 1;
}
