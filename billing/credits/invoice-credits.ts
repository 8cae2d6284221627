/**
 * Credits on invoices, inside the invoicing transactions (billing/invoicing/store.ts,
 * corrections.ts): apply (draft: provisional; issued: burned), burn when an invoice
 * leaves draft, release when it is voided or corrected.
 *
 * TRICKY: every function here runs in the caller's transaction, after the caller locked
 * the subscription row. Two invoices of one account (two subscriptions) may still be
 * stored at once, so the account's grants in the invoice's currency are locked FOR
 * UPDATE, in id order (no deadlock), before anything is read of them. Burns and
 * releases are inserted ON CONFLICT DO NOTHING against `credit_entries_once`: whichever
 * of two racing writers commits first wins, the other writes nothing.
 */
import { sql } from 'kysely';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { allocateCredits, usableOn, type Allocation, type CreditableLine, type UsableGrant } from './allocate.ts';

type Tx = Transaction<Database>;

/** The invoice fields the credits need. */
interface InvoiceRef {
  id: string;
  environment_id: string;
  account_id: string;
  subscription_id: string | null;
  currency: string;
  period_end: Date;
  total: string;
  status: string;
}

/** A stored line as the store writes it (lineValues). */
interface LineValue {
  position: number;
  charge_id: string;
  unit: string | null;
  amount: string;
  detail: string;
}

/** Marks a line as a credits line (never re-rated, skipped by comparisons of rated lines). */
export const CREDITS_LINE_TYPE = 'credits_applied';

/**
 * Locks the account's grants in a currency (id order) and returns those usable on `at`
 * with what is left of each, draft holds of other invoices deducted. A voided grant is
 * usable only by the drafts that held it when it was voided (`heldBefore`: what they hold
 * stays theirs), never by another invoice.
 */
export async function lockUsableGrants(
  tx: Tx,
  invoice: { account_id: string; subscription_id: string | null; currency: string },
  at: Date,
  exceptInvoiceId: string | null,
  heldBefore: ReadonlySet<string> = new Set(),
): Promise<UsableGrant[]> {
  const grants = await tx
    .selectFrom('credit_grants')
    .select(['id', 'priority', 'expires_at', 'created_at', 'scope', 'effective_at', 'usable_at', 'voided_at'])
    .where('account_id', '=', invoice.account_id)
    .where('currency', '=', invoice.currency)
    .orderBy('id')
    .forUpdate()
    .execute();
  const usable = grants.filter((g) => usableOn(g, at, invoice.subscription_id, heldBefore.has(g.id)));
  if (usable.length === 0) return [];
  const left = await remainingOf(tx, usable.map((g) => g.id), exceptInvoiceId);
  return usable
    .map((g) => ({ id: g.id, priority: g.priority, expires_at: g.expires_at, created_at: g.created_at, scope: g.scope, remaining: (left.get(g.id) ?? new Dec(0)).toFixed() }))
    .filter((g) => new Dec(g.remaining).gt(0));
}

/** What is left of each grant: the sum of its entries, less what drafts (other than `exceptInvoiceId`) hold. */
export async function remainingOf(tx: Kysely<Database>, grantIds: string[], exceptInvoiceId: string | null): Promise<Map<string, Dec>> {
  const out = new Map<string, Dec>(grantIds.map((id) => [id, new Dec(0)]));
  const sums = await tx.selectFrom('credit_entries').select(['grant_id', sql<string>`sum(amount)::text`.as('sum')]).where('grant_id', 'in', grantIds).groupBy('grant_id').execute();
  for (const s of sums) out.set(s.grant_id, new Dec(s.sum));
  let held = tx
    .selectFrom('credit_applications as a')
    .innerJoin('invoices as i', 'i.id', 'a.invoice_id')
    .select(['a.grant_id', sql<string>`sum(a.amount)::text`.as('sum')])
    .where('a.grant_id', 'in', grantIds)
    .where('i.status', '=', 'draft');
  if (exceptInvoiceId) held = held.where('a.invoice_id', '!=', exceptInvoiceId);
  for (const h of await held.groupBy('a.grant_id').execute()) out.set(h.grant_id, out.get(h.grant_id)!.minus(h.sum));
  return out;
}

/** The invoice's lines with the product each bills (through the line's rate plan). */
async function creditableLines(tx: Tx, lines: readonly LineValue[]): Promise<CreditableLine[]> {
  const planOf = (l: LineValue) => ((JSON.parse(l.detail) as { rate_plan_id?: string }).rate_plan_id ?? null);
  const planIds = [...new Set(lines.map(planOf).filter((x): x is string => x !== null))];
  const products = new Map(
    planIds.length ? (await tx.selectFrom('rate_plans').select(['id', 'product_id']).where('id', 'in', planIds).execute()).map((r) => [r.id, r.product_id] as const) : [],
  );
  return lines.map((l) => ({ position: l.position, charge_id: l.charge_id, unit: l.unit, amount: l.amount, product_id: products.get(planOf(l) ?? '') ?? null }));
}

/**
 * Applies the account's usable credits to a stored invoice whose rated lines are `lines`:
 * replaces its applications, appends one `credits_applied` line per grant (negative
 * amount, `charge_id` = the grant), sets `credits_applied` and `amount_due`; an invoice
 * that is not a draft burns them at once. Returns whether the invoice row changed (an
 * invoice without credits before or after is left as stored: `amount_due` = `total`).
 */
