/**
 * The credit ledger as the API reads it (entries, balances) and the scheduler's expiry
 * step. Entries are written by grants.ts and invoice-credits.ts, never updated.
 */
import { sql, type Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { CreditEntriesTable, CreditEntryType, CreditScope } from '../../shared/db/schema.ts';
import { inScope, type CreditableLine } from './allocate.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { formatMoney, Dec } from '../rating/money.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { creditsEventData } from '../webhooks/payloads.ts';
import { balanceAt, type Balance, type LiveCharge, type LiveInput } from './balance.ts';
import { remainingOf } from './invoice-credits.ts';
import { nextPeriodOf } from '../invoicing/generate.ts';
import { loadSubject } from '../invoicing/rate-subscription.ts';
import { billableSegments } from '../invoicing/segments.ts';
import { periodContaining, toEpochMs } from '../rating/periods.ts';

type EntryRow = Selectable<CreditEntriesTable>;

/** One ledger entry as both families show it. */
export function entryView(e: EntryRow) {
  return {
    id: e.id,
    entry_id: e.id,
    account_id: e.account_id,
    currency: e.currency,
    grant_id: e.grant_id,
    type: e.type,
    amount: formatMoney(new Dec(e.amount), e.currency),
    invoice_id: e.invoice_id,
    reason: e.reason,
    created_by: e.created_by,
    occurred_at: iso(e.occurred_at),
    created_at: iso(e.created_at),
  };
}

/** Filters of the ledger list. */
export interface EntryFilter {
  account_id?: string | undefined;
  grant_id?: string | undefined;
  type?: CreditEntryType | undefined;
  invoice_id?: string | undefined;
  /** occurred_at >= from */
  from?: Date | undefined;
  /** occurred_at < to */
  to?: Date | undefined;
}

/** A page of entries in the order they were written. */
export async function listEntries(db: Db, environmentId: string, f: EntryFilter, page: Page) {
  let q = db.selectFrom('credit_entries').where('environment_id', '=', environmentId);
  if (f.account_id) q = q.where('account_id', '=', f.account_id);
  if (f.grant_id) q = q.where('grant_id', '=', f.grant_id);
  if (f.type) q = q.where('type', '=', f.type);
  if (f.invoice_id) q = q.where('invoice_id', '=', f.invoice_id);
  if (f.from) q = q.where('occurred_at', '>=', f.from);
  if (f.to) q = q.where('occurred_at', '<', f.to);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('seq'));
  return { rows: rows.map(entryView), total };
}

/** An open period as the live balance needs it (billing/live/open-period.ts gives them). */
export interface OpenPeriod extends Omit<LiveCharge, 'period_end'> {
  currency: string;
  period: { end: string };
  /** A draft already generated for this period: its holds are superseded by the live figure. */
  draft_invoice_id: string | null;
}

/**
 * An account's balance per currency at `at` (default now): one entry per currency it has
 * grants in, sorted by currency (balance.ts says how each figure is computed). With
 * `openPeriods` (the live balance: asked at once, with the ledger), `pending`
 * and `pending_covered` are computed from them, and the holds of drafts of those open
 * periods are left out of `held` (the live figure replaces them; drafts of closed
 * periods keep theirs). With `forAgent` (an agent's own balance: its subscriptions and
 * the charges of their plans), `available` counts only the grants that may pay for its
 * usage ({@link paysForAgent}). With `availableOnly` (the balance watch, the limit
 * evaluator's `available_balance`, an agent's own balance: only `available` is read), the
 * open periods are not rated when the credits could pay nothing of them (`pending` and
 * `pending_covered` are then null; `available` is the same figure).
 *
 * `openPeriods` is asked with `needed`, which resolves once the ledger is read: false when
 * the answer has no balance to put them in (an unknown account, or one without grants),
 * so the open periods' Postgres read may overlap the ledger's but their usage query and
 * rating can be skipped (open-period.ts `needed`).
 */
