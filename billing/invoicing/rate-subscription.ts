/**
 * Rates one subscription over one period from the catalog (Postgres) and usage
 * (ClickHouse): the steps are load, segment, measure, rate. Nothing is stored here;
 * generation and preview both use it.
 */
import { sql, type Selectable } from 'kysely';
import type { SubscriptionsTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { notFound } from '../../shared/db/db-errors.ts';
import type { BillingCycle, CanonicalPricing, ChargeModelKind, Period, RatedCharge, RateSegmentsResult, UnitOfMeasure } from '../rating/index.ts';
import type { Invoicing } from './context.ts';
import { invoiceLines, usageRecord, type MeasuredSegment, type StoredLine, type UsageScope } from './lines.ts';
import { billableSegments, planInForce, type PlanSegment } from './segments.ts';
import { engineUsage, SCOPE_WIDE_UNITS } from './usage-map.ts';

/** A subscription with what billing needs of it. */
export interface BillingSubject {
  sub: Selectable<SubscriptionsTable>;
  agentInstanceIds: string[];
  /** The billing cycle of the plan in force at an instant (changes across cycles take effect at a start of both: docs/billing.md). */
  cycleAt(instant: number): BillingCycle;
  currency: string;
  changes: { type: string; to_status: string; rate_plan_id: string; effective_at: string }[];
  /**
   * The minimum commitment per period in force on a plan's segments: the subscription's
   * override, else that plan's, else null (docs/credits.md "Commitments").
   */
  minimumOn(ratePlanId: string): string | null;
}

/** A rated (not stored) invoice of one subscription and period. */
export interface RatedInvoice {
  subject: BillingSubject;
  period: Period;
  segments: MeasuredSegment[];
  result: RateSegmentsResult;
  lines: StoredLine[];
  usage: ReturnType<typeof usageRecord>;
}

/** Loads a subscription, its plans' cycles, its current plan's currency, its instances and state changes (404 when absent). */
export async function loadSubject(db: Db, environmentId: string, subscriptionId: string): Promise<BillingSubject> {
  const sub = await db.selectFrom('subscriptions').selectAll().where('environment_id', '=', environmentId).where('id', '=', subscriptionId).executeTakeFirst();
  if (!sub) throw notFound('subscription', subscriptionId);
  const [instances, events] = await Promise.all([
    db.selectFrom('subscription_agent_instances').select('agent_instance_id').where('subscription_id', '=', sub.id).orderBy('agent_instance_id').execute(),
    // Recorded order: by the time of each insert; rows of one transaction recorded with one
    // time (before inserts took their statement's time) put the creation first.
    db
      .selectFrom('subscription_events')
      .select(['type', 'to_status', 'rate_plan_id', 'effective_at'])
      .where('subscription_id', '=', sub.id)
      .orderBy('created_at')
      .orderBy(sql`type = 'created'`, 'desc')
      .orderBy('id')
      .execute(),
  ]);
  const changes = events.map((e) => ({ type: e.type, to_status: e.to_status, rate_plan_id: e.rate_plan_id, effective_at: e.effective_at.toISOString() }));
  const planIds = [...new Set([sub.rate_plan_id, ...changes.map((c) => c.rate_plan_id)])];
  const plans = await db.selectFrom('rate_plans').select(['id', 'billing_cycle_code', 'currency', 'minimum_commitment']).where('id', 'in', planIds).execute();
  return subjectOf(sub, instances.map((r) => r.agent_instance_id), changes, plans);
}

/** A plan as a billing subject reads it. */
export interface SubjectPlan {
  id: string;
  billing_cycle_code: string;
  currency: string;
  minimum_commitment: string | null;
}

/** The subject of a subscription from its rows: its instances, its changes in recorded order, and every plan they name. */
export function subjectOf(sub: Selectable<SubscriptionsTable>, agentInstanceIds: string[], changes: BillingSubject['changes'], planRows: readonly SubjectPlan[]): BillingSubject {
  const plans = new Map(planRows.map((r) => [r.id, r]));
  const current = plans.get(sub.rate_plan_id)!;
  return {
    sub,
    agentInstanceIds,
    cycleAt: (instant) => (plans.get(planInForce(changes, instant))?.billing_cycle_code ?? current.billing_cycle_code) as BillingCycle,
    currency: current.currency,
    changes,
    minimumOn: (planId) => sub.minimum_commitment ?? plans.get(planId)?.minimum_commitment ?? null,
  };
}

/** The charges of each plan, ready for the engine (from their stored canonical pricing). */
async function planCharges(db: Db, planIds: string[]): Promise<Map<string, RatedCharge[]>> {
  const out = new Map<string, RatedCharge[]>(planIds.map((id) => [id, []]));
  if (planIds.length === 0) return out;
  const rows = await db.selectFrom('charges').select(['id', 'rate_plan_id', 'name', 'charge_type', 'unit_of_measure', 'resolved_pricing']).where('rate_plan_id', 'in', planIds).orderBy('created_at').orderBy('id').execute();
  for (const r of rows) out.get(r.rate_plan_id)!.push(ratedCharge(r));
  return out;
}

/** A stored charge as the engine rates it. */
export function ratedCharge(r: { id: string; name: string; charge_type: string; unit_of_measure: string | null; resolved_pricing: unknown }): RatedCharge {
  const pricing = r.resolved_pricing as CanonicalPricing;
  return {
    id: r.id,
    name: r.name,
    model: pricing.kind as ChargeModelKind,
    charge_type: r.charge_type as RatedCharge['charge_type'],
    unit_of_measure: (r.unit_of_measure as UnitOfMeasure | null) ?? null,
    pricing,
  };
}

/**
 * One-time charges already on an earlier, non-void invoice of the subscription: the
 * current invoice of each earlier period (a corrected invoice, reversed by its credit
 * note, no longer counts; its replacement does).
 */
async function oneTimeAlreadyBilled(db: Db, subscriptionId: string, periodStart: string): Promise<Set<string>> {
  const rows = await db
    .selectFrom('invoice_lines')
    .innerJoin('invoices', 'invoices.id', 'invoice_lines.invoice_id')
    .select('invoice_lines.charge_id')
    .where('invoices.subscription_id', '=', subscriptionId)
    .where('invoices.period_start', '<', new Date(periodStart))
    .where('invoices.status', '!=', 'void')
    .where('invoices.kind', '=', 'invoice')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('invoices as r').select('r.id').whereRef('r.replaces_invoice_id', '=', 'invoices.id'))))
    .where('invoice_lines.charge_type', '=', 'one_time')
    .execute();
  return new Set(rows.map((r) => r.charge_id));
}

