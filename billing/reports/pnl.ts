import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { queryCosts, type CostRollupReader, type CostRow, type CostStatus } from '../costs/cost-query.ts';
import { COST_CATEGORIES } from '../costs/cost-rules.ts';
import { Dec, formatDecimal } from '../rating/money.ts';
import { bucketStart, compareText, parseBucketDate, periodsOf, type Granularity } from '../report-periods.ts';
import { loadRevenue, revenueEntries, type RevenueEntry } from './revenue.ts';

type PnlGroup = 'none' | 'agent' | 'customer';
type CostsView = 'blended' | 'itemized';

interface PnlFigures {
  currency: string;
  revenue: string;
  costs: string;
  costs_by_category?: Record<string, string>;
  margin: string;
  /** margin / revenue x 100, 2 decimals half up; null when revenue is 0. */
  margin_percent: string | null;
}

interface PnlRow extends PnlFigures {
  period: string;
  period_start: string;
  period_end: string;
  key: string | null;
}

/** margin / revenue x 100, two decimals half up; null without revenue (pure). */
export function marginPercent(margin: Dec, revenue: Dec): string | null {
  if (revenue.isZero()) return null;
  return margin.div(revenue).times(100).toDecimalPlaces(2, Dec.ROUND_HALF_UP).toFixed(2);
}

interface Acc {
  start: Date | null;
  key: string | null;
  currency: string;
  revenue: Dec;
  byCat: Map<string, Dec>;
}

function figures(a: Acc, view: CostsView): PnlFigures {
  const costs = [...a.byCat.values()].reduce((s, d) => s.plus(d), new Dec(0));
  const margin = a.revenue.minus(costs);
  return {
    currency: a.currency,
    revenue: formatDecimal(a.revenue),
    costs: formatDecimal(costs),
    ...(view === 'itemized' ? { costs_by_category: Object.fromEntries(COST_CATEGORIES.map((c) => [c, formatDecimal(a.byCat.get(c) ?? new Dec(0))])) } : {}),
    margin: formatDecimal(margin),
    margin_percent: marginPercent(margin, a.revenue),
  };
}

/**
 * Joins revenue entries and cost rows on (bucket, key, currency) (pure). Revenue is
 * bucketed by the invoice's period, costs by the action's time. Returns the rows and the
 * totals per currency; amounts are exact decimal strings, never summed across currencies.
 */
export function combinePnl(revenue: readonly RevenueEntry[], costs: readonly CostRow[], g: Granularity, group: PnlGroup, view: CostsView): { rows: PnlRow[]; totals: PnlFigures[] } {
  const rows = new Map<string, Acc>();
  const totals = new Map<string, Acc>();
  const get = (m: Map<string, Acc>, start: Date | null, key: string | null, currency: string) => {
    const k = `${start?.getTime() ?? ''}\u0000${key ?? ''}\u0000${currency}`;
    let a = m.get(k);
    if (!a) m.set(k, (a = { start, key, currency, revenue: new Dec(0), byCat: new Map() }));
    return a;
  };
  for (const r of revenue) {
    const start = new Date(r.period_start);
    get(rows, start, r.key, r.currency).revenue = get(rows, start, r.key, r.currency).revenue.plus(r.revenue);
    const t = get(totals, null, null, r.currency);
    t.revenue = t.revenue.plus(r.revenue);
  }
  const starts = new Map<string, Date>();
  for (const c of costs) {
    let start = starts.get(c.bucket!);
    if (!start) starts.set(c.bucket!, (start = bucketStart(parseBucketDate(c.bucket!), g)));
    const key = group === 'agent' ? (c.agent_instance_id ?? null) : group === 'customer' ? (c.account_id || null) : null;
    const amount = new Dec(c.amount);
    for (const a of [get(rows, start, key, c.currency), get(totals, null, null, c.currency)]) {
      const sum = a.byCat.get(c.category);
      a.byCat.set(c.category, sum ? sum.plus(amount) : amount);
    }
  }
  const period = periodsOf(g);
  const out = [...rows.values()]
    .map((a) => ({ ...period(a.start!), key: a.key, ...figures(a, view) }))
    .sort((a, b) => compareText(a.period_start, b.period_start) || compareText(a.key ?? '', b.key ?? '') || compareText(a.currency, b.currency));
  return { rows: out, totals: [...totals.values()].map((a) => figures(a, view)).sort((a, b) => compareText(a.currency, b.currency)) };
}

interface PnlQuery {
  environmentId: string;
  from: Date;
  to: Date;
  granularity: Granularity;
  groupBy: PnlGroup;
  costs: CostsView;
  agentInstanceIds?: string[];
  accountIds?: string[];
}

/** The P&L of an environment (or of some agents or customers) over [from, to). */
export async function computePnl(db: Db, ch: Pick<ClickHouseClient, 'query'>, chDatabase: string, q: PnlQuery, rollup?: CostRollupReader) {
  const scope = { environmentId: q.environmentId, from: q.from, to: q.to, ...(q.agentInstanceIds ? { agentInstanceIds: q.agentInstanceIds } : {}), ...(q.accountIds ? { accountIds: q.accountIds } : {}) };
  const status: CostStatus = { rollupBehind: false };
  const [{ invoices, maps }, costs] = await Promise.all([
    loadRevenue(db, scope),
    queryCosts(ch, chDatabase, { ...scope, granularity: q.granularity, byAgent: q.groupBy === 'agent', byAccount: q.groupBy === 'customer' }, rollup, status),
  ]);
  const revenue = revenueEntries(invoices, q.groupBy, q.granularity, maps);
  const { rows, totals } = combinePnl(revenue, costs, q.granularity, q.groupBy, q.costs);
  const keyName = q.groupBy === 'agent' ? 'agent_id' : q.groupBy === 'customer' ? 'customer_id' : undefined;
  return {
    start_date: q.from.toISOString(),
    end_date: q.to.toISOString(),
    granularity: q.granularity,
    group_by: q.groupBy,
    costs_view: q.costs,
    totals,
    breakdown: rows.map(({ key, ...r }) => (keyName ? { ...r, [keyName]: key } : r)),
    costs_behind: status.rollupBehind,
  };
}
