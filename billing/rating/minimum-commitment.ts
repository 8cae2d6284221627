/**
 * Minimum commitment per billing period: the true-up line that brings an invoice up to
 * the minimum its subscription committed to. Pure; rate.ts calls it after charges and
 * discounts (the order of an invoice's money: charges, discounts, this true-up, then
 * credits applied outside the engine).
 *
 * Rules (docs/credits.md "Commitments"):
 * - Each billed segment of the period carries the minimum per whole period in force on
 *   it (its plan's, or the subscription's override), or none.
 * - The minimum owed = sum over segments of minimum x segment ms / period ms: prorated by
 *   billed time like recurring fees (a mid-period start or end, a pause), each plan's
 *   minimum over its own share of the period (a plan change). Computed exactly (one
 *   division) and rounded ONCE, half up, to the currency's minor units.
 * - billed = the period's charges after discounts (subtotal + discount_total, both
 *   already in minor units). When billed < minimum owed, one line of
 *   (minimum owed - billed); otherwise no line. A discount never reduces the true-up
 *   (it is computed after them, and no discount applies to it).
 */
import { Dec, formatDecimal } from './money.ts';
import { num, type Rounder, type Window } from './rating-kit.ts';
import type { InvoiceLine, MinimumCommitmentDetail } from './types.ts';

/** One billed segment as the commitment sees it. */
export interface CommitmentSegment {
  /** Minimum per whole billing period in force on the segment (decimal text), or null/undefined for none. */
  minimum: string | number | null | undefined;
  window: Window;
  /** Path of the segment's minimum in the input, for errors. */
  path: string;
}

/** Line id, name and model of the true-up. */
export const MINIMUM_COMMITMENT = 'minimum_commitment';

/**
 * The true-up line of a period, or null when no segment carries a minimum or the period's
 * charges after discounts reach the (prorated, rounded) minimum.
 */
export function minimumCommitmentLine(segments: readonly CommitmentSegment[], billed: Dec, r: Rounder): InvoiceLine | null {
  const parsed = segments.map((s) => ({ s, minimum: s.minimum === null || s.minimum === undefined ? null : num(s.minimum, s.path, { nonNegative: true }) }));
  if (parsed.length === 0 || parsed.every((p) => p.minimum === null)) return null;
  const periodMs = segments[0]!.window.ratio.period_ms;
  // Exact numerator (decimal x whole ms), one division, one rounding.
  let numerator = new Dec(0);
  let billedMs = 0;
  for (const { s, minimum } of parsed) {
    numerator = numerator.plus((minimum ?? new Dec(0)).times(s.window.ratio.overlap_ms));
    billedMs += s.window.ratio.overlap_ms;
  }
  const owed = r.round(numerator.div(periodMs));
  const trueUp = owed.minus(billed);
  if (!trueUp.gt(0)) return null;
  // Minimums shown as money (the currency's decimals) when they fit it, as the API stores them.
  const money = (d: Dec) => (d.decimalPlaces() <= r.places ? r.fmt(d) : formatDecimal(d));
  const minimums = [...new Set(parsed.map((p) => money(p.minimum ?? new Dec(0))))];
  const detail: MinimumCommitmentDetail = {
    minimum: minimums.length === 1 ? minimums[0]! : null,
    prorated_minimum: r.fmt(owed),
    billed: r.fmt(billed),
    true_up: r.fmt(trueUp),
    parts: parsed.map(({ s, minimum }) => ({
      from: s.window.servicePeriod.start,
      to: s.window.servicePeriod.end,
      minimum: minimum === null ? null : money(minimum),
      proration: s.window.fraction ?? '1',
    })),
  };
  return {
    charge_id: MINIMUM_COMMITMENT,
    charge_name: 'Minimum commitment',
    model: MINIMUM_COMMITMENT,
    charge_type: 'recurring',
    unit: null,
    quantity: '1',
    unit_price: null,
    tiers: null,
    minimum_commitment: detail,
    proration: billedMs === periodMs ? null : formatDecimal(new Dec(billedMs).div(periodMs)),
    amount: r.fmt(trueUp),
    service_period: { start: segments[0]!.window.servicePeriod.start, end: segments[segments.length - 1]!.window.servicePeriod.end },
  };
}
