/**
 * The spend-limit evaluator (billing role): keeps `spend_limit_states` current and fires
 * each limit's alerts once, then pushes the reached `flag`/`block` limits to every ingest
 * process (shared/limits/state.ts).
 *
 * Which limits are evaluated on a pass (only those that may have changed):
 * - those of the accounts and agent instances (and environments) with new usage: the live
 *   tail (billing/live/tail.ts) names them as soon as it reads their events from the stream,
 *   whatever the sink's lag, and again once the sink has stored them;
 * - those created or changed since the last pass (`updated_at`);
 * - every limit whose period ended, and every reached available-balance limit: the
 *   period's reset or a new credit grant unblocks on the next pass (raising a limit is a
 *   change, above; usage only grows within a period, so other reached limits wait);
 * - all of them on the first pass, on a new events stream, and every `fullPassMs` (anything
 *   else missed: a voided grant, a subscription change).
 *
 * Money is rated by the open period's own rating (billing/live/open-period.ts
 * `openPeriodCharges`, the invoice's path; the available balance through
 * `accountBalances` with it), quantities by the usage query; both read usage through the
 * live tail: ClickHouse (cached) plus the events the sink has not stored yet.
 *
 * What it reads when nothing changed: one row, the limit version (migration 0020,
 * {@link LimitVersion}); the reached set and the limits due are read again only when it
 * moved (issue 32: reading them 14 times a second cost the billing process and Postgres
 * ~0.18 of a core with 10,000 limits, taken from ingest on shared cores).
 *
 * TRICKY: alerts are exactly once per (limit, period, threshold, limit value) by the
 * database (`spend_limit_alerts_once`, migration 0019: a raised limit alerts again), each
 * inserted in the transaction that writes its webhook event (the outbox). Two evaluators
 * (two billing processes, or a restart redoing a pass) race harmlessly: one insert wins.
 */
import { sql, type Transaction } from 'kysely';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Db } from '../../shared/db/postgres.ts';
import type { Database } from '../../shared/db/schema.ts';
import { MAX_EVENT_AGE_MS, MAX_EVENT_FUTURE_MS } from '../../shared/events/limits.ts';
import { newId } from '../../shared/ids.ts';
import { encodeLimitState, limitsDigest, type LimitState, type ReachedLimit } from '../../shared/limits/state.ts';
import { logger } from '../../shared/log.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import type { NatsNames } from '../../shared/nats/names.ts';
import { accountBalances } from '../credits/ledger.ts';
import type { Invoicing } from '../invoicing/context.ts';
import { billableSubscriptionIds } from '../invoicing/generate.ts';
import { inlineRater } from '../invoicing/rater.ts';
import { loadSubject } from '../invoicing/rate-subscription.ts';
import { openPeriodCharges, type OpenPeriodCharge, type RatingCheck } from '../live/open-period.ts';
import type { UsageSource } from '../invoicing/context.ts';
import { creditsCoverMonotonically, ratesMonotonically } from './monotone.ts';
import type { LiveUsage } from '../live/tail.ts';
import type { UsageQuery, UsageRow } from '../usage/usage-query.ts';
import { periodContaining, type Period } from '../rating/index.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { countLimitStates } from './metrics.ts';
import { alertsFor, calendarMonth, calendarWindow, isReached, QUANTITY_UNITS, type QuantityUnit } from './model.ts';
import type { LimitRow } from './store.ts';

const log = logger('spend-limits');
type Tx = Transaction<Database>;

export interface EvaluatorConfig {
  /** Pause between passes (TALLY_LIMIT_EVAL_INTERVAL_MS). */
  intervalMs: number;
  /** Every limit is evaluated at least this often (TALLY_LIMIT_FULL_PASS_MS). */
  fullPassMs: number;
  /** The state is published at least this often, changed or not (TALLY_LIMIT_STATE_HEARTBEAT_MS). */
  heartbeatMs: number;
}

export interface EvaluatorDeps {
  db: Db;
  invoicing: Invoicing;
  /** The process's live usage (its `onTouched` and `onReset` drive the passes). */
  live: LiveUsage;
  nc: NatsConnection;
  names: NatsNames;
}

/** How often the gauges of limits near, at and over are counted again when nothing changed. */
const COUNT_INTERVAL_MS = 5000;

/**
 * After the limit version (migration 0020) moves, it is read again with the rows it
 * guards for this long: its bump runs at commit, an instant before the rows are visible.
 */
export const VERSION_SETTLE_MS = 1000;
/** The reached set is read from Postgres at least this often, whatever the version says (a safety net). */
export const RESYNC_MS = 10_000;

/**
 * Postgres's spend-limit version (migration 0020): a sequence bumped at commit by every
 * change to a limit and every change of a state's `reached` or period. Reading it is one
 * row; a reader whose last read of the rows was at the version read now, with the version
 * unmoved for {@link VERSION_SETTLE_MS}, has nothing new to read (issue 32: the heartbeat
 * read the whole reached set, and every pass joined every state with its limit, whatever
 * changed).
 */
