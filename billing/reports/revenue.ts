import type { Db } from '../../shared/db/postgres.ts';
import { Dec, formatMoney } from '../rating/money.ts';
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

/** One (bucket, group key, currency) -> amount split of the invoices (pure). */
export function revenueEntries(invoices: readonly RevenueInvoice[], group: RevenueGroup, g: Granularity, maps: RevenueMaps): RevenueEntry[] {
  const acc = new Map<string, { start: Date; key: string | null; currency: string; sum: Dec; ids: Set<string> }>();
  const add = (start: Date, key: string | null, currency: string, amount: string, invoiceId: string) => {
    const k = `${start.toISOString()}\u0000${key ?? ''}\u0000${currency}`;
    let e = acc.get(k);
    if (!e) acc.set(k, (e = { start, key, currency, sum: new Dec(0), ids: new Set() }));
    e.sum = e.sum.plus(amount);
    e.ids.add(invoiceId);
  };
  for (const inv of invoices) {
    const start = bucketStart(inv.period_start, g);
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
    .map((e) => ({ ...period(e.start), key: e.key, currency: e.currency, revenue: formatMoney(e.sum, e.currency), invoices: e.ids.size }))
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

/** The non-void invoices whose period starts in [from, to), with their lines; plus the lookup maps. */
export async function loadRevenue(db: Db, s: RevenueScope): Promise<{ invoices: RevenueInvoice[]; maps: RevenueMaps }> {
  let q = db
    .selectFrom('invoices')
    .select(['id', 'account_id', 'rate_plan_id', 'currency', 'period_start', 'total'])
    .where('environment_id', '=', s.environmentId)
    .where('status', '!=', 'void')
    .where('period_start', '>=', s.from)
    .where('period_start', '<', s.to);
  if (s.accountIds) q = q.where('account_id', 'in', s.accountIds.length ? s.accountIds : ['']);
  const rows = await q.orderBy('period_start').orderBy('id').execute();
  const ids = rows.map((r) => r.id);
  const lines = ids.length
    ? await db
        .selectFrom('invoice_lines')
        .select(['invoice_id', 'agent_instance_id', 'amount', 'detail'])
        .where('invoice_id', 'in', ids)
        .orderBy('invoice_id')
        .orderBy('position')
        .execute()
    : [];
  const byInvoice = new Map<string, RevenueInvoice['lines']>();
  for (const l of lines) {
    const list = byInvoice.get(l.invoice_id) ?? [];
    list.push({ agent_instance_id: l.agent_instance_id, rate_plan_id: ((l.detail as Record<string, unknown>)?.rate_plan_id as string | undefined) ?? null, amount: l.amount });
    byInvoice.set(l.invoice_id, list);
  }
  let invoices: RevenueInvoice[] = rows.map((r) => ({
    invoice_id: r.id,
    account_id: r.account_id,
    rate_plan_id: r.rate_plan_id,
    currency: r.currency,
    period_start: new Date(r.period_start),
    total: r.total,
    lines: byInvoice.get(r.id) ?? [],
  }));
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
  const plans = await db.selectFrom('rate_plans').select(['id', 'product_id']).where('environment_id', '=', s.environmentId).execute();
  const agents = await db.selectFrom('agent_instances').select(['id', 'agent_type_id']).where('environment_id', '=', s.environmentId).execute();
  return {
    invoices,
    maps: { productOfPlan: new Map(plans.map((p) => [p.id, p.product_id])), typeOfAgent: new Map(agents.map((a) => [a.id, a.agent_type_id])) },
  };
}
