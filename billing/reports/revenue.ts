import { sql } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import { Dec, formatMoney, formatScaledMoney, toScaled } from '../rating/money.ts';
import { bucketStart, compareText, periodsOf, type Granularity } from '../report-periods.ts';

/**
 * Revenue = invoiced amounts. An invoice counts in the bucket of its `period_start`
 * (the period it bills), whatever its status except `void`; drafts count (their amount
 * follows late events until finalized). Grouped by customer, an invoice counts whole;
 * by agent, rate plan, product or agent type, each line counts by the agent instance
 * of its usage (recurring fees and discounts have none: `agent_id` null) and the rate
 * plan of its segment. An invoice's total is the sum of its lines, so every breakdown
 * sums to the same total, per currency, and the total equals the sum of the invoices.
 *
 * Corrections (billing/invoicing/corrections.ts) need nothing special: a credit note is a
 * finalized document of the same period with negative lines, and its replacement a
 * positive one, so a corrected period sums to the corrected amount (original - original
 * + replacement) in every grouping. `invoices` counts documents, credit notes included.
 */
export type RevenueGroup = 'none' | 'agent' | 'customer' | 'product' | 'rate_plan' | 'agent_type';

export const REVENUE_GROUP_KEY: Record<Exclude<RevenueGroup, 'none'>, string> = {
  agent: 'agent_id',
  customer: 'customer_id',
  product: 'product_id',
  rate_plan: 'rate_plan_id',
  agent_type: 'agent_type_id',
};

export interface RevenueInvoice {
  invoice_id: string;
  account_id: string;
  rate_plan_id: string;
  currency: string;
  period_start: Date;
  total: string;
  lines: { agent_instance_id: string | null; rate_plan_id: string | null; amount: string }[];
}

interface RevenueMaps {
  /** rate plan id -> product id */
  productOfPlan: ReadonlyMap<string, string>;
  /** agent instance id -> agent type id (or null) */
  typeOfAgent: ReadonlyMap<string, string | null>;
}

export interface RevenueEntry {
  period: string;
  period_start: string;
  period_end: string;
  key: string | null;
  currency: string;
  revenue: string;
  invoices: number;
}

/** Amounts are summed as integers of 10^-SCALE (exact; a tenth of Decimal.js's cost a line). */
const SCALE = 12;
/** An amount as a scaled integer; trailing zeros past SCALE decimals (a numeric's scale) are dropped first. */
const scaled = (text: string): bigint => toScaled(text.length > SCALE + 2 && text.includes('.') ? text.replace(/\.?0+$/, '') : text, SCALE);

/** One (bucket, group key, currency) -> amount split of the invoices (pure). */
export function revenueEntries(invoices: readonly RevenueInvoice[], group: RevenueGroup, g: Granularity, maps: RevenueMaps): RevenueEntry[] {
  // Per entry: its sum and its invoices, counted as they change (an invoice's lines come together).
  const acc = new Map<string, { start: Date; key: string | null; currency: string; sum: bigint; invoices: number; lastInvoice: string }>();
  const add = (start: Date, key: string | null, currency: string, amount: string, invoiceId: string) => {
    const k = `${start.getTime()}\u0000${key ?? ''}\u0000${currency}`;
    let e = acc.get(k);
    if (!e) acc.set(k, (e = { start, key, currency, sum: 0n, invoices: 0, lastInvoice: '' }));
    e.sum += scaled(amount);
    if (e.lastInvoice !== invoiceId) (e.invoices++), (e.lastInvoice = invoiceId);
  };
  // Invoices share few period starts: each one's bucket is computed once.
  const buckets = new Map<number, Date>();
  for (const inv of invoices) {
    const t = inv.period_start.getTime();
    let start = buckets.get(t);
    if (!start) buckets.set(t, (start = bucketStart(inv.period_start, g)));
    if (group === 'none' || group === 'customer') {
      add(start, group === 'customer' ? inv.account_id : null, inv.currency, inv.total, inv.invoice_id);
      continue;
    }
    for (const l of inv.lines) {
      const plan = l.rate_plan_id ?? inv.rate_plan_id;
      const key =
        group === 'agent' ? l.agent_instance_id
        : group === 'rate_plan' ? plan
        : group === 'product' ? (maps.productOfPlan.get(plan) ?? null)
        : l.agent_instance_id === null ? null : (maps.typeOfAgent.get(l.agent_instance_id) ?? null);
      add(start, key, inv.currency, l.amount, inv.invoice_id);
    }
  }
  const period = periodsOf(g);
  return [...acc.values()]
    .map((e) => ({ ...period(e.start), key: e.key, currency: e.currency, revenue: formatScaledMoney(e.sum, SCALE, e.currency), invoices: e.invoices }))
    .sort((a, b) => compareText(a.period_start, b.period_start) || compareText(a.key ?? '', b.key ?? '') || compareText(a.currency, b.currency));
}

