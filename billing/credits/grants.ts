/**
 * Credit grants: create (free, or paid with an invoice of its own), read, void what is
 * left; manual adjustments. Every change of a balance is a ledger entry written in the
 * same transaction (ledger.ts reads them), and `credits.granted` goes through the
 * webhook outbox in that transaction too.
 *
 * A grant is usable from `effective_at` once it is granted: at once (`usable:
 * "immediately"`, free grants always), or, for a paid grant with `usable: "on_payment"`,
 * when its purchase invoice is paid (store.ts calls {@link grantPaidPurchase}); the
 * `grant` ledger entry is written at that moment, so the balance never counts credit
 * that is not usable.
 */
import { createHash } from 'node:crypto';
import { sql, type Selectable, type Transaction } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { CreditGrantKind, CreditGrantsTable, CreditScope, CreditUsable, Database } from '../../shared/db/schema.ts';
import { CURRENCY_MESSAGE, currencyDigits, isCurrency } from '../../shared/currency.ts';
import { AppError, type ErrorDetail } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { parseTimestamp } from '../../shared/time.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { creditsEventData } from '../webhooks/payloads.ts';
import { remainingOf } from './invoice-credits.ts';
import { creditAmount, MAX_CREDIT_AMOUNT } from './money-input.ts';
import { issuePurchaseInvoice } from './purchase-invoice.ts';
import { markBalance } from './watch.ts';

type Tx = Transaction<Database>;
export type GrantRow = Selectable<CreditGrantsTable>;

/** Priorities: 1 burns first, 100 last. */
export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 100;
export const DEFAULT_PRIORITY = 50;

/** A grant request as the API validated its shape (types); values are checked here. */
export interface GrantInput {
  account_id: string;
  currency: string;
  kind: CreditGrantKind;
  amount: string | number;
  /** Paid grants: what the purchase invoice bills (default: the amount). */
  price?: string | number | undefined;
  priority?: number | undefined;
  effective_at?: string | undefined;
  expires_at?: string | null | undefined;
  scope?: CreditScope | null | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** Paid grants only: `on_payment` (default) or `immediately`. Free grants are usable at once. */
  usable?: CreditUsable | undefined;
}

/** Who and when. */
export interface Actor {
  now: Date;
  /** The API key (or agent) that asked. */
  createdBy: string | null;
  /** Net days of a purchase invoice. */
  netDays: number;
}

function bad(path: string, message: string): AppError {
  return new AppError('validation_failed', message, { details: [{ path, message }] });
}

function badMany(details: ErrorDetail[]): AppError {
  return new AppError('validation_failed', `request body is invalid: ${details.map((d) => d.message).join('; ')}`, { details });
}

function dateOf(v: string, path: string): Date {
  const t = parseTimestamp(v);
  if (t === undefined) throw bad(path, `${path} is not a valid date`);
  return new Date(t);
}

/** The values of a grant request, checked (400 naming each bad field; nothing is written). */
export interface CheckedGrant {
  currency: string;
  amount: string;
  price: string | null;
  priority: number;
  effective_at: Date;
  expires_at: Date | null;
  scope: CreditScope | null;
  usable: CreditUsable;
}