export async function accountBalances(
  db: Db,
  environmentId: string,
  accountId: string,
  at: Date,
  openPeriods?: (needed: Promise<boolean>) => Promise<readonly OpenPeriod[]>,
  forAgent?: AgentScope,
  opts: { availableOnly?: boolean } = {},
): Promise<Balance[]> {
  // The live balance's open periods are loaded while the ledger is read, and rated only if
  // the ledger has a balance to show them in (`needed`); availableOnly's only once the
  // ledger says the credits may pay some of them.
  let ledgerRead!: (hasGrants: boolean) => void;
  const needed = new Promise<boolean>((r) => (ledgerRead = r));
  const early = openPeriods && !opts.availableOnly ? openPeriods(needed) : undefined;
  early?.catch(() => {}); // awaited below, unless the account is unknown
  // The ledger in one round trip: the account, its grants, its entries summed per grant and
  // type in Postgres (the balance is their sum: no row per entry crosses the wire), and
  // what drafts hold.
  const ledger = Promise.all([
    db.selectFrom('accounts').select('id').where('environment_id', '=', environmentId).where('id', '=', accountId).executeTakeFirst(),
    db
      .selectFrom('credit_grants')
      .select(['id', 'currency', 'expires_at', 'voided_at', 'priority', 'created_at', 'effective_at', 'usable_at', 'scope'])
      .where('environment_id', '=', environmentId)
      .where('account_id', '=', accountId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('credit_entries')
      .select(['grant_id', 'currency', 'type', sql<string>`sum(amount)::text`.as('amount')])
      .where('account_id', '=', accountId)
      .where('occurred_at', '<=', at)
      .groupBy(['grant_id', 'currency', 'type'])
      .execute(),
    db
      .selectFrom('credit_applications as a')
      .innerJoin('invoices as i', 'i.id', 'a.invoice_id')
      .select(['a.grant_id', 'a.invoice_id', 'a.amount', 'i.period_end'])
      .where('i.account_id', '=', accountId)
      .where('i.status', '=', 'draft')
      .execute(),
  ]);
  ledger.then(([a, g]) => ledgerRead(a !== undefined && g.length > 0), () => ledgerRead(false));
  const [account, grants, entries, heldRows] = await ledger;
  if (!account) throw notFound('account', accountId);
  if (grants.length === 0) return [];
  const open = early ? await early : openPeriods && mayPayOpenPeriods(entries, heldRows, at) ? await openPeriods(needed) : undefined;
  const superseded = new Set((open ?? []).map((o) => o.draft_invoice_id).filter((id) => id !== null));
  const heldMap = new Map<string, string>();
  for (const h of heldRows) if (!superseded.has(h.invoice_id)) heldMap.set(h.grant_id, new Dec(heldMap.get(h.grant_id) ?? 0).plus(h.amount).toFixed());
  const keptBy = (draftId: string | null) => (draftId ? heldRows.filter((h) => h.invoice_id === draftId).map((h) => h.grant_id) : []);
  const currencies = [...new Set(grants.map((g) => g.currency))].sort();
  return currencies.map((c) => {
    const mine = grants.filter((g) => g.currency === c);
    const live: LiveInput | undefined = open && {
      charges: open.filter((o) => o.currency === c).map((o) => ({ period_end: new Date(o.period.end), subscription_id: o.subscription_id, total: o.total, lines: o.lines, kept_grants: keptBy(o.draft_invoice_id) })),
      grants: mine,
    };
    return balanceAt(
      c,
      mine,
      entries.filter((e) => e.currency === c).map((e) => ({ grant_id: e.grant_id, type: e.type, amount: e.amount, invoice_id: null, occurred_at: at })),
      heldMap,
      at,
      live,
      forAgent && new Set(mine.filter((g) => paysForAgent(g.scope, forAgent)).map((g) => g.id)),
    );
  });
}

/** What an agent's usage is billed on: the subscriptions that list it, and the charges of their plans. */
export interface AgentScope {
  subscriptionIds: readonly string[];
  charges: readonly Pick<CreditableLine, 'charge_id' | 'product_id' | 'unit'>[];
}

/**
 * Whether a grant may pay for an agent's usage: not scoped to another subscription than
 * the agent's, and, when it names charges, products or units, naming one of its
 * subscriptions' charges (allocate.ts `inScope`). An unscoped grant pays for any.
 */
export function paysForAgent(scope: CreditScope | null, agent: AgentScope): boolean {
  if (scope?.subscription_id && !agent.subscriptionIds.includes(scope.subscription_id)) return false;
  if (!scope || [scope.charge_ids, scope.product_ids, scope.units].every((l) => !l?.length)) return true;
  return agent.charges.some((c) => inScope(scope, c));
}

/**
 * Whether the open periods' live rating can change an `available` figure: some grant has
 * credit left (the sum of its entries above what drafts hold), or a draft of a period not
 * ended yet holds some (the live figure replaces its hold). Otherwise the credits pay
 * nothing of the open periods and `available` is the ledger's alone.
 */
function mayPayOpenPeriods(entries: readonly { grant_id: string; amount: string }[], held: readonly { grant_id: string; amount: string; period_end: Date }[], at: Date): boolean {
  if (held.some((h) => h.period_end > at)) return true;
  const left = new Map<string, Dec>();
  for (const e of entries) left.set(e.grant_id, (left.get(e.grant_id) ?? new Dec(0)).plus(e.amount));
  for (const h of held) left.set(h.grant_id, (left.get(h.grant_id) ?? new Dec(0)).minus(h.amount));
  return [...left.values()].some((d) => d.gt(0));
}

/** How many grants one expiry step handles (the next tick goes on). */
const EXPIRY_BATCH = 500;

/**
 * The scheduler's expiry step: for each grant past its `expires_at` whose expiry is not
 * written yet, writes an `expiry` entry of what is left of it (less what drafts hold,
 * which stays theirs), dated at the expiry instant, and its `credits.expired` event.
 * Idempotent: the entry is unique per grant (constraint), and the grant is marked
 * (`expiry_written_at`) in the same transaction. Returns how many entries it wrote.
 *
 * An expiry is written only once every subscription the grant may pay for (of its account,
 * in its currency, within its scope) has its invoices generated for every billable period
 * ending at or before the expiry instant: a generation that failed or was capped in the
 * same tick, or an on-demand generate after it, still burns the grant first.
 */
export async function expireGrants(db: Db, now: Date): Promise<number> {
  const due = await db
    .selectFrom('credit_grants')
    .select('id')
    .where('expires_at', '<=', now)
    .where('expiry_written_at', 'is', null)
    .orderBy('expires_at')
    .limit(EXPIRY_BATCH)
    .execute();
  let written = 0;
  for (const { id } of due) {
    written += await db.transaction().execute(async (tx) => {
      const g = await tx.selectFrom('credit_grants').selectAll().where('id', '=', id).where('expiry_written_at', 'is', null).forUpdate().executeTakeFirst();
      if (!g || !g.expires_at) return 0;
      // Invoices of periods ending by the expiry burn first: wait until they are generated.
      if (await generationPending(db, g)) return 0;
      await tx.updateTable('credit_grants').set({ expiry_written_at: now }).where('id', '=', id).execute();
      const left = (await remainingOf(tx, [id], null)).get(id)!;
      if (g.voided_at || left.lte(0)) return 0;
      const entry = await tx
        .insertInto('credit_entries')
        .values({ id: newId('cle'), environment_id: g.environment_id, account_id: g.account_id, currency: g.currency, grant_id: id, type: 'expiry', amount: left.neg().toFixed(), invoice_id: null, reason: 'expired', created_by: null, occurred_at: g.expires_at })
        .onConflict((oc) => oc.doNothing())
        .returningAll()
        .executeTakeFirst();
      if (!entry) return 0;
      await emitWebhookEvent(tx, g.environment_id, 'credits.expired', creditsEventData(g, entry), now);
      return 1;
    });
  }
  return written;
}

/** How many periods of one subscription {@link generationPending} looks at (a bound, never reached by a term of 10 years of months). */
const MAX_PENDING_PERIODS = 240;

/** Whether a subscription the grant may pay for has a billable period ending by its expiry with no invoice yet. */
async function generationPending(db: Db, g: { environment_id: string; account_id: string; currency: string; expires_at: Date | null; scope: { subscription_id?: string } | null }): Promise<boolean> {
  if (!g.expires_at) return false;
  const expiry = g.expires_at.getTime();
  let q = db
    .selectFrom('subscriptions as s')
    .innerJoin('rate_plans as p', 'p.id', 's.rate_plan_id')
    .leftJoin(
      (eb) => eb.selectFrom('invoices').select(['subscription_id', (e) => e.fn.max('period_end').as('invoiced_to')]).where('kind', '=', 'invoice').groupBy('subscription_id').as('i'),
      (join) => join.onRef('i.subscription_id', '=', 's.id'),
    )
    .select(['s.id', 's.contract_effective_date', 'i.invoiced_to'])
    .where('s.environment_id', '=', g.environment_id)
    .where('s.account_id', '=', g.account_id)
    .where('s.status', '!=', 'draft')
    .where(sql`upper(p.currency)`, '=', g.currency);
  if (g.scope?.subscription_id) q = q.where('s.id', '=', g.scope.subscription_id);
  for (const sub of await q.execute()) {
    const from = toEpochMs(sub.invoiced_to ?? sub.contract_effective_date);
    const subject = await loadSubject(db, g.environment_id, sub.id);
    let p = periodContaining(from, subject.cycleAt(from));
    for (let n = 0; n < MAX_PENDING_PERIODS && toEpochMs(p.end) <= expiry; n++, p = nextPeriodOf(subject, p)) {
      if (billableSegments(subject.changes, p).length > 0) return true;
    }
  }
  return false;
}
