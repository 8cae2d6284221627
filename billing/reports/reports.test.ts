import { describe, expect, it } from 'vitest';
import { Dec, percentOf, toScaled } from '../rating/money.ts';
import { dailyRevenue } from './embeds.ts';
import { bucketEnd, bucketLabel, bucketStart, type Granularity } from '../report-periods.ts';
import { combinePnl } from './pnl.ts';
import { revenueEntries, totalsByCurrency, type RevenueInvoice } from './revenue.ts';

describe('periods', () => {
  it.each<[string, Granularity, string, string, string]>([
    ['2026-11-21T14:00:00Z', 'day', '2026-11-21', '2026-11-21T00:00:00.000Z', '2026-11-22T00:00:00.000Z'],
    ['2026-11-21T14:00:00Z', 'week', '2026-W47', '2026-11-16T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['2026-11-16T00:00:00Z', 'week', '2026-W47', '2026-11-16T00:00:00.000Z', '2026-11-23T00:00:00.000Z'],
    ['2026-11-15T23:59:59Z', 'week', '2026-W46', '2026-11-09T00:00:00.000Z', '2026-11-16T00:00:00.000Z'],
    ['2027-01-01T00:00:00Z', 'week', '2026-W53', '2026-12-28T00:00:00.000Z', '2027-01-04T00:00:00.000Z'],
    ['2025-12-31T00:00:00Z', 'week', '2026-W01', '2025-12-29T00:00:00.000Z', '2026-01-05T00:00:00.000Z'],
    ['2026-11-21T14:00:00Z', 'month', '2026-11', '2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
    ['2026-12-31T23:59:59Z', 'month', '2026-12', '2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2026-11-21T14:00:00Z', 'quarter', '2026-Q4', '2026-10-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
    ['2026-03-31T23:59:59Z', 'quarter', '2026-Q1', '2026-01-01T00:00:00.000Z', '2026-04-01T00:00:00.000Z'],
  ])('%s by %s is %s [%s, %s)', (t, g, label, start, end) => {
    const s = bucketStart(new Date(t), g);
    expect([bucketLabel(s, g), s.toISOString(), bucketEnd(s, g).toISOString()]).toEqual([label, start, end]);
  });
});

const inv = (id: string, account: string, currency: string, start: string, total: string, lines: [string | null, string | null, string][]): RevenueInvoice => ({
  invoice_id: id,
  account_id: account,
  rate_plan_id: 'rp_a',
  currency,
  period_start: new Date(start),
  total,
  lines: lines.map(([agent, plan, amount]) => ({ agent_instance_id: agent, rate_plan_id: plan, amount })),
});
const INVOICES = [
  inv('i1', 'acme', 'USD', '2026-10-01T00:00:00Z', '100.50', [[null, 'rp_a', '100.00'], ['a1', 'rp_a', '0.50']]),
  inv('i2', 'acme', 'USD', '2026-11-01T00:00:00Z', '152.00', [[null, 'rp_a', '50.00'], [null, 'rp_b', '100.00'], ['a1', 'rp_b', '2.00']]),
  inv('i3', 'globex', 'EUR', '2026-11-01T00:00:00Z', '50.00', [[null, null, '50.00']]),
];
const MAPS = { productOfPlan: new Map([['rp_a', 'p1'], ['rp_b', 'p2']]), typeOfAgent: new Map([['a1', 't1']]) };

describe('revenue entries', () => {
  it.each([
    ['none', 'quarter', [['2026-Q4', null, 'EUR', '50.00'], ['2026-Q4', null, 'USD', '252.50']]],
    ['customer', 'month', [['2026-10', 'acme', 'USD', '100.50'], ['2026-11', 'acme', 'USD', '152.00'], ['2026-11', 'globex', 'EUR', '50.00']]],
    ['agent', 'month', [['2026-10', null, 'USD', '100.00'], ['2026-10', 'a1', 'USD', '0.50'], ['2026-11', null, 'EUR', '50.00'], ['2026-11', null, 'USD', '150.00'], ['2026-11', 'a1', 'USD', '2.00']]],
    // A line without a plan of its own (old invoices) belongs to the invoice's plan.
    ['rate_plan', 'quarter', [['2026-Q4', 'rp_a', 'EUR', '50.00'], ['2026-Q4', 'rp_a', 'USD', '150.50'], ['2026-Q4', 'rp_b', 'USD', '102.00']]],
    ['product', 'quarter', [['2026-Q4', 'p1', 'EUR', '50.00'], ['2026-Q4', 'p1', 'USD', '150.50'], ['2026-Q4', 'p2', 'USD', '102.00']]],
    ['agent_type', 'quarter', [['2026-Q4', null, 'EUR', '50.00'], ['2026-Q4', null, 'USD', '250.00'], ['2026-Q4', 't1', 'USD', '2.50']]],
  ] as const)('by %s and %s', (group, g, expected) => {
    const rows = revenueEntries(INVOICES, group, g, MAPS);
    expect(rows.map((r) => [r.period, r.key, r.currency, r.revenue])).toEqual(expected);
    // Every grouping sums to the invoices' totals, per currency.
    expect(totalsByCurrency(rows.map((r) => ({ currency: r.currency, amount: r.revenue })))).toEqual({ EUR: '50.00', USD: '252.50' });
  });

  it('a corrected invoice reconciles: the credit note counts negative, the replacement positive', () => {
    // i2 (152.00) corrected: credit note reversing it in full, replacement with one more unit for a1.
    const cn = inv('cn1', 'acme', 'USD', '2026-11-01T00:00:00Z', '-152.00', [[null, 'rp_a', '-50.00'], [null, 'rp_b', '-100.00'], ['a1', 'rp_b', '-2.00']]);
    const repl = inv('i4', 'acme', 'USD', '2026-11-01T00:00:00Z', '152.50', [[null, 'rp_a', '50.00'], [null, 'rp_b', '100.00'], ['a1', 'rp_b', '2.50']]);
    const docs = [...INVOICES, cn, repl];
    expect(revenueEntries(docs, 'customer', 'month', MAPS).map((r) => [r.period, r.key, r.currency, r.revenue, r.invoices])).toEqual([
      ['2026-10', 'acme', 'USD', '100.50', 1],
      ['2026-11', 'acme', 'USD', '152.50', 3],
      ['2026-11', 'globex', 'EUR', '50.00', 1],
    ]);
    expect(revenueEntries(docs, 'agent', 'month', MAPS).filter((r) => r.period === '2026-11' && r.currency === 'USD').map((r) => [r.key, r.revenue])).toEqual([
      [null, '150.00'],
      ['a1', '2.50'],
    ]);
    for (const group of ['none', 'agent', 'customer', 'product', 'rate_plan', 'agent_type'] as const) {
      const rows = revenueEntries(docs, group, 'quarter', MAPS);
      expect(totalsByCurrency(rows.map((r) => ({ currency: r.currency, amount: r.revenue }))), group).toEqual({ EUR: '50.00', USD: '253.00' });
    }
  });
});

describe('P&L', () => {
  it.each([
    ['100', '25', '25.00'],
    ['3', '1', '33.33'],
    ['3', '2', '66.67'],
    ['0', '-5', null],
    ['10', '-5', '-50.00'],
  ])('margin %s of revenue %s is %s%%', (revenue, margin, pct) => {
    expect(percentOf(toScaled(margin, 12), toScaled(revenue, 12))).toBe(pct);
  });

  it('joins revenue and costs per period, key and currency, never across currencies', () => {
    const revenue = revenueEntries(INVOICES, 'none', 'month', MAPS);
    const costs = [
      { bucket: '2026-11-01', category: 'llm', currency: 'USD', amount: '1.25', actions: '3' },
      { bucket: '2026-11-01', category: 'api', currency: 'USD', amount: '0.75', actions: '1' },
      { bucket: '2026-12-01', category: 'infrastructure', currency: 'JPY', amount: '7', actions: '1' },
    ];
    const { rows, totals } = combinePnl(revenue, costs, 'month', 'none', 'itemized');
    expect(rows.map((r) => [r.period, r.currency, r.revenue, r.costs, r.margin, r.margin_percent])).toEqual([
      ['2026-10', 'USD', '100.5', '0', '100.5', '100.00'],
      ['2026-11', 'EUR', '50', '0', '50', '100.00'],
      ['2026-11', 'USD', '152', '2', '150', '98.68'],
      ['2026-12', 'JPY', '0', '7', '-7', null],
    ]);
    expect(totals.find((t) => t.currency === 'USD')).toEqual({ currency: 'USD', revenue: '252.5', costs: '2', costs_by_category: { llm: '1.25', api: '0.75', infrastructure: '0' }, margin: '250.5', margin_percent: '99.21' });
    const blended = combinePnl(revenue, costs, 'month', 'none', 'blended');
    expect(blended.totals.every((t) => !('costs_by_category' in t))).toBe(true);
  });
});

describe('daily revenue of an embed', () => {
  const line = { amount: '30.00', service_start: new Date('2026-11-01T00:00:00Z'), service_end: new Date('2026-12-01T00:00:00Z') };
  it.each([
    ['2026-11-05', '1'],
    ['2026-10-31', '0'],
    ['2026-12-01', '0'],
  ])('%s gets %s', (day, amount) => {
    expect(dailyRevenue([line], new Date(`${day}T00:00:00Z`)).toFixed()).toBe(amount);
  });
  it('rounds to six decimals and sums lines', () => {
    expect(dailyRevenue([{ ...line, amount: '2.00' }, line], new Date('2026-11-02T00:00:00Z')).toFixed()).toBe('1.066667');
  });
});
