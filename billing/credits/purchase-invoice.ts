/**
 * Invoices of their own, outside any billing period: a paid grant's purchase (one line
 * naming the grant) and a prepaid commitment's installments (commitments.ts). No
 * subscription, plan nor cycle; issued finalized at once with the next `INV-` number and
 * an `invoice.created` event. Paying a purchase makes an `on_payment` grant usable
 * (grants.ts); voiding it while unpaid voids the grant. They are never re-rated nor
 * corrected.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { assignNumber, invoiceEvent } from '../invoicing/store.ts';
import { formatMoney, Dec } from '../rating/money.ts';
import type { GrantRow } from './grants.ts';

const DAY_MS = 86_400_000;

/** The `charge_type` of a purchase line. */
export const PURCHASE_LINE_TYPE = 'credit_purchase';

/** One line of an invoice of its own. */
export interface OwnLine {
  charge_id: string;
  charge_name: string;
  charge_type: string;
  quantity: string;
  /** Decimal text in the currency's minor units. */
  amount: string;
  detail: Record<string, unknown>;
  service_start: Date;
  service_end: Date;
}

/** Issues an invoice of its own of `lines` to an account, dated `now`; returns its id. */
export async function issueOwnInvoice(tx: Transaction<Database>, to: { environment_id: string; account_id: string; currency: string }, lines: readonly OwnLine[], now: Date, netDays: number): Promise<string> {
  const total = formatMoney(
    lines.reduce((s, l) => s.plus(l.amount), new Dec(0)),
    to.currency,
  );
  const zero = formatMoney(new Dec(0), to.currency);
  let invoice = await tx
    .insertInto('invoices')
    .values({
      id: newId('inv'),
      environment_id: to.environment_id,
      number: null,
      account_id: to.account_id,
      subscription_id: null,
      rate_plan_id: null,
      billing_cycle: null,
      currency: to.currency,
      period_start: now,
      period_end: now,
      status: 'finalized',
      subtotal: total,
      discount_total: zero,
      total,
      credits_applied: zero,
      amount_due: total,
      issue_date: now,
      due_date: new Date(now.getTime() + netDays * DAY_MS),
      grace_until: now,
      usage: JSON.stringify(null),
      rated_at: now,
      finalized_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await tx
    .insertInto('invoice_lines')
    .values(
      lines.map((l, i) => ({
        invoice_id: invoice.id,
        position: i + 1,
        charge_id: l.charge_id,
        charge_name: l.charge_name,
        model: 'credits',
        charge_type: l.charge_type,
        unit: null,
        quantity: l.quantity,
        unit_price: null,
        tiers: null,
        detail: JSON.stringify(l.detail),
        proration: null,
        amount: formatMoney(new Dec(l.amount), to.currency),
        agent_instance_id: null,
        service_start: l.service_start,
        service_end: l.service_end,
        usage_query: null,
      })),
    )
    .execute();
  invoice = await assignNumber(tx, invoice);
  await emitWebhookEvent(tx, to.environment_id, 'invoice.created', await invoiceEvent(tx, invoice), now);
  return invoice.id;
}

/** Issues the purchase invoice of a paid grant; returns its id. */
export async function issuePurchaseInvoice(tx: Transaction<Database>, grant: GrantRow, now: Date, netDays: number): Promise<string> {
  const line: OwnLine = {
    charge_id: grant.id,
    charge_name: `Prepaid credits: ${formatMoney(new Dec(grant.amount), grant.currency)} ${grant.currency} (${grant.id})`,
    charge_type: PURCHASE_LINE_TYPE,
    quantity: grant.amount,
    amount: grant.price ?? grant.amount,
    detail: { grant_id: grant.id },
    service_start: now,
    service_end: now,
  };
  return issueOwnInvoice(tx, grant, [line], now, netDays);
}
