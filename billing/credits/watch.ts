/**
 * The balance watch: looks at each (account, currency) whose available balance may have
 * changed (marked in `credit_watch_dirty` by triggers, migration 0012, in the transaction
 * of the change) and acts on the lines it crossed:
 *
 * - `credits.depleted` when the available balance reaches 0 (at or below it);
 * - `credits.balance_low` when it falls below the account's `low_balance_threshold`;
 * - a threshold top-up's grant when it falls below the rule's threshold (topups.ts).
 *
 * Each once per crossing: a line crossed is a `credit_crossings` row numbered per
 * (account, currency, line); the next crossing may be written only once the balance was
 * back at or above the line (`rearmed_at`). The row's unique key is the guarantee: two
 * billing processes (or a restart redoing the step) compute the same crossing number and
 * only one insert lands; the event (or grant) is written in that insert's transaction.
 *
 * Marks are appended by triggers and never locked by the watch, so billing's transactions
 * never wait for it; watchers of one balance are serialized by an advisory lock.
 *
 * Run right after an invoice is stored (generate.ts: a burn that crosses acts at once),
 * after the credits API changes a grant, and by the scheduler for anything left (a crash
 * between the change and the watch leaves the mark; nothing is lost).
 */
import { sql, type Transaction } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { Database } from '../../shared/db/schema.ts';
import { CURRENCY_MESSAGE, isCurrency } from '../../shared/currency.ts';
import { notFound } from '../../shared/db/db-errors.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/log.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { balanceAlertData } from '../webhooks/payloads.ts';
import { accountBalances, type OpenPeriod } from './ledger.ts';
import { creditAmount } from './money-input.ts';
import { checkAccountCurrency } from './grants.ts';
import { thresholdTopups, runThresholdTopup, type TopupRow } from './topups.ts';

type Tx = Transaction<Database>;
const log = logger('credit-watch');

/** First key of the balance watch's advisory locks ("tally-credit-watch"); the second is the balance's hash. */
const WATCH_LOCK_KEY = 734_190_212;

/** How many marked balances one pass looks at (the next pass goes on). */
const WATCH_BATCH = 500;
/** How many marked balances one pass of the usage watch looks at: its cost is bounded under any load (the rest wait for the next pass or the scheduler's tick). */
const USAGE_WATCH_BATCH = 100;

/** A line the available balance can cross downward. */
export interface Line {
  /** `depleted`, `balance_low`, or `topup:<rule id>`. */
  watch: string;
  /** Decimal text: below it (or, for `depleted`, at or below it) is crossed. */
  threshold: string;
}

/** Pure: whether `available` is past the line (depleted: at or below 0; others: below the threshold). */
export function isPast(line: Line, available: string): boolean {
  const a = new Dec(available);
  return line.watch === 'depleted' ? a.lte(line.threshold) : a.lt(line.threshold);
}

/**
 * The open periods of an account rated at an instant (billing/live/open-period.ts
 * `watchDeps`): the available balance the lines are compared with includes the live
 * `pending` usage, as the balance endpoint shows it, on every path that runs the watch
 * (one figure everywhere, or a line would be crossed by one path and re-armed by another).
 */
export type LiveRating = (environmentId: string, accountId: string, at: Date) => Promise<readonly OpenPeriod[]>;

/** Who runs the watch: the database, the clock, the net days of a top-up's purchase invoice, and the live rating. */
export interface WatchDeps {
  db: Db;
  now: Date;
  netDays: number;
  live: LiveRating;
}

/**
 * Looks at the marked balances (only `accountId`'s when given): each in a transaction
 * that holds the balance's advisory lock (a balance another process is looking at is left
 * to it, or to the next pass), reads the balance after the marks it saw, writes the
 * crossings, and deletes those marks. Returns how many balances it looked at.
 */
