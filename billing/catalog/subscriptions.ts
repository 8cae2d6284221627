import { sql, type Selectable, type Transaction, type Updateable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { Database, SubscriptionStatus, SubscriptionsTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { subscriptionEventData } from '../webhooks/payloads.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { getRatePlanRow } from './products.ts';
import { requireRef } from './refs.ts';
import { nextPeriod, periodContaining, toEpochMs, type BillingCycle } from '../rating/index.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { commitmentAmount } from './commitments.ts';
import { scheduledChanges, stateAt, type StateChange } from '../invoicing/segments.ts';
import { prepaidCommitment, type PrepaidCommitmentInput } from './prepaid-commitment.ts';
import { commitmentTerms, invoiceInstallments, startCommitmentTerm } from '../credits/commitments.ts';

/**
 * Subscription state machine. Every move is recorded in `subscription_events` with the
 * time it takes effect, so billing can prorate:
 *
 * | action      | from                    | to        | effective at |
 * |-------------|-------------------------|-----------|--------------|
 * | activate    | draft                   | active    | max(now, contract_effective_date) |
 * | pause       | active                  | paused    | effective_date or now |
 * | resume      | paused                  | active    | effective_date or now |
 * | cancel      | draft, active, paused   | cancelled | cancel_date (billing stops there) |
 * | renew       | active, paused          | unchanged | now (a new term; the status stays) |
 * | change_plan | draft, active, paused   | unchanged | effective_date or now (proration point) |
 */
export type SubscriptionAction = 'activate' | 'pause' | 'resume' | 'cancel' | 'renew' | 'change_plan';

/** The state machine: the statuses each move is allowed from. */
export const ALLOWED: Record<SubscriptionAction, readonly SubscriptionStatus[]> = {
  activate: ['draft'],
  pause: ['active'],
  resume: ['paused'],
  cancel: ['draft', 'active', 'paused'],
  renew: ['active', 'paused'],
  change_plan: ['draft', 'active', 'paused'],
};

const EVENT_TYPE: Record<SubscriptionAction, string> = {
  activate: 'activated',
  pause: 'paused',
  resume: 'resumed',
  cancel: 'cancelled',
  renew: 'renewed',
  change_plan: 'plan_changed',
};

type Row = Selectable<SubscriptionsTable>;
type Tx = Transaction<Database>;

/**
 * A subscription as both families return it (`minimum_commitment` stored at its plan
 * currency's minor units): `status` and `rate_plan_id` are those in force at `now`, and
 * moves recorded for later (a cancel date, a plan change or a pause effective in the
 * future, a contract not yet started) are in `scheduled_changes`, in the order they take
 * effect, each with the status and plan the subscription has once it takes effect.
 */
function subscriptionView(r: Row, agentInstanceIds: string[], changes: StateChange[], now: Date) {
  const current = stateAt(changes, now.getTime());
  return {
    id: r.id,
    account_id: r.account_id,
    rate_plan_id: current.rate_plan_id || r.rate_plan_id,
    status: (current.status || r.status) as SubscriptionStatus,
    scheduled_changes: scheduledChanges(changes, now.getTime()),
    contract_effective_date: iso(r.contract_effective_date),
    activated_at: iso(r.activated_at),
    paused_at: iso(r.paused_at),
    cancel_date: iso(r.cancel_date),
    cancel_reason: r.cancel_reason,
    cancelled_at: iso(r.cancelled_at),
    renewed_at: iso(r.renewed_at),
    minimum_commitment: r.minimum_commitment,
    prepaid_commitment: r.prepaid_commitment,
    agent_instance_ids: agentInstanceIds,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** The recorded state changes of each subscription, in recorded order (as billing reads them: rate-subscription.ts). */
export async function stateChanges(db: Db | Tx, ids: string[]): Promise<Map<string, StateChange[]>> {
  const out = new Map<string, StateChange[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('subscription_events')
    .select(['subscription_id', 'type', 'to_status', 'rate_plan_id', 'effective_at'])
    .where('subscription_id', 'in', ids)
    .orderBy('created_at')
    .orderBy(sql`type = 'created'`, 'desc')
    .orderBy('id')
    .execute();
  for (const e of rows) out.get(e.subscription_id)!.push({ type: e.type, to_status: e.to_status, rate_plan_id: e.rate_plan_id, effective_at: e.effective_at.toISOString() });
  return out;
}

async function instanceIds(db: Db | Tx, ids: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('subscription_agent_instances').selectAll().where('subscription_id', 'in', ids).orderBy('agent_instance_id').execute();
  for (const r of rows) out.get(r.subscription_id)!.push(r.agent_instance_id);
  return out;
}

/** One subscription, with the terms of its prepaid commitment (docs/credits.md "Commitments"). */
async function view(db: Db | Tx, r: Row, now: Date) {
  const [ids, changes, terms] = await Promise.all([instanceIds(db, [r.id]), stateChanges(db, [r.id]), commitmentTerms(db, r.id)]);
  return { ...subscriptionView(r, ids.get(r.id)!, changes.get(r.id)!, now), commitment_terms: terms };
}

async function record(tx: Tx, r: Row, type: string, from: SubscriptionStatus | null, effectiveAt: Date, data: Record<string, unknown> = {}): Promise<void> {
  await tx
    .insertInto('subscription_events')
    .values({
      id: newId('sev'),
      environment_id: r.environment_id,
      subscription_id: r.id,
      type,
      from_status: from,
      to_status: r.status,
      rate_plan_id: r.rate_plan_id,
      effective_at: effectiveAt,
      data: JSON.stringify(data),
      // The moment of this statement, not of the transaction (`now()`, the column's
      // default): moves recorded in one transaction keep their order when listed.
      created_at: sql`clock_timestamp()`,
    })
    .execute();
  // The webhook event commits (or rolls back) with the change itself.
  const event = type === 'created' ? 'subscription.created' : type === 'cancelled' ? 'subscription.cancelled' : 'subscription.updated';
  await emitWebhookEvent(tx, r.environment_id, event, subscriptionEventData(r, from, type, effectiveAt, data));
}

/** Input of a new subscription. */
interface SubscriptionInput {
  account_id: string;
  rate_plan_id: string;
  contract_effective_date?: Date;
  agent_instance_ids?: string[];
  /** Create it active at once (Family A, which has no activate path). */
  activate?: boolean;
  /** Overrides the plan's minimum commitment per period, in the plan's currency (docs/credits.md "Commitments"); null or absent: the plan's. */
  minimum_commitment?: string | number | null;
  /** Overrides the plan's prepaid commitment (docs/credits.md "Commitments"); null or absent: the plan's, an amount of 0: none. */
  prepaid_commitment?: PrepaidCommitmentInput | null;
  /** Net days of the commitment's invoices (TALLY_INVOICE_NET_DAYS). */
  netDays: number;
}

/** Checks that each instance exists here and belongs to the account (or to no account). */
async function checkInstances(db: Db, environmentId: string, accountId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const rows = await db.selectFrom('agent_instances').select(['id', 'account_id']).where('environment_id', '=', environmentId).where('id', 'in', ids).execute();
  ids.forEach((id, i) => {
    const row = rows.find((r) => r.id === id);
    const path = `agent_instance_ids[${i}]`;
    if (!row) throw new AppError('validation_failed', `agent instance ${id} does not exist`, { details: [{ path, message: `${path} does not exist` }] });
    if (row.account_id && row.account_id !== accountId) {
      throw new AppError('validation_failed', `agent instance ${id} belongs to another account`, { details: [{ path, message: `${path} belongs to another account` }] });
    }
  });
}

/** Creates a subscription (draft, or active with `activate`), recording its creation. */
export async function createSubscription(db: Db, environmentId: string, input: SubscriptionInput, now = new Date()) {
  await requireRef(db, 'accounts', environmentId, 'account_id', input.account_id);
  await requireRef(db, 'rate_plans', environmentId, 'rate_plan_id', input.rate_plan_id);
  const plan = await getRatePlanRow(db, environmentId, input.rate_plan_id);
  const minimum = commitmentAmount(input.minimum_commitment, plan.currency, 'minimum_commitment');
  const prepaid = prepaidCommitment(input.prepaid_commitment, plan.currency);
  const ids = [...new Set(input.agent_instance_ids ?? [])];
  await checkInstances(db, environmentId, input.account_id, ids);
  const effective = input.contract_effective_date ?? now;
  return db.transaction().execute(async (tx) => {
    const row = await tx
      .insertInto('subscriptions')
      .values({
        id: newId('sub'),
        environment_id: environmentId,
        account_id: input.account_id,
        rate_plan_id: input.rate_plan_id,
        status: input.activate ? 'active' : 'draft',
        contract_effective_date: effective,
        activated_at: input.activate ? now : null,
        minimum_commitment: minimum,
        prepaid_commitment: prepaid ? JSON.stringify(prepaid) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (ids.length) await tx.insertInto('subscription_agent_instances').values(ids.map((id) => ({ subscription_id: row.id, agent_instance_id: id }))).execute();
    await record(tx, { ...row, status: 'draft' }, 'created', null, effective);
    if (input.activate) {
      const start = effective > now ? effective : now;
      await record(tx, row, 'activated', 'draft', start);
      await startCommitmentTerm(tx, row, 1, start, now, input.netDays);
    }
    return view(tx, row, now);
  });
}

export async function listSubscriptions(db: Db, environmentId: string, page: Page, now = new Date(), accountId?: string) {
  let q = db.selectFrom('subscriptions').where('environment_id', '=', environmentId);
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  const [ids, changes] = await Promise.all([instanceIds(db, rows.map((r) => r.id)), stateChanges(db, rows.map((r) => r.id))]);
  return { rows: rows.map((r) => subscriptionView(r, ids.get(r.id)!, changes.get(r.id)!, now)), total };
}

async function subscriptionRow(db: Db, environmentId: string, id: string): Promise<Row> {
  const row = await db.selectFrom('subscriptions').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('subscription', id);
  return row;
}

/** A subscription as it stands at `now` (the service's clock), its later moves in `scheduled_changes`. */
export async function getSubscription(db: Db, environmentId: string, id: string, now = new Date()) {
  return view(db, await subscriptionRow(db, environmentId, id), now);
}

/** One page of the recorded state changes of a subscription, in the order recorded, and the total count. */
export async function subscriptionEvents(db: Db, environmentId: string, id: string, page: Page) {
  await subscriptionRow(db, environmentId, id);
  const q = db.selectFrom('subscription_events').where('environment_id', '=', environmentId).where('subscription_id', '=', id);
  // Rows recorded with their transaction's one time (before `clock_timestamp()`): the creation first.
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy(sql`type = 'created'`, 'desc').orderBy('id'));
  const events = rows.map((r) => ({
    id: r.id,
    type: r.type,
    from_status: r.from_status,
    to_status: r.to_status,
    rate_plan_id: r.rate_plan_id,
    effective_at: iso(r.effective_at),
    data: r.data,
    created_at: iso(r.created_at),
  }));
  return { rows: events, total };
}

/** Options of a move: `effectiveAt` (pause, resume, change_plan), cancel date and reason, the new plan. */
interface MoveOptions {
  effectiveAt?: Date;
  cancelDate?: Date;
  reason?: string;
  ratePlanId?: string;
  /** Net days of the commitment's invoices (TALLY_INVOICE_NET_DAYS): activate and cancel may issue them. */
  netDays?: number;
}

/**
 * Applies one action of the state machine under a row lock and records it; a move not
 * allowed from the current status is a 409 `conflict` naming both.
 */
export async function moveSubscription(db: Db, environmentId: string, id: string, action: SubscriptionAction, opts: MoveOptions = {}, now = new Date()) {
  if (action === 'change_plan') {
    // The plan the subscription is on after every move recorded so far: the one a change moves from.
    const current = await subscriptionRow(db, environmentId, id);
    const [from, to] = await Promise.all([getRatePlanRow(db, environmentId, current.rate_plan_id), requirePlan(db, environmentId, opts.ratePlanId!)]);
    if (from.currency !== to.currency) {
      throw new AppError('validation_failed', `the new rate plan's currency ${to.currency} differs from ${from.currency}`, { details: [{ path: 'rate_plan_id', message: 'rate_plan_id must have the same currency' }] });
    }
    if (from.billing_cycle_code !== to.billing_cycle_code) requireCommonStart(opts.effectiveAt ?? now, from.billing_cycle_code, to.billing_cycle_code);
  }
  return db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('subscriptions').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row) throw notFound('subscription', id);
    if (!ALLOWED[action].includes(row.status)) {
      const status = row.status === 'cancelled' && row.cancel_date && row.cancel_date > now ? `cancelled from ${iso(row.cancel_date)}` : row.status;
      throw new AppError('conflict', `cannot ${action.replace('_', ' ')} a subscription that is ${status} (allowed from: ${ALLOWED[action].join(', ')})`);
    }
    // Given or now by default: a subscription activated for a future date cannot change before it.
    if (action === 'pause' || action === 'resume' || action === 'change_plan') await requireEffectiveFrom(tx, row.id, opts.effectiveAt ?? now);
    if (action === 'cancel') await requireCancelFrom(tx, row.id, opts.cancelDate ?? now);
    const { set, effectiveAt, data } = changes(action, row, now, opts);
    const updated = await tx.updateTable('subscriptions').set({ ...set, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    await record(tx, updated, EVENT_TYPE[action], row.status, effectiveAt, data);
    if (action === 'cancel') await voidDraftsFrom(tx, row.id, effectiveAt, now);
    // The prepaid commitment: its first term starts with the activation; a cancel owes what is not invoiced yet.
    if (action === 'activate') await startCommitmentTerm(tx, updated, 1, effectiveAt, now, opts.netDays ?? 0);
    if (action === 'cancel') await invoiceInstallments(tx, row.id, now, opts.netDays ?? 0, true);
    return view(tx, updated, now);
  });
}

/**
 * A cancel leaves no billable time in a period that starts at or after its date: that
 * period's draft (never issued, no number) is voided with the cancel, so nothing reads it
 * as billed meanwhile; the credits it held are free again (only drafts hold credits).
 */
async function voidDraftsFrom(tx: Db, subscriptionId: string, cancelAt: Date, now: Date): Promise<void> {
  await tx
    .updateTable('invoices')
    .set({ status: 'void', voided_at: now, updated_at: now })
    .where('subscription_id', '=', subscriptionId)
    .where('status', '=', 'draft')
    .where('kind', '=', 'invoice')
    .where('period_start', '>=', cancelAt)
    .execute();
}

/**
 * A pause, resume or plan change takes effect no earlier than the subscription's last
 * recorded change (its activation at the earliest, which cannot be backdated) and the end
 * of its last invoiced period that left draft (finalized, paid or void invoices never
 * change): otherwise the new state would apply to time billed, or to time before the
 * subscription was active.
 */
async function requireEffectiveFrom(tx: Db, subscriptionId: string, at: Date): Promise<void> {
  const [lastChange, lastIssued] = await Promise.all([
    tx.selectFrom('subscription_events').select((e) => e.fn.max('effective_at').as('t')).where('subscription_id', '=', subscriptionId).where('type', '!=', 'created').executeTakeFirst(),
    tx.selectFrom('invoices').select((e) => e.fn.max('period_end').as('t')).where('subscription_id', '=', subscriptionId).where('status', '!=', 'draft').executeTakeFirst(),
  ]);
  const bounds = [lastChange?.t, lastIssued?.t].filter((t): t is Date => t instanceof Date || typeof t === 'string').map((t) => new Date(t));
  const earliest = bounds.reduce<Date | undefined>((m, t) => (!m || t > m ? t : m), undefined);
  if (earliest && at < earliest) {
    const message = `effective_date must not be before ${earliest.toISOString()} (the subscription's last change, or the end of its last issued invoice's period)`;
    throw new AppError('validation_failed', message, { details: [{ path: 'effective_date', message }] });
  }
}

/**
 * A cancellation takes effect no earlier than the subscription became active (its recorded
 * activation): a cancel dated before it would end time that was never billable, and
 * leave the activation after it.
 */
async function requireCancelFrom(tx: Db, subscriptionId: string, at: Date): Promise<void> {
  const activation = await tx
    .selectFrom('subscription_events')
    .select((e) => e.fn.min('effective_at').as('t'))
    .where('subscription_id', '=', subscriptionId)
    .where('to_status', '=', 'active')
    .where('type', 'in', ['created', 'activated'])
    .executeTakeFirst();
  const t = activation?.t ? new Date(activation.t) : undefined;
  if (t && at < t) {
    const message = `cancel_date must not be before ${t.toISOString()}, when the subscription became active`;
    throw new AppError('validation_failed', message, { details: [{ path: 'cancel_date', message }] });
  }
}

/**
 * A change to a plan of another billing cycle takes effect at a start of a period of both
 * cycles (a month's and a quarter's, a quarter's and a year's...), so that every period
 * is wholly in one cycle: each plan's fee over its own period, each day on one invoice.
 */
function requireCommonStart(at: Date, fromCycle: BillingCycle, toCycle: BillingCycle): void {
  const t = at.getTime();
  const starts = (cycle: BillingCycle) => toEpochMs(periodContaining(t, cycle).start) === t;
  if (starts(fromCycle) && starts(toCycle)) return;
  // Calendar cycles nest: the coarser one's next start is the next common one.
  const coarser = [fromCycle, toCycle].sort((a, b) => CYCLE_RANK[b] - CYCLE_RANK[a])[0]!;
  const next = nextPeriod(periodContaining(t, coarser), coarser).start;
  const message = `a change from a ${fromCycle} to a ${toCycle} plan takes effect at a start of both cycles: effective_date ${new Date(next).toISOString()} (the next), or another ${coarser} start`;
  throw new AppError('validation_failed', message, { details: [{ path: 'effective_date', message }] });
}
const CYCLE_RANK: Record<BillingCycle, number> = { monthly: 1, quarterly: 3, annual: 12 };

async function requirePlan(db: Db, environmentId: string, ratePlanId: string) {
  try {
    return await getRatePlanRow(db, environmentId, ratePlanId);
  } catch {
    throw new AppError('validation_failed', `rate_plan_id ${ratePlanId} does not exist`, { details: [{ path: 'rate_plan_id', message: 'rate_plan_id does not exist' }] });
  }
}

function changes(action: SubscriptionAction, row: Row, now: Date, opts: MoveOptions): { set: Updateable<SubscriptionsTable>; effectiveAt: Date; data: Record<string, unknown> } {
  const at = opts.effectiveAt ?? now;
  switch (action) {
    case 'activate': {
      const start = row.contract_effective_date > now ? row.contract_effective_date : now;
      return { set: { status: 'active', activated_at: now }, effectiveAt: start, data: {} };
    }
    case 'pause':
      return { set: { status: 'paused', paused_at: at }, effectiveAt: at, data: {} };
    case 'resume':
      return { set: { status: 'active', paused_at: null }, effectiveAt: at, data: { paused_at: iso(row.paused_at) } };
    case 'cancel': {
      const date = opts.cancelDate ?? now;
      if (date < row.contract_effective_date) {
        throw new AppError('validation_failed', 'cancel_date is before the contract_effective_date', { details: [{ path: 'cancel_date', message: 'cancel_date must not be before contract_effective_date' }] });
      }
      return { set: { status: 'cancelled', cancel_date: date, cancel_reason: opts.reason ?? null, cancelled_at: now }, effectiveAt: date, data: { reason: opts.reason ?? null } };
    }
    case 'renew':
      return { set: { renewed_at: now }, effectiveAt: now, data: {} };
    case 'change_plan':
      if (opts.ratePlanId === row.rate_plan_id) {
        throw new AppError('validation_failed', 'the subscription is already on this rate plan', { details: [{ path: 'rate_plan_id', message: 'rate_plan_id must differ from the current plan' }] });
      }
      return { set: { rate_plan_id: opts.ratePlanId! }, effectiveAt: at, data: { from_rate_plan_id: row.rate_plan_id, to_rate_plan_id: opts.ratePlanId } };
  }
}
