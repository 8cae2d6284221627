import { describe, expect, it } from 'vitest';
import type { CanonicalPricing, ChargeType, RatedCharge, Tier, UnitOfMeasure } from './charge-models.ts';
import { MoneyError } from './money.ts';
import { RatingError, type RateInput, type Usage, rate, rateSegments } from './rate.ts';

const NOV = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' }; // 30 days
const DEC = { start: '2026-12-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' }; // 31 days

function charge(pricing: CanonicalPricing, extra: Partial<RatedCharge> = {}): RatedCharge {
  const usageKinds = ['per_unit', 'tiered', 'volume', 'package', 'overage'];
  const type: ChargeType = pricing.kind === 'one_time' ? 'one_time' : usageKinds.includes(pricing.kind) && pricing.kind !== 'overage' ? 'usage' : 'recurring';
  return {
    id: extra.id ?? `c-${pricing.kind}`,
    name: extra.name ?? `Charge ${pricing.kind}`,
    model: pricing.kind,
    charge_type: type,
    unit_of_measure: usageKinds.includes(pricing.kind) ? ('@action' as UnitOfMeasure) : null,
    pricing,
    ...extra,
  };
}
const tiers = (...t: [start: number, price: string, counter?: number][]): Tier[] => t.map(([s, price, c]) => ({ start: String(s), price, counter: String(c ?? 1) }));

function one(input: Partial<RateInput> & { charges: RatedCharge[] }) {
  return rate({ currency: 'USD', period: NOV, usage: {}, ...input });
}

describe('per_unit', () => {
  it.each([
    ['0.05', '1234', 'USD', '61.70'],
    ['0.000002', '1000000000000', 'USD', '2000000.00'], // tiny price x 10^12
    ['0.000002', '1234567', 'USD', '2.47'], // 2.469134
    ['0.000002', '2500', 'USD', '0.01'], // exactly 0.005: half up
    ['0.000002', '2499', 'USD', '0.00'], // 0.004998
    ['0.05', '0', 'USD', '0.00'],
    ['0.3', '5', 'JPY', '2'], // 1.5 yen -> 2
    ['0.3', '4', 'JPY', '1'], // 1.2 yen -> 1
    ['0.0005', '1', 'BHD', '0.001'], // half a fils -> 1 fils
    ['1.2345', '1', 'BHD', '1.235'],
    ['0.00001', '5', 'CLF', '0.0001'],
    ['0.1', '2.5', 'USD', '0.25'], // fractional quantity
  ])('%s x %s %s = %s', (price, qty, currency, expected) => {
    const r = rate({ currency, period: NOV, charges: [charge({ kind: 'per_unit', unit_price: price })], usage: { '@action': qty } });
    expect(r.lines).toHaveLength(1);
    expect(r.lines[0]).toMatchObject({ quantity: qty, unit_price: price, amount: expected, unit: '@action', proration: null });
    expect(r.total).toBe(expected);
  });

  it('missing usage of the unit rates as zero', () => {
    const r = one({ charges: [charge({ kind: 'per_unit', unit_price: '1' })], usage: { '@outcome': '5' } });
    expect(r.lines[0]).toMatchObject({ quantity: '0', amount: '0.00' });
  });

  it('rates @outcome usage for an @outcome charge', () => {
    const r = one({ charges: [charge({ kind: 'per_unit', unit_price: '12.5' }, { unit_of_measure: '@outcome' })], usage: { '@action': '99', '@outcome': '3' } });
    expect(r.lines[0]).toMatchObject({ unit: '@outcome', quantity: '3', amount: '37.50' });
  });

  it('splits lines by agent instance (sorted by id) plus an unattributed remainder, each rounded once', () => {
    const r = one({
      charges: [charge({ kind: 'per_unit', unit_price: '0.105' })],
      usage: { '@action': { total: '15', by_agent_instance: { 'inst-b': '3', 'inst-a': '10' } } },
    });
    expect(r.lines.map((l) => [l.agent_instance_id, l.quantity, l.amount])).toEqual([
      ['inst-a', '10', '1.05'],
      ['inst-b', '3', '0.32'], // 0.315 -> 0.32
      [undefined, '2', '0.21'], // 0.21
    ]);
    expect(r.subtotal).toBe('1.58');
  });

  it('rounds once per charge: an invoice does not depend on how usage is spread over agents', () => {
    const spread = one({ charges: [charge({ kind: 'per_unit', unit_price: '0.002' })], usage: { '@action': { by_agent_instance: { a: '2', b: '2', c: '2' } } } });
    const single = one({ charges: [charge({ kind: 'per_unit', unit_price: '0.002' })], usage: { '@action': { by_agent_instance: { a: '6' } } } });
    expect(single.total).toBe('0.01'); // 0.012
    expect(spread.total).toBe('0.01'); // was 0.00: three lines of 0.004 each rounded
    expect(spread.lines.map((l) => [l.agent_instance_id, l.quantity, l.amount])).toEqual([
      ['a', '2', '0.01'], // the minor unit goes to the largest remainder (the first on ties)
      ['b', '2', '0.00'],
      ['c', '2', '0.00'],
    ]);
    const jpy = rate({ currency: 'JPY', period: NOV, charges: [charge({ kind: 'per_unit', unit_price: '0.5' })], usage: { '@action': { total: '7', by_agent_instance: { a: '3', b: '3' } } } });
    expect(jpy.lines.map((l) => l.amount)).toEqual(['2', '2', '0']); // 3.5 -> 4 yen over 1.5, 1.5, 0.5: floors 1, 1, 0 and two yen to the largest remainders
    expect(jpy.total).toBe('4');
  });

  it('with a breakdown and no total, the total is the sum (no remainder line)', () => {
    const r = one({ charges: [charge({ kind: 'per_unit', unit_price: '1' })], usage: { '@action': { by_agent_instance: { x: '2', y: '3' } } } });
    expect(r.lines.map((l) => l.agent_instance_id)).toEqual(['x', 'y']);
    expect(r.total).toBe('5.00');
  });
});