/** Pure checks of a grant request: money, dates, usable (the references are checked against the database after). */
export function checkGrantValues(input: GrantInput, now: Date): CheckedGrant {
  const problems: ErrorDetail[] = [];
  if (!isCurrency(input.currency)) throw bad('currency', `currency ${CURRENCY_MESSAGE}`);
  const currency = input.currency.toUpperCase();
  const amount = creditAmount(input.amount, currency, 'amount');
  if ('problem' in amount) problems.push({ path: 'amount', message: amount.problem });
  let price: string | null = null;
  if (input.price !== undefined) {
    if (input.kind !== 'paid') problems.push({ path: 'price', message: 'price is for paid grants only' });
    const p = creditAmount(input.price, currency, 'price');
    if ('problem' in p) problems.push({ path: 'price', message: p.problem });
    else price = p.value;
  }
  const priority = input.priority ?? DEFAULT_PRIORITY;
  const effective_at = input.effective_at ? dateOf(input.effective_at, 'effective_at') : now;
  const expires_at = input.expires_at ? dateOf(input.expires_at, 'expires_at') : null;
  if (expires_at && expires_at <= effective_at) problems.push({ path: 'expires_at', message: `expires_at must be after effective_at (${effective_at.toISOString()})` });
  const usable = input.usable ?? (input.kind === 'paid' ? 'on_payment' : 'immediately');
  if (input.kind === 'free' && usable !== 'immediately') problems.push({ path: 'usable', message: 'usable on_payment is for paid grants only (a free grant has nothing to pay)' });
  const scope = input.scope ? normalScope(input.scope) : null;
  if (input.scope && !scope) problems.push({ path: 'scope', message: 'scope must name at least one charge id, product id or unit of measure (omit it for the whole invoice)' });
  if (problems.length) throw badMany(problems);
  return { currency, amount: (amount as { value: string }).value, price, priority, effective_at, expires_at, scope, usable };
}

/** The scope with its lists deduplicated and empty ones dropped; null when it names nothing. */
function normalScope(s: CreditScope): CreditScope | null {
  const out: CreditScope = {};
  for (const k of ['charge_ids', 'product_ids', 'units'] as const) {
    const v = [...new Set(s[k] ?? [])];
    if (v.length) out[k] = v;
  }
  return Object.keys(out).length ? out : null;
}

/** The account's currency: its subscriptions' plans' (any accepted currency while it has none). 400 otherwise. */
export async function checkAccountCurrency(db: Db | Tx, environmentId: string, accountId: string, currency: string): Promise<void> {
  const account = await db.selectFrom('accounts').select('id').where('environment_id', '=', environmentId).where('id', '=', accountId).executeTakeFirst();
  if (!account) throw bad('account_id', `account_id ${accountId} does not exist`);
  const currencies = (
    await db
      .selectFrom('subscriptions as s')
      .innerJoin('rate_plans as p', 'p.id', 's.rate_plan_id')
      .select('p.currency')
      .distinct()
      .where('s.environment_id', '=', environmentId)
      .where('s.account_id', '=', accountId)
      .execute()
  ).map((r) => r.currency.toUpperCase());
  if (currencies.length && !currencies.includes(currency)) {
    throw bad('currency', `currency ${currency} is not the account's: its subscriptions bill in ${currencies.join(', ')}`);
  }
}

/**
 * Each id and unit of a scope must exist in this environment and bill in the grant's
 * currency (a charge of a plan in another currency, a product without a plan in it, or a
 * unit no charge in it uses could never be paid by the grant): 400 naming the first that does not.
 */
async function checkScope(db: Db | Tx, environmentId: string, scope: CreditScope | null, currency: string): Promise<void> {
  if (!scope) return;
  if (scope.charge_ids?.length) {
    const rows = await db.selectFrom('charges').select(['id', 'currency']).where('environment_id', '=', environmentId).where('id', 'in', scope.charge_ids).execute();
    const found = new Map(rows.map((r) => [r.id, r.currency.toUpperCase()]));
    const missing = scope.charge_ids.filter((id) => !found.has(id));
    if (missing.length) throw bad('scope.charge_ids', `scope.charge_ids names charges that do not exist in this environment: ${missing.join(', ')}`);
    const other = scope.charge_ids.filter((id) => found.get(id) !== currency);
    if (other.length) throw bad('scope.charge_ids', `scope.charge_ids names charges that bill in another currency than ${currency} (a ${currency} grant can never pay them): ${other.map((id) => `${id} (${found.get(id)})`).join(', ')}`);
  }
  if (scope.product_ids?.length) {
    const found = new Set((await db.selectFrom('products').select('id').where('environment_id', '=', environmentId).where('id', 'in', scope.product_ids).execute()).map((r) => r.id));
    const missing = scope.product_ids.filter((id) => !found.has(id));
    if (missing.length) throw bad('scope.product_ids', `scope.product_ids names products that do not exist in this environment: ${missing.join(', ')}`);
    const inCurrency = new Set(
      (await db.selectFrom('rate_plans').select('product_id').distinct().where('environment_id', '=', environmentId).where('product_id', 'in', scope.product_ids).where(sql`upper(currency)`, '=', currency).execute()).map((r) => r.product_id),
    );
    const other = scope.product_ids.filter((id) => !inCurrency.has(id));
    if (other.length) throw bad('scope.product_ids', `scope.product_ids names products with no rate plan in ${currency} (a ${currency} grant can never pay them): ${other.join(', ')}`);
  }
  if (scope.units?.length) {
    const used = await db.selectFrom('charges').select(['unit_of_measure', 'currency']).distinct().where('environment_id', '=', environmentId).where('unit_of_measure', 'in', scope.units).execute();
    const units = scope.units.filter((u) => !used.some((r) => r.unit_of_measure === u));
    if (units.length) throw bad('scope.units', `scope.units names units of measure no charge of this environment uses: ${units.join(', ')}`);
    const other = scope.units.filter((u) => !used.some((r) => r.unit_of_measure === u && r.currency.toUpperCase() === currency));
    if (other.length) throw bad('scope.units', `scope.units names units of measure no charge in ${currency} uses (a ${currency} grant can never pay them): ${other.join(', ')}`);
  }
}

