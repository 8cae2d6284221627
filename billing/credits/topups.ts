/**
 * Credit top-ups (docs/credits.md, Credits): rules that grant credit by themselves.
 *
 * - recurring: every `week` or `month` from `starts_at` (a month later on the same day,
 *   the month's last day when it is shorter), `amount` of credit;
 * - threshold: when the available balance falls below `threshold`, grant `amount`, or
 *   what brings it up to `target_balance`.
 *
 * Each trigger grants once: a `credit_topup_runs` row keyed by (rule, trigger) is inserted
 * before the grant, in the grant's transaction (`period:<instant>` for a recurring rule,
 * `crossing:<n>` for a threshold rule, n numbered by the balance watch, watch.ts). The
 * grant is a grant like any other (paid: with its purchase invoice and `invoice.created`;
 * `credits.granted`), with `metadata.topup_id` and `metadata.trigger`.
 */
import { type Selectable, type Transaction } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { CreditGrantKind, CreditTopupInterval, CreditTopupsTable, CreditTopupType, CreditUsable, Database } from '../../shared/db/schema.ts';
import { CURRENCY_MESSAGE, isCurrency } from '../../shared/currency.ts';
import { AppError, type ErrorDetail } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { parseTimestamp } from '../../shared/time.ts';
import { logger } from '../../shared/log.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { checkAccountCurrency, checkGrantValues, DEFAULT_PRIORITY, insertGrant, type Actor, type GrantInput } from './grants.ts';
import { creditAmount } from './money-input.ts';
import { markBalance, type WatchDeps } from './watch.ts';

type Tx = Transaction<Database>;
export type TopupRow = Selectable<CreditTopupsTable>;
const log = logger('credit-topups');
const DAY_MS = 86_400_000;

/** A top-up request as the API validated its shape. */
export interface TopupInput {
  account_id: string;
  currency: string;
  type: CreditTopupType;
  /** The grants' kind: paid (default: a purchase invoice each) or free. */
  kind?: CreditGrantKind | undefined;
  amount?: string | number | undefined;
  price?: string | number | undefined;
  target_balance?: string | number | undefined;
  threshold?: string | number | undefined;
  interval?: CreditTopupInterval | undefined;
  starts_at?: string | undefined;
  priority?: number | undefined;
  /** Paid grants: `immediately` (default: a top-up is there when it is needed) or `on_payment`. */
  usable?: CreditUsable | undefined;
  /** Each grant expires this many days after it is granted (default: never). */
  expires_after_days?: number | undefined;
  metadata?: Record<string, unknown> | undefined;
}

function badMany(details: ErrorDetail[]): AppError {
  return new AppError('validation_failed', `request body is invalid: ${details.map((d) => d.message).join('; ')}`, { details });
}

/** The checked values of a top-up rule. */
interface CheckedTopup {
  currency: string;
  kind: CreditGrantKind;
  amount: string | null;
  price: string | null;
  target_balance: string | null;
  threshold: string | null;
  interval: CreditTopupInterval | null;
  starts_at: Date;
  usable: CreditUsable;
}

/** Pure checks of a top-up rule (400 naming each bad field; nothing is written). */
export function checkTopupValues(input: TopupInput, now: Date): CheckedTopup {
  if (!isCurrency(input.currency)) throw badMany([{ path: 'currency', message: `currency ${CURRENCY_MESSAGE}` }]);
  const currency = input.currency.toUpperCase();
  const problems: ErrorDetail[] = [];
  const money = (field: 'amount' | 'price' | 'target_balance' | 'threshold'): string | null => {
    if (input[field] === undefined) return null;
    const m = creditAmount(input[field], currency, field);
    if ('problem' in m) {
      problems.push({ path: field, message: m.problem });
      return null;
    }
    return m.value;
  };
  const amount = money('amount');
  const price = money('price');
  const target = money('target_balance');
  const threshold = money('threshold');
  const kind = input.kind ?? 'paid';
  const has = (f: keyof TopupInput) => input[f] !== undefined;
  if (input.type === 'recurring') {
    if (!input.interval) problems.push({ path: 'interval', message: 'interval (week or month) is required for a recurring top-up' });
    if (!has('amount')) problems.push({ path: 'amount', message: 'amount is required for a recurring top-up' });
    for (const f of ['threshold', 'target_balance'] as const) if (has(f)) problems.push({ path: f, message: `${f} is for threshold top-ups only` });
  } else {
    if (!has('threshold')) problems.push({ path: 'threshold', message: 'threshold is required for a threshold top-up' });
    if (has('interval')) problems.push({ path: 'interval', message: 'interval is for recurring top-ups only' });
    if (has('amount') === has('target_balance')) problems.push({ path: 'amount', message: 'a threshold top-up grants either amount or up to target_balance: give exactly one' });
    if (target && threshold && new Dec(target).lte(threshold)) problems.push({ path: 'target_balance', message: `target_balance must be above threshold (${threshold})` });
  }
  if (price !== null && kind !== 'paid') problems.push({ path: 'price', message: 'price is for paid top-ups only' });
  const usable = input.usable ?? 'immediately';
  if (kind === 'free' && usable !== 'immediately') problems.push({ path: 'usable', message: 'usable on_payment is for paid top-ups only' });
  let starts_at = now;
  if (input.starts_at) {
    const t = parseTimestamp(input.starts_at);
    if (t === undefined) problems.push({ path: 'starts_at', message: 'starts_at is not a valid date' });
    else starts_at = new Date(t);
  }
  if (problems.length) throw badMany(problems);
  return { currency, kind, amount, price, target_balance: target, threshold, interval: input.type === 'recurring' ? input.interval! : null, starts_at, usable };
}

