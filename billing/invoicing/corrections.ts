/**
 * Corrections of issued invoices as new documents (`POST .../invoices/{id}/correct`).
 * Finalized invoices never change: a correction re-rates the same subscription and
 * period with the current usage and catalog (late events, fixed data) and issues, in
 * one Postgres transaction:
 *
 * 1. a credit note (kind `credit_note`, status finalized, numbered `CN-000001...` from
 *    its own gapless per-environment series) reversing the corrected invoice in full:
 *    the same lines with quantity and amount negated, totals negated,
 *    `corrects_invoice_id` = the corrected invoice;
 * 2. a replacement invoice (kind `invoice`, status finalized, the next `INV-` number,
 *    `replaces_invoice_id` = the corrected invoice) with the re-rated lines, and its
 *    `invoice.created` webhook event.
 *
 * Money already paid: the payment of a corrected paid invoice (and what it had itself
 * settled of an earlier one) settles the replacement first (`payment_applied`, its
 * `amount_due` reduced; paid, with `invoice.paid`, when nothing is left to pay); what was
 * paid beyond it becomes account credit (a paid grant with an `overpayment` ledger entry
 * linked to the corrected invoice).
 *
 * A void invoice is corrected by the replacement alone (it counted for nothing, so there
 * is nothing to reverse): this is how a voided period is billed again. The corrected
 * invoice is never updated; its `corrected_by` is derived by query (store.ts).
 *
 * What is corrected is always the current invoice of the (subscription, period) - the
 * head of its chain original -> replacement -> ...: correcting an invoice that was
 * already corrected corrects its latest replacement. Refused with 409: drafts (they are
 * re-rated, not corrected), credit notes, and a re-rating that gives exactly the same
 * lines and total ("nothing to correct"; nothing is created).
 *
 * Rating (ClickHouse, workers) runs before the short transaction; the transaction locks
 * the subscription row like generation does, so a correction and a generation, or two
 * corrections, of one slot run one after the other (the second sees the first's
 * replacement and, with the same usage, answers "nothing to correct").
 */
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { countInvoiceFinalized, countInvoiceGenerated } from '../metrics.ts';
import { Dec, formatDecimal, formatMoney } from '../rating/money.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import type { Invoicing } from './context.ts';
import { loadSubject, rateSubscription } from './rate-subscription.ts';
import { applyCredits, CREDITS_LINE_TYPE, releaseCredits } from '../credits/invoice-credits.ts';
import { creditOverpayment } from '../credits/grants.ts';
import { watchBalances } from '../credits/watch.ts';
import { watchDeps } from '../live/open-period.ts';
import { assignNumber, getInvoiceRow, invoiceEvent, invoiceView, lineValues, linesOf, slotHead, type InvoiceRow, type LineRow, type Tx } from './store.ts';

const DAY_MS = 86_400_000;

/** The answer of a correction: the credit note (null for a void invoice) and the replacement, with their lines. */
interface CorrectionResult {
  corrected_invoice_id: string;
  credit_note: ReturnType<typeof invoiceView> | null;
  invoice: ReturnType<typeof invoiceView>;
}

type LineValues = ReturnType<typeof lineValues>[number];

/** JSON with sorted keys: jsonb does not keep key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v as object)
      .sort()
      .filter((k) => (v as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v ?? null);
}

const num = (x: string | null) => (x === null ? null : formatDecimal(new Dec(x)));
const json = (x: string | null) => (x === null ? null : (JSON.parse(x) as unknown));

/** A line in one comparable form, from either a stored row or the values about to be stored. */
function comparable(l: {
  position: number;
  charge_id: string;
  charge_name: string;
  model: string;
  charge_type: string;
  unit: string | null;
  quantity: string;
  unit_price: string | null;
  tiers: unknown;
  detail: unknown;
  proration: string | null;
  amount: string;
  agent_instance_id: string | null;
  service_start: Date | string;
  service_end: Date | string;
  usage_query: unknown;
}): string {
  return canonical({
    ...l,
    quantity: num(l.quantity),
    unit_price: num(l.unit_price),
    proration: num(l.proration),
    amount: num(l.amount),
    service_start: new Date(l.service_start).toISOString(),
    service_end: new Date(l.service_end).toISOString(),
  });
}

/** Whether the stored lines equal the re-rated ones, field by field (credits lines are not rated: left out). */
function sameLines(storedLines: readonly LineRow[], rerated: readonly LineValues[]): boolean {
  const stored = storedLines.filter((l) => l.charge_type !== CREDITS_LINE_TYPE);
  if (stored.length !== rerated.length) return false;
  const a = stored.map((l) => comparable({ ...l, invoice_id: undefined } as never));
  const b = rerated.map((l) => comparable({ ...l, invoice_id: undefined, tiers: json(l.tiers), detail: json(l.detail), usage_query: json(l.usage_query) } as never));
  return a.every((x, i) => x === b[i]);
}