export class LimitVersion {
  #value: string | undefined;
  #movedAt = 0;
  constructor(private readonly db: Db) {}

  /** Reads the version now. */
  async read(): Promise<string> {
    const r = await sql<{ v: string }>`SELECT last_value::text AS v FROM spend_limit_version`.execute(this.db);
    const v = r.rows[0]!.v;
    if (v !== this.#value) {
      this.#value = v;
      this.#movedAt = Date.now();
    }
    return v;
  }

  /** Whether rows read at version `seen` may be out of date now (it moved since, or moved within the settle time). */
  moved(seen: string | undefined): boolean {
    return seen !== this.#value || Date.now() - this.#movedAt < VERSION_SETTLE_MS;
  }
}

/** How many limits are evaluated at once. */
const CONCURRENCY = 8;

/** A limit's period and current value at an instant. */
interface Measured {
  period: Period;
  current: string;
}

/** The billing period of an account at `now`: its first billable subscription's, else the calendar month. */
async function billingPeriod(inv: Invoicing, environmentId: string, accountId: string | null, now: Date): Promise<Period> {
  const ids = accountId ? await billableSubscriptionIds(inv.db, environmentId, accountId) : [];
  if (ids.length === 0) return calendarMonth(now);
  const subject = await loadSubject(inv.db, environmentId, ids[0]!);
  return periodContaining(now, subject.cycleAt(now.getTime()));
}

/** The account an agent instance bills to (null: none). */
async function agentAccount(db: Db, agentInstanceId: string): Promise<string | null> {
  const r = await db.selectFrom('agent_instances').select('account_id').where('id', '=', agentInstanceId).executeTakeFirst();
  return r?.account_id ?? null;
}

/**
 * The accounts an agent instance's spend is billed to in its open period: its account, and
 * any account its events of that period were stored with (an agent moved to another
 * account mid-period: what the first account bills for it still counts).
 */
async function agentAccounts(inv: Invoicing, l: LimitRow, now: Date): Promise<string[]> {
  const current = await agentAccount(inv.db, l.agent_instance_id!);
  const period = await billingPeriod(inv, l.environment_id, current, now);
  const rows = await inv.usage.query({ environmentId: l.environment_id, from: new Date(period.start), to: new Date(period.end), groupBy: 'account', agentInstanceIds: [l.agent_instance_id!] });
  const ids = new Set(rows.map((r) => r.account_id).filter((a): a is string => !!a));
  if (current) ids.add(current);
  return [...ids].sort();
}

/** A spend limit's figure: what the open periods of `accounts` bill (for its agent instance, or whole), rated as the invoice rates them. */
async function spendOf(inv: Invoicing, l: LimitRow, accounts: readonly string[], now: Date, check?: RatingCheck): Promise<Measured> {
  const charges = (await Promise.all(accounts.map((a) => openPeriodCharges(inv, l.environment_id, a, { now, currency: l.currency!, ...(check ? { check } : {}) })))).flat();
  // The whole period, invoiced or not (an invoice issued mid-period does not reset spend).
  const total = charges.reduce((s, c) => s.plus(l.scope === 'agent_instance' ? (c.agent_totals[l.agent_instance_id!] ?? 0) : c.period_total), new Dec(0));
  const period = charges.length > 0 ? charges.reduce((p, c) => (c.period.end < p.end ? c.period : p), charges[0]!.period) : calendarMonth(now);
  return { period, current: formatMoney(total, l.currency!) };
}

/** An available-balance limit's figure: the account's available credit balance with its open periods (`open`) rated live. */
async function balanceOf(inv: Invoicing, l: LimitRow, now: Date, open: () => Promise<OpenPeriodCharge[]>): Promise<Measured> {
  // Only `available` is read: the open periods are rated only when the credits may pay some of them.
  const balances = await accountBalances(inv.db, l.environment_id, l.account_id!, now, open, undefined, { availableOnly: true });
  const b = balances.find((x) => x.currency === l.currency);
  return { period: await billingPeriod(inv, l.environment_id, l.account_id, now), current: b?.available ?? formatMoney(new Dec(0), l.currency!) };
}