/** Pure: the k-th trigger of a recurring rule (k = 0 is `starts_at`); a month later keeps the day, or the month's last day. */
export function triggerAt(startsAt: Date, interval: CreditTopupInterval, k: number): Date {
  if (interval === 'week') return new Date(startsAt.getTime() + k * 7 * DAY_MS);
  const y = startsAt.getUTCFullYear();
  const m = startsAt.getUTCMonth() + k;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  const d = new Date(startsAt);
  d.setUTCFullYear(y, m, Math.min(startsAt.getUTCDate(), lastDay));
  return d;
}

/** Pure: the index of the latest trigger at or before `now` (-1 before the first). */
export function latestTrigger(startsAt: Date, interval: CreditTopupInterval, now: Date): number {
  if (now < startsAt) return -1;
  let k =
    interval === 'week'
      ? Math.floor((now.getTime() - startsAt.getTime()) / (7 * DAY_MS))
      : (now.getUTCFullYear() - startsAt.getUTCFullYear()) * 12 + now.getUTCMonth() - startsAt.getUTCMonth();
  while (k > 0 && triggerAt(startsAt, interval, k) > now) k--;
  return k;
}

/** A top-up rule as both families show it. */
export function topupView(r: TopupRow) {
  const m = (v: string | null) => (v === null ? null : formatMoney(new Dec(v), r.currency));
  return {
    id: r.id,
    topup_id: r.id,
    account_id: r.account_id,
    currency: r.currency,
    type: r.type,
    kind: r.grant_kind,
    amount: m(r.amount),
    price: m(r.price),
    target_balance: m(r.target_balance),
    threshold: m(r.threshold),
    interval: r.interval,
    starts_at: iso(r.starts_at)!,
    next_run_at: iso(r.next_run_at),
    priority: r.priority,
    usable: r.usable,
    expires_after_days: r.expires_after_days,
    metadata: r.metadata,
    status: r.disabled_at ? ('disabled' as const) : ('active' as const),
    disabled_at: iso(r.disabled_at),
    created_by: r.created_by,
    created_at: iso(r.created_at)!,
  };
}

/** Creates a top-up rule (a threshold rule is looked at at once: a balance already below it tops up). */
export async function createTopup(db: Db, environmentId: string, input: TopupInput, actor: Actor) {
  const v = checkTopupValues(input, actor.now);
  await checkAccountCurrency(db, environmentId, input.account_id, v.currency);
  const row = await db.transaction().execute(async (tx) => {
    const r = await tx
      .insertInto('credit_topups')
      .values({
        id: newId('ctu'),
        environment_id: environmentId,
        account_id: input.account_id,
        currency: v.currency,
        type: input.type,
        grant_kind: v.kind,
        amount: v.amount,
        price: v.price,
        target_balance: v.target_balance,
        threshold: v.threshold,
        interval: v.interval,
        starts_at: v.starts_at,
        next_run_at: input.type === 'recurring' ? v.starts_at : null,
        priority: input.priority ?? DEFAULT_PRIORITY,
        usable: v.usable,
        expires_after_days: input.expires_after_days ?? null,
        metadata: JSON.stringify(input.metadata ?? {}),
        disabled_at: null,
        created_by: actor.createdBy,
      })
      .returningAll()
      .executeTakeFirstOrThrow();
    if (r.type === 'threshold') await markBalance(tx, environmentId, r.account_id, r.currency);
    return r;
  });
  return topupView(row);
}

export async function getTopup(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('credit_topups').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('credit top-up', id);
  return topupView(row);
}

/** A page of top-up rules, oldest first. */
export async function listTopups(db: Db, environmentId: string, filter: { account_id?: string | undefined }, page: Page) {
  let q = db.selectFrom('credit_topups').where('environment_id', '=', environmentId);
  if (filter.account_id) q = q.where('account_id', '=', filter.account_id);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(topupView), total };
}

