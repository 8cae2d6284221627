/**
 * Invoice generation: one subscription and period (on demand, bill runs, the
 * scheduler), every subscription for a YYYY-MM label, and previews. Idempotent: see
 * store.ts; rating happens before the short storing transaction.
 */
import { watchBalances } from '../credits/watch.ts';
import { watchDeps } from '../live/open-period.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { AppError, isUnavailableError } from '../../shared/errors.ts';
import { logger } from '../../shared/log.ts';
import type { InvoiceStatus } from '../../shared/db/schema.ts';
import { countInvoiceFinalized, countInvoiceGenerated, type InvoiceSource } from '../metrics.ts';
import { periodContaining, periodFromLabel, toEpochMs, type Period } from '../rating/index.ts';
import type { Invoicing } from './context.ts';
import { loadSubject, rateSubscription, type BillingSubject } from './rate-subscription.ts';
import { BatchedUsage } from './batched-usage.ts';
import { findInvoice, getInvoiceRow, invoiceView, storeInvoice, type StoreOutcome } from './store.ts';

/** Result of generating one (subscription, period): `skipped` when the subscription was not billable in the period. */
type GenerateResult =
  | { outcome: StoreOutcome; invoice: ReturnType<typeof invoiceView> & { id: string } }
  | { outcome: 'skipped'; invoice: null };

/** Options of {@link generateInvoice}. */
interface GenerateOptions {
  /** What asks for the invoice (the invoice metrics' `source`). */
  source: InvoiceSource;
  finalize?: boolean;
  billRunId?: string | null;
}

/**
 * Generates (or re-rates a draft of) the invoice of one subscription for one period.
 * Finalized, paid and void invoices are returned unchanged without querying usage.
 * Counts, under `opts.source`, an invoice it created and a draft it finalized.
 */
export async function generateInvoice(inv: Invoicing, subject: BillingSubject, period: Period, opts: GenerateOptions): Promise<GenerateResult> {
  const existing = await findInvoice(inv.db, subject.sub.id, period.start);
  if (existing && existing.status !== 'draft') return { outcome: 'unchanged', invoice: invoiceView(existing) };
  // Re-rated until its grace ends; from then on an invoice is what it was at `grace_until`
  // (events that arrived later are a correction's), and leaves draft: whichever of
  // generate, a bill run, finalize, pay or the scheduler touches it first.
  const graceUntil = existing ? existing.grace_until : new Date(toEpochMs(period.end) + inv.config.graceMs);
  const graceOver = inv.now() >= graceUntil;
  const finalize = (opts.finalize ?? false) || graceOver;
  const rated = await rateSubscription(inv, subject, period, graceOver ? { ingestedBefore: graceUntil } : {});
  if (!rated) {
    if (!existing) return { outcome: 'skipped', invoice: null };
    // No billable time left in the period (a cancel dated back before it): the draft was
    // never issued, so it is voided; nothing of it is billed.
    const row = await voidUnbillableDraft(inv, existing.id);
    return { outcome: row.status === existing.status ? 'unchanged' : 'updated', invoice: invoiceView(row) };
  }
  const { invoice, outcome } = await storeInvoice(inv.db, rated, {
    now: inv.now(),
    graceMs: inv.config.graceMs,
    netDays: inv.config.netDays,
    finalize,
    billRunId: opts.billRunId ?? null,
  });
  countStored(opts.source, outcome, invoice.status);
  // A burn that crossed a balance line (low, depleted, a threshold top-up) acts at once.
  if (outcome !== 'unchanged') await watchBalances(watchDeps(inv), invoice.account_id);
  return { outcome, invoice: invoiceView(invoice) };
}

/** The invoice metrics of one store: an invoice created, and one that left draft finalized (created so, or a draft updated so). */
function countStored(source: InvoiceSource, outcome: StoreOutcome, status: InvoiceStatus): void {
  if (outcome === 'created') countInvoiceGenerated(source);
  if (outcome !== 'unchanged' && status === 'finalized') countInvoiceFinalized(source);
}

/** Voids a draft whose period no longer has billable time (it has no number: it was never issued). */
async function voidUnbillableDraft(inv: Invoicing, invoiceId: string) {
  const now = inv.now();
  const row = await inv.db.updateTable('invoices').set({ status: 'void', voided_at: now, updated_at: now }).where('id', '=', invoiceId).where('status', '=', 'draft').returningAll().executeTakeFirst();
  return row ?? (await inv.db.selectFrom('invoices').selectAll().where('id', '=', invoiceId).executeTakeFirstOrThrow());
}

/** Subscriptions of an environment that may have billable time (drafts never do), optionally of one account. */
export async function billableSubscriptionIds(db: Db, environmentId: string, accountId?: string): Promise<string[]> {
  let q = db.selectFrom('subscriptions').select('id').where('environment_id', '=', environmentId).where('status', '!=', 'draft');
  if (accountId) q = q.where('account_id', '=', accountId);
  return (await q.orderBy('created_at').orderBy('id').execute()).map((r) => r.id);
}

