/**
 * Prepaid commitments (docs/credits.md "Commitments"): a subscription commits to an amount for a
 * term; the amount is a paid credit grant scoped to the subscription, usable from the
 * term's start and burned on its invoices before any other grant (priority 0, below the
 * API's 1..100), and its invoices (up front, or installments) are invoices of their own
 * (purchase-invoice.ts). The ledger, burn-down and expiry are the credits' own: there is
 * no second ledger.
 *
 * Rules:
 * - A term starts when the subscription becomes active (term 1) or when the previous term
 *   ends (a renewal, while the subscription is active or paused and the commitment renews).
 * - The grant is effective at the term's start and expires 1 ms after the end of the
 *   billing period in which the term ends (termGrantExpiry), so that period still draws on
 *   it; what is left then leaves with an `expiry` entry (ledger.ts).
 * - Installment k of n is invoiced at start + (k - 1) x term_months / n months; a cancel
 *   invoices every installment not yet invoiced at once (the commitment is owed), and the
 *   term is not renewed.
 *
 * TRICKY: every function here runs under the subscription's row lock (the caller's
 * transaction); the unique (subscription, term) and the installments' `invoice_id IS NULL`
 * guard make a retry or a second scheduler write nothing twice.
 */
import type { Transaction } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { Database } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/log.ts';
import { commitmentInForce, termGrantExpiry, termPlan } from '../catalog/prepaid-commitment.ts';
import { stateChanges } from '../catalog/subscriptions.ts';
import { stateAt } from '../invoicing/segments.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { grantEntry, insertSystemGrant } from './grants.ts';
import { issueOwnInvoice, type OwnLine } from './purchase-invoice.ts';

type Tx = Transaction<Database>;

const log = logger('prepaid-commitments');

/** A commitment's grant burns before every grant the API can make (priorities 1..100). */
export const COMMITMENT_PRIORITY = 0;
/** The `charge_type` of an installment line. */
export const COMMITMENT_LINE_TYPE = 'prepaid_commitment';

interface SubscriptionRef {
  id: string;
  environment_id: string;
  account_id: string;
  rate_plan_id: string;
  prepaid_commitment: Database['subscriptions']['prepaid_commitment']['__select__'];
}

/**
 * Starts term `term` of the subscription's commitment at `startsAt` (none in force: nothing):
 * its grant (usable at once, from `startsAt`), its installments, and the invoice of those
 * due by `now`. Returns the term's id, or null.
 */