describe('tiered (graduated)', () => {
  // bands: units 1-100 at 0.10, 101-1000 at 0.08, 1001+ at 0.05
  const t = tiers([1, '0.10'], [101, '0.08'], [1001, '0.05']);
  it.each([
    ['0', '0.00', []],
    ['1', '0.10', [['1', '100', '1', '0.1']]],
    ['99', '9.90', [['1', '100', '99', '9.9']]],
    ['100', '10.00', [['1', '100', '100', '10']]], // last unit of band 1
    ['101', '10.08', [['1', '100', '100', '10'], ['101', '1000', '1', '0.08']]], // first unit of band 2
    ['999', '81.92', [['1', '100', '100', '10'], ['101', '1000', '899', '71.92']]],
    ['1000', '82.00', [['1', '100', '100', '10'], ['101', '1000', '900', '72']]],
    ['1001', '82.05', [['1', '100', '100', '10'], ['101', '1000', '900', '72'], ['1001', null, '1', '0.05']]],
    ['1000000000000', '50000000032.00', [['1', '100', '100', '10'], ['101', '1000', '900', '72'], ['1001', null, '999999999000', '49999999950']]],
  ])('quantity %s -> %s', (qty, expected, bands) => {
    const r = one({ charges: [charge({ kind: 'tiered', tiers: t })], usage: { '@action': qty } });
    const line = r.lines[0]!;
    expect(line.amount).toBe(expected);
    expect(line.unit_price).toBeNull();
    expect(line.tiers!.map((b) => [b.from, b.to, b.quantity, b.amount])).toEqual(bands);
  });

  it.each([
    // units 1-10 at 5 each, then packages of 10 units at 2 per package (partial rounds up)
    ['10', '50.00'],
    ['11', '52.00'],
    ['25', '54.00'],
    ['30', '54.00'],
    ['31', '56.00'],
  ])('counter as package size: quantity %s -> %s', (qty, expected) => {
    const r = one({ charges: [charge({ kind: 'tiered', tiers: tiers([1, '5'], [11, '2', 10]) })], usage: { '@action': qty } });
    expect(r.lines[0]!.amount).toBe(expected);
  });

  it('tiny prices over 10^12 units stay exact', () => {
    // 10^6 x 0.000003 + (10^12 - 10^6) x 0.000002 = 3 + 1999998
    const r = one({ charges: [charge({ kind: 'tiered', tiers: tiers([1, '0.000003'], [1000001, '0.000002']) })], usage: { '@action': '1000000000000' } });
    expect(r.lines[0]!.amount).toBe('2000001.00');
    expect(r.lines[0]!.tiers!.map((b) => b.packages)).toEqual(['1000000', '999999000000']);
  });

  it('rounds the sum of bands once (two 0.004 bands make 0.01, not 0.00)', () => {
    const r = one({ charges: [charge({ kind: 'tiered', tiers: tiers([1, '0.004'], [2, '0.0045']) })], usage: { '@action': '2' } });
    expect(r.lines[0]!.tiers!.map((b) => b.amount)).toEqual(['0.004', '0.0045']);
    expect(r.lines[0]!.amount).toBe('0.01'); // 0.0085
  });
});

