import { sql } from 'kysely';
/**
 * Invoices in Postgres: storing a rated invoice idempotently, reading, and the status
 * moves (finalize, pay, void).
 *
 * | status    | moves to          | by |
 * |-----------|-------------------|----|
 * | draft     | (re-rated)        | generation again, the scheduler, a bill run (late events land here) |
 * | draft     | finalized         | the scheduler once `grace_until` passed, or POST .../finalize |
 * | draft, finalized | paid       | POST .../pay (a paid draft is frozen as it stands) |
 * | draft, finalized | void       | POST .../void |
 * | finalized, paid, void | (corrected) | POST .../correct: new documents, see corrections.ts |
 *
 * Only drafts change; finalized, paid and void invoices never do. A correction adds a
 * credit note (kind `credit_note`, reversing the invoice in full) and a replacement
 * invoice; the corrected one is left as it is and shows `corrected_by` by query. The
 * documents of a (subscription, period) form a chain original -> replacement -> ...;
 * its head (the invoice no other replaces) is the slot's current invoice, which
 * generation finds and returns. A corrected invoice and a credit note cannot be paid
 * or voided (409).
 */
import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { Database, InvoiceKind, InvoiceStatus, InvoicesTable, InvoiceLinesTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { Dec, formatMoney, tryParseDecimal } from '../rating/money.ts';
import type { RatedInvoice } from './rate-subscription.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { invoiceEventData } from '../webhooks/payloads.ts';
import { applyCredits, burnCredits, releaseCredits } from '../credits/invoice-credits.ts';
import { grantPaidPurchase, voidUnpaidPurchase } from '../credits/grants.ts';

export type Tx = Transaction<Database>;
export type InvoiceRow = Selectable<InvoicesTable>;
export type LineRow = Selectable<InvoiceLinesTable>;

const DAY_MS = 86_400_000;

/** What happened to the invoice of a (subscription, period). */
export type StoreOutcome = 'created' | 'updated' | 'unchanged';

/** Options of {@link storeInvoice}. */
interface StoreOptions {
  now: Date;
  graceMs: number;
  netDays: number;
  /** Finalize the invoice in the same step (scheduler after grace, explicit finalize). */
  finalize?: boolean;
  billRunId?: string | null;
}

/**
 * Gives a numberless invoice the next gapless number of its environment (INV-000001...),
 * or a credit note the next of the environment's separate credit note series
 * (CN-000001...). Called once, when it leaves draft (finalized, or paid as a draft;
 * credit notes and replacements are issued finalized), as late as possible in its
 * transaction: the sequence row stays locked until commit.
 */
export async function assignNumber(tx: Tx, invoice: InvoiceRow): Promise<InvoiceRow> {
  if (invoice.number !== null) return invoice;
  const creditNote = invoice.kind === 'credit_note';
  const table = sql.table(creditNote ? 'credit_note_sequences' : 'invoice_sequences');
  const prefix = creditNote ? 'CN-' : 'INV-';
  const { rows } = await sql<InvoiceRow>`
    WITH n AS (
      INSERT INTO ${table} AS s (environment_id, last_number) VALUES (${invoice.environment_id}, 1)
      ON CONFLICT (environment_id) DO UPDATE SET last_number = s.last_number + 1
      RETURNING last_number
    )
    UPDATE invoices SET number = ${prefix}::text || lpad(n.last_number::text, 6, '0') FROM n
    WHERE invoices.id = ${invoice.id} RETURNING invoices.*`.execute(tx);
  return rows[0]!;
}

/**
 * The current invoice of a (subscription, period): the head of its chain of documents
 * (kind invoice, replaced by no other). Credit notes and replaced invoices are not it.
 */
export function slotHead(db: Db | Tx, subscriptionId: string, periodStart: Date) {
  return db
    .selectFrom('invoices')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('period_start', '=', periodStart)
    .where('kind', '=', 'invoice')
    .where((eb) => eb.not(eb.exists(eb.selectFrom('invoices as r').select('r.id').whereRef('r.replaces_invoice_id', '=', 'invoices.id'))));
}

export function lineValues(invoiceId: string, rated: RatedInvoice) {
  return rated.lines.map((l) => ({
    invoice_id: invoiceId,
    position: l.position,
    charge_id: l.charge_id,
    charge_name: l.charge_name,
    model: l.model,
    charge_type: l.charge_type,
    unit: l.unit,
    quantity: l.quantity,
    unit_price: l.unit_price,
    tiers: l.tiers ? JSON.stringify(l.tiers) : null,
    detail: JSON.stringify({ rate_plan_id: l.rate_plan_id, ...(l.overage ? { overage: l.overage } : {}), ...(l.discount ? { discount: l.discount } : {}), ...(l.minimum_commitment ? { minimum_commitment: l.minimum_commitment } : {}) }),
    proration: l.proration,
    amount: l.amount,
    agent_instance_id: l.agent_instance_id ?? null,
    service_start: l.service_period.start,
    service_end: l.service_period.end,
    usage_query: l.usage_query ? JSON.stringify(l.usage_query) : null,
  }));
}

/**
 * Stores the rated invoice of a (subscription, period) once. Under a lock on the
 * subscription row: no invoice yet -> insert with the next number; a draft -> replace
 * its lines and totals with the new rating (same usage, same invoice); finalized,
 * paid or void -> left as it is. The unique (subscription_id, period_start) backs this.
 */
export async function storeInvoice(db: Db, rated: RatedInvoice, opts: StoreOptions): Promise<{ invoice: InvoiceRow; outcome: StoreOutcome }> {
  const { sub } = rated.subject;
  const periodStart = new Date(rated.period.start);
  const periodEnd = new Date(rated.period.end);
  return db.transaction().execute(async (tx) => {
    await tx.selectFrom('subscriptions').select('id').where('id', '=', sub.id).forUpdate().executeTakeFirstOrThrow();
    const existing = await slotHead(tx, sub.id, periodStart).executeTakeFirst();
    if (existing && existing.status !== 'draft') return { invoice: existing, outcome: 'unchanged' as const };
    const { result } = rated;
    const totals = {
      subtotal: result.subtotal,
      discount_total: result.discount_total,
      total: result.total,
      // Set again by applyCredits below when credits apply (a draft's are recomputed with it).
      credits_applied: formatMoney(new Dec(0), result.currency),
      amount_due: result.total,
      usage: JSON.stringify(rated.usage),
      rated_at: opts.now,
      rate_plan_id: sub.rate_plan_id,
      ...(opts.finalize ? { status: 'finalized' as const, finalized_at: opts.now, ...issuedAt(opts.now, opts.netDays) } : {}),
    };
    let invoice: InvoiceRow;
    if (existing) {
      invoice = await tx.updateTable('invoices').set({ ...totals, updated_at: opts.now }).where('id', '=', existing.id).returningAll().executeTakeFirstOrThrow();
      await tx.deleteFrom('invoice_lines').where('invoice_id', '=', existing.id).execute();
    } else {
      invoice = await tx
        .insertInto('invoices')
        .values({
          id: newId('inv'),
          environment_id: sub.environment_id,
          number: null,
          account_id: sub.account_id,
          subscription_id: sub.id,
          billing_cycle: rated.subject.cycleAt(periodStart.getTime()),
          currency: rated.result.currency,
          period_start: periodStart,
          period_end: periodEnd,
          status: 'draft',
          issue_date: opts.now,
          due_date: new Date(opts.now.getTime() + opts.netDays * DAY_MS),
          grace_until: new Date(periodEnd.getTime() + opts.graceMs),
          bill_run_id: opts.billRunId ?? null,
          ...totals,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const lines = lineValues(invoice.id, rated);
    if (lines.length) await tx.insertInto('invoice_lines').values(lines).execute();
    // Credits after discounts (and any true-up line): provisional on a draft, burned once issued.
    if (await applyCredits(tx, invoice, lines, opts.now)) invoice = await tx.selectFrom('invoices').selectAll().where('id', '=', invoice.id).executeTakeFirstOrThrow();
    if (invoice.status !== 'draft') invoice = await assignNumber(tx, invoice);
    if (!existing) await emitWebhookEvent(tx, sub.environment_id, 'invoice.created', await invoiceEvent(tx, invoice), opts.now);
    return { invoice, outcome: existing ? ('updated' as const) : ('created' as const) };
  });
}

/** The issue and due dates of an invoice leaving draft at `now` (a draft's are provisional: when it was generated). */
export function issuedAt(now: Date, netDays: number): { issue_date: Date; due_date: Date } {
  return { issue_date: now, due_date: new Date(now.getTime() + netDays * DAY_MS) };
}

/** `data` of the invoice webhook events: the spec's fields (`amount` a JSON number), plus the exact `total` string. */
/** The current stored invoice of a (subscription, period start), if any (the latest replacement after corrections). */
export async function findInvoice(db: Db, subscriptionId: string, periodStart: string): Promise<InvoiceRow | undefined> {
  return slotHead(db, subscriptionId, new Date(periodStart)).executeTakeFirst();
}

/** One line as the API shows it. */
function lineView(l: LineRow) {
  const detail = l.detail as Record<string, unknown>;
  return {
    position: l.position,
    charge_id: l.charge_id,
    charge_name: l.charge_name,
    rate_plan_id: (detail.rate_plan_id as string | undefined) ?? null,
    model: l.model,
    charge_type: l.charge_type,
    unit: l.unit,
    quantity: l.quantity,
    unit_price: l.unit_price,
    tiers: l.tiers ?? null,
    ...(detail.overage ? { overage: detail.overage } : {}),
    ...(detail.discount ? { discount: detail.discount } : {}),
    ...(detail.minimum_commitment ? { minimum_commitment: detail.minimum_commitment } : {}),
    proration: l.proration,
    amount: l.amount,
    agent_instance_id: l.agent_instance_id,
    service_period: { start: iso(l.service_start), end: iso(l.service_end) },
    usage_query: l.usage_query ?? null,
  };
}

/** The documents that corrected an invoice (derived by query; the invoice row itself is never updated). */
interface CorrectedBy {
  /** The replacement invoice. */
  invoice_id: string;
  /** The credit note that reversed it (null when the corrected invoice was void). */
  credit_note_id: string | null;
}

/**
 * An invoice as both families show it (`amount` = `total`, as in the spec's invoice
 * events). `correctedBy` comes from {@link correctionsOf}; omitted, it is null, which is
 * right for the current invoice of a slot (generation, moves), never replaced by definition.
 */
export function invoiceView(r: InvoiceRow, lines?: LineRow[], correctedBy: CorrectedBy | null = null) {
  return {
    id: r.id,
    invoice_id: r.id,
    kind: r.kind,
    number: r.number,
    account_id: r.account_id,
    subscription_id: r.subscription_id,
    rate_plan_id: r.rate_plan_id,
    billing_cycle: r.billing_cycle,
    billing_period: iso(r.period_start)!.slice(0, 7),
    period_start: iso(r.period_start),
    period_end: iso(r.period_end),
    currency: r.currency,
    status: r.status,
    subtotal: r.subtotal,
    discount_total: r.discount_total,
    total: r.total,
    amount: r.total,
    credits_applied: r.credits_applied,
    // A void invoice owes nothing (its credits were given back or never burned; it cannot be paid).
    amount_due: r.status === 'void' ? formatMoney(new Dec(0), r.currency) : r.amount_due,
    payment_applied: formatMoney(new Dec(r.payment_applied), r.currency),
    issue_date: iso(r.issue_date),
    due_date: iso(r.due_date),
    grace_until: iso(r.grace_until),
    rated_at: iso(r.rated_at),
    finalized_at: iso(r.finalized_at),
    paid_at: iso(r.paid_at),
    payment_reference: r.payment_reference,
    voided_at: iso(r.voided_at),
    bill_run_id: r.bill_run_id,
    corrects_invoice_id: r.corrects_invoice_id,
    replaces_invoice_id: r.replaces_invoice_id,
    correction_reason: r.correction_reason,
    corrected_by: correctedBy,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
    ...(lines ? { lines: lines.map(lineView), usage: r.usage } : {}),
  };
}

export type InvoiceView = ReturnType<typeof invoiceView>;

export async function linesOf(db: Db | Tx, invoiceId: string): Promise<LineRow[]> {
  return db.selectFrom('invoice_lines').selectAll().where('invoice_id', '=', invoiceId).orderBy('position').execute();
}

/** Which of these invoices were corrected, and by which documents (one query). */
async function correctionsOf(db: Db | Tx, ids: readonly string[]): Promise<Map<string, CorrectedBy>> {
  const out = new Map<string, CorrectedBy>();
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('invoices')
    .select(['id', 'kind', 'corrects_invoice_id', 'replaces_invoice_id'])
    .where((eb) => eb.or([eb('replaces_invoice_id', 'in', ids), eb('corrects_invoice_id', 'in', ids)]))
    .execute();
  for (const r of rows) if (r.replaces_invoice_id) out.set(r.replaces_invoice_id, { invoice_id: r.id, credit_note_id: null });
  for (const r of rows) {
    const c = r.corrects_invoice_id ? out.get(r.corrects_invoice_id) : undefined;
    if (c) c.credit_note_id = r.id;
  }
  return out;
}

/** One invoice or credit note with its lines, usage and correction links (404 outside this environment). */
export async function getInvoice(db: Db | Tx, environmentId: string, id: string) {
  const row = await getInvoiceRow(db, environmentId, id);
  const [lines, corrections] = await Promise.all([linesOf(db, id), correctionsOf(db, [id])]);
  return invoiceView(row, lines, corrections.get(id) ?? null);
}

export async function getInvoiceRow(db: Db | Tx, environmentId: string, id: string): Promise<InvoiceRow> {
  const row = await db.selectFrom('invoices').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('invoice', id);
  return row;
}

/**
 * The data of every event of an invoice (invoice.created, invoice.paid, payment.successful):
 * its fields and correction links as stored, so each of its events carries the same fields.
 * A replacement names the invoice it replaces and the credit note that reversed that one.
 */
export async function invoiceEvent(db: Db | Tx, row: InvoiceRow) {
  if (!row.replaces_invoice_id) return invoiceEventData(row);
  const creditNote = await db
    .selectFrom('invoices')
    .select(['id', 'number'])
    .where('environment_id', '=', row.environment_id)
    .where('kind', '=', 'credit_note')
    .where('corrects_invoice_id', '=', row.replaces_invoice_id)
    .executeTakeFirst();
  return invoiceEventData(row, { replaces_invoice_id: row.replaces_invoice_id, credit_note_id: creditNote?.id ?? null, credit_note_number: creditNote?.number ?? null });
}

/** Filters of the invoice lists. */
export interface InvoiceFilter {
  account_id?: string;
  status?: InvoiceStatus;
  subscription_id?: string;
  kind?: InvoiceKind;
  /** Only invoices whose period starts at or after this instant. */
  period_start_from?: Date;
  /** Only invoices whose period starts before this instant. */
  period_start_before?: Date;
}

/** A page of invoices (without lines), oldest first. */
export async function listInvoices(db: Db, environmentId: string, filter: InvoiceFilter, page: Page) {
  let q = db.selectFrom('invoices').where('environment_id', '=', environmentId);
  if (filter.account_id) q = q.where('account_id', '=', filter.account_id);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.subscription_id) q = q.where('subscription_id', '=', filter.subscription_id);
  if (filter.kind) q = q.where('kind', '=', filter.kind);
  if (filter.period_start_from) q = q.where('period_start', '>=', filter.period_start_from);
  if (filter.period_start_before) q = q.where('period_start', '<', filter.period_start_before);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  const corrections = await correctionsOf(db, rows.map((r) => r.id));
  return { rows: rows.map((r) => invoiceView(r, undefined, corrections.get(r.id) ?? null)), total };
}

/**
 * Why a payment date is refused, or null: it may not be before the day (UTC) the invoice
 * was issued (a draft is issued when it is paid: today) nor after `now`.
 */
export function paidAtProblem(paidAt: Date, issuedAt: Date, now: Date): string | null {
  const issueDay = issuedAt.toISOString().slice(0, 10);
  if (paidAt.getTime() > now.getTime()) return `paid_at must not be in the future (it is ${paidAt.toISOString()}, now is ${now.toISOString()})`;
  if (paidAt.getTime() < Date.parse(`${issueDay}T00:00:00Z`)) return `paid_at must not be before the invoice's issue date ${issueDay} (it is ${paidAt.toISOString()})`;
  return null;
}

function checkPaidAt(paidAt: Date, issuedAt: Date, now: Date): void {
  const problem = paidAtProblem(paidAt, issuedAt, now);
  if (problem) throw new AppError('validation_failed', problem, { details: [{ path: 'paid_at', message: problem }] });
}

/**
 * Checks a payment date before a payment touches the invoice (a draft would be issued
 * first: a refused date must not issue it). 404 when the invoice is not in the environment.
 */
export async function checkPaymentDate(db: Db, environmentId: string, id: string, paidAt: Date, now: Date): Promise<void> {
  const row = await getInvoiceRow(db, environmentId, id);
  checkPaidAt(paidAt, row.status === 'draft' ? now : row.issue_date, now);
}

/** Input of a payment. */
interface PaymentInput {
  amount?: string;
  reference?: string;
  paid_at?: Date;
}

/**
 * Records a payment of the whole invoice: draft or finalized -> paid. `amount`, when
 * given, must equal the amount due (the total less credits applied; partial payments are not supported); `paid_at`, when given,
 * is not before the issue date nor in the future ({@link paidAtProblem}). Paying a paid or
 * void invoice is a 409.
 */
export async function payInvoice(db: Db, environmentId: string, id: string, input: PaymentInput, now: Date) {
  return moveInvoice(db, environmentId, id, ['draft', 'finalized'], 'pay', ['invoice.paid', 'payment.successful'], now, (row) => {
    if (input.amount !== undefined && !sameAmount(input.amount, row.amount_due)) {
      const due = new Dec(row.credits_applied).isZero() ? `the invoice total ${row.total}` : `the invoice's amount due ${row.amount_due} (total ${row.total} less credits applied ${row.credits_applied})`;
      throw new AppError('validation_failed', `amount ${input.amount} differs from ${due}; partial payments are not supported`, {
        details: [{ path: 'amount', message: `amount must equal the invoice's amount due ${row.amount_due}` }],
      });
    }
    if (input.paid_at) checkPaidAt(input.paid_at, row.status === 'draft' ? now : row.issue_date, now);
    return { status: 'paid', paid_at: input.paid_at ?? now, payment_reference: input.reference ?? null, finalized_at: row.finalized_at ?? now };
  });
}

/** Voids a draft or finalized invoice (it keeps its number; its period is not billed again). */
export async function voidInvoice(db: Db, environmentId: string, id: string, now: Date) {
  return moveInvoice(db, environmentId, id, ['draft', 'finalized'], 'void', [], now, () => ({ status: 'void', voided_at: now }));
}

function sameAmount(a: string, b: string): boolean {
  const x = tryParseDecimal(a);
  return x !== null && x.eq(new Dec(b));
}

async function moveInvoice(
  db: Db,
  environmentId: string,
  id: string,
  from: InvoiceStatus[],
  action: string,
  events: ('invoice.paid' | 'payment.successful')[],
  now: Date,
  set: (row: InvoiceRow) => Partial<{ status: InvoiceStatus; paid_at: Date; payment_reference: string | null; finalized_at: Date; voided_at: Date }>,
) {
  return db.transaction().execute(async (tx) => {
    const row = await tx.selectFrom('invoices').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).forUpdate().executeTakeFirst();
    if (!row) throw notFound('invoice', id);
    if (row.kind === 'credit_note') throw new AppError('conflict', `cannot ${action} a credit note (${row.number}): it is issued final`);
    if (!from.includes(row.status)) throw new AppError('conflict', `cannot ${action} an invoice that is ${row.status} (allowed from: ${from.join(', ')})`);
    const corrected = (await correctionsOf(tx, [row.id])).get(row.id);
    if (corrected) throw new AppError('conflict', `cannot ${action} invoice ${row.number ?? row.id}: it was corrected by invoice ${corrected.invoice_id}${corrected.credit_note_id ? ` (credit note ${corrected.credit_note_id})` : ''}; ${action} that one`);
    let updated = await tx.updateTable('invoices').set({ ...set(row), updated_at: new Date() }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
    // A draft's credits were provisional: issued (paid as a draft), they burn; voided, they are
    // simply no longer held. An issued invoice voided gives back what it burned.
    if (row.status === 'draft' && updated.status === 'paid') await burnCredits(tx, updated, now);
    if (row.status !== 'draft' && updated.status === 'void') await releaseCredits(tx, updated, `invoice ${row.number ?? row.id} voided`, now);
    // A credit purchase (no subscription): paid, its grant becomes usable; voided unpaid, the grant is void.
    if (row.subscription_id === null && updated.status === 'paid') await grantPaidPurchase(tx, updated.id, now);
    if (row.subscription_id === null && updated.status === 'void') await voidUnpaidPurchase(tx, updated.id, now);
    if (updated.status === 'paid' || updated.status === 'finalized') updated = await assignNumber(tx, updated);
    const data = await invoiceEvent(tx, updated);
    for (const event of events) await emitWebhookEvent(tx, environmentId, event, data, now);
    return invoiceView(updated, await linesOf(tx, id));
  });
}