export async function startCommitmentTerm(tx: Tx, sub: SubscriptionRef, term: number, startsAt: Date, now: Date, netDays: number): Promise<string | null> {
  const plan = await tx.selectFrom('rate_plans').select(['currency', 'prepaid_commitment', 'billing_cycle_code']).where('id', '=', sub.rate_plan_id).executeTakeFirstOrThrow();
  const c = commitmentInForce(sub.prepaid_commitment, plan.prepaid_commitment);
  if (!c) return null;
  const { ends_at, installments } = termPlan(c, startsAt, plan.currency);
  const grant = await insertSystemGrant(tx, {
    environment_id: sub.environment_id,
    account_id: sub.account_id,
    currency: plan.currency,
    amount: c.amount,
    priority: COMMITMENT_PRIORITY,
    effective_at: startsAt,
    expires_at: termGrantExpiry(ends_at, plan.billing_cycle_code),
    scope: { subscription_id: sub.id },
    metadata: { source: 'prepaid_commitment', subscription_id: sub.id, term, term_start: startsAt.toISOString(), term_end: ends_at.toISOString() },
    usable_at: null,
  });
  await grantEntry(tx, grant, now);
  const row = await tx
    .insertInto('commitment_terms')
    .values({
      id: newId('cmt'),
      environment_id: sub.environment_id,
      subscription_id: sub.id,
      account_id: sub.account_id,
      currency: plan.currency,
      term,
      starts_at: startsAt,
      ends_at,
      amount: c.amount,
      term_months: c.term_months,
      installments: c.installments,
      renews: c.renews,
      grant_id: grant.id,
      closed_at: null,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('commitment_installments')
    .values(installments.map((i) => ({ term_id: row.id, n: i.n, due_at: i.due_at, amount: i.amount, invoice_id: null })))
    .execute();
  await invoiceInstallments(tx, sub.id, now, netDays, false);
  return row.id;
}

/**
 * Invoices the subscription's installments not invoiced yet that are due by `now` (all of
 * them with `all`: a cancel), on one invoice of their own, one line each. Returns the
 * invoice id, or null when none was due.
 */
export async function invoiceInstallments(tx: Tx, subscriptionId: string, now: Date, netDays: number, all: boolean): Promise<string | null> {
  let q = tx
    .selectFrom('commitment_installments as i')
    .innerJoin('commitment_terms as t', 't.id', 'i.term_id')
    .select(['i.term_id', 'i.n', 'i.amount', 't.term', 't.installments', 't.starts_at', 't.ends_at', 't.grant_id', 't.environment_id', 't.account_id', 't.currency'])
    .innerJoin('credit_grants as g', 'g.id', 't.grant_id')
    .where('t.subscription_id', '=', subscriptionId)
    .where('i.invoice_id', 'is', null)
    // A voided commitment grant ends its term: nothing more is owed for it.
    .where('g.voided_at', 'is', null);
  if (!all) q = q.where('i.due_at', '<=', now);
  const due = await q.orderBy('t.term').orderBy('i.n').forUpdate('i').execute();
  if (due.length === 0) return null;
  const lines: OwnLine[] = due.map((d) => ({
    charge_id: d.grant_id,
    charge_name: `Prepaid commitment, term ${d.term} (${d.starts_at.toISOString().slice(0, 10)} to ${d.ends_at.toISOString().slice(0, 10)})${d.installments > 1 ? `, installment ${d.n} of ${d.installments}` : ''}`,
    charge_type: COMMITMENT_LINE_TYPE,
    quantity: '1',
    amount: formatMoney(new Dec(d.amount), d.currency),
    detail: { subscription_id: subscriptionId, commitment_term_id: d.term_id, term: d.term, installment: d.n, installments: d.installments, grant_id: d.grant_id },
    service_start: d.starts_at,
    service_end: d.ends_at,
  }));
  const invoiceId = await issueOwnInvoice(tx, due[0]!, lines, now, netDays);
  for (const d of due) await tx.updateTable('commitment_installments').set({ invoice_id: invoiceId }).where('term_id', '=', d.term_id).where('n', '=', d.n).execute();
  return invoiceId;
}

/** The subscription row, locked (its commitment moves are serialized by it). */
async function lockSubscription(tx: Tx, id: string) {
  return tx.selectFrom('subscriptions').select(['id', 'environment_id', 'account_id', 'rate_plan_id', 'status', 'prepaid_commitment']).where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
}

/** How many subscriptions one commitment step handles of each kind (the next tick goes on). */
const BATCH = 500;

/**
 * The scheduler's commitment step: invoices installments that came due, and closes terms
 * that ended (renewing them: the next term starts at the end, while the subscription is
 * active or paused and the commitment renews). Idempotent. Returns how many invoices and
 * terms it wrote.
 */
export async function advanceCommitments(db: Db, now: Date, netDays: number): Promise<{ invoiced: number; renewed: number }> {
  const out = { invoiced: 0, renewed: 0 };
  const due = await db
    .selectFrom('commitment_installments as i')
    .innerJoin('commitment_terms as t', 't.id', 'i.term_id')
    .innerJoin('credit_grants as g', 'g.id', 't.grant_id')
    .select('t.subscription_id')
    .distinct()
    .where('i.invoice_id', 'is', null)
    .where('g.voided_at', 'is', null)
    .where('i.due_at', '<=', now)
    .limit(BATCH)
    .execute();
  for (const { subscription_id } of due) {
    try {
      const id = await db.transaction().execute(async (tx) => {
        await lockSubscription(tx, subscription_id);
        return invoiceInstallments(tx, subscription_id, now, netDays, false);
      });
      if (id) out.invoiced++;
    } catch (err) {
      log.warn('commitment installments failed', { subscription_id, err });
    }
  }
  const ended = await db.selectFrom('commitment_terms').select('id').where('closed_at', 'is', null).where('ends_at', '<=', now).orderBy('ends_at').limit(BATCH).execute();
  for (const { id } of ended) {
    try {
      out.renewed += await db.transaction().execute(async (tx) => {
        const t = await tx.selectFrom('commitment_terms').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
        const sub = await lockSubscription(tx, t.subscription_id);
        const closed = await tx.updateTable('commitment_terms').set({ closed_at: now }).where('id', '=', id).where('closed_at', 'is', null).executeTakeFirst();
        if (closed.numUpdatedRows === 0n || !(await renewsAt(tx, t))) return 0;
        const next = await startCommitmentTerm(tx, sub, t.term + 1, t.ends_at, now, netDays);
        // Cancelled from a date after the term's end: the renewed term is owed at once, as a cancel mid-term owes it.
        if (next && sub.status === 'cancelled') await invoiceInstallments(tx, sub.id, now, netDays, true);
        return next ? 1 : 0;
      });
    } catch (err) {
      log.warn('commitment renewal failed', { term_id: id, err });
    }
  }
  return out;
}

/**
 * Whether an ended term renews: its commitment renews, its grant was not voided (a void
 * ends the term), and the subscription is active or paused at the term's end by its
 * recorded changes (a cancel dated later does not stop it).
 */
async function renewsAt(tx: Db | Tx, t: { subscription_id: string; ends_at: Date; renews: boolean; grant_id: string }): Promise<boolean> {
  if (!t.renews) return false;
  const grant = await tx.selectFrom('credit_grants').select('voided_at').where('id', '=', t.grant_id).executeTakeFirstOrThrow();
  if (grant.voided_at !== null) return false;
  const changes = (await stateChanges(tx, [t.subscription_id])).get(t.subscription_id)!;
  const { status } = stateAt(changes, t.ends_at.getTime());
  return status === 'active' || status === 'paused';
}

/**
 * The terms of a subscription's commitment with their installments, as both families show
 * them. `renews` is whether the term renews at its end by what is recorded now
 * ({@link renewsAt}): false once the subscription is cancelled before the term's end or
 * the term's grant is void, whatever the commitment said.
 */
export async function commitmentTerms(db: Db | Tx, subscriptionId: string) {
  const terms = await db.selectFrom('commitment_terms').selectAll().where('subscription_id', '=', subscriptionId).orderBy('term').execute();
  if (terms.length === 0) return [];
  const parts = await db.selectFrom('commitment_installments').selectAll().where('term_id', 'in', terms.map((t) => t.id)).orderBy('n').execute();
  const renews = await Promise.all(terms.map((t) => renewsAt(db, t)));
  return terms.map((t, i) => ({
    term: t.term,
    starts_at: t.starts_at.toISOString(),
    ends_at: t.ends_at.toISOString(),
    amount: formatMoney(new Dec(t.amount), t.currency),
    currency: t.currency,
    grant_id: t.grant_id,
    renews: renews[i]!,
    installments: parts.filter((p) => p.term_id === t.id).map((p) => ({ n: p.n, due_at: p.due_at.toISOString(), amount: formatMoney(new Dec(p.amount), t.currency), invoice_id: p.invoice_id })),
  }));
}