describe('volume', () => {
  const t = tiers([1, '0.10'], [101, '0.08'], [1001, '0.05']);
  it.each([
    ['0', '0.00', null],
    ['1', '0.10', '0.1'],
    ['99', '9.90', '0.1'],
    ['100', '10.00', '0.1'],
    ['101', '8.08', '0.08'], // every unit at the second band's price
    ['1000', '80.00', '0.08'],
    ['1001', '50.05', '0.05'],
    ['1000000000000', '50000000000.00', '0.05'],
  ])('quantity %s -> %s at %s', (qty, expected, price) => {
    const r = one({ charges: [charge({ kind: 'volume', tiers: t })], usage: { '@action': qty } });
    expect(r.lines[0]).toMatchObject({ amount: expected, unit_price: price });
  });

  it('applies the band counter as a package size to the whole quantity', () => {
    const r = one({ charges: [charge({ kind: 'volume', tiers: tiers([1, '1'], [101, '50', 100]) })], usage: { '@action': '150' } });
    expect(r.lines[0]!.tiers).toEqual([{ from: '101', to: null, quantity: '150', packages: '2', price: '50', amount: '100' }]);
    expect(r.lines[0]!.amount).toBe('100.00');
  });
});

describe('package', () => {
  it.each([
    ['0', '0.00'],
    ['1', '2.50'],
    ['999', '2.50'],
    ['1000', '2.50'],
    ['1001', '5.00'],
    ['2500', '7.50'],
  ])('1000 units per 2.50 package, quantity %s -> %s', (qty, expected) => {
    const r = one({ charges: [charge({ kind: 'package', package_size: '1000', package_price: '2.5' })], usage: { '@action': qty } });
    expect(r.lines[0]!.amount).toBe(expected);
  });
});

describe('flat fee per period (recurring, prorated)', () => {
  it.each([
    ['100', 'USD', NOV, undefined, '100.00', null],
    ['100', 'USD', NOV, { from: '2026-11-16T00:00:00Z' }, '50.00', '0.5'],
    ['100', 'USD', NOV, { to: '2026-11-23T12:00:00Z' }, '75.00', '0.75'], // 22.5 of 30 days
    ['100', 'USD', DEC, { from: '2026-12-11T00:00:00Z' }, '67.74', '0.6774193548387096774193548387096774193548'], // 21/31 x 100 = 67.741935...
    ['1000', 'JPY', NOV, { from: '2026-11-21T00:00:00Z' }, '333', '0.3333333333333333333333333333333333333333'], // 10/30
    ['0.03', 'USD', NOV, { from: '2026-11-26T00:00:00Z' }, '0.01', '0.1666666666666666666666666666666666666667'], // 0.005 exactly: half up
    ['100', 'USD', NOV, { from: '2026-12-05T00:00:00Z' }, '0.00', '0'], // not active in the period
  ])('%s %s active %j -> %s', (amount, currency, period, active, expected, proration) => {
    const r = rate({ currency, period, active, charges: [charge({ kind: 'flat', amount })], usage: {} });
    expect(r.lines[0]).toMatchObject({ quantity: '1', unit_price: amount, amount: expected, proration });
  });

  it('carries the service period of the active window', () => {
    const r = one({ active: { from: '2026-11-16T00:00:00Z' }, charges: [charge({ kind: 'flat', amount: '1' })] });
    expect(r.lines[0]!.service_period).toEqual({ start: '2026-11-16T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' });
  });
});

describe('overage', () => {
  const pricing = { kind: 'overage', base_fee: '20', included_units: '1000', overage_unit_price: '0.01' } as const;
  it.each([
    ['0', undefined, '20.00', '0'],
    ['999', undefined, '20.00', '0'],
    ['1000', undefined, '20.00', '0'],
    ['1001', undefined, '20.01', '1'],
    ['5000', undefined, '60.00', '4000'],
    ['1500', { from: '2026-11-16T00:00:00Z' }, '15.00', '500'], // base fee halved, allowance kept
  ])('quantity %s active %j -> %s', (qty, active, expected, over) => {
    const r = one({ active, charges: [charge(pricing)], usage: { '@action': qty } });
    expect(r.lines[0]!.amount).toBe(expected);
    expect(r.lines[0]!.overage!.overage_quantity).toBe(over);
  });
});

