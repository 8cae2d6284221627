/**
 * Minimum commitment true-up (minimum-commitment.ts through rateSegments): under, over
 * and exactly at the minimum, discounts, proration by billed time (start, end, pause),
 * plan changes (each plan's minimum over its own share), rounding once, 0- and
 * 3-decimal currencies and the largest accepted values.
 */
import { describe, expect, it } from 'vitest';
import type { RatedCharge } from './charge-models.ts';
import { MoneyError } from './money.ts';
import { RatingError, rateSegments } from './rate.ts';

const NOV = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' }; // 30 days
const day = (d: number) => new Date(Date.parse(NOV.start) + (d - 1) * 86_400_000).toISOString();

const fee = (amount: string, id = 'fee'): RatedCharge => ({ id, name: `Fee ${id}`, model: 'flat', charge_type: 'recurring', unit_of_measure: null, pricing: { kind: 'flat', amount } });
const perAction = (unit_price: string, id = 'act'): RatedCharge => ({ id, name: `Actions ${id}`, model: 'per_unit', charge_type: 'usage', unit_of_measure: '@action', pricing: { kind: 'per_unit', unit_price } });
const discount = (percent: string | null, amount: string | null = null): RatedCharge => ({
  id: 'disc',
  name: 'Discount',
  model: 'discount',
  charge_type: 'recurring',
  unit_of_measure: null,
  pricing: { kind: 'discount', percent, amount, applies_to: null },
});

/** One whole-period segment. */
function whole(currency: string, charges: RatedCharge[], actions: string, minimum: string | null | undefined) {
  return rateSegments({ currency, period: NOV, segments: [{ from: NOV.start, to: NOV.end, charges, usage: { '@action': actions }, minimum_commitment: minimum }] });
}
const trueUp = (r: ReturnType<typeof rateSegments>) => r.lines.find((l) => l.model === 'minimum_commitment');

describe('minimum commitment over a whole period', () => {
  it.each([
    // currency, fee, actions x 1, minimum, expected true-up (null: no line), total
    ['USD', '100', '200', '1000', '700.00', '1000.00'], // under
    ['USD', '100', '950', '1000', null, '1050.00'], // over
    ['USD', '100', '900', '1000', null, '1000.00'], // exactly at: no line
    ['USD', '0', '0', '1000', '1000.00', '1000.00'], // nothing billed
    ['USD', '100', '0', '0', null, '100.00'], // a zero minimum
    ['USD', '100', '0', null, null, '100.00'], // none
    ['USD', '0', '0', '999999999999999.99', '999999999999999.99', '999999999999999.99'], // the largest accepted (15 integer digits)
    ['JPY', '1000', '3', '5000', '3997', '5000'], // 0 decimals
    ['BHD', '1.5', '0', '10.125', '8.625', '10.125'], // 3 decimals
    ['BHD', '0', '0', '999999999999999.999', '999999999999999.999', '999999999999999.999'],
  ])('%s fee %s + %s actions, minimum %s: true-up %s, total %s', (currency, f, actions, minimum, expected, total) => {
    const r = whole(currency, [fee(f), perAction('1')], actions, minimum);
    const line = trueUp(r);
    if (expected === null) expect(line).toBeUndefined();
    else expect(line).toMatchObject({ charge_id: 'minimum_commitment', charge_type: 'recurring', amount: expected, proration: null, quantity: '1', unit: null });
    expect(r.total).toBe(total);
    // Total is the sum of the lines; the true-up is a charge (in the subtotal).
    expect(r.subtotal).toBe(r.total);
    expect(r.minimum_commitment).toEqual(line ?? null);
  });

  it('names the minimum, what was billed and the true-up', () => {
    const line = trueUp(whole('USD', [fee('100'), perAction('0.5')], '3', '250.5'))!;
    expect(line.minimum_commitment).toEqual({
      minimum: '250.50',
      prorated_minimum: '250.50',
      billed: '101.50',
      true_up: '149.00',
      parts: [{ from: NOV.start, to: NOV.end, minimum: '250.50', proration: '1' }],
    });
    expect(line.service_period).toEqual(NOV);
  });

  it('compares with the charges after discounts, and no discount reduces the true-up', () => {
    // 600 charged, 50% off: 300 billed, true-up 700 to reach 1000.
    const r = whole('USD', [fee('600'), discount('50')], '0', '1000');
    expect(r.discount_total).toBe('-300.00');
    expect(trueUp(r)!.amount).toBe('700.00');
    expect(trueUp(r)!.minimum_commitment!.billed).toBe('300.00');
    expect(r.total).toBe('1000.00');
    // Over the minimum before the discount, under after it.
    const r2 = whole('USD', [fee('1200'), discount(null, '500')], '0', '1000');
    expect(trueUp(r2)!.amount).toBe('300.00');
    expect(r2.total).toBe('1000.00');
  });
});