/** JSON with sorted keys at every depth. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().filter((k) => o[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** The hash a retried request must match to be answered with the grant it created. */
function requestHash(input: GrantInput): string {
  return createHash('sha256').update(canonical(input)).digest('hex');
}

/**
 * Creates a grant (see the module comment). With an idempotency key, a retry of the same
 * request answers the grant it created (`replayed: true`) and writes nothing; the same key
 * with another request is a 409.
 */
export async function createGrant(db: Db, environmentId: string, input: GrantInput, idempotencyKey: string | null, actor: Actor): Promise<{ grant: GrantView; replayed: boolean }> {
  const hash = requestHash(input);
  if (idempotencyKey) {
    const prior = await grantByKey(db, environmentId, idempotencyKey, hash);
    if (prior) return { grant: prior, replayed: true };
  }
  const v = checkGrantValues(input, actor.now);
  await checkAccountCurrency(db, environmentId, input.account_id, v.currency);
  await checkScope(db, environmentId, v.scope, v.currency);
  try {
    const id = await db.transaction().execute((tx) => insertGrant(tx, environmentId, input, v, { idempotencyKey, hash }, actor));
    return { grant: await getGrant(db, environmentId, id, actor.now), replayed: false };
  } catch (err) {
    // Two requests with one key at once: the constraint lets one in; the other answers its grant.
    if (idempotencyKey && (err as { constraint?: string }).constraint === 'credit_grants_idempotency') {
      const prior = await grantByKey(db, environmentId, idempotencyKey, hash);
      if (prior) return { grant: prior, replayed: true };
    }
    throw err;
  }
}

/**
 * Writes a checked grant in the caller's transaction (createGrant; top-ups): the grant, a
 * paid grant's purchase invoice, and its `grant` entry when usable at once. Returns its id.
 */