/** The billing period of a YYYY-MM label in a subscription's cycle; a period that has not started yet is a 400. */
function periodOfLabel(label: string, subject: BillingSubject, now: Date): Period {
  // Read in the cycle of the plan in force when the label's month starts.
  const cycle = subject.cycleAt(toEpochMs(`${label}-01T00:00:00.000Z`));
  const period = periodFromLabel(label, cycle);
  if (new Date(period.start) > now) {
    throw new AppError('validation_failed', `billing_period ${label} has not started yet`, { details: [{ path: 'billing_period', message: 'billing_period must not be in the future' }] });
  }
  return period;
}

/** The last period of the subscription that ended on or before `date`, each period in the cycle of the plan in force then. */
export function lastEndedPeriod(subject: BillingSubject, date: Date): Period {
  let t = date.getTime() - 1;
  for (;;) {
    const p = periodContaining(t, subject.cycleAt(t));
    if (toEpochMs(p.end) <= date.getTime()) return p;
    t = toEpochMs(p.start) - 1;
  }
}

/** The subscription's period after `period` (in the cycle of the plan in force when it starts). */
export function nextPeriodOf(subject: BillingSubject, period: Period): Period {
  const t = toEpochMs(period.end);
  return periodContaining(t, subject.cycleAt(t));
}

/**
 * `POST /v1/invoices/generate`: invoices of the period `label` (YYYY-MM, read in each
 * subscription's cycle) for every billable subscription of the account, or of the
 * environment when no account is given. Existing invoices are returned, not duplicated.
 */
export async function generateForPeriod(base: Invoicing, environmentId: string, label: string, accountId?: string) {
  const inv: Invoicing = { ...base, usage: new BatchedUsage(base.usage) };
  const now = inv.now();
  const ids = await billableSubscriptionIds(inv.db, environmentId, accountId);
  const invoices: (ReturnType<typeof invoiceView> & { generation: StoreOutcome })[] = [];
  const failures: GenerationFailure[] = [];
  for (const id of ids) {
    const subject = await loadSubject(inv.db, environmentId, id);
    const period = periodOfLabel(label, subject, now);
    try {
      const r = await generateInvoice(inv, subject, period, { source: 'api' });
      if (r.invoice) invoices.push({ ...r.invoice, generation: r.outcome });
    } catch (err) {
      // An outage stops the request (503, retry); a subscription that cannot be rated is
      // reported and the others go on.
      if (isUnavailableError(err)) throw err;
      failures.push(generationFailure(id, err));
    }
  }
  return { invoices, failures };
}

/** A subscription that could not be invoiced, as generate and bill runs report it. */
export interface GenerationFailure {
  subscription_id: string;
  code: string;
  message: string;
}

const log = logger('invoicing');

export function generationFailure(subscriptionId: string, err: unknown): GenerationFailure {
  if (err instanceof AppError) return { subscription_id: subscriptionId, code: err.code, message: err.message };
  log.warn('a subscription could not be invoiced', { subscription_id: subscriptionId, err });
  return { subscription_id: subscriptionId, code: 'internal_error', message: 'internal error: the subscription could not be rated (see the log)' };
}

/** An unsaved invoice of the subscription's current period with the usage so far. */
export async function previewInvoice(inv: Invoicing, environmentId: string, subscriptionId: string) {
  const subject = await loadSubject(inv.db, environmentId, subscriptionId);
  const period = periodContaining(inv.now(), subject.cycleAt(inv.now().getTime()));
  const rated = await rateSubscription(inv, subject, period);
  return {
    preview: true,
    subscription_id: subject.sub.id,
    account_id: subject.sub.account_id,
    currency: subject.currency,
    billing_period: period.start.slice(0, 7),
    period_start: period.start,
    period_end: period.end,
    usage_through: inv.now().toISOString(),
    subtotal: rated?.result.subtotal ?? '0',
    discount_total: rated?.result.discount_total ?? '0',
    total: rated?.result.total ?? '0',
    lines: rated?.lines ?? [],
    usage: rated?.usage ?? null,
  };
}

/**
 * A draft about to be paid leaves draft as on finalize, re-rated first, so that a payment
 * is checked against (and records) what the invoice bills now; other invoices are left as they are.
 */
export async function finalizeIfDraft(inv: Invoicing, environmentId: string, invoiceId: string, source: InvoiceSource): Promise<void> {
  const row = await getInvoiceRow(inv.db, environmentId, invoiceId);
  if (row.status === 'draft' && row.kind === 'invoice') await finalizeInvoice(inv, environmentId, invoiceId, source);
}

/** Finalizes a draft now (re-rated first so late events land on it); a finalized invoice is returned as is. */
export async function finalizeInvoice(inv: Invoicing, environmentId: string, invoiceId: string, source: InvoiceSource) {
  const row = await getInvoiceRow(inv.db, environmentId, invoiceId);
  if (row.status === 'finalized') return row.id;
  if (row.status !== 'draft' || row.subscription_id === null) throw new AppError('conflict', `cannot finalize an invoice that is ${row.status} (allowed from: draft)`);
  const subject = await loadSubject(inv.db, environmentId, row.subscription_id);
  const { invoice } = await generateInvoice(inv, subject, { start: row.period_start.toISOString(), end: row.period_end.toISOString() }, { finalize: true, source });
  if (invoice?.status === 'void') {
    throw new AppError('conflict', `invoice ${row.id} was voided, not finalized: its period has no billable time left (the subscription was cancelled before it)`);
  }
  return row.id;
}