/** Whose usage the subscription bills: its listed agent instances, else every event of its account. */
function scopeOf(subject: BillingSubject): UsageScope {
  return subject.agentInstanceIds.length ? { agent_instance_ids: subject.agentInstanceIds } : { account_id: subject.sub.account_id };
}

/** The usage query's filters of a scope. */
function scopeFilter(scope: UsageScope) {
  return 'agent_instance_ids' in scope ? { agentInstanceIds: scope.agent_instance_ids } : { accountIds: [scope.account_id] };
}

/** Usage of one segment grouped by agent instance. */
function usageByAgent(inv: Invoicing, environmentId: string, scope: UsageScope, seg: PlanSegment, ingestedBefore: Date | undefined) {
  return inv.usage.query({ environmentId, from: new Date(seg.from), to: new Date(seg.to), groupBy: 'agent', ...(ingestedBefore ? { ingestedBefore } : {}), ...scopeFilter(scope) });
}

/**
 * @user and @seat per segment when a charge of any segment counts them (else undefined):
 * the period's distinct users, each counted in the segment of their first action in the
 * period's billable time, whatever plan it was on. Summed over segments they are the
 * period's distinct users, and what earlier segments counted is the distinct users before,
 * so allowances, tiers and packages of users count from the start of the period (docs/billing.md,
 * users and seats) and a user active across a plan change or pause counts once.
 */
