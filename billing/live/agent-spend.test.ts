/**
 * What an open period bills for each agent instance (agent-spend.ts), through the real
 * rating (rateSegments) and invoice lines: per-unit lines are the agents' own, tiered and
 * volume lines shared by quantity, discounts shared as what they reduce, fees and users the
 * account's; the agents' figures and the account's part always add up to the invoice.
 */
import { describe, expect, it } from 'vitest';
import type { RatedCharge } from '../rating/charge-models.ts';
import { Dec } from '../rating/money.ts';
import { rateSegments } from '../rating/rate.ts';
import { invoiceLines, type MeasuredSegment } from '../invoicing/lines.ts';
import { agentShares } from './agent-spend.ts';

const NOV = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const MID = '2026-11-16T00:00:00.000Z';
const charge = (id: string, model: RatedCharge['model'], pricing: RatedCharge['pricing'], unit: RatedCharge['unit_of_measure'] = '@action', type: RatedCharge['charge_type'] = 'usage'): RatedCharge => ({ id, name: id, model, charge_type: type, unit_of_measure: unit, pricing });
const perUnit = (price: string) => charge('actions', 'per_unit', { kind: 'per_unit', unit_price: price });
const tiered = charge('tiers', 'tiered', { kind: 'tiered', tiers: [{ start: '1', price: '2', counter: '1' }, { start: '6', price: '1', counter: '1' }] } as RatedCharge['pricing']);
const volume = charge('bands', 'volume', { kind: 'volume', tiers: [{ start: '1', price: '3', counter: '1' }, { start: '5', price: '2', counter: '1' }] } as RatedCharge['pricing'], '@outcome');
const fee = charge('fee', 'flat', { kind: 'flat', amount: '30' }, null, 'recurring');
const discount = (id: string, percent: string, appliesTo: string | null) => charge(id, 'discount', { kind: 'discount', percent, amount: null, applies_to: appliesTo }, null, 'recurring');

/** Rates one or two segments (split at MID) and returns the lines and per-agent shares. */
function rated(currency: string, charges: RatedCharge[], usage: MeasuredSegment['usage'][]) {
  const cuts = usage.length === 1 ? [[NOV.start, NOV.end]] : [[NOV.start, MID], [MID, NOV.end]];
  const segments: MeasuredSegment[] = usage.map((u, i) => ({ from: cuts[i]![0]!, to: cuts[i]![1]!, rate_plan_id: 'plan', usage: u }));
  const result = rateSegments({ currency, period: NOV, segments: segments.map((s) => ({ from: s.from, to: s.to, charges, usage: s.usage, minimum_commitment: null })) });
  const lines = invoiceLines(result, segments, { account_id: 'acct' });
  const shares = agentShares(lines, segments);
  const agents = [...shares.values()].reduce((s, v) => s.plus(v), new Dec(0));
  return { result, lines, shares: Object.fromEntries([...shares].map(([k, v]) => [k, v.toFixed()])), account: new Dec(result.total).minus(agents).toFixed() };
}
const split = (by: Record<string, string>) => ({ total: Object.values(by).reduce((s, v) => s.plus(v), new Dec(0)).toFixed(), by_agent_instance: by });

describe('what an open period bills for each agent instance', () => {
  it('per-unit lines are the agents\' own; the line of events without an agent instance and a fee are the account\'s', () => {
    const r = rated('USD', [perUnit('1.5'), fee], [{ '@action': split({ x: '4', y: '3', '': '2' }), '@outcome': split({}) }]);
    expect(r.shares).toEqual({ x: '6', y: '4.5' });
    expect(r.account).toBe('33'); // 3.00 of events without an agent instance + the 30.00 fee
  });

  it('tiered and volume lines are shared by the agents\' quantities of their unit', () => {
    // Tiered: 7 actions, 5 at 2 and 2 at 1 = 12.00, x 4 of 7, y 3 of 7. Volume: 10 outcome value at 2 = 20.00, x 2.5 of 10.
    const r = rated('USD', [tiered, volume], [{ '@action': split({ x: '4', y: '3' }), '@outcome': split({ x: '2.5', y: '7.5' }) }]);
    expect(r.result.total).toBe('32.00');
    expect(r.shares.x).toBe(new Dec(12).times(4).div(7).plus(5).toFixed());
    expect(r.shares.y).toBe(new Dec(12).times(3).div(7).plus(15).toFixed());
    expect(r.account).toBe('0');
  });

  it('a discount of one charge comes off that charge\'s shares, one of the invoice off every line\'s, in their order', () => {
    // actions 1.50: x 6.00, y 4.50; fee 30.00. Promo 10 % of actions = 1.05; then 10 % of the invoice (40.50 - 1.05 = 39.45) = 3.95 (rounded).
    const r = rated('USD', [perUnit('1.5'), fee, discount('promo', '10', 'actions'), discount('all', '10', null)], [{ '@action': split({ x: '4', y: '3' }), '@outcome': split({}) }]);
    expect(r.result.total).toBe('35.50');
    const afterPromo = { x: new Dec(6).times(0.9), y: new Dec(4.5).times(0.9) }; // 5.40, 4.05
    const base = new Dec('39.45');
    expect(r.shares.x).toBe(afterPromo.x.minus(new Dec('3.95').times(afterPromo.x).div(base)).toFixed());
    expect(r.shares.y).toBe(afterPromo.y.minus(new Dec('3.95').times(afterPromo.y).div(base)).toFixed());
    expect(new Dec(r.shares.x!).plus(r.shares.y!).plus(r.account).toFixed(2)).toBe('35.50');
  });

  it('shares each segment by its own usage across a plan change, in 0- and 3-decimal currencies', () => {
    for (const currency of ['JPY', 'KWD']) {
      const r = rated(currency, [tiered], [{ '@action': split({ x: '6' }), '@outcome': split({}) }, { '@action': split({ y: '2' }), '@outcome': split({}) }]);
      // Tiers count from the start of the period: the first segment 5 x 2 + 1 x 1 = 11, the second 2 x 1 = 2.
      expect(r.shares).toEqual({ x: '11', y: '2' });
      expect(r.account).toBe('0');
    }
  });

  it('gives nothing to anyone on a period without usage, and the true-up line is left to the caller', () => {
    const r = rated('USD', [perUnit('1'), fee], [{ '@action': split({}), '@outcome': split({}) }]);
    expect(r.shares).toEqual({});
    expect(r.account).toBe('30');
  });
});