describe('one-time fees', () => {
  it.each([
    [{ kind: 'one_time', amount: '49.99' } as const, 'one_time' as const, false, ['49.99']],
    [{ kind: 'one_time', amount: '49.99' } as const, 'one_time' as const, true, []],
    [{ kind: 'flat', amount: '49.99' } as const, 'one_time' as const, false, ['49.99']],
    [{ kind: 'flat', amount: '49.99' } as const, 'one_time' as const, true, []],
  ])('%j (%s) already_charged=%s -> %j, never prorated', (pricing, charge_type, already_charged, amounts) => {
    const r = one({ active: { from: '2026-11-16T00:00:00Z' }, charges: [charge(pricing, { charge_type, already_charged })] });
    expect(r.lines.map((l) => l.amount)).toEqual(amounts);
    expect(r.lines.every((l) => l.proration === null)).toBe(true);
  });
});

describe('discounts (after charges, never below zero)', () => {
  // per_unit 0.05 x 1000 = 50.00 and flat 100.00: subtotal 150.00
  const base = [charge({ kind: 'per_unit', unit_price: '0.05' }, { id: 'calls', name: 'API calls' }), charge({ kind: 'flat', amount: '100' }, { id: 'platform', name: 'Platform' })];
  const usage: Usage = { '@action': '1000' };
  let seq = 0;
  const disc = (pricing: Partial<Extract<CanonicalPricing, { kind: 'discount' }>>, extra: Partial<RatedCharge> = {}) =>
    charge({ kind: 'discount', percent: null, amount: null, applies_to: null, ...pricing }, { id: `disc-${++seq}`, ...extra });

  it.each([
    ['10% of the invoice', [disc({ percent: '10' })], ['-15.00'], '135.00'],
    ['flat 20 off', [disc({ amount: '20' })], ['-20.00'], '130.00'],
    ['flat 200 off is capped at the subtotal', [disc({ amount: '200' })], ['-150.00'], '0.00'],
    ['100% off', [disc({ percent: '100' })], ['-150.00'], '0.00'],
    ['50% off the calls charge (by id), then 10% of the rest', [disc({ percent: '50', applies_to: 'calls' }), disc({ percent: '10' })], ['-25.00', '-12.50'], '112.50'],
    ['invoice-level listed first still comes after the targeted one', [disc({ percent: '10' }), disc({ percent: '50', applies_to: 'calls' })], ['-25.00', '-12.50'], '112.50'],
    ['target by charge name', [disc({ amount: '10', applies_to: 'Platform' })], ['-10.00'], '140.00'],
    ['targeted amount capped at the target charge', [disc({ amount: '80', applies_to: 'calls' })], ['-50.00'], '100.00'],
    ['two percentages compound on the remaining amount', [disc({ percent: '10' }), disc({ percent: '10' })], ['-15.00', '-13.50'], '121.50'],
    ['33.33% rounds half up once', [disc({ percent: '33.33' })], ['-50.00'], '100.00'], // 49.995 -> 50.00
    ['amounts after a full discount are zero', [disc({ percent: '100' }), disc({ amount: '5' })], ['-150.00', '0.00'], '0.00'],
  ])('%s', (_name, discounts, discountAmounts, total) => {
    const r = one({ charges: [...base, ...discounts], usage });
    expect(r.subtotal).toBe('150.00');
    expect(r.lines.filter((l) => l.model === 'discount').map((l) => l.amount)).toEqual(discountAmounts);
    expect(r.total).toBe(total);
  });

  it('records what the discount was computed on', () => {
    const r = one({ charges: [...base, disc({ percent: '50', applies_to: 'calls' })], usage });
    expect(r.lines[2]!.discount).toEqual({ applies_to: 'calls', percent: '50', amount: null, base: '50.00' });
    expect(r.discount_total).toBe('-25.00');
  });

  it('10% of 0.05 is 0.005, rounded half up to 0.01', () => {
    const r = one({ charges: [charge({ kind: 'per_unit', unit_price: '0.05' }), disc({ percent: '10' })], usage: { '@action': '1' } });
    expect([r.subtotal, r.discount_total, r.total]).toEqual(['0.05', '-0.01', '0.04']);
  });

  it('JPY: 15% of 999 = 149.85 -> 150', () => {
    const r = rate({ currency: 'JPY', period: NOV, charges: [charge({ kind: 'flat', amount: '999' }), disc({ percent: '15' })], usage: {} });
    expect([r.subtotal, r.discount_total, r.total]).toEqual(['999', '-150', '849']);
  });

  it('a recurring amount discount is prorated; a usage one is not; a one-time one already charged is skipped', () => {
    const r = one({
      active: { from: '2026-11-16T00:00:00Z' },
      charges: [
        ...base,
        disc({ amount: '10' }, { charge_type: 'recurring' }),
        disc({ amount: '10' }, { charge_type: 'usage' }),
        disc({ amount: '10' }, { charge_type: 'one_time', already_charged: true }),
      ],
      usage,
    });
    // subtotal: 50.00 + 50.00 (half month)
    expect(r.subtotal).toBe('100.00');
    expect(r.lines.filter((l) => l.model === 'discount').map((l) => [l.amount, l.proration])).toEqual([
      ['-5.00', '0.5'],
      ['-10.00', null],
    ]);
    expect(r.total).toBe('85.00');
  });

  it('rejects a discount aimed at an unknown charge', () => {
    expect(() => one({ charges: [...base, disc({ percent: '5', applies_to: 'nope' })], usage })).toThrow(RatingError);
  });
});