async function usersBySegment(inv: Invoicing, environmentId: string, scope: UsageScope, segments: PlanSegment[], charges: RatedCharge[][], ingestedBefore: Date | undefined): Promise<(string | undefined)[]> {
  const counted = charges.flat().some((c) => c.unit_of_measure !== null && SCOPE_WIDE_UNITS.includes(c.unit_of_measure));
  if (!counted) return segments.map(() => undefined);
  return inv.usage.firstSeenUsers({
    environmentId,
    windows: segments.map((s) => ({ from: new Date(s.from), to: new Date(s.to) })),
    ...(ingestedBefore ? { ingestedBefore } : {}),
    ...scopeFilter(scope),
  });
}

/** Marks one-time charges billed before this period, or in an earlier segment of it. */
function withOneTimeState(segments: PlanSegment[], charges: ReadonlyMap<string, RatedCharge[]>, billed: ReadonlySet<string>): RatedCharge[][] {
  const seen = new Set(billed);
  return segments.map((s) =>
    charges.get(s.rate_plan_id)!.map((c) => {
      if (c.charge_type !== 'one_time') return c;
      const already = seen.has(c.id);
      seen.add(c.id);
      return { ...c, already_charged: already };
    }),
  );
}

/**
 * What a rating reads of Postgres besides the subject, loaded already (account-subjects.ts):
 * the charges of every plan the subscription was on, and the one-time charges billed
 * before the period.
 */
export interface LoadedCatalog {
  charges: ReadonlyMap<string, RatedCharge[]>;
  billed: ReadonlySet<string>;
}

/**
 * Rates a subscription over a period: null when it was not billable at any time of the
 * period (draft, paused or cancelled throughout). With `ingestedBefore`, usage is what
 * had arrived by then (an invoice as it stood at the end of its grace period).
 */
export async function rateSubscription(inv: Invoicing, subject: BillingSubject, period: Period, opts: { ingestedBefore?: Date; catalog?: LoadedCatalog } = {}): Promise<RatedInvoice | null> {
  const environmentId = subject.sub.environment_id;
  const planSegments = billableSegments(subject.changes, period);
  if (planSegments.length === 0) return null;
  const [charges, billed] = opts.catalog
    ? [opts.catalog.charges, opts.catalog.billed]
    : await Promise.all([planCharges(inv.db, [...new Set(planSegments.map((s) => s.rate_plan_id))]), oneTimeAlreadyBilled(inv.db, subject.sub.id, period.start)]);
  const scope = scopeOf(subject);
  const segCharges = withOneTimeState(planSegments, charges, billed);
  const [users, byAgent] = await Promise.all([
    usersBySegment(inv, environmentId, scope, planSegments, segCharges, opts.ingestedBefore),
    Promise.all(planSegments.map((s) => usageByAgent(inv, environmentId, scope, s, opts.ingestedBefore))),
  ]);
  const segments: MeasuredSegment[] = planSegments.map((s, i) => ({ ...s, usage: engineUsage(byAgent[i]!, users[i]) }));
  const outcome = await inv.rater.rate({
    currency: subject.currency,
    period,
    segments: segments.map((s, i) => ({ from: s.from, to: s.to, charges: segCharges[i]!, usage: s.usage, minimum_commitment: subject.minimumOn(s.rate_plan_id) })),
  });
  if (!outcome.ok) {
    // Stored charges always rate (validated on create), so this is a bug or corrupt data.
    // The message names the catalog problem (a charge path and why), never internals.
    const why = outcome.rejection.name === 'RatingError' ? `: ${outcome.rejection.message}` : '';
    throw new AppError('internal_error', `the subscription's charges could not be rated${why}`, { cause: new Error(`${outcome.rejection.name}: ${outcome.rejection.message}`) });
  }
  return { subject, period, segments, result: outcome.result, lines: invoiceLines(outcome.result, segments, scope), usage: usageRecord(segments, scope) };
}