/** Measures one limit now: money by the open period's rating, quantities by the usage query. */
export async function measure(inv: Invoicing, l: LimitRow, now: Date): Promise<Measured> {
  if (l.metric === 'spend') {
    // An agent instance's spend: what the open periods of the accounts billing its events bill for it (agent-spend.ts).
    const accounts = l.scope === 'agent_instance' ? await agentAccounts(inv, l, now) : [l.account_id!];
    return spendOf(inv, l, accounts, now);
  }
  if (l.metric === 'available_balance') return balanceOf(inv, l, now, () => openPeriodCharges(inv, l.environment_id, l.account_id!, { now }));
  const accountId = l.scope === 'account' ? l.account_id : l.scope === 'agent_instance' ? await agentAccount(inv.db, l.agent_instance_id!) : null;
  const period = l.window === 'billing_period' ? await billingPeriod(inv, l.environment_id, accountId, now) : calendarWindow(l.window, now);
  // A day or week counts the events that arrived in it, whatever their timestamps (backdated ones included: they
  // are billed, and a runaway agent must not slip past by dating its events back); a billing period by event time, as billed.
  const byArrival = l.window !== 'billing_period';
  const rows = await inv.usage.query({
    environmentId: l.environment_id,
    from: new Date(Date.parse(period.start) - (byArrival ? MAX_EVENT_AGE_MS : 0)),
    to: new Date(Date.parse(period.end) + (byArrival ? MAX_EVENT_FUTURE_MS : 0)),
    ...(byArrival ? { ingestedFrom: new Date(period.start), ingestedBefore: new Date(period.end) } : {}),
    groupBy: 'none',
    ...(l.scope === 'account' ? { accountIds: [l.account_id!] } : {}),
    ...(l.scope === 'agent_instance' ? { agentInstanceIds: [l.agent_instance_id!] } : {}),
  });
  const field = QUANTITY_UNITS[l.unit as QuantityUnit];
  return { period, current: rows[0]?.[field] ?? '0' };
}

/** A bound measurement that cannot prove its figure a bound: the normal pass measures the limit. */
export class NotBounded extends Error {
  override readonly name = 'NotBounded';
}

/** A usage source answering from the live usage's lower bounds only (LiveUsage.lowerBound), and throwing {@link NotBounded} where it has none. */
export function lowerBoundUsage(live: Pick<LiveUsage, 'lowerBound'>, ids: 'verified' | 'unpoisoned' = 'verified'): UsageSource {
  return {
    query: async (q) => {
      const rows = live.lowerBound(q, ids);
      if (!rows) throw new NotBounded('live usage has no lower bound of this query');
      return rows;
    },
    firstSeenUsers: async () => {
      throw new NotBounded('distinct users have no lower bound');
    },
  };
}

/** Stops a rating that a lower bound of usage would not bound (monotone.ts). */
const monotonic: RatingCheck = (segments) => {
  if (!ratesMonotonically(segments)) throw new NotBounded('the open period is not rated monotonically in usage');
};

/**
 * Measures an account's money limit as the fast pass does (`inv.usage` answering lower
 * bounds of usage, {@link lowerBoundUsage}): a lower bound of its spend, or an upper bound
 * of its available balance, rated by the same path as {@link measure}; so the limit is
 * reached if the figure reaches it. Throws {@link NotBounded} where that is not proven
 * (monotone.ts: volume pricing, several segments in the period, scoped or voided grants,
 * distinct users; an agent instance's spend, whose share of lines rated from all agents'
 * usage is not monotonic in its own).
 */
export async function measureMoneyBound(inv: Invoicing, l: LimitRow, now: Date): Promise<Measured> {
  if (l.scope !== 'account' || (l.metric !== 'spend' && l.metric !== 'available_balance')) throw new NotBounded('only account money limits are bounded');
  if (l.metric === 'spend') return spendOf(inv, l, [l.account_id!], now, monotonic);
  const measured = await balanceOf(inv, l, now, async () => {
    const charges = await openPeriodCharges(inv, l.environment_id, l.account_id!, { now, check: monotonic });
    if (!creditsCoverMonotonically([], l.currency!, charges.filter((c) => c.currency === l.currency).map((c) => c.period.end))) throw new NotBounded('open periods of several ends');
    return charges;
  });
  // Read after the balance's own read: grants are never deleted nor their scope changed, so every grant it saw is here (a void since too).
  const grants = await inv.db.selectFrom('credit_grants').select(['currency', 'scope', 'voided_at']).where('environment_id', '=', l.environment_id).where('account_id', '=', l.account_id!).execute();
  if (!creditsCoverMonotonically(grants, l.currency!, [])) throw new NotBounded('scoped or voided grants');
  return measured;
}

/** Chunk of scopes per grouped usage query. */
const GROUP_CHUNK = 1000;

/**
 * Measures quantity limits of one environment, scope (account or agent instance) and
 * calendar window (day, week) together: one usage query grouped by the scope, as `measure`
 * would answer each (the same usage source, the same filters but the ids).
 */
