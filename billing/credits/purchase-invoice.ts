/**
 * A paid grant's purchase: an invoice of its own (no subscription, plan nor cycle), one
 * line naming the grant, issued finalized at once with the next `INV-` number and an
 * `invoice.created` event. Paying it makes an `on_payment` grant usable (grants.ts);
 * voiding it while unpaid voids the grant. It is never re-rated nor corrected.
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

/** Issues the purchase invoice of a paid grant; returns its id. */
export async function issuePurchaseInvoice(tx: Transaction<Database>, grant: GrantRow, now: Date, netDays: number): Promise<string> {
  const price = formatMoney(new Dec(grant.price ?? grant.amount), grant.currency);
  const zero = formatMoney(new Dec(0), grant.currency);
  let invoice = await tx
    .insertInto('invoices')
    .values({
      id: newId('inv'),
      environment_id: grant.environment_id,
      number: null,
      account_id: grant.account_id,
      subscription_id: null,
      rate_plan_id: null,
      billing_cycle: null,
      currency: grant.currency,
      period_start: now,
      period_end: now,
      status: 'finalized',
      subtotal: price,
      discount_total: zero,
      total: price,
      credits_applied: zero,
      amount_due: price,
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
    .values({
      invoice_id: invoice.id,
      position: 1,
      charge_id: grant.id,
      charge_name: `Prepaid credits: ${formatMoney(new Dec(grant.amount), grant.currency)} ${grant.currency} (${grant.id})`,
      model: 'credits',
      charge_type: PURCHASE_LINE_TYPE,
      unit: null,
      quantity: grant.amount,
      unit_price: null,
      tiers: null,
      detail: JSON.stringify({ grant_id: grant.id }),
      proration: null,
      amount: price,
      agent_instance_id: null,
      service_start: now,
      service_end: now,
      usage_query: null,
    })
    .execute();
  invoice = await assignNumber(tx, invoice);
  await emitWebhookEvent(tx, grant.environment_id, 'invoice.created', await invoiceEvent(tx, invoice), now);
  return invoice.id;
}