export async function insertGrant(
  tx: Tx,
  environmentId: string,
  input: GrantInput,
  v: CheckedGrant,
  key: { idempotencyKey: string | null; hash: string | null },
  actor: Actor,
): Promise<string> {
  const { idempotencyKey, hash } = key;
  const grant = await tx
    .insertInto('credit_grants')
    .values({
      id: newId('cgr'),
      environment_id: environmentId,
      account_id: input.account_id,
      currency: v.currency,
      kind: input.kind,
      amount: v.amount,
      price: input.kind === 'paid' ? (v.price ?? v.amount) : null,
      priority: v.priority,
      effective_at: v.effective_at,
      expires_at: v.expires_at,
      scope: v.scope ? JSON.stringify(v.scope) : null,
      metadata: JSON.stringify(input.metadata ?? {}),
      usable: v.usable,
      usable_at: null,
      invoice_id: null,
      voided_at: null,
      void_reason: null,
      idempotency_key: idempotencyKey,
      request_hash: hash,
      created_by: actor.createdBy,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  if (grant.kind === 'paid') {
    const invoiceId = await issuePurchaseInvoice(tx, grant, actor.now, actor.netDays);
    await tx.updateTable('credit_grants').set({ invoice_id: invoiceId }).where('id', '=', grant.id).execute();
  }
  if (grant.usable === 'immediately') await grantEntry(tx, grant, actor.now);
  return grant.id;
}

async function grantByKey(db: Db, environmentId: string, key: string, hash: string): Promise<GrantView | null> {
  const row = await db.selectFrom('credit_grants').selectAll().where('environment_id', '=', environmentId).where('idempotency_key', '=', key).executeTakeFirst();
  if (!row) return null;
  if (row.request_hash !== hash) throw new AppError('conflict', `Idempotency-Key ${key} was used for another request (grant ${row.id}); use a new key for a new grant`);
  return getGrant(db, environmentId, row.id);
}

/** Writes a grant's `grant` entry (once, by constraint) and its `credits.granted` event: the grant is usable from then on. */
export async function grantEntry(tx: Tx, grant: GrantRow, now: Date): Promise<void> {
  // From its effective date when granted at once; from the payment (not before that date) otherwise.
  const occurredAt = grant.usable === 'immediately' || grant.effective_at > now ? grant.effective_at : now;
  const entry = await tx
    .insertInto('credit_entries')
    .values({
      id: newId('cle'),
      environment_id: grant.environment_id,
      account_id: grant.account_id,
      currency: grant.currency,
      grant_id: grant.id,
      type: 'grant',
      amount: grant.amount,
      invoice_id: null,
      reason: null,
      created_by: grant.created_by,
      occurred_at: occurredAt,
    })
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (!entry) return;
  // Granted after its expiry passed (a purchase paid late): the scheduler's expiry step looks at it again.
  await tx.updateTable('credit_grants').set({ usable_at: now, expiry_written_at: null }).where('id', '=', grant.id).execute();
  await emitWebhookEvent(tx, grant.environment_id, 'credits.granted', creditsEventData(grant, entry), now);
}

/** The purchase invoice `invoiceId` was paid: its `on_payment` grant becomes usable (called in the payment's transaction). */
export async function grantPaidPurchase(tx: Tx, invoiceId: string, now: Date): Promise<void> {
  const grant = await tx.selectFrom('credit_grants').selectAll().where('invoice_id', '=', invoiceId).forUpdate().executeTakeFirst();
  // A purchase whose grant is void is not paid: the customer would pay for nothing (voiding the grant voids an unpaid purchase invoice with it).
  if (grant?.voided_at) throw new AppError('conflict', `invoice ${invoiceId} is the purchase of credit grant ${grant.id}, which is void: it cannot be paid; void the invoice`);
  if (grant && grant.usable === 'on_payment') await grantEntry(tx, grant, now);
}

/**
 * An invoice of Tally's own (no subscription) was voided unpaid: a credit purchase's grant is
 * void with it, whatever its usability (what was already burned stays burned: a `void`
 * entry takes what is left); a prepaid commitment's installments on it leave the
 * commitment's grant (a `void` entry naming the invoice, at most what is left of it).
 */
export async function voidUnpaidPurchase(tx: Tx, invoiceId: string, now: Date): Promise<void> {
  const reason = `purchase invoice ${invoiceId} voided`;
  const grant = await tx.selectFrom('credit_grants').selectAll().where('invoice_id', '=', invoiceId).forUpdate().executeTakeFirst();
  if (grant && grant.voided_at === null) {
    await tx.updateTable('credit_grants').set({ voided_at: now, void_reason: reason }).where('id', '=', grant.id).execute();
    if (grant.usable_at !== null) await voidEntry(tx, grant, null, invoiceId, reason, null, now);
    await markBalance(tx, grant.environment_id, grant.account_id, grant.currency);
  }
  const parts = await tx
    .selectFrom('commitment_installments as i')
    .innerJoin('commitment_terms as t', 't.id', 'i.term_id')
    .select(['t.grant_id', sql<string>`sum(i.amount)::text`.as('amount')])
    .where('i.invoice_id', '=', invoiceId)
    .groupBy('t.grant_id')
    .execute();
  for (const part of parts) {
    const g = await tx.selectFrom('credit_grants').selectAll().where('id', '=', part.grant_id).forUpdate().executeTakeFirstOrThrow();
    if (g.voided_at === null) await voidEntry(tx, g, part.amount, invoiceId, `installment invoice ${invoiceId} voided`, null, now);
  }
}

/** A `void` entry of a grant: `upTo` (or all) of what is left of it; nothing when nothing is left. */
async function voidEntry(tx: Tx, g: GrantRow, upTo: string | null, invoiceId: string | null, reason: string | null, createdBy: string | null, now: Date): Promise<void> {
  const left = (await remainingOf(tx, [g.id], null)).get(g.id)!;
  const amount = upTo === null ? left : Dec.min(left, upTo);
  if (amount.lte(0)) return;
  await tx
    .insertInto('credit_entries')
    .values({ id: newId('cle'), environment_id: g.environment_id, account_id: g.account_id, currency: g.currency, grant_id: g.id, type: 'void', amount: amount.neg().toFixed(), invoice_id: invoiceId, reason, created_by: createdBy, occurred_at: notBeforeGrant(g, now) })
    .execute();
}

/** A grant as both families show it, with what is left of it. */
export interface GrantView {
  id: string;
  grant_id: string;
  account_id: string;
  currency: string;
  kind: CreditGrantKind;
  amount: string;
  price: string | null;
  priority: number;
  effective_at: string;
  expires_at: string | null;
  scope: CreditScope | null;
  metadata: Record<string, unknown>;
  usable: CreditUsable;
  usable_at: string | null;
  invoice_id: string | null;
  status: 'pending_payment' | 'active' | 'depleted' | 'expired' | 'void';
  /** Left to burn: entries summed, less what draft invoices hold; 0 once void or expired (the balance counts the rest as voided or expired). */
  remaining: string;
  /** Held by draft invoices (burned when they are issued). */
  held: string;
  voided_at: string | null;
  void_reason: string | null;
  created_by: string | null;
  created_at: string;
}

function grantView(g: GrantRow, remaining: Dec, held: Dec, now: Date): GrantView {
  const status: GrantView['status'] = g.voided_at
    ? 'void'
    : g.usable_at === null
      ? 'pending_payment'
      : g.expires_at && g.expires_at <= now
        ? 'expired'
        : remaining.lte(0) && held.lte(0)
          ? 'depleted'
          : 'active';
  return {
    id: g.id,
    grant_id: g.id,
    account_id: g.account_id,
    currency: g.currency,
    kind: g.kind,
    amount: g.amount,
    price: g.price,
    priority: g.priority,
    effective_at: iso(g.effective_at)!,
    expires_at: iso(g.expires_at),
    scope: g.scope,
    metadata: g.metadata,
    usable: g.usable,
    usable_at: iso(g.usable_at),
    invoice_id: g.invoice_id,
    status,
    // A closed grant has nothing left to burn, whether or not its void or expiry entry is written yet.
    remaining: formatMoney(status === 'void' || status === 'expired' ? new Dec(0) : Dec.max(remaining, 0), g.currency),
    held: formatMoney(held, g.currency),
    voided_at: iso(g.voided_at),
    void_reason: g.void_reason,
    created_by: g.created_by,
    created_at: iso(g.created_at)!,
  };
}

/** Views of grant rows (one query for their remainders). */
async function views(db: Db | Tx, rows: GrantRow[], now: Date): Promise<GrantView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const left = await remainingOf(db, ids, null);
  const total = await sumsOf(db, ids);
  return rows.map((r) => {
    const all = total.get(r.id) ?? new Dec(0);
    return grantView(r, left.get(r.id) ?? new Dec(0), all.minus(left.get(r.id) ?? 0), now);
  });
}

async function sumsOf(db: Db | Tx, ids: string[]): Promise<Map<string, Dec>> {
  const rows = await db.selectFrom('credit_entries').select(['grant_id', sql<string>`sum(amount)::text`.as('sum')]).where('grant_id', 'in', ids).groupBy('grant_id').execute();
  return new Map(rows.map((r) => [r.grant_id, new Dec(r.sum)]));
}

export async function getGrant(db: Db | Tx, environmentId: string, id: string, now = new Date()): Promise<GrantView> {
  const row = await db.selectFrom('credit_grants').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('credit grant', id);
  return (await views(db, [row], now))[0]!;
}

/** Filters of the grant lists. */
export interface GrantFilter {
  account_id?: string | undefined;
  currency?: string | undefined;
}

/** A page of grants, oldest first. */
export async function listGrants(db: Db, environmentId: string, filter: GrantFilter, page: Page, now: Date) {
  let q = db.selectFrom('credit_grants').where('environment_id', '=', environmentId);
  if (filter.account_id) q = q.where('account_id', '=', filter.account_id);
  if (filter.currency) q = q.where('currency', '=', filter.currency.toUpperCase());
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: await views(db, rows, now), total };
}