export async function measureQuantities(
  inv: Invoicing,
  limits: readonly LimitRow[],
  now: Date,
  read: (q: UsageQuery) => Promise<UsageRow[]> = (q) => inv.usage.query(q),
): Promise<Map<LimitRow, Measured>> {
  const out = new Map<LimitRow, Measured>();
  const first = limits[0];
  if (!first) return out;
  const period = calendarWindow(first.window as 'day' | 'week', now);
  const byAgent = first.scope === 'agent_instance';
  const ids = [...new Set(limits.map((l) => (byAgent ? l.agent_instance_id! : l.account_id!)))].sort();
  const rows = new Map<string, Record<string, string | undefined>>();
  for (let i = 0; i < ids.length; i += GROUP_CHUNK) {
    const chunk = ids.slice(i, i + GROUP_CHUNK);
    // By arrival, as `measure` counts a day or week.
    const got = await read({
      environmentId: first.environment_id,
      from: new Date(Date.parse(period.start) - MAX_EVENT_AGE_MS),
      to: new Date(Date.parse(period.end) + MAX_EVENT_FUTURE_MS),
      ingestedFrom: new Date(period.start),
      ingestedBefore: new Date(period.end),
      groupBy: byAgent ? 'agent' : 'account',
      ...(byAgent ? { agentInstanceIds: chunk } : { accountIds: chunk }),
    });
    for (const r of got) rows.set((byAgent ? r.agent_instance_id : r.account_id) ?? '', r as unknown as Record<string, string | undefined>);
  }
  for (const l of limits) {
    const r = rows.get(byAgent ? l.agent_instance_id! : l.account_id!);
    out.set(l, { period, current: r?.[QUANTITY_UNITS[l.unit as QuantityUnit]] ?? '0' });
  }
  return out;
}

/**
 * Writes a limit's state and fires the alerts it reached, in one transaction: the state
 * row is locked (two evaluators of one limit take turns), `limit.reset` fires when a new
 * period follows a reached one, each alert is inserted once (constraint) with its event.
 * Returns whether the limit is reached.
 */
export async function record(db: Db, l: LimitRow, m: Measured, now: Date): Promise<boolean> {
  const reached = isReached(l.metric, m.current, l.value);
  await db.transaction().execute(async (tx) => {
    await tx.insertInto('spend_limit_states').values({ limit_id: l.id, period_start: m.period.start, period_end: m.period.end, current: m.current, reached: false, evaluated_at: now }).onConflict((oc) => oc.column('limit_id').doNothing()).execute();
    const prev = await tx.selectFrom('spend_limit_states').selectAll().where('limit_id', '=', l.id).forUpdate().executeTakeFirstOrThrow();
    const newPeriod = prev.period_start.getTime() < new Date(m.period.start).getTime();
    if (prev.period_start.getTime() > new Date(m.period.start).getTime()) return; // an evaluation of a later instant got there first
    // Of the same period too (the fast pass's lower bound, measured after a slow pass began, stands until a later one).
    if (!newPeriod && prev.evaluated_at.getTime() > now.getTime()) return;
    await tx.updateTable('spend_limit_states').set({ period_start: m.period.start, period_end: m.period.end, current: m.current, reached, evaluated_at: now }).where('limit_id', '=', l.id).execute();
    for (const a of alertsFor(l.metric, l.thresholds, m.current, l.value, newPeriod && prev.reached)) await fireOnce(tx, l, m, a, now);
  });
  return reached;
}

