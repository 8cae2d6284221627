/**
 * Everything the live rating of an account's open periods reads of Postgres, in one round
 * trip (docs/performance.md, Credits): its billable subscriptions (not draft; created,
 * then id: the order the live burn-down takes them) with, for each, its agent instances,
 * its recorded changes, the plans they name (cycle, currency, minimum, product), those
 * plans' charges, its invoices of periods not ended at `now` (the open period's, if one
 * was generated) and the one-time charges its earlier invoices billed. Nothing is cached:
 * a change of the catalog, a subscription or an invoice counts at the next read.
 *
 * The same rows, read one query at a time, are loadSubject's and rateSubscription's
 * (rate-subscription.ts); this only batches them.
 */
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { SubscriptionsTable } from '../../shared/db/schema.ts';
import type { RatedCharge } from '../rating/index.ts';
import { ratedCharge, subjectOf, type BillingSubject, type LoadedCatalog, type SubjectPlan } from './rate-subscription.ts';

/** One billable subscription of the account, ready to rate over any period starting after `now`'s earliest open one. */
export interface LoadedSubject {
  subject: BillingSubject;
  /** Product of each plan the subscription was on. */
  products: ReadonlyMap<string, string>;
  /** Invoices (kind invoice, current: not replaced) of periods ending after `now`. */
  openInvoices: { id: string; status: string; period_start: Date }[];
  /** The catalog a rating of `periodStart` reads. */
  catalog(periodStart: Date): LoadedCatalog;
}

interface Row extends Selectable<SubscriptionsTable> {
  instances: string[];
  events: { type: string; to_status: string; rate_plan_id: string; effective_at: string }[];
  plans: (SubjectPlan & { product_id: string })[];
  charges: { id: string; rate_plan_id: string; name: string; charge_type: string; unit_of_measure: string | null; resolved_pricing: unknown }[];
  open_invoices: { id: string; status: string; period_start: string }[];
  one_time: { charge_id: string; period_start: string }[];
}

/** The account's billable subscriptions with what rating them at `now` reads (see the module comment). */
export async function loadAccountSubjects(db: Db, environmentId: string, accountId: string, now: Date): Promise<LoadedSubject[]> {
  // Current invoices: of kind invoice and not replaced by a correction (store.ts slotHead).
  const rows = await sql<Row>`
    WITH s AS (
      SELECT * FROM subscriptions WHERE environment_id = ${environmentId} AND account_id = ${accountId} AND status <> 'draft'
    ), p AS (
      SELECT s.id AS subscription_id, rp.id, rp.billing_cycle_code, rp.currency, rp.minimum_commitment::text AS minimum_commitment, rp.product_id
      FROM s CROSS JOIN LATERAL (SELECT s.rate_plan_id AS id UNION SELECT e.rate_plan_id FROM subscription_events e WHERE e.subscription_id = s.id) named
      JOIN rate_plans rp ON rp.id = named.id
    )
    SELECT s.*,
      (SELECT coalesce(json_agg(a.agent_instance_id ORDER BY a.agent_instance_id), '[]') FROM subscription_agent_instances a WHERE a.subscription_id = s.id) AS instances,
      (SELECT coalesce(json_agg(json_build_object('type', e.type, 'to_status', e.to_status, 'rate_plan_id', e.rate_plan_id, 'effective_at', e.effective_at)
          ORDER BY e.created_at, e.type = 'created' DESC, e.id), '[]') FROM subscription_events e WHERE e.subscription_id = s.id) AS events,
      (SELECT coalesce(json_agg(json_build_object('id', p.id, 'billing_cycle_code', p.billing_cycle_code, 'currency', p.currency, 'minimum_commitment', p.minimum_commitment, 'product_id', p.product_id)), '[]')
        FROM p WHERE p.subscription_id = s.id) AS plans,
      (SELECT coalesce(json_agg(json_build_object('id', c.id, 'rate_plan_id', c.rate_plan_id, 'name', c.name, 'charge_type', c.charge_type, 'unit_of_measure', c.unit_of_measure, 'resolved_pricing', c.resolved_pricing)
          ORDER BY c.created_at, c.id), '[]') FROM charges c WHERE c.rate_plan_id IN (SELECT p.id FROM p WHERE p.subscription_id = s.id)) AS charges,
      (SELECT coalesce(json_agg(json_build_object('id', i.id, 'status', i.status, 'period_start', i.period_start)), '[]') FROM invoices i
        WHERE i.subscription_id = s.id AND i.kind = 'invoice' AND i.period_end > ${now}
          AND NOT EXISTS (SELECT 1 FROM invoices r WHERE r.replaces_invoice_id = i.id)) AS open_invoices,
      (SELECT coalesce(json_agg(json_build_object('charge_id', l.charge_id, 'period_start', i.period_start)), '[]') FROM invoice_lines l JOIN invoices i ON i.id = l.invoice_id
        WHERE i.subscription_id = s.id AND i.status <> 'void' AND i.kind = 'invoice' AND l.charge_type = 'one_time'
          AND NOT EXISTS (SELECT 1 FROM invoices r WHERE r.replaces_invoice_id = i.id)) AS one_time
    FROM s ORDER BY s.created_at, s.id`.execute(db);
  return rows.rows.map((r) => {
    const { instances, events, plans, charges, open_invoices, one_time, ...sub } = r;
    const changes = events.map((e) => ({ ...e, effective_at: new Date(e.effective_at).toISOString() }));
    const byPlan = new Map<string, RatedCharge[]>(plans.map((p) => [p.id, []]));
    for (const c of charges) byPlan.get(c.rate_plan_id)!.push(ratedCharge(c));
    return {
      subject: subjectOf(sub, instances, changes, plans),
      products: new Map(plans.map((p) => [p.id, p.product_id])),
      openInvoices: open_invoices.map((i) => ({ id: i.id, status: i.status, period_start: new Date(i.period_start) })),
      catalog: (periodStart: Date) => ({ charges: byPlan, billed: new Set(one_time.filter((o) => new Date(o.period_start) < periodStart).map((o) => o.charge_id)) }),
    };
  });
}