/**
 * Voids what is left of a grant: a `void` entry of its remainder (what drafts hold stays
 * theirs and burns when they are issued; later releases leave again at once). A purchase
 * (a paid grant with an invoice of its own) is voided with its invoice while that is unpaid,
 * so nobody pays for credit that is gone; once paid, it is refunded instead (409). 409 when
 * already void.
 *
 * TRICKY: the purchase invoice is locked before the grant, the order in which paying or
 * voiding that invoice takes them (store.ts moveInvoice, then {@link grantPaidPurchase}),
 * so a payment and this void serialize, without deadlock, in either order: paid first,
 * this is a 409; voided first, the payment finds a void invoice (409).
 */
export async function voidGrant(db: Db, environmentId: string, id: string, reason: string | null, actor: Actor): Promise<GrantView> {
  await db.transaction().execute(async (tx) => {
    const ref = await tx.selectFrom('credit_grants').select('invoice_id').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
    if (!ref) throw notFound('credit grant', id);
    const purchase = ref.invoice_id ? await tx.selectFrom('invoices').select(['id', 'number', 'status']).where('id', '=', ref.invoice_id).forUpdate().executeTakeFirstOrThrow() : undefined;
    const g = await tx.selectFrom('credit_grants').selectAll().where('id', '=', id).forUpdate().executeTakeFirstOrThrow();
    if (g.voided_at) throw new AppError('conflict', `credit grant ${id} is already void`);
    if (purchase?.status === 'paid') {
      throw new AppError('conflict', `credit grant ${id} is paid for (its purchase invoice ${purchase.number ?? purchase.id} is paid): it is not voided; refund what is left of it instead (POST /v1/credits/refunds or /api/v1/credit/refunds/create)`);
    }
    if (purchase && (purchase.status === 'draft' || purchase.status === 'finalized')) {
      await tx.updateTable('invoices').set({ status: 'void', voided_at: actor.now, updated_at: new Date() }).where('id', '=', purchase.id).execute();
    }
    await tx.updateTable('credit_grants').set({ voided_at: actor.now, void_reason: reason }).where('id', '=', id).execute();
    await voidEntry(tx, g, null, purchase?.id ?? null, reason, actor.createdBy, actor.now);
    // The watch looks at the balance even when no entry was written (drafts hold all that was left).
    await markBalance(tx, g.environment_id, g.account_id, g.currency);
  });
  return getGrant(db, environmentId, id, actor.now);
}