export async function applyCredits(tx: Tx, invoice: InvoiceRef, lines: readonly LineValue[], now: Date): Promise<boolean> {
  const before = await tx.deleteFrom('credit_applications').where('invoice_id', '=', invoice.id).returning('grant_id').execute();
  const grants = await lockUsableGrants(tx, invoice, invoice.period_end, invoice.id, new Set(before.map((b) => b.grant_id)));
  const allocations = grants.length ? allocateCredits(invoice.total, await creditableLines(tx, lines), grants) : [];
  if (before.length === 0 && allocations.length === 0) return false;
  const applied = allocations.reduce((s, a) => s.plus(a.amount), new Dec(0));
  if (allocations.length) {
    await tx.insertInto('credit_applications').values(allocations.map((a) => ({ invoice_id: invoice.id, grant_id: a.grant_id, amount: a.amount }))).execute();
    const first = lines.reduce((m, l) => Math.max(m, l.position), 0) + 1;
    await tx.insertInto('invoice_lines').values(allocations.map((a, i) => creditsLine(invoice, a, first + i))).execute();
  }
  await tx
    .updateTable('invoices')
    .set({ credits_applied: formatMoney(applied, invoice.currency), amount_due: formatMoney(new Dec(invoice.total).minus(applied), invoice.currency) })
    .where('id', '=', invoice.id)
    .execute();
  if (invoice.status !== 'draft') await burnCredits(tx, invoice, now);
  return true;
}

function creditsLine(invoice: InvoiceRef, a: Allocation, position: number) {
  return {
    invoice_id: invoice.id,
    position,
    charge_id: a.grant_id,
    charge_name: `Credits applied (${a.grant_id})`,
    model: 'credits',
    charge_type: CREDITS_LINE_TYPE,
    unit: null,
    quantity: '1',
    unit_price: null,
    tiers: null,
    detail: JSON.stringify({ grant_id: a.grant_id }),
    proration: null,
    amount: formatMoney(new Dec(a.amount).neg(), invoice.currency),
    agent_instance_id: null,
    service_start: invoice.period_end,
    service_end: invoice.period_end,
    usage_query: null,
  };
}

/** Writes the invoice's applications to the ledger as burns (once per grant and invoice, by constraint). */
export async function burnCredits(tx: Tx, invoice: Pick<InvoiceRef, 'id' | 'environment_id' | 'account_id' | 'currency'>, now: Date): Promise<void> {
  const apps = await tx.selectFrom('credit_applications').select(['grant_id', 'amount']).where('invoice_id', '=', invoice.id).orderBy('grant_id').execute();
  if (apps.length === 0) return;
  await tx
    .insertInto('credit_entries')
    .values(apps.map((a) => ({ ...entryBase(invoice, a.grant_id, now), type: 'burn' as const, amount: new Dec(a.amount).neg().toFixed(), invoice_id: invoice.id })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

function entryBase(invoice: Pick<InvoiceRef, 'environment_id' | 'account_id' | 'currency'>, grantId: string, now: Date) {
  return { id: newId('cle'), environment_id: invoice.environment_id, account_id: invoice.account_id, currency: invoice.currency, grant_id: grantId, occurred_at: now, created_by: null };
}

/**
 * Gives back what an issued invoice burned (it was voided, or corrected): one release
 * entry per burn, once. Credit given back to a grant that is closed by then (voided, or
 * past its expiry) leaves again at once with a void or expiry entry of the same invoice.
 */
export async function releaseCredits(tx: Tx, invoice: Pick<InvoiceRef, 'id' | 'environment_id' | 'account_id' | 'currency'>, reason: string, now: Date): Promise<void> {
  const burns = await tx.selectFrom('credit_entries').select(['grant_id', 'amount']).where('invoice_id', '=', invoice.id).where('type', '=', 'burn').orderBy('grant_id').execute();
  if (burns.length === 0) return;
  // The same locks, in the same order, as applying credits takes (no deadlock), so a void of the grant waits.
  await tx.selectFrom('credit_grants').select('id').where('account_id', '=', invoice.account_id).where('currency', '=', invoice.currency).orderBy('id').forUpdate().execute();
  for (const b of burns) {
    const amount = new Dec(b.amount).neg().toFixed();
    const released = await tx
      .insertInto('credit_entries')
      .values({ ...entryBase(invoice, b.grant_id, now), type: 'release', amount, invoice_id: invoice.id, reason })
      .onConflict((oc) => oc.doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!released) continue;
    const grant = await tx.selectFrom('credit_grants').select(['voided_at', 'expires_at']).where('id', '=', b.grant_id).executeTakeFirstOrThrow();
    const closing = grant.voided_at ? ('void' as const) : grant.expires_at && grant.expires_at <= now ? ('expiry' as const) : null;
    if (closing) {
      await tx
        .insertInto('credit_entries')
        .values({ ...entryBase(invoice, b.grant_id, now), type: closing, amount: new Dec(amount).neg().toFixed(), invoice_id: invoice.id, reason: `released by ${invoice.id} after the grant closed` })
        .onConflict((oc) => oc.doNothing())
        .execute();
    }
  }
}
