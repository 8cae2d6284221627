/**
 * The fast pass's predicates (monotone.ts): which ratings a lower bound of usage bounds from
 * below, checked against the rating engine itself on seeded random quantities, with the
 * counter-examples that keep volume pricing and several segments out.
 */
import { describe, expect, it } from 'vitest';
import { rateSegments } from '../rating/rate.ts';
import type { CanonicalPricing, RatedCharge } from '../rating/index.ts';
import { creditsCoverMonotonically, ratesMonotonically } from './monotone.ts';

const period = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const charge = (id: string, pricing: CanonicalPricing, unit: RatedCharge['unit_of_measure'] = '@action'): RatedCharge => ({
  id,
  name: id,
  model: pricing.kind,
  charge_type: pricing.kind === 'flat' || pricing.kind === 'discount' || pricing.kind === 'overage' ? 'recurring' : 'usage',
  unit_of_measure: pricing.kind === 'flat' || pricing.kind === 'discount' ? null : unit,
  pricing,
});
const tiers = (...t: [number, string, number?][]) => t.map(([start, price, counter]) => ({ start: String(start), price, counter: String(counter ?? 1) }));
/** The period's total (true-up left out, as spend counts it: there is no minimum here) rated whole for `actions`. */
const total = (charges: RatedCharge[], actions: number) => Number(rateSegments({ currency: 'USD', period, segments: [{ ...period, from: period.start, to: period.end, charges, usage: { '@action': String(actions) } }] }).total);

const MONOTONIC: [string, RatedCharge[]][] = [
  ['per unit', [charge('u', { kind: 'per_unit', unit_price: '0.013' })]],
  ['tiered, cheaper bands', [charge('t', { kind: 'tiered', tiers: tiers([1, '1.00'], [101, '0.10', 7], [1001, '0.001']) })]],
  ['package', [charge('p', { kind: 'package', package_size: '25', package_price: '3.00' })]],
  ['overage', [charge('o', { kind: 'overage', base_fee: '10', included_units: '150', overage_unit_price: '0.07' })]],
  ['flat and a percent discount of the invoice', [charge('f', { kind: 'flat', amount: '5' }), charge('u', { kind: 'per_unit', unit_price: '0.0333' }), charge('d', { kind: 'discount', percent: '33.3', amount: null, applies_to: null })]],
  ['an amount discount of a charge', [charge('u', { kind: 'per_unit', unit_price: '0.05' }), charge('d', { kind: 'discount', percent: null, amount: '4', applies_to: 'u' })]],
];

describe('ratesMonotonically', () => {
  it.each(MONOTONIC)('%s: admitted, and never rates more for fewer units (seeded random quantities)', (_name, charges) => {
    expect(ratesMonotonically([charges])).toBe(true);
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 2000;
    for (let i = 0; i < 300; i++) {
      const [a, b] = [next(), next()].sort((x, y) => x - y);
      expect(total(charges, a!)).toBeLessThanOrEqual(total(charges, b!));
    }
  });

  it('volume pricing is refused: one more unit into a cheaper band bills less, so a lower bound of usage would over-count', () => {
    const volume = [charge('v', { kind: 'volume', tiers: tiers([1, '1.00'], [101, '0.10']) })];
    expect(total(volume, 100)).toBe(100);
    expect(total(volume, 101)).toBeCloseTo(10.1);
    // A limit of 50: the bound (100 units) would reach it, the exact figure (101 units) does not.
    expect(ratesMonotonically([volume])).toBe(false);
    expect(ratesMonotonically([[...MONOTONIC[0]![1], ...volume]])).toBe(false);
  });

  it('several segments are refused: a later segment bills what its usage adds to the period, which can shrink as earlier usage grows', () => {
    const free = [charge('free', { kind: 'per_unit', unit_price: '0' })];
    const tiered = [charge('t', { kind: 'tiered', tiers: tiers([1, '1.00'], [101, '0']) })];
    const mid = '2026-11-16T00:00:00.000Z';
    const rated = (before: number) =>
      Number(
        rateSegments({
          currency: 'USD',
          period,
          segments: [
            { from: period.start, to: mid, charges: free, usage: { '@action': String(before) } },
            { from: mid, to: period.end, charges: tiered, usage: { '@action': '100' } },
          ],
        }).total,
      );
    expect(rated(0)).toBeGreaterThan(rated(100)); // more usage, less money
    expect(ratesMonotonically([free, tiered])).toBe(false);
    expect(ratesMonotonically([free])).toBe(true);
  });
});

describe('creditsCoverMonotonically', () => {
  const grant = (over: Partial<Parameters<typeof creditsCoverMonotonically>[0][number]> = {}) => ({ currency: 'USD', scope: null, voided_at: null, ...over });
  it.each([
    ['unscoped grants, one period end', [grant(), grant({ scope: {} })], ['2026-12-01'], true],
    ['no grants', [], [], true],
    ['a grant of another currency is not read', [grant(), grant({ currency: 'EUR', scope: { units: ['@action'] } })], ['2026-12-01'], true],
    ['a grant scoped to units', [grant({ scope: { units: ['@action'] } })], ['2026-12-01'], false],
    ['a grant of one subscription', [grant({ scope: { subscription_id: 'sub_1' } })], ['2026-12-01'], false],
    ['a voided grant', [grant({ voided_at: new Date() })], ['2026-12-01'], false],
    ['open periods ending at two instants', [grant()], ['2026-12-01', '2027-01-01'], false],
  ] as const)('%s: %s', (_name, grants, ends, want) => {
    expect(creditsCoverMonotonically(grants, 'USD', ends)).toBe(want);
  });
});