/** Sums per currency (never across currencies). */
export function totalsByCurrency(rows: readonly { currency: string; amount: string }[], format: (d: Dec, currency: string) => string = formatMoney): Record<string, string> {
  const sums = new Map<string, Dec>();
  for (const r of rows) sums.set(r.currency, (sums.get(r.currency) ?? new Dec(0)).plus(r.amount));
  return Object.fromEntries([...sums.entries()].sort(([a], [b]) => compareText(a, b)).map(([c, d]) => [c, format(d, c)]));
}

interface RevenueScope {
  environmentId: string;
  from: Date;
  to: Date;
  accountIds?: string[];
  agentInstanceIds?: string[];
}

/**
 * The non-void invoices whose period starts in [from, to), with their lines (one query: one
 * snapshot, no list of ids); plus the lookup maps, read only for the groupings that use
 * them (`group` product or agent type; all when not given).
 */
export async function loadRevenue(db: Db, s: RevenueScope, group?: RevenueGroup): Promise<{ invoices: RevenueInvoice[]; maps: RevenueMaps }> {
  let q = db
    .selectFrom('invoices as i')
    // Prepaid credits are how an invoice is paid, not less revenue: their lines are left out,
    // as are credit purchase invoices (no subscription: the revenue is the usage they pay for).
    .leftJoin('invoice_lines as l', (j) => j.onRef('l.invoice_id', '=', 'i.id').on('l.charge_type', '!=', 'credits_applied'))
    .select(['i.id', 'i.account_id', 'i.rate_plan_id', 'i.currency', 'i.total', 'l.agent_instance_id', 'l.amount'])
    // The period start as epoch milliseconds: a number, which the driver does not parse as it parses timestamps (a tenth of the rows' cost).
    .select(sql<number>`(extract(epoch from i.period_start) * 1000)::float8`.as('period_start_ms'))
    .select(sql<string | null>`l.detail->>'rate_plan_id'`.as('line_rate_plan_id'))
    .where('i.environment_id', '=', s.environmentId)
    .where('i.status', '!=', 'void')
    .where('i.subscription_id', 'is not', null)
    .where('i.period_start', '>=', s.from)
    .where('i.period_start', '<', s.to);
  if (s.accountIds) q = q.where('i.account_id', 'in', s.accountIds.length ? s.accountIds : ['']);
  const needsMaps = group === undefined || group === 'product' || group === 'agent_type';
  const [rows, maps] = await Promise.all([q.orderBy('i.period_start').orderBy('i.id').orderBy('l.position').execute(), needsMaps ? loadMaps(db, s.environmentId) : NO_MAPS]);
  let invoices: RevenueInvoice[] = [];
  let last: RevenueInvoice | undefined;
  for (const r of rows) {
    if (last?.invoice_id !== r.id) {
      last = { invoice_id: r.id, account_id: r.account_id, rate_plan_id: r.rate_plan_id!, currency: r.currency, period_start: new Date(r.period_start_ms), total: r.total, lines: [] };
      invoices.push(last);
    }
    if (r.amount !== null) last.lines.push({ agent_instance_id: r.agent_instance_id, rate_plan_id: r.line_rate_plan_id, amount: r.amount });
  }
  if (s.agentInstanceIds) {
    // Only the lines of these agents count (an agent's revenue).
    const want = new Set(s.agentInstanceIds);
    invoices = invoices
      .map((i) => {
        const ls = i.lines.filter((l) => l.agent_instance_id !== null && want.has(l.agent_instance_id));
        return { ...i, lines: ls, total: ls.reduce((a, l) => a.plus(l.amount), new Dec(0)).toFixed() };
      })
      .filter((i) => i.lines.length > 0);
  }
  return { invoices, maps };
}

const NO_MAPS: RevenueMaps = { productOfPlan: new Map(), typeOfAgent: new Map() };

async function loadMaps(db: Db, environmentId: string): Promise<RevenueMaps> {
  const [plans, agents] = await Promise.all([
    db.selectFrom('rate_plans').select(['id', 'product_id']).where('environment_id', '=', environmentId).execute(),
    db.selectFrom('agent_instances').select(['id', 'agent_type_id']).where('environment_id', '=', environmentId).execute(),
  ]);
  return { productOfPlan: new Map(plans.map((p) => [p.id, p.product_id])), typeOfAgent: new Map(agents.map((a) => [a.id, a.agent_type_id])) };
}