describe('invoice totals', () => {
  it('total equals the sum of its rounded lines, not the rounded sum of exact amounts', () => {
    // three charges of 0.004 + 0.005 ... each rounded on its line
    const r = one({
      charges: [
        charge({ kind: 'per_unit', unit_price: '0.001' }, { id: 'a' }),
        charge({ kind: 'per_unit', unit_price: '0.001' }, { id: 'b' }),
        charge({ kind: 'per_unit', unit_price: '0.001' }, { id: 'c' }),
      ],
      usage: { '@action': '5' }, // 0.005 each -> 0.01 each
    });
    expect(r.lines.map((l) => l.amount)).toEqual(['0.01', '0.01', '0.01']);
    expect(r.subtotal).toBe('0.03'); // not round(0.015) = 0.02
    expect(r.total).toBe('0.03');
  });

  it('normalizes the currency code and BHD totals carry 3 decimals', () => {
    const r = rate({ currency: 'bhd', period: NOV, charges: [charge({ kind: 'flat', amount: '12.5' })], usage: {} });
    expect([r.currency, r.subtotal, r.discount_total, r.total]).toEqual(['BHD', '12.500', '0.000', '12.500']);
  });
});

describe('invalid rating input', () => {
  const c = [charge({ kind: 'per_unit', unit_price: '1' })];
  it.each([
    ['negative usage', { charges: c, usage: { '@action': '-1' } }, RatingError, /must not be negative/],
    ['non-decimal usage', { charges: c, usage: { '@action': '1e' } }, RatingError, /decimal/],
    ['unknown unit key', { charges: c, usage: { '@token': '1' } as Usage }, RatingError, /unknown unit/],
    ['total below the instance sum', { charges: c, usage: { '@action': { total: '1', by_agent_instance: { a: '2' } } } }, RatingError, /less than the sum/],
    ['pricing kind mismatch', { charges: [{ ...c[0]!, model: 'flat' as const }], usage: {} }, RatingError, /pricing.kind/],
    ['negative price', { charges: [charge({ kind: 'per_unit', unit_price: '-1' })], usage: {} }, RatingError, /must not be negative/],
    ['bad currency', { currency: 'US', charges: c, usage: {} }, MoneyError, /currency/],
  ])('%s', (_name, input, errorClass, message) => {
    expect(() => one(input as RateInput)).toThrow(errorClass);
    expect(() => one(input as RateInput)).toThrow(message);
  });
});