/** When a move of a grant made at `now` counts: not before the grant itself (a grant effective later moves from then on). */
function notBeforeGrant(g: GrantRow, now: Date): Date {
  return g.effective_at > now ? g.effective_at : now;
}

/** A manual adjustment of a grant's credit (+ or -), with its reason; never below what is left (400). */
export async function adjustGrant(db: Db, environmentId: string, input: { grant_id: string; amount: string | number; reason: string }, actor: Actor) {
  return db.transaction().execute(async (tx) => {
    const g = await tx.selectFrom('credit_grants').selectAll().where('environment_id', '=', environmentId).where('id', '=', input.grant_id).forUpdate().executeTakeFirst();
    if (!g) throw bad('grant_id', `grant_id ${input.grant_id} does not exist`);
    if (g.voided_at) throw new AppError('conflict', `credit grant ${g.id} is void: it cannot be adjusted`);
    if (g.usable_at === null) throw new AppError('conflict', `credit grant ${g.id} is not usable yet (its purchase invoice ${g.invoice_id} is unpaid): adjust it once paid`);
    const amount = creditAmount(input.amount, g.currency, 'amount', true);
    if ('problem' in amount) throw bad('amount', amount.problem);
    const left = (await remainingOf(tx, [g.id], null)).get(g.id)!;
    if (left.plus(amount.value).lt(0)) throw bad('amount', `amount ${amount.value} would take grant ${g.id} below zero (${formatMoney(left, g.currency)} left)`);
    if (left.plus(amount.value).gt(MAX_CREDIT_AMOUNT)) throw bad('amount', `amount ${amount.value} would take grant ${g.id} past ${MAX_CREDIT_AMOUNT}, the most a grant may hold (${formatMoney(left, g.currency)} left)`);
    const entry = await tx
      .insertInto('credit_entries')
      .values({ id: newId('cle'), environment_id: environmentId, account_id: g.account_id, currency: g.currency, grant_id: g.id, type: 'adjustment', amount: amount.value, invoice_id: null, reason: input.reason, created_by: actor.createdBy, occurred_at: notBeforeGrant(g, actor.now) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return entry;
  });
}

/**
 * Pays back account credit (docs/credits.md, Credits: money already paid): a `refund` entry
 * (negative, with its reason) on a paid grant (a purchase, or an overpayment of a corrected
 * invoice), at most what is left of it (400). A free grant has nothing to pay back (409).
 */
export async function refundGrant(db: Db, environmentId: string, input: { grant_id: string; amount: string | number; reason: string }, actor: Actor) {
  return db.transaction().execute(async (tx) => {
    const g = await tx.selectFrom('credit_grants').selectAll().where('environment_id', '=', environmentId).where('id', '=', input.grant_id).forUpdate().executeTakeFirst();
    if (!g) throw bad('grant_id', `grant_id ${input.grant_id} does not exist`);
    if (g.kind !== 'paid') throw new AppError('conflict', `credit grant ${g.id} is free: only paid credit (a purchase or an overpayment) is refunded`);
    if (g.voided_at) throw new AppError('conflict', `credit grant ${g.id} is void: nothing is left to refund`);
    // A prepaid commitment's grant is a contract's, paid for by installments: not a purchase to pay back.
    const term = await tx.selectFrom('commitment_terms').select('subscription_id').where('grant_id', '=', g.id).executeTakeFirst();
    if (term) {
      throw new AppError('conflict', `credit grant ${g.id} is the prepaid commitment of subscription ${term.subscription_id}: it is not refunded; void an unpaid installment invoice (its amount leaves the grant) or void the grant to end the term`);
    }
    // Usable at once or not, a purchase is refunded only once its invoice is paid (unpaid: void that invoice instead).
    const purchase = g.invoice_id ? await tx.selectFrom('invoices').select(['status', 'number']).where('id', '=', g.invoice_id).executeTakeFirst() : undefined;
    if (g.usable_at === null || (purchase && purchase.status !== 'paid')) {
      throw new AppError('conflict', `credit grant ${g.id} is not paid for yet (its purchase invoice ${purchase?.number ?? g.invoice_id} is ${purchase?.status ?? 'unpaid'}): void that invoice instead, or refund once it is paid`);
    }
    const amount = creditAmount(input.amount, g.currency, 'amount');
    if ('problem' in amount) throw bad('amount', amount.problem);
    const left = (await remainingOf(tx, [g.id], null)).get(g.id)!;
    const { refundable, credit } = refundOf(g, left, amount.value);
    if (credit === null) {
      throw bad('amount', `amount ${amount.value} is more than what was paid for what is left of grant ${g.id}: at most ${formatMoney(refundable, g.currency)} (price ${g.price ?? g.amount} × ${formatMoney(left, g.currency)} left ÷ ${g.amount} granted)`);
    }
    const entry = await tx
      .insertInto('credit_entries')
      .values({ id: newId('cle'), environment_id: environmentId, account_id: g.account_id, currency: g.currency, grant_id: g.id, type: 'refund', amount: credit.neg().toFixed(), invoice_id: null, reason: input.reason, created_by: actor.createdBy, occurred_at: notBeforeGrant(g, actor.now) })
      .returningAll()
      .executeTakeFirstOrThrow();
    return { ...entry, refunded: formatMoney(new Dec(amount.value), g.currency) };
  });
}

/**
 * Pure: a refund of `money` from a paid grant with `left` of its credit (docs/credits.md,
 * Money already paid): at most what was paid for what is left, `refundable` = price × left
 * ÷ amount rounded down to the currency's minor units; the credit it takes off is money ×
 * amount ÷ price rounded up (so repeated refunds never pay back more than was paid), all of
 * what is left when it refunds all of it. `credit` null: more than refundable.
 */
export function refundOf(g: Pick<GrantRow, 'amount' | 'price' | 'currency'>, left: Dec, money: string): { refundable: Dec; credit: Dec | null } {
  const digits = currencyDigits(g.currency) ?? 0;
  const face = new Dec(g.amount);
  const price = new Dec(g.price ?? g.amount);
  const refundable = Dec.max(left, 0).times(price).div(face).toDecimalPlaces(digits, Dec.ROUND_DOWN);
  const m = new Dec(money);
  if (m.gt(refundable)) return { refundable, credit: null };
  const credit = m.eq(refundable) ? left : Dec.min(left, m.times(face).div(price).toDecimalPlaces(digits, Dec.ROUND_UP));
  return { refundable, credit };
}

/**
 * Money paid on a corrected invoice beyond what its replacement owes becomes account
 * credit (called in the correction's transaction): a paid grant, usable at once, with an
 * `overpayment` entry linked to the corrected invoice (once, by `credit_entries_once`), and
 * `credits.granted`. Returns the grant id.
 */
export async function creditOverpayment(tx: Tx, invoice: { id: string; number: string | null; environment_id: string; account_id: string; currency: string }, replacementId: string, amount: string, now: Date): Promise<string> {
  const grant = await insertSystemGrant(tx, {
    environment_id: invoice.environment_id,
    account_id: invoice.account_id,
    currency: invoice.currency,
    amount,
    priority: DEFAULT_PRIORITY,
    effective_at: now,
    expires_at: null,
    scope: null,
    metadata: { source: 'overpayment', corrected_invoice_id: invoice.id, replacement_invoice_id: replacementId },
    usable_at: now,
    // What was paid for it: its amount (refunds pay back at that price).
    price: amount,
  });
  const entry = await tx
    .insertInto('credit_entries')
    .values({ id: newId('cle'), environment_id: grant.environment_id, account_id: grant.account_id, currency: grant.currency, grant_id: grant.id, type: 'overpayment', amount, invoice_id: invoice.id, reason: `paid on invoice ${invoice.number ?? invoice.id} beyond its replacement ${replacementId}`, created_by: null, occurred_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  await emitWebhookEvent(tx, grant.environment_id, 'credits.granted', creditsEventData(grant, entry), now);
  return grant.id;
}

/** A paid grant Tally writes itself (an overpayment, a prepaid commitment's term): usable at once, no purchase invoice, no idempotency key. */
export async function insertSystemGrant(
  tx: Tx,
  g: { environment_id: string; account_id: string; currency: string; amount: string; priority: number; effective_at: Date; expires_at: Date | null; scope: CreditScope | null; metadata: Record<string, unknown>; usable_at: Date | null; price?: string },
): Promise<GrantRow> {
  return tx
    .insertInto('credit_grants')
    .values({
      id: newId('cgr'),
      ...g,
      kind: 'paid',
      price: g.price ?? null,
      scope: g.scope ? JSON.stringify(g.scope) : null,
      metadata: JSON.stringify(g.metadata),
      usable: 'immediately',
      invoice_id: null,
      voided_at: null,
      void_reason: null,
      idempotency_key: null,
      request_hash: null,
      created_by: null,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}