export async function watchBalances(deps: WatchDeps, accountId?: string, limit = WATCH_BATCH): Promise<number> {
  let q = deps.db.selectFrom('credit_watch_dirty').select(['account_id', 'currency']).distinct().orderBy('account_id').orderBy('currency').limit(limit);
  if (accountId) q = q.where('account_id', '=', accountId);
  let seen = 0;
  for (const mark of await q.execute()) {
    try {
      if (await deps.db.transaction().execute((tx) => watchOne(tx, deps, mark.account_id, mark.currency))) seen++;
    } catch (err) {
      // The marks stay: the next pass tries again.
      log.warn('credit balance watch failed', { account_id: mark.account_id, currency: mark.currency, err });
    }
  }
  return seen;
}

/** One balance: lock it, take its marks, read it, cross or re-arm each line. False when another process has it or nothing is marked. */
async function watchOne(tx: Tx, deps: WatchDeps, accountId: string, currency: string): Promise<boolean> {
  const locked = await sql<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(${WATCH_LOCK_KEY}, hashtext(${`${accountId}/${currency}`})) AS ok`.execute(tx);
  if (!locked.rows[0]?.ok) return false;
  // The marks seen now: their changes are committed, so the balance read after them includes them.
  const marks = await tx.selectFrom('credit_watch_dirty').select(['id', 'environment_id']).where('account_id', '=', accountId).where('currency', '=', currency).execute();
  if (marks.length === 0) return false;
  const environmentId = marks[0]!.environment_id;
  const setting = await tx.selectFrom('credit_settings').select('low_balance_threshold').where('account_id', '=', accountId).where('currency', '=', currency).executeTakeFirst();
  const rules = await thresholdTopups(tx, accountId, currency);
  // A top-up raises the balance in this transaction: the lines are looked at again with it (re-armed when it is back above them).
  for (let pass = 0; pass < 2; pass++) {
    const toppedUp = await watchLines(tx, deps, { environmentId, accountId, currency }, setting?.low_balance_threshold ?? null, rules);
    if (!toppedUp) break;
  }
  await tx.deleteFrom('credit_watch_dirty').where('id', 'in', marks.map((m) => m.id)).execute();
  return true;
}

/** Compares the balance now with each line; returns whether a top-up was granted. */
async function watchLines(tx: Tx, deps: WatchDeps, key: { environmentId: string; accountId: string; currency: string }, lowThreshold: string | null, rules: readonly TopupRow[]): Promise<boolean> {
  const { environmentId, accountId, currency } = key;
  const balance = (await accountBalances(tx, environmentId, accountId, deps.now, () => deps.live(environmentId, accountId, deps.now), undefined, { availableOnly: true })).find((b) => b.currency === currency);
  const zero = formatMoney(new Dec(0), currency);
  // No grant in the currency yet: nothing to alert on, but a threshold top-up sees a balance of 0.
  const available = balance?.available ?? zero;
  const alerts: Line[] = balance ? [{ watch: 'depleted', threshold: zero }] : [];
  if (balance && lowThreshold !== null) alerts.push({ watch: 'balance_low', threshold: formatMoney(new Dec(lowThreshold), currency) });
  const where = { ...key, available, now: deps.now };
  for (const line of alerts) {
    const crossing = await crossOrRearm(tx, where, line);
    if (crossing !== null) {
      const event = line.watch === 'depleted' ? 'credits.depleted' : 'credits.balance_low';
      await emitWebhookEvent(tx, environmentId, event, balanceAlertData({ account_id: accountId, currency, available, threshold: line.threshold, crossing, crossed_at: deps.now }), deps.now);
    }
  }
  let toppedUp = false;
  for (const rule of rules) {
    const crossing = await crossOrRearm(tx, where, { watch: `topup:${rule.id}`, threshold: formatMoney(new Dec(rule.threshold!), currency) });
    if (crossing !== null && (await runThresholdTopup(tx, rule, crossing, available, deps))) toppedUp = true;
  }
  return toppedUp;
}

/** The balance a line is compared with. */
interface Where {
  environmentId: string;
  accountId: string;
  currency: string;
  available: string;
  now: Date;
}

/**
 * Writes crossing n+1 of a line when the balance is past it and the last crossing was
 * re-armed (or there is none): returns n+1, or null when nothing was crossed (not past, or
 * still past since the last crossing, or another process wrote it). Re-arms the last
 * crossing when the balance is back.
 */
export async function crossOrRearm(tx: Tx, w: Where, line: Line): Promise<number | null> {
  const last = await tx
    .selectFrom('credit_crossings')
    .select(['id', 'crossing', 'rearmed_at'])
    .where('account_id', '=', w.accountId)
    .where('currency', '=', w.currency)
    .where('watch', '=', line.watch)
    .orderBy('crossing', 'desc')
    .limit(1)
    .executeTakeFirst();
  if (!isPast(line, w.available)) {
    if (last && last.rearmed_at === null) await tx.updateTable('credit_crossings').set({ rearmed_at: w.now }).where('id', '=', last.id).execute();
    return null;
  }
  if (last && last.rearmed_at === null) return null;
  const crossing = (last?.crossing ?? 0) + 1;
  const row = await tx
    .insertInto('credit_crossings')
    .values({ id: newId('ccx'), environment_id: w.environmentId, account_id: w.accountId, currency: w.currency, watch: line.watch, crossing, threshold: line.threshold, available: w.available, crossed_at: w.now, rearmed_at: null })
    .onConflict((oc) => oc.constraint('credit_crossings_once').doNothing())
    .returning('crossing')
    .executeTakeFirst();
  return row ? row.crossing : null;
}

/**
 * Marks for the watch the balances of these accounts (new usage: their `pending` grew)
 * that have a line to cross: a grant (depleted), a low-balance threshold or an active
 * threshold top-up in the currency; a balance already marked is not marked twice.
 * Returns how many it marked.
 */
export async function markUsedBalances(db: Db, environmentId: string, accountIds: readonly string[]): Promise<number> {
  if (accountIds.length === 0) return 0;
  const ids = [...accountIds];
  const res = await sql`
    INSERT INTO credit_watch_dirty (account_id, currency, environment_id)
    SELECT l.account_id, l.currency, ${environmentId} FROM (
      SELECT account_id, currency FROM credit_grants WHERE environment_id = ${environmentId} AND account_id = ANY(${ids}::text[])
      UNION SELECT account_id, currency FROM credit_settings WHERE environment_id = ${environmentId} AND account_id = ANY(${ids}::text[])
      UNION SELECT account_id, currency FROM credit_topups WHERE environment_id = ${environmentId} AND account_id = ANY(${ids}::text[]) AND type = 'threshold' AND disabled_at IS NULL
    ) l
    WHERE NOT EXISTS (SELECT 1 FROM credit_watch_dirty d WHERE d.account_id = l.account_id AND d.currency = l.currency)`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}

/** Marks a balance for the watch (a threshold or a rule changed: the lines are looked at again). */
export async function markBalance(db: Db | Tx, environmentId: string, accountId: string, currency: string): Promise<void> {
  await db.insertInto('credit_watch_dirty').values({ account_id: accountId, currency, environment_id: environmentId }).execute();
}

/** An account's credit settings in one currency as both families show them. */
export interface CreditSettingView {
  account_id: string;
  currency: string;
  low_balance_threshold: string | null;
}

/** An account's credit settings, one per currency that has one. 404 for an unknown account. */
export async function listCreditSettings(db: Db, environmentId: string, accountId: string): Promise<CreditSettingView[]> {
  await accountOf(db, environmentId, accountId);
  const rows = await db.selectFrom('credit_settings').selectAll().where('account_id', '=', accountId).orderBy('currency').execute();
  return rows.map((r) => ({ account_id: r.account_id, currency: r.currency, low_balance_threshold: formatMoney(new Dec(r.low_balance_threshold), r.currency) }));
}

async function accountOf(db: Db, environmentId: string, accountId: string): Promise<void> {
  const a = await db.selectFrom('accounts').select('id').where('environment_id', '=', environmentId).where('id', '=', accountId).executeTakeFirst();
  if (!a) throw notFound('account', accountId);
}

/**
 * Sets (or, with null, removes) an account's `low_balance_threshold` in a currency; the
 * balance is looked at again at once (a balance already below a new threshold alerts).
 */
export async function setLowBalanceThreshold(db: Db, environmentId: string, accountId: string, input: { currency: string; low_balance_threshold: string | number | null }, actor: { createdBy: string | null; now: Date }): Promise<CreditSettingView> {
  await accountOf(db, environmentId, accountId);
  if (!isCurrency(input.currency)) throw new AppError('validation_failed', `currency ${CURRENCY_MESSAGE}`, { details: [{ path: 'currency', message: `currency ${CURRENCY_MESSAGE}` }] });
  const currency = input.currency.toUpperCase();
  await checkAccountCurrency(db, environmentId, accountId, currency);
  let threshold: string | null = null;
  if (input.low_balance_threshold !== null) {
    const m = creditAmount(input.low_balance_threshold, currency, 'low_balance_threshold');
    if ('problem' in m) throw new AppError('validation_failed', m.problem, { details: [{ path: 'low_balance_threshold', message: m.problem }] });
    threshold = m.value;
  }
  await db.transaction().execute(async (tx) => {
    if (threshold === null) {
      await tx.deleteFrom('credit_settings').where('account_id', '=', accountId).where('currency', '=', currency).execute();
    } else {
      await tx
        .insertInto('credit_settings')
        .values({ account_id: accountId, currency, environment_id: environmentId, low_balance_threshold: threshold, updated_by: actor.createdBy, updated_at: actor.now })
        .onConflict((oc) => oc.columns(['account_id', 'currency']).doUpdateSet({ low_balance_threshold: threshold, updated_by: actor.createdBy, updated_at: actor.now }))
        .execute();
    }
    // A new line starts with its own crossings: the last crossing of the old one is re-armed.
    await tx.updateTable('credit_crossings').set({ rearmed_at: actor.now }).where('account_id', '=', accountId).where('currency', '=', currency).where('watch', '=', 'balance_low').where('rearmed_at', 'is', null).execute();
    await markBalance(tx, environmentId, accountId, currency);
  });
  return { account_id: accountId, currency, low_balance_threshold: threshold };
}

/**
 * The watch of live usage: the accounts with new events stored (`touched`, from the live
 * usage cache's poll, usage-cache.ts) are marked every `intervalMs` when they have a line
 * to cross (`markUsedBalances`), and the marked balances are looked at with their live
 * `pending`: an alert or a threshold top-up fires as agents work, not only when an
 * invoice burns. Each crossing once, as for every other path of the watch. A pass looks
 * at most USAGE_WATCH_BATCH balances: under a load that touches more accounts than that
 * a pass, the marks wait (once each) for the next passes and the scheduler's tick.
 */
export function startUsageWatch(deps: () => WatchDeps, intervalMs: number): { touched: (environmentId: string, accountIds: readonly string[]) => void; loop: Loop } {
  let pending = new Map<string, Set<string>>();
  // The last pass looked at as many balances as it may: marks may be left for the next.
  let more = false;
  const touched = (environmentId: string, accountIds: readonly string[]) => {
    let set = pending.get(environmentId);
    if (!set) pending.set(environmentId, (set = new Set()));
    for (const id of accountIds) set.add(id);
  };
  const loop = startLoop({
    name: 'credit-usage-watch',
    intervalMs,
    run: async () => {
      const batch = pending;
      pending = new Map();
      const d = deps();
      let marked = 0;
      try {
        for (const [env, ids] of batch) marked += await markUsedBalances(d.db, env, [...ids]);
      } catch (err) {
        for (const [env, ids] of batch) touched(env, [...ids]);
        throw err;
      }
      if (marked > 0 || more) more = (await watchBalances(d, undefined, USAGE_WATCH_BATCH)) >= USAGE_WATCH_BATCH;
    },
  });
  return { touched, loop };
}