describe('rateSegments: plan changes mid-cycle', () => {
  const planA = [charge({ kind: 'flat', amount: '100' }, { id: 'plan-a', name: 'Plan 100' })];
  const planB = [charge({ kind: 'flat', amount: '200' }, { id: 'plan-b', name: 'Plan 200' })];

  it.each([
    ['November (30 days), switch on the 16th at 00:00', NOV, '2026-11-16T00:00:00.000Z'],
    ['December (31 days), switch on the 16th at 12:00', DEC, '2026-12-16T12:00:00.000Z'],
  ])('spec example: 100 then 200, switched halfway: 50 + 100 = 150 (%s)', (_name, period, mid) => {
    const r = rateSegments({
      currency: 'USD',
      period,
      segments: [
        { from: period.start, to: mid, charges: planA, usage: {} },
        { from: mid, to: period.end, charges: planB, usage: {} },
      ],
    });
    expect(r.lines.map((l) => [l.charge_id, l.proration, l.amount])).toEqual([
      ['plan-a', '0.5', '50.00'],
      ['plan-b', '0.5', '100.00'],
    ]);
    expect(r.segments.map((s) => s.total)).toEqual(['50.00', '100.00']);
    expect(r.total).toBe('150.00');
  });

  it('rates usage on each segment’s own usage, tiers counted from the start of the period (a change never restarts them)', () => {
    const usageCharge = charge({ kind: 'tiered', tiers: tiers([1, '1'], [101, '0.5']) });
    const r = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: '2026-11-16T00:00:00Z', charges: [...planA, usageCharge], usage: { '@action': '150' } }, // 100 + 25
        { from: '2026-11-16T00:00:00Z', to: NOV.end, charges: [...planB, usageCharge], usage: { '@action': '50' } }, // units 151-200: 25
      ],
    });
    expect(r.lines.map((l) => l.amount)).toEqual(['50.00', '125.00', '100.00', '25.00']);
    expect(r.subtotal).toBe('300.00');
    expect(r.lines[1]!.proration).toBeNull(); // usage is not prorated
    expect(r.lines[3]!.tiers).toEqual([{ from: '101', to: null, quantity: '50', packages: '50', price: '0.5', amount: '25' }]);
  });

  // A pause splits the period into two segments of the same plan: included units,
  // tiers, packages and volume bands are the period's, granted once.
  const paused = (c: RatedCharge, first: string, second: string) =>
    rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: '2026-11-10T00:00:00Z', charges: [c], usage: { '@action': first } },
        { from: '2026-11-10T00:00:20Z', to: NOV.end, charges: [c], usage: { '@action': second } },
      ],
    });
  it.each([
    ['overage: 10 included per period, not 10 per segment', charge({ kind: 'overage', base_fee: '0', included_units: '10', overage_unit_price: '1' }), '8', '12', ['0.00', '10.00']],
    ['tiered: the second segment continues in the band the first reached', charge({ kind: 'tiered', tiers: tiers([1, '1'], [11, '0.5']) }), '8', '12', ['8.00', '7.00']],
    ['volume: every unit at the band of the period total (20 units: 0.5)', charge({ kind: 'volume', tiers: tiers([1, '1'], [11, '0.5']) }), '8', '12', ['4.00', '6.00']],
    ['package: packages of 10 count from the period start', charge({ kind: 'package', package_size: '10', package_price: '5' }), '8', '4', ['5.00', '5.00']],
  ])('%s', (_name, c, first, second, amounts) => {
    const r = paused(c, first, second);
    expect(r.lines.map((l) => l.amount)).toEqual(amounts);
    // The same as rating the period's 20 units at once (base fees aside).
    expect(r.subtotal).toBe(rate({ currency: 'USD', period: NOV, charges: [c], usage: { '@action': String(Number(first) + Number(second)) } }).subtotal);
  });

  it('three thirds of 100 bill 100.00: a charge split over segments is rounded once, shared by largest remainder', () => {
    const r = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: '2026-11-11T00:00:00Z', charges: planA, usage: {} },
        { from: '2026-11-11T00:00:00Z', to: '2026-11-21T00:00:00Z', charges: planA, usage: {} },
        { from: '2026-11-21T00:00:00Z', to: NOV.end, charges: planA, usage: {} },
      ],
    });
    expect(r.lines.map((l) => l.amount)).toEqual(['33.34', '33.33', '33.33']);
    expect(r.segments.map((s) => s.total)).toEqual(['33.34', '33.33', '33.33']);
    expect(r.total).toBe('100.00');
  });

  it('rounds once per charge whatever splits the period (issue 37: per-unit at 0.005, a JPY fee of 10.5 + 20.5)', () => {
    const perAction = [charge({ kind: 'per_unit', unit_price: '0.005' }, { id: 'acts', name: 'Actions', charge_type: 'usage', unit_of_measure: '@action' })];
    const split = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: '2026-11-10T00:00:00Z', charges: perAction, usage: { '@action': '1' } },
        { from: '2026-11-20T00:00:00Z', to: NOV.end, charges: perAction, usage: { '@action': '1' } },
      ],
    });
    const whole = rateSegments({ currency: 'USD', period: NOV, segments: [{ from: NOV.start, to: NOV.end, charges: perAction, usage: { '@action': '2' } }] });
    expect(whole.total).toBe('0.01');
    expect(split.total).toBe('0.01');
    expect(split.lines.map((l) => l.amount)).toEqual(['0.01', '0.00']);

    // 1000 JPY a month (30 days = 720 h): 7.56 h bill 10.5, 14.76 h bill 20.5; once rounded, 31.
    const fee = [charge({ kind: 'flat', amount: '1000' }, { id: 'fee', name: 'Fee' })];
    const jpy = rateSegments({
      currency: 'JPY',
      period: NOV,
      segments: [
        { from: NOV.start, to: '2026-11-01T07:33:36Z', charges: fee, usage: {} },
        { from: '2026-11-02T00:00:00Z', to: '2026-11-02T14:45:36Z', charges: fee, usage: {} },
      ],
    });
    expect(jpy.lines.map((l) => l.amount)).toEqual(['11', '20']); // the remainders tie: the earlier line takes the yen
    expect(jpy.total).toBe('31');
  });

  it('applies each segment’s discounts to that segment only', () => {
    const d = charge({ kind: 'discount', percent: '50', amount: null, applies_to: null }, { id: 'half' });
    const r = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: '2026-11-16T00:00:00Z', charges: [...planA, d], usage: {} },
        { from: '2026-11-16T00:00:00Z', to: NOV.end, charges: planB, usage: {} },
      ],
    });
    expect([r.subtotal, r.discount_total, r.total]).toEqual(['150.00', '-25.00', '125.00']);
  });

  it.each([
    ['overlapping', [['2026-11-01', '2026-11-20'], ['2026-11-10', '2026-12-01']], /overlap/],
    ['outside the period', [['2026-10-25', '2026-11-20']], /within the period/],
    ['empty', [['2026-11-10', '2026-11-10']], /after/],
    ['out of order', [['2026-11-20', '2026-12-01'], ['2026-11-01', '2026-11-10']], /ordered/],
  ])('rejects %s segments', (_name, spans, message) => {
    const segments = (spans as [string, string][]).map(([from, to]) => ({ from, to, charges: planA, usage: {} }));
    expect(() => rateSegments({ currency: 'USD', period: NOV, segments })).toThrow(message);
  });

  it('allows a gap (paused) and prorates what is left', () => {
    const r = rateSegments({ currency: 'USD', period: NOV, segments: [{ from: '2026-11-01', to: '2026-11-07', charges: planA, usage: {} }] });
    expect(r.total).toBe('20.00'); // 6 of 30 days
  });
});