describe('minimum commitment prorated by billed time', () => {
  it('a start on day 11 owes 20/30 of the minimum, rounded once', () => {
    const r = rateSegments({ currency: 'USD', period: NOV, segments: [{ from: day(11), to: NOV.end, charges: [fee('30')], usage: {}, minimum_commitment: '100' }] });
    // fee 30 x 20/30 = 20.00; minimum 100 x 20/30 = 66.666... -> 66.67.
    expect(r.lines[0]!.amount).toBe('20.00');
    expect(trueUp(r)).toMatchObject({ amount: '46.67', proration: '0.6666666666666666666666666666666666666667' });
    expect(trueUp(r)!.minimum_commitment).toMatchObject({ minimum: '100.00', prorated_minimum: '66.67', billed: '20.00', true_up: '46.67' });
    expect(trueUp(r)!.service_period).toEqual({ start: day(11), end: NOV.end });
    expect(r.total).toBe('66.67');
  });

  it('a cancel on day 16 owes half; a pause owes nothing for the paused time (rounded once over the parts)', () => {
    const cancelled = rateSegments({ currency: 'USD', period: NOV, segments: [{ from: NOV.start, to: day(16), charges: [], usage: {}, minimum_commitment: '1000' }] });
    expect(trueUp(cancelled)!.amount).toBe('500.00');
    // Active days 1-10 and 21-30 (paused 11-20): 20/30 of 100 = 66.67 (not 33.33 + 33.33 = 66.66).
    const paused = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: day(11), charges: [], usage: {}, minimum_commitment: '100' },
        { from: day(21), to: NOV.end, charges: [], usage: {}, minimum_commitment: '100' },
      ],
    });
    expect(trueUp(paused)).toMatchObject({ amount: '66.67', proration: '0.6666666666666666666666666666666666666667' });
    expect(trueUp(paused)!.minimum_commitment!.parts.map((p) => p.proration)).toEqual(['0.3333333333333333333333333333333333333333', '0.3333333333333333333333333333333333333333']);
    expect(paused.total).toBe('66.67');
  });

  it('a plan change: each plan minimum over its own share, compared with the whole period', () => {
    // Plan A (minimum 300) 10 days, plan B (minimum 600) 20 days: 100 + 400 = 500 owed.
    // A bills 200 in its 10 days (over its share), B bills 100 (under): one true-up of 200.
    const r = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: day(11), charges: [perAction('1', 'a')], usage: { '@action': '200' }, minimum_commitment: '300' },
        { from: day(11), to: NOV.end, charges: [perAction('1', 'b')], usage: { '@action': '100' }, minimum_commitment: '600' },
      ],
    });
    expect(trueUp(r)!.minimum_commitment).toMatchObject({ minimum: null, prorated_minimum: '500.00', billed: '300.00', true_up: '200.00' });
    expect(trueUp(r)!.minimum_commitment!.parts.map((p) => p.minimum)).toEqual(['300.00', '600.00']);
    expect(r.total).toBe('500.00');
    // A plan without a minimum owes nothing for its share.
    const r2 = rateSegments({
      currency: 'USD',
      period: NOV,
      segments: [
        { from: NOV.start, to: day(16), charges: [], usage: {}, minimum_commitment: null },
        { from: day(16), to: NOV.end, charges: [], usage: {}, minimum_commitment: '90' },
      ],
    });
    expect(trueUp(r2)).toMatchObject({ amount: '45.00', proration: null });
    expect(trueUp(r2)!.minimum_commitment!.parts.map((p) => p.minimum)).toEqual([null, '90.00']);
  });

  it.each([
    // currency, minimum, active days from day 1, owed
    ['JPY', '1000', 10, '333'], // 333.33 -> 333
    ['JPY', '1000', 15, '500'],
    ['JPY', '1', 15, '1'], // 0.5 -> 1 (half up)
    ['BHD', '0.001', 15, '0.001'], // 0.0005 -> 0.001
    ['BHD', '10', 10, '3.333'],
    ['USD', '0.01', 15, '0.01'], // 0.005 -> 0.01
  ])('%s minimum %s over %s days owes %s', (currency, minimum, days, owed) => {
    const r = rateSegments({ currency, period: NOV, segments: [{ from: NOV.start, to: day(days + 1), charges: [], usage: {}, minimum_commitment: minimum }] });
    expect(trueUp(r)!.amount).toBe(owed);
    expect(r.total).toBe(owed);
  });
});

describe('minimum commitment input', () => {
  it('refuses a negative or non-decimal minimum (the engine; the API refuses them first)', () => {
    const seg = (m: string) => rateSegments({ currency: 'USD', period: NOV, segments: [{ from: NOV.start, to: NOV.end, charges: [], usage: {}, minimum_commitment: m }] });
    expect(() => seg('-1')).toThrow(RatingError);
    expect(() => seg('ten')).toThrow(/minimum_commitment/);
  });
  it('keeps MoneyError for an unknown currency', () => {
    expect(() => whole('XYZ', [], '0', '1')).toThrow(MoneyError);
  });
});