const conflict = (message: string) => new AppError('conflict', message);

/** A jsonb column's value as the JSON text that writes it back (null stays null). */
const jsonText = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

/** The full reversal of `head`'s lines: each stored line under the credit note, quantity and amount negated. */
function reversedLines(creditNoteId: string, lines: readonly LineRow[], currency: string) {
  return lines.map((l) => ({
    ...l,
    invoice_id: creditNoteId,
    quantity: formatDecimal(new Dec(l.quantity).neg()),
    amount: formatMoney(new Dec(l.amount).neg(), currency),
    tiers: jsonText(l.tiers),
    detail: JSON.stringify(l.detail),
    usage_query: jsonText(l.usage_query),
  }));
}

async function issueCreditNote(tx: Tx, head: InvoiceRow, lines: readonly LineRow[], reason: string | null, now: Date): Promise<InvoiceRow> {
  const neg = (x: string) => formatMoney(new Dec(x).neg(), head.currency);
  const row = await tx
    .insertInto('invoices')
    .values({
      id: newId('inv'),
      environment_id: head.environment_id,
      kind: 'credit_note',
      number: null,
      account_id: head.account_id,
      subscription_id: head.subscription_id,
      rate_plan_id: head.rate_plan_id,
      billing_cycle: head.billing_cycle,
      currency: head.currency,
      period_start: head.period_start,
      period_end: head.period_end,
      status: 'finalized',
      subtotal: neg(head.subtotal),
      discount_total: neg(head.discount_total),
      total: neg(head.total),
      credits_applied: neg(head.credits_applied),
      amount_due: neg(head.amount_due),
      issue_date: now,
      due_date: now,
      grace_until: head.grace_until,
      usage: JSON.stringify(head.usage),
      rated_at: now,
      finalized_at: now,
      corrects_invoice_id: head.id,
      correction_reason: reason,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (lines.length) await tx.insertInto('invoice_lines').values(reversedLines(row.id, lines, head.currency)).execute();
  return assignNumber(tx, row);
}

/** What the customer paid for a slot that the invoice carries: a payment of it, and what an earlier payment settled of it. */
export function moneyReceived(head: { status: string; amount_due: string; payment_applied: string }): string {
  const paid = head.status === 'paid' ? new Dec(head.amount_due) : new Dec(0);
  return paid.plus(head.payment_applied).toFixed();
}

/**
 * Pure: how money already received settles a replacement owing `due`: `applied` (at most
 * what it owes), what it still owes, whether that is nothing (then it is paid), and the
 * `excess` that becomes account credit.
 */
export function settlement(received: string, due: string): { applied: string; due: string; paid: boolean; excess: string } {
  const r = Dec.max(new Dec(received), 0);
  const applied = Dec.min(r, Dec.max(new Dec(due), 0));
  const left = new Dec(due).minus(applied);
  return { applied: applied.toFixed(), due: left.toFixed(), paid: r.gt(0) && left.lte(0), excess: r.minus(applied).toFixed() };
}

/**
 * Corrects the current invoice of `invoiceId`'s (subscription, period): see the module
 * comment. 404 outside the environment; 409 for a draft, a credit note, or nothing to correct.
 */
export async function correctInvoice(inv: Invoicing, environmentId: string, invoiceId: string, reason: string | null): Promise<CorrectionResult> {
  const row = await getInvoiceRow(inv.db, environmentId, invoiceId);
  if (row.kind === 'credit_note') {
    throw conflict(`${row.number ?? row.id} is a credit note; credit notes are not corrected (correct invoice ${row.corrects_invoice_id}'s current replacement instead)`);
  }
  if (row.status === 'draft') throw conflict(`invoice ${row.id} is a draft: drafts are re-rated (generate again, or finalize), not corrected`);
  if (row.subscription_id === null) throw conflict(`invoice ${row.number ?? row.id} bills a credit purchase or prepaid commitment installments: it is not re-rated, so not corrected; void it while unpaid (the credit it bills leaves its grant with it) and grant the credit anew if it is still owed`);
  const subscriptionId = row.subscription_id;
  const subject = await loadSubject(inv.db, environmentId, subscriptionId);
  const period = { start: row.period_start.toISOString(), end: row.period_end.toISOString() };
  const rated = await rateSubscription(inv, subject, period);
  const now = inv.now();

  const result = await inv.db.transaction().execute(async (tx) => {
    await tx.selectFrom('subscriptions').select('id').where('id', '=', subscriptionId).forUpdate().executeTakeFirstOrThrow();
    const head = await slotHead(tx, subscriptionId, row.period_start).forUpdate().executeTakeFirstOrThrow();
    if (head.status === 'draft') throw conflict(`invoice ${head.id} is a draft: drafts are re-rated, not corrected`);
    const currency = rated?.result.currency ?? head.currency;
    const zero = formatMoney(new Dec(0), currency);
    const totals = rated
      ? { subtotal: rated.result.subtotal, discount_total: rated.result.discount_total, total: rated.result.total, credits_applied: zero, amount_due: rated.result.total }
      : { subtotal: zero, discount_total: zero, total: zero, credits_applied: zero, amount_due: zero };
    const headLines = await linesOf(tx, head.id);
    const reratedLines = rated ? lineValues('', rated) : [];
    if (head.status === 'void') {
      if (!rated) throw conflict(`nothing to correct: the subscription is not billable in ${period.start.slice(0, 7)}; invoice ${head.number ?? head.id} stays void`);
    } else if (sameLines(headLines, reratedLines) && new Dec(head.total).eq(totals.total)) {
      throw conflict(`nothing to correct: re-rating invoice ${head.number ?? head.id} gives the same lines and total (${head.total} ${head.currency})`);
    }

    const creditNote = head.status === 'void' ? null : await issueCreditNote(tx, head, headLines, reason, now);
    let replacement = await tx
      .insertInto('invoices')
      .values({
        id: newId('inv'),
        environment_id: head.environment_id,
        kind: 'invoice',
        number: null,
        account_id: head.account_id,
        subscription_id: head.subscription_id,
        rate_plan_id: subject.sub.rate_plan_id,
        billing_cycle: head.billing_cycle,
        currency,
        period_start: head.period_start,
        period_end: head.period_end,
        status: 'finalized',
        ...totals,
        issue_date: now,
        due_date: new Date(now.getTime() + inv.config.netDays * DAY_MS),
        grace_until: head.grace_until,
        usage: JSON.stringify(rated?.usage ?? null),
        rated_at: now,
        finalized_at: now,
        replaces_invoice_id: head.id,
        correction_reason: reason,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    const lines = rated ? lineValues(replacement.id, rated) : [];
    if (lines.length) await tx.insertInto('invoice_lines').values(lines).execute();
    // The corrected invoice's credits come back, then the replacement burns anew (docs/credits.md, Credits).
    if (head.status !== 'void') await releaseCredits(tx, head, `invoice ${head.number ?? head.id} corrected`, now);
    if (await applyCredits(tx, replacement, lines, now)) replacement = await tx.selectFrom('invoices').selectAll().where('id', '=', replacement.id).executeTakeFirstOrThrow();
    // Money already received for the period settles the replacement first; any excess becomes account credit.
    const received = moneyReceived(head);
    const settled = settlement(received, replacement.amount_due);
    if (!new Dec(settled.applied).isZero()) {
      replacement = await tx
        .updateTable('invoices')
        .set({ payment_applied: formatMoney(new Dec(settled.applied), currency), amount_due: formatMoney(new Dec(settled.due), currency) })
        .where('id', '=', replacement.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    replacement = await assignNumber(tx, replacement);
    await emitWebhookEvent(
      tx,
      head.environment_id,
      'invoice.created',
      await invoiceEvent(tx, replacement),
      now,
    );
    if (settled.paid) {
      replacement = await tx
        .updateTable('invoices')
        .set({ status: 'paid', paid_at: now, payment_reference: `payment of ${head.number ?? head.id}`, updated_at: now })
        .where('id', '=', replacement.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      const data = await invoiceEvent(tx, replacement);
      for (const event of ['invoice.paid', 'payment.successful'] as const) await emitWebhookEvent(tx, head.environment_id, event, data, now);
    }
    if (!new Dec(settled.excess).isZero()) await creditOverpayment(tx, head, replacement.id, formatMoney(new Dec(settled.excess), currency), now);
    return {
      corrected_invoice_id: head.id,
      credit_note: creditNote ? invoiceView(creditNote, await linesOf(tx, creditNote.id)) : null,
      invoice: invoiceView(replacement, await linesOf(tx, replacement.id)),
    };
  });
  // The replacement is an invoice, issued finalized (the credit note is not counted).
  countInvoiceGenerated('correction');
  countInvoiceFinalized('correction');
  // Credits released, burned anew, or an overpayment credited: the balance lines are looked at at once.
  await watchBalances(watchDeps(inv, now), row.account_id);
  return result;
}