describe('fractional quantities (an @outcome sum of 2.5) are never rounded', () => {
  it.each([
    ['per_unit', { kind: 'per_unit', unit_price: '0.1' }],
    ['tiered', { kind: 'tiered', tiers: tiers([1, '0.1'], [101, '0.08']) }],
    ['volume', { kind: 'volume', tiers: tiers([1, '0.1'], [101, '0.08']) }],
    ['overage', { kind: 'overage', base_fee: '0', included_units: '0', overage_unit_price: '0.1' }],
  ] as [string, CanonicalPricing][])('%s: 2.5 units at 0.1 cost 0.25 (tiered and volume rounded up to 3 units before)', (_name, pricing) => {
    const r = one({ charges: [charge(pricing)], usage: { '@action': '2.5' } });
    expect(r.lines[0]).toMatchObject({ quantity: '2.5', amount: '0.25' });
  });

  it('packages (package pricing, or a tier counter above 1) are whole: a partial package is a package', () => {
    expect(one({ charges: [charge({ kind: 'package', package_size: '10', package_price: '1' })], usage: { '@action': '2.5' } }).total).toBe('1.00');
    expect(one({ charges: [charge({ kind: 'tiered', tiers: tiers([1, '1', 2]) })], usage: { '@action': '2.5' } }).total).toBe('2.00');
  });
});