async function fireOnce(tx: Tx, l: LimitRow, m: Measured, a: ReturnType<typeof alertsFor>[number], now: Date): Promise<void> {
  const inserted = await tx
    .insertInto('spend_limit_alerts')
    .values({ id: newId('lal'), environment_id: l.environment_id, limit_id: l.id, period_start: m.period.start, threshold: a.threshold, event: a.event, value: m.current, limit_value: l.value, fired_at: now })
    .onConflict((oc) => oc.constraint('spend_limit_alerts_once').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return;
  await emitWebhookEvent(
    tx,
    l.environment_id,
    a.event,
    {
      limit_id: l.id,
      scope: l.scope,
      account_id: l.account_id,
      agent_instance_id: l.agent_instance_id,
      metric: l.metric,
      currency: l.currency,
      unit: l.unit,
      action: l.action,
      threshold: a.threshold,
      value: m.current,
      limit_value: l.value,
      period_start: new Date(m.period.start).toISOString(),
      resets_at: new Date(m.period.end).toISOString(),
      fired_at: now.toISOString(),
    },
    now,
  );
}

/** The reached flag and block limits, as pushed to the edge. */
export async function reachedLimits(db: Db): Promise<ReachedLimit[]> {
  const rows = await db
    .selectFrom('spend_limit_states as s')
    .innerJoin('spend_limits as l', 'l.id', 's.limit_id')
    .select(['l.id', 'l.environment_id', 'l.scope', 'l.account_id', 'l.agent_instance_id', 'l.action', 'l.value', 'l.currency', 'l.unit', 'l.metric', 'l.window', 's.period_end'])
    .where('s.reached', '=', true)
    .where('l.deleted_at', 'is', null)
    .where('l.action', 'in', ['flag', 'block'])
    .orderBy('l.id')
    .execute();
  return rows.map((r) => ({
    limit_id: r.id,
    environment_id: r.environment_id,
    scope: r.scope,
    scope_id: r.scope === 'account' ? r.account_id! : r.scope === 'agent_instance' ? r.agent_instance_id! : r.environment_id,
    action: r.action as 'flag' | 'block',
    value: r.value,
    currency: r.currency,
    unit: r.unit,
    resets_at: r.period_end.toISOString(),
    metric: r.metric,
    window: r.window,
  }));
}

/** The evaluator of a billing process: its loop, the state it publishes, and stop. */
export class LimitEvaluator {
  readonly #inv: Invoicing;
  /** The fast pass's invoicing context: usage from lower bounds only ({@link lowerBoundUsage}). */
  readonly #fastInv: Invoicing;
  readonly #hopedInv: Invoicing;
  /** Accounts and agent instances with new usage since the last pass, per environment. */
  #touched = new Map<string, { accounts: Set<string>; agents: Set<string> }>();
  /** The same, since the last fast pass. */
  #fastTouched = new Map<string, { accounts: Set<string>; agents: Set<string> }>();
  #fastLoop: Loop | undefined;
  /** Limits the fast pass found reached (tests read it). */
  fastReached = 0;
  /** A full pass is due (the first, or a new stream). */
  #fullDue = true;
  #lastFull = 0;
  #cursor = new Date(0);
  #published = '';
  #publishedAt = 0;
  #state: LimitState = { at: 0, limits: [] };
  readonly #version: LimitVersion;
  /** The version at the last read of the reached set, and when that read was. */
  #readVersion: string | undefined;
  #readAt = 0;
  /** What #due read at the version `#dueVersion`: the reached balance limits and the earliest period end. */
  #dueVersion: string | undefined;
  #dueCache: { balances: string[]; nextEnd: number } | undefined;
  /** Reads of the reached set, and #due's reads of the limits due (tests read them). */
  setReads = 0;
  dueReads = 0;
  #loop: Loop | undefined;
  #requests: Subscription | undefined;
  #heartbeat: NodeJS.Timeout | undefined;
  #publishing: Promise<void> | undefined;
  /** Passes completed (tests wait on it). */
  passes = 0;

  constructor(
    private readonly deps: EvaluatorDeps,
    private readonly config: EvaluatorConfig,
  ) {
    // One account's open period rated inline: the same pure rating, without a worker hand-off per evaluation.
    // Usage with the tail's events of the client's ids counted once verified (LiveUsage.queryVerified): a copy held (a retry) never blocks.
    this.#inv = { ...deps.invoicing, usage: deps.live.verified(), rater: inlineRater() };
    // The fast pass's: the same rating, from the live usage's lower bounds only.
    this.#fastInv = { ...this.#inv, usage: lowerBoundUsage(deps.live) };
    // The same, with the events of the client's ids no other copy of which is known yet counted, verified or not: which limits a verification would decide.
    this.#hopedInv = { ...this.#inv, usage: lowerBoundUsage(deps.live, 'unpoisoned') };
    this.#version = new LimitVersion(deps.db);
    deps.live.onTouched((env, accounts, agents) => {
      for (const map of [this.#touched, this.#fastTouched]) {
        let t = map.get(env);
        if (!t) map.set(env, (t = { accounts: new Set(), agents: new Set() }));
        for (const a of accounts) t.accounts.add(a);
        for (const i of agents) t.agents.add(i);
      }
    });
    // Events with the client's ids count in lower bounds once verified (LiveUsage.requestVerification): the fast pass only.
    deps.live.onVerified((env, accounts, agents) => {
      let t = this.#fastTouched.get(env);
      if (!t) this.#fastTouched.set(env, (t = { accounts: new Set(), agents: new Set() }));
      for (const a of accounts) t.accounts.add(a);
      for (const i of agents) t.agents.add(i);
    });
    deps.live.onReset(() => (this.#fullDue = true));
  }

  /**
   * Publishes the reached set Postgres holds (the last evaluations, whichever process made
   * them) at once, so ingest processes converge as soon as a billing process is back, then
   * evaluates on every pass.
   */
  async start(): Promise<void> {
    await this.#publish();
    // The heartbeat: what Postgres holds, every heartbeatMs, however long a pass takes (a full
    // pass over many limits must not leave the edge without a fresh state and failing open);
    // read again only when the limit version moved, and sent as its digest when unchanged.
    this.#heartbeat = setInterval(() => void this.#publish(false).catch((err) => log.warn('spend-limit state publish failed', { err })), this.config.heartbeatMs);
    this.#heartbeat.unref();
    // An ingest process that starts asks for the state at once (no cold start).
    this.#requests = this.deps.nc.subscribe(this.deps.names.limitStateRequestSubject, {
      callback: (_err, msg) => {
        if (this.#state.at > 0) msg.respond(encodeLimitState(this.#state));
      },
    });
    this.#loop = startLoop({ name: 'spend-limits', intervalMs: this.config.intervalMs, run: () => this.pass() });
    this.#fastLoop = startLoop({ name: 'spend-limits-fast', intervalMs: this.config.intervalMs, run: () => this.fastPass() });
  }

  /**
   * The fast pass, beside the passes (which wait for ClickHouse, seconds when it is busy
   * storing a backlog): the limits of the accounts and agent instances with new usage, not
   * reached yet, that a lower bound can reach, measured with no ClickHouse query from the
   * live usage's lower bound (the last ClickHouse rows of their scopes plus the tail): day
   * and week quantity limits, and accounts' spend and available-balance limits where the
   * rating is provably monotonic in usage ({@link measureMoneyBound}: a lower bound of
   * spend, an upper bound of the balance). Each one the bound reaches is recorded reached at
   * once (the bound never passes the exact figure, and usage only grows within a window)
   * and the state published. Everything else (the exact figure, other limits, unblocking)
   * is the passes'.
   */
  async fastPass(): Promise<void> {
    const touched = this.#fastTouched;
    this.#fastTouched = new Map();
    const now = this.#inv.now();
    let reached = 0;
    const publishReached = async () => {
      if (reached === 0) return;
      this.fastReached += reached;
      reached = 0;
      await this.#publish();
    };
    /** Records a limit its bound reaches; else true when the bound with events of the client's ids not verified yet would reach it (they are to be verified). */
    const recordIfReached = async (l: LimitRow, m: Measured, hoped: () => Promise<Measured | undefined>): Promise<boolean> => {
      if (!isReached(l.metric, m.current, l.value)) {
        const h = await hoped().catch(() => undefined);
        return h !== undefined && isReached(l.metric, h.current, l.value);
      }
      try {
        if (await record(this.deps.db, l, m, now)) reached++;
      } catch (err) {
        log.warn('spend limit evaluation failed', { limit_id: l.id, err });
      }
      return false;
    };
    for (const [env, t] of touched) {
      const accounts = [...t.accounts];
      const agents = [...t.agents];
      if (accounts.length === 0 && agents.length === 0) continue;
      const rows = await this.deps.db
        .selectFrom('spend_limits as l')
        .leftJoin('spend_limit_states as s', 's.limit_id', 'l.id')
        .selectAll('l')
        .where('l.environment_id', '=', env)
        .where('l.deleted_at', 'is', null)
        .where((eb) =>
          eb.or([
            eb.and([eb('l.metric', '=', 'quantity'), eb('l.window', 'in', ['day', 'week'])]),
            // Money: an account's (an agent instance's share is not monotonic in its own usage: measureMoneyBound).
            eb.and([eb('l.metric', 'in', ['spend', 'available_balance']), eb('l.scope', '=', 'account')]),
          ]),
        )
        .where((eb) =>
          eb.or([
            ...(accounts.length ? [eb.and([eb('l.scope', '=', 'account'), eb('l.account_id', 'in', accounts)])] : []),
            ...(agents.length ? [eb.and([eb('l.scope', '=', 'agent_instance'), eb('l.agent_instance_id', 'in', agents)])] : []),
          ]),
        )
        .where((eb) => eb.or([eb('s.reached', 'is', null), eb('s.reached', '=', false), eb('s.period_end', '<=', now)]))
        .execute();
      const groups = new Map<string, LimitRow[]>();
      const money: LimitRow[] = [];
      for (const l of rows as LimitRow[]) {
        if (l.metric !== 'quantity') money.push(l);
        else groups.set(`${l.scope}\u0000${l.window}`, [...(groups.get(`${l.scope}\u0000${l.window}`) ?? []), l]);
      }
      const toVerify: LimitRow[] = [];
      for (const group of groups.values()) {
        let measured: Map<LimitRow, Measured>;
        try {
          measured = await measureQuantities(this.#fastInv, group, now);
        } catch {
          continue; // the passes measure them
        }
        let hoped: Promise<Map<LimitRow, Measured>> | undefined;
        for (const [l, m] of measured) {
          const hope = async () => (await (hoped ??= measureQuantities(this.#hopedInv, group, now))).get(l);
          if (await recordIfReached(l, m, hope)) toVerify.push(l);
        }
      }
      // Quantities (one grouped read each) are published before the money limits are rated (a few Postgres reads each).
      await publishReached();
      await inBatches(money, CONCURRENCY, async (l) => {
        let m: Measured;
        try {
          m = await measureMoneyBound(this.#fastInv, l, now);
        } catch (err) {
          if (!(err instanceof NotBounded)) log.debug('spend limit bound failed', { limit_id: l.id, err });
          return; // the passes measure it
        }
        if (await recordIfReached(l, m, () => measureMoneyBound(this.#hopedInv, l, now))) toVerify.push(l);
      });
      // Limits that the events of the client's ids not verified yet would reach: verified now (a
      // verification heard, the next fast pass measures again). Only these: a verification
      // reads ClickHouse, slow at a saturating load, and each event is verified once.
      if (toVerify.length > 0) {
        this.deps.live.requestVerification(
          env,
          toVerify.flatMap((l) => (l.scope === 'account' && l.account_id ? [l.account_id] : [])),
          toVerify.flatMap((l) => (l.scope === 'agent_instance' && l.agent_instance_id ? [l.agent_instance_id] : [])),
        );
      }
    }
    await publishReached();
  }

  async stop(): Promise<void> {
    clearInterval(this.#heartbeat);
    await this.#fastLoop?.stop();
    await this.#loop?.stop();
    this.#requests?.unsubscribe();
  }

  /** One pass: evaluate what may have changed, then publish the state. */
  async pass(): Promise<void> {
    const now = this.#inv.now();
    const started = new Date();
    const debug = process.env.TALLY_LIMIT_DEBUG ? (what: string) => process.stderr.write(`limits ${what} +${Date.now() - started.getTime()}ms\n`) : undefined;
    const ids = await this.#due(now);
    debug?.(`due ${ids === 'all' ? 'all' : ids.size}`);
    const limits = ids === 'all' ? await this.#limits() : ids.size ? await this.#limits([...ids]) : [];
    // Quantity limits of a calendar window, per environment, scope and window: one usage query for all of them.
    const grouped = new Map<string, LimitRow[]>();
    const single: LimitRow[] = [];
    for (const l of limits) {
      if (l.metric === 'quantity' && l.window !== 'billing_period' && l.scope !== 'environment') {
        const key = `${l.environment_id}\u0000${l.scope}\u0000${l.window}`;
        grouped.set(key, [...(grouped.get(key) ?? []), l]);
      } else single.push(l);
    }
    const measured: { l: LimitRow; m: Measured }[] = [];
    await inBatches([...grouped.values()], CONCURRENCY, async (group) => {
      try {
        for (const [l, m] of await measureQuantities(this.#inv, group, now)) measured.push({ l, m });
      } catch (err) {
        // Measured one by one instead (one limit's failure never stops the others).
        single.push(...group);
        log.warn('spend limit group evaluation failed', { limits: group.length, err });
      }
    });
    await inBatches([...measured, ...single.map((l) => ({ l, m: undefined }))], CONCURRENCY, async ({ l, m }) => {
      try {
        await record(this.deps.db, l, m ?? (await measure(this.#inv, l, now)), now);
      } catch (err) {
        // One limit's failure (an account without a subscription's plan, say) never stops the others.
        log.warn('spend limit evaluation failed', { limit_id: l.id, err });
      }
    });
    debug?.('evaluated');
    // Changes made while this pass ran are looked at on the next (a second of overlap: clocks of two processes).
    this.#cursor = new Date(started.getTime() - 1000);
    // The set is read again only if the limit version moved (what this pass recorded is committed, its bump with it).
    await this.#publish(false);
    debug?.('published');
    this.passes++;
  }

  /** The ids of the limits to evaluate now, or all of them. */
  async #due(now: Date): Promise<Set<string> | 'all'> {
    const touched = this.#touched;
    this.#touched = new Map();
    if (this.#fullDue || Date.now() - this.#lastFull >= this.config.fullPassMs) {
      this.#fullDue = false;
      this.#lastFull = Date.now();
      return 'all';
    }
    const ids = new Set<string>();
    try {
      for (const [env, t] of touched) {
        const accounts = [...t.accounts];
        const agents = [...t.agents];
        const rows = await this.deps.db
          .selectFrom('spend_limits')
          .select('id')
          .where('environment_id', '=', env)
          .where('deleted_at', 'is', null)
          .where((eb) =>
            eb.or([
              eb('scope', '=', 'environment'),
              ...(accounts.length ? [eb('account_id', 'in', accounts)] : []),
              ...(agents.length ? [eb('agent_instance_id', 'in', agents)] : []),
              // An agent instance's spend moves with its account's usage too (volume bands, shares of a rounded charge).
              ...(accounts.length
                ? [eb.and([eb('metric', '=', 'spend'), eb('agent_instance_id', 'in', eb.selectFrom('agent_instances').select('id').where('environment_id', '=', env).where('account_id', 'in', accounts))])]
                : []),
            ]),
          )
          .execute();
        for (const r of rows) ids.add(r.id);
      }
    } catch (err) {
      // Looked at again on the next pass.
      for (const [env, t] of touched) this.#retouch(env, t);
      throw err;
    }
    // Usage only grows within a period: a reached limit is unblocked by a change to it, its period's end,
    // or, for a balance, a grant; the rest (a voided invoice, a subscription change) waits for the full pass.
    // The changed limits, the reached balances and the earliest period end are read again only when the
    // limit version moved (a change to a limit or to a state's reached or period): each pass read them,
    // a join of every state with its limit, every 100 ms.
    const version = await this.#version.read();
    if (this.#version.moved(this.#dueVersion) || !this.#dueCache) {
      this.dueReads++;
      const changed = await this.deps.db.selectFrom('spend_limits').select('id').where('updated_at', '>=', this.#cursor).where('deleted_at', 'is', null).execute();
      for (const r of changed) ids.add(r.id);
      const next = await this.deps.db
        .selectFrom('spend_limit_states as s')
        .innerJoin('spend_limits as l', 'l.id', 's.limit_id')
        .select((eb) => eb.fn.min('s.period_end').as('next_end'))
        .where('l.deleted_at', 'is', null)
        .executeTakeFirst();
      const balances = await this.deps.db
        .selectFrom('spend_limit_states as s')
        .innerJoin('spend_limits as l', 'l.id', 's.limit_id')
        .select('l.id')
        .where('l.deleted_at', 'is', null)
        .where('s.reached', '=', true)
        .where('l.metric', '=', 'available_balance')
        .execute();
      this.#dueCache = { balances: balances.map((r) => r.id), nextEnd: next?.next_end ? new Date(next.next_end).getTime() : Infinity };
      this.#dueVersion = version;
    }
    for (const id of this.#dueCache.balances) ids.add(id);
    // Periods that ended: looked up only once the earliest has (then every pass until they are evaluated into their next period).
    if (now.getTime() >= this.#dueCache.nextEnd) {
      const ended = await this.deps.db
        .selectFrom('spend_limit_states as s')
        .innerJoin('spend_limits as l', 'l.id', 's.limit_id')
        .select('l.id')
        .where('l.deleted_at', 'is', null)
        .where('s.period_end', '<=', now)
        .execute();
      for (const r of ended) ids.add(r.id);
    }
    return ids;
  }

  #retouch(env: string, t: { accounts: Set<string>; agents: Set<string> }): void {
    let cur = this.#touched.get(env);
    if (!cur) this.#touched.set(env, (cur = { accounts: new Set(), agents: new Set() }));
    for (const a of t.accounts) cur.accounts.add(a);
    for (const i of t.agents) cur.agents.add(i);
  }

  async #limits(ids?: string[]): Promise<LimitRow[]> {
    let q = this.deps.db.selectFrom('spend_limits').selectAll().where('deleted_at', 'is', null);
    if (ids) q = q.where('id', 'in', ids);
    return q.orderBy('id').execute();
  }

  /**
   * Publishes the reached set when it changed, and a heartbeat every heartbeatMs anyway (the
   * edge's freshness); one at a time. `read`: read the set from Postgres whatever the limit
   * version says (after this process recorded something); otherwise it is read only when
   * the version moved, and every RESYNC_MS.
   */
  #publish(read = true): Promise<void> {
    const run = (this.#publishing ?? Promise.resolve()).then(() => this.#publishNow(read));
    this.#publishing = run.catch(() => {});
    return run;
  }

  async #publishNow(read: boolean): Promise<void> {
    const readAt = Date.now();
    const version = await this.#version.read();
    let changed = false;
    if (read || this.#version.moved(this.#readVersion) || readAt - this.#readAt >= RESYNC_MS) {
      this.setReads++;
      const limits = await reachedLimits(this.deps.db);
      const text = JSON.stringify(limits);
      this.#readVersion = version;
      this.#readAt = readAt;
      if (text !== this.#published || this.#state.digest === undefined) {
        changed = true;
        this.#published = text;
        this.#state = { at: 0, limits, digest: limitsDigest(text) };
      }
    }
    const at = Date.now();
    if (!changed && at - this.#publishedAt < this.config.heartbeatMs) return;
    if (changed || at - this.#lastCount >= COUNT_INTERVAL_MS) await this.#count();
    this.#state = { ...this.#state, at };
    // Unchanged: a heartbeat of a few bytes (the edge holds the set of that digest); changed: the whole set.
    this.deps.nc.publish(this.deps.names.limitStateSubject, encodeLimitState(changed ? this.#state : { at, digest: this.#state.digest! }));
    this.#publishedAt = at;
  }

  #lastCount = 0;
  /** The gauges of limits near, at and over (GET /metrics). */
  async #count(): Promise<void> {
    this.#lastCount = Date.now();
    const r = await sql<{ near: string; at: string; over: string }>`
      SELECT count(*) FILTER (WHERE NOT s.reached AND l.value > 0 AND s.current * 100 >= l.value * 80) AS near,
             count(*) FILTER (WHERE s.reached AND (l.metric = 'available_balance' OR s.current = l.value)) AS at,
             count(*) FILTER (WHERE s.reached AND l.metric <> 'available_balance' AND s.current <> l.value) AS over
      FROM spend_limit_states s JOIN spend_limits l ON l.id = s.limit_id WHERE l.deleted_at IS NULL`.execute(this.deps.db);
    const row = r.rows[0]!;
    countLimitStates({ near: Number(row.near), at: Number(row.at), over: Number(row.over) });
  }
}

/** Runs `fn` over `items`, at most `n` at once. */
async function inBatches<T>(items: readonly T[], n: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(n, items.length) }, worker));
}