/** Disables a rule: it grants nothing more (what it granted stays). 409 when already disabled. */
export async function disableTopup(db: Db, environmentId: string, id: string, now: Date) {
  const row = await db.updateTable('credit_topups').set({ disabled_at: now, next_run_at: null }).where('environment_id', '=', environmentId).where('id', '=', id).where('disabled_at', 'is', null).returningAll().executeTakeFirst();
  if (row) return topupView(row);
  await getTopup(db, environmentId, id);
  throw new AppError('conflict', `credit top-up ${id} is already disabled`);
}

/** The account's active threshold rules in a currency (the watch reads them). */
export async function thresholdTopups(tx: Tx, accountId: string, currency: string): Promise<TopupRow[]> {
  return tx.selectFrom('credit_topups').selectAll().where('account_id', '=', accountId).where('currency', '=', currency).where('type', '=', 'threshold').where('disabled_at', 'is', null).orderBy('id').execute();
}

/** Writes the run of (rule, trigger) and its grant, once (the run's primary key). Returns the grant id, or null when that trigger already ran. */
async function grantOnce(tx: Tx, rule: TopupRow, trigger: string, amount: string, effectiveAt: Date, deps: WatchDeps): Promise<string | null> {
  const run = await tx.insertInto('credit_topup_runs').values({ topup_id: rule.id, trigger, grant_id: null }).onConflict((oc) => oc.doNothing()).returning('trigger').executeTakeFirst();
  if (!run) return null;
  const input: GrantInput = {
    account_id: rule.account_id,
    currency: rule.currency,
    kind: rule.grant_kind,
    amount,
    ...(rule.grant_kind === 'paid' && rule.price !== null ? { price: rule.price } : {}),
    priority: rule.priority,
    effective_at: effectiveAt.toISOString(),
    expires_at: rule.expires_after_days ? new Date(effectiveAt.getTime() + rule.expires_after_days * DAY_MS).toISOString() : null,
    metadata: { ...rule.metadata, topup_id: rule.id, trigger },
    usable: rule.usable,
  };
  const v = checkGrantValues(input, deps.now);
  const actor: Actor = { now: deps.now, createdBy: `topup:${rule.id}`, netDays: deps.netDays };
  const grantId = await insertGrant(tx, rule.environment_id, input, v, { idempotencyKey: `topup:${rule.id}:${trigger}`, hash: null }, actor);
  await tx.updateTable('credit_topup_runs').set({ grant_id: grantId }).where('topup_id', '=', rule.id).where('trigger', '=', trigger).execute();
  return grantId;
}

/** Pure: what a threshold rule grants when the balance is `available`: its amount, or up to its target. */
export function thresholdAmount(rule: Pick<TopupRow, 'amount' | 'target_balance' | 'currency'>, available: string): string {
  if (rule.amount !== null) return formatMoney(new Dec(rule.amount), rule.currency);
  return formatMoney(new Dec(rule.target_balance!).minus(available), rule.currency);
}

/** A threshold rule's crossing n (watch.ts): its grant, in the watch's transaction. */
export async function runThresholdTopup(tx: Tx, rule: TopupRow, crossing: number, available: string, deps: WatchDeps): Promise<string | null> {
  return grantOnce(tx, rule, `crossing:${crossing}`, thresholdAmount(rule, available), deps.now, deps);
}

/** How many due recurring rules one scheduler step handles (the next tick goes on). */
const RECURRING_BATCH = 500;

/**
 * The scheduler's recurring step: each rule whose `next_run_at` has passed grants for its
 * latest trigger at or before now (triggers missed while billing was down are not granted
 * one by one: the latest is), then moves `next_run_at` on. Returns the grants written.
 */
export async function runRecurringTopups(deps: WatchDeps): Promise<number> {
  const due = await deps.db
    .selectFrom('credit_topups')
    .select('id')
    .where('next_run_at', '<=', deps.now)
    .where('disabled_at', 'is', null)
    .orderBy('next_run_at')
    .limit(RECURRING_BATCH)
    .execute();
  let granted = 0;
  for (const { id } of due) {
    try {
      granted += await deps.db.transaction().execute(async (tx) => {
        const rule = await tx.selectFrom('credit_topups').selectAll().where('id', '=', id).where('disabled_at', 'is', null).forUpdate().executeTakeFirst();
        if (!rule || !rule.interval || !rule.next_run_at || rule.next_run_at > deps.now) return 0;
        const k = latestTrigger(rule.starts_at, rule.interval, deps.now);
        const at = triggerAt(rule.starts_at, rule.interval, k);
        const grant = await grantOnce(tx, rule, `period:${at.toISOString()}`, rule.amount!, at, deps);
        await tx.updateTable('credit_topups').set({ next_run_at: triggerAt(rule.starts_at, rule.interval, k + 1) }).where('id', '=', id).execute();
        return grant ? 1 : 0;
      });
    } catch (err) {
      log.warn('recurring top-up failed', { topup_id: id, err });
    }
  }
  return granted;
}
