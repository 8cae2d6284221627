import { describe, expect, it } from 'vitest';
import { rateSegments, type RatedCharge } from '../rating/index.ts';
import { invoiceLines, usageRecord, type MeasuredSegment } from './lines.ts';

const NOV = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const MID = '2026-11-16T00:00:00.000Z';
const flat = (amount: string): RatedCharge => ({ id: `flat-${amount}`, name: 'Platform', model: 'flat', charge_type: 'recurring', unit_of_measure: null, pricing: { kind: 'flat', amount } });
const perAction: RatedCharge = { id: 'pa', name: 'Actions', model: 'per_unit', charge_type: 'usage', unit_of_measure: '@action', pricing: { kind: 'per_unit', unit_price: '0.01' } };

describe('invoiceLines', () => {
  const segments: MeasuredSegment[] = [
    { from: NOV.start, to: MID, rate_plan_id: 'p100', usage: { '@action': { by_agent_instance: { a: '100', b: '50' } } } },
    { from: MID, to: NOV.end, rate_plan_id: 'p200', usage: { '@action': { by_agent_instance: { a: '7' } } } },
  ];
  const result = rateSegments({
    currency: 'USD',
    period: NOV,
    segments: [
      { from: NOV.start, to: MID, charges: [flat('100'), perAction], usage: segments[0]!.usage },
      { from: MID, to: NOV.end, charges: [flat('200'), perAction], usage: segments[1]!.usage },
    ],
  });
  const scope = { agent_instance_ids: ['a', 'b'] };
  const lines = invoiceLines(result, segments, scope);

  it('numbers lines in rating order, tags each with its segment plan, and the total is the sum of lines', () => {
    expect(lines.map((l) => [l.position, l.rate_plan_id, l.charge_name, l.agent_instance_id ?? null, l.amount])).toEqual([
      [1, 'p100', 'Platform', null, '50.00'],
      [2, 'p100', 'Actions', 'a', '1.00'],
      [3, 'p100', 'Actions', 'b', '0.50'],
      [4, 'p200', 'Platform', null, '100.00'],
      [5, 'p200', 'Actions', 'a', '0.07'],
    ]);
    const sum = lines.reduce((s, l) => s + Math.round(Number(l.amount) * 100), 0);
    expect(result.total).toBe('151.57');
    expect(sum).toBe(15157);
  });

  it('gives each usage line the query window, scope, unit and quantity that produced it; fees have none', () => {
    expect(lines[0]!.usage_query).toBeNull();
    expect(lines[4]!.usage_query).toEqual({ from: MID, to: NOV.end, scope, unit: '@action', agent_instance_id: 'a', quantity: '7' });
  });

  it('records the usage of each segment', () => {
    const u = usageRecord(segments, { account_id: 'acct' });
    expect(u.scope).toEqual({ account_id: 'acct' });
    expect(u.segments.map((s) => [s.rate_plan_id, s.quantities])).toEqual([
      ['p100', { '@action': '150' }],
      ['p200', { '@action': '7' }],
    ]);
  });
});
