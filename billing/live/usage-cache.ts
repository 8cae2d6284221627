/**
 * The open period's usage, cached per query and dropped as soon as new events of its
 * scope are in ClickHouse, so repeated live balances cost no ClickHouse query and a fresh
 * one costs one (docs/credits.md "Credits", `pending`).
 *
 * How a cached answer is known to be stale: the sink's floor (shared/nats/connection.ts
 * `sinkAckFloor`: every event message up to that stream sequence is in ClickHouse) is
 * polled; each time it advances, the events of the newly covered sequences (the
 * `stream_seq` column, minmax-indexed) name the accounts and agent instances that have
 * new usage, and every cached answer of those is dropped. An event stored after an answer
 * was computed is covered by the floor once it and every earlier message are stored, and
 * its answer is dropped then: nothing stays stale longer than the floor takes to pass an
 * event (the sink's linger plus one poll). An answer whose computation overlapped a poll
 * that dropped anything is not kept (it may have missed what the poll announced). A
 * floor of another stream (created again, or a restore onto a fresh one) drops everything.
 *
 * Windows (the cold path): a query of one event-time window grouped by agent instance
 * and filtered on agent instances only (what a subscription's open period asks) is served
 * from that window's usage of every agent of the environment, loaded by one query the
 * first time the window is asked for, and refreshed by one query per poll for the agents
 * with new events (`refresh`), so the first balance read of an account costs no
 * ClickHouse query either. An agent's figure is used only when it was computed after the
 * agent's last invalidation (epochs); otherwise the query takes the per-query path above.
 *
 * Only usage is cached: the catalog, the subscriptions and the invoices are read from
 * Postgres on every rating, so a change there counts at once.
 */
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { SinkFloor } from '../../shared/clickhouse/sink-progress.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import type { UsageSource } from '../invoicing/context.ts';
import type { FirstSeenUsersQuery, UsageQuery, UsageRow } from '../usage/usage-query.ts';

/** What a cached answer is about: the environment and the accounts or agent instances its query filtered on. */
type ScopeKey = string;

const accountKey = (env: string, id: string): ScopeKey => `${env}\u0000a\u0000${id}`;
const agentKey = (env: string, id: string): ScopeKey => `${env}\u0000i\u0000${id}`;

/** The scope keys of a query (an environment-wide query has the environment's own key). */
function scopeKeys(q: { environmentId: string; accountIds?: string[]; agentInstanceIds?: string[] }): ScopeKey[] {
  if (q.agentInstanceIds) return q.agentInstanceIds.map((id) => agentKey(q.environmentId, id));
  if (q.accountIds) return q.accountIds.map((id) => accountKey(q.environmentId, id));
  return [`${q.environmentId}\u0000*`];
}

/** Queries asking for usage "as of" an ingestion instant are never cached (they are not the live figure). */
const cacheable = (q: { ingestedBefore?: Date }) => q.ingestedBefore === undefined;

/** The largest number of answers kept (the oldest go first beyond it). */
const MAX_ENTRIES = 200_000;
/** The largest number of windows kept (the oldest go first beyond it). */
const MAX_WINDOWS = 8;
/** Agents per refresh query. */
const REFRESH_CHUNK = 5_000;
/** Least time between two background refreshes (their agents merged meanwhile). */
const REFRESH_GAP_MS = 1000;

/** One event-time window's usage per agent instance of an environment. */
interface Window {
  environmentId: string;
  from: Date;
  to: Date;
  /** False until the load answered. */
  ready: boolean;
  rows: Map<string, UsageRow>;
  /** The epoch the load started at: each agent's figure is of then unless refreshed since. */
  loadedAt: number;
  /** The epoch each refreshed agent's figure was computed at. */
  refreshedAt: Map<string, number>;
}

/** A query a window answers: one window, by agent, filtered on agent instances only, live. */
function windowShaped(q: UsageQuery): q is UsageQuery & { agentInstanceIds: string[] } {
  return q.groupBy === 'agent' && q.agentInstanceIds !== undefined && !q.accountIds && !q.actionTypes && !q.outcomeTypes && cacheable(q);
}
const windowKey = (env: string, from: Date, to: Date) => `${env}\u0000${from.getTime()}\u0000${to.getTime()}`;

/** A usage source whose answers stay until new events of their scope are stored. */
export class LiveUsageCache implements UsageSource {
  readonly #answers = new Map<string, { scopes: ScopeKey[]; value: Promise<unknown> }>();
  readonly #byScope = new Map<ScopeKey, Set<string>>();
  readonly #windows = new Map<string, Window>();
  readonly #toRefresh = new Map<string, Set<string>>();
  #refreshing: Promise<void> | undefined;
  /** The epoch each agent instance's usage was last invalidated at. */
  readonly #invalidatedAt = new Map<ScopeKey, number>();
  /** Bumped by every drop: an answer computed across one is not kept. */
  #epoch = 0;
  hits = 0;
  misses = 0;

  constructor(
    private readonly source: UsageSource,
    private readonly opts: { windows: boolean } = { windows: true },
  ) {}

  query(q: UsageQuery): Promise<UsageRow[]> {
    if (this.opts.windows && windowShaped(q)) {
      const rows = this.#fromWindow(q);
      if (rows) {
        this.hits++;
        return Promise.resolve(rows);
      }
    }
    return this.#cached('q', q, () => this.source.query(q));
  }

  firstSeenUsers(q: FirstSeenUsersQuery): Promise<string[]> {
    return this.#cached('u', q, () => this.source.firstSeenUsers(q));
  }

  /** Drops every answer about these accounts and agent instances of an environment. */
  invalidate(environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]): void {
    this.#epoch++;
    for (const id of agentInstanceIds) this.#invalidatedAt.set(agentKey(environmentId, id), this.#epoch);
    const keys = [...accountIds.map((id) => accountKey(environmentId, id)), ...agentInstanceIds.map((id) => agentKey(environmentId, id)), `${environmentId}\u0000*`];
    for (const s of keys) {
      for (const k of this.#byScope.get(s) ?? []) this.#drop(k);
      this.#byScope.delete(s);
    }
  }

  /** Drops everything (the stream restarted its sequences). */
  clear(): void {
    this.#epoch++;
    this.#answers.clear();
    this.#byScope.clear();
    this.#windows.clear();
    this.#invalidatedAt.clear();
  }

  /**
   * Recomputes, in one query per window of the environment, the usage of these agent
   * instances (just invalidated: they have new events), so their next reads are served
   * from the window again. Run by the invalidation loop after `invalidate`.
   */
  async refresh(environmentId: string, agentInstanceIds: readonly string[]): Promise<void> {
    for (const w of [...this.#windows.values()]) if (w.ready && w.environmentId === environmentId) await this.#refreshWindow(w, agentInstanceIds);
  }

  /**
   * `refresh` in the background, one at a time, the agents of refreshes still waiting
   * merged into one: the invalidation loop never waits for it (a stale agent's reads take
   * the per-query path meanwhile, fresh as ever).
   */
  refreshLater(environmentId: string, agentInstanceIds: readonly string[]): void {
    if (agentInstanceIds.length === 0 || !this.opts.windows) return;
    let set = this.#toRefresh.get(environmentId);
    if (!set) this.#toRefresh.set(environmentId, (set = new Set()));
    for (const a of agentInstanceIds) set.add(a);
    if (this.#refreshing) return;
    this.#refreshing = (async () => {
      while (this.#toRefresh.size > 0) {
        // At most one refresh a REFRESH_GAP_MS: each is one ClickHouse query whatever its
        // agents, so under load a few large ones cost far less than one per poll.
        await new Promise((r) => setTimeout(r, REFRESH_GAP_MS).unref());
        const batch = [...this.#toRefresh];
        this.#toRefresh.clear();
        for (const [env, agents] of batch) await this.refresh(env, [...agents]).catch(() => {});
      }
    })().finally(() => (this.#refreshing = undefined));
  }

  /** Resolves when the background refreshes are done (tests). */
  async refreshed(): Promise<void> {
    while (this.#refreshing) await this.#refreshing;
  }

  /** Whether the query is answered from a window now (without ClickHouse). */
  answersFromWindow(q: UsageQuery): boolean {
    const w = this.#windows.get(windowKey(q.environmentId, q.from, q.to));
    return windowShaped(q) && w !== undefined && this.#windowRows(w, q.agentInstanceIds) !== undefined;
  }

  async #refreshWindow(w: Window, agentInstanceIds: readonly string[]): Promise<void> {
    for (let i = 0; i < agentInstanceIds.length; i += REFRESH_CHUNK) {
      const agents = agentInstanceIds.slice(i, i + REFRESH_CHUNK);
      const epoch = this.#epoch;
      const rows = await this.source.query({ environmentId: w.environmentId, from: w.from, to: w.to, groupBy: 'agent', agentInstanceIds: agents });
      if (this.#windows.get(windowKey(w.environmentId, w.from, w.to)) !== w) return;
      const byAgent = new Map(rows.map((r) => [r.agent_instance_id!, r]));
      for (const a of agents) {
        const r = byAgent.get(a);
        if (r) w.rows.set(a, r);
        else w.rows.delete(a);
        w.refreshedAt.set(a, epoch);
      }
    }
  }

  /** The answer from the query's window when every agent's figure there is fresh; else undefined (and the window is loaded for next time). */
  #fromWindow(q: UsageQuery & { agentInstanceIds: string[] }): UsageRow[] | undefined {
    const key = windowKey(q.environmentId, q.from, q.to);
    const w = this.#windows.get(key);
    if (!w) {
      this.#loadWindow(key, q.environmentId, q.from, q.to);
      return undefined;
    }
    return this.#windowRows(w, q.agentInstanceIds);
  }

  /** The rows of these agents in the window, in their order; undefined unless each one's figure is fresh. */
  #windowRows(w: Window, agents: readonly string[]): UsageRow[] | undefined {
    if (!w.ready) return undefined;
    const out: UsageRow[] = [];
    for (const a of agents) {
      if (this.#stale(w, a)) return undefined;
      const r = w.rows.get(a);
      if (r) out.push(r);
    }
    return out;
  }

  /** Whether the agent was invalidated after its figure in the window was computed. */
  #stale(w: Window, agent: string): boolean {
    return (this.#invalidatedAt.get(agentKey(w.environmentId, agent)) ?? -1) > (w.refreshedAt.get(agent) ?? w.loadedAt);
  }

  /** Loads a window's usage of every agent of the environment in the background (dropped on failure: the next query tries again). */
  #loadWindow(key: string, environmentId: string, from: Date, to: Date): void {
    if (this.#windows.size >= MAX_WINDOWS) this.#windows.delete(this.#windows.keys().next().value!);
    const w: Window = { environmentId, from, to, ready: false, rows: new Map(), loadedAt: this.#epoch, refreshedAt: new Map() };
    this.#windows.set(key, w);
    this.source.query({ environmentId, from, to, groupBy: 'agent' }).then(
      (rows) => {
        for (const r of rows) w.rows.set(r.agent_instance_id!, r);
        w.ready = true;
        // Agents with events stored during the load were refreshed by no poll: once now.
        const stale = [...this.#invalidatedAt.keys()].filter((k) => k.startsWith(`${environmentId}\u0000i\u0000`)).map((k) => k.slice(environmentId.length + 3)).filter((a) => this.#stale(w, a));
        if (stale.length) void this.#refreshWindow(w, stale).catch(() => {});
      },
      () => {
        if (this.#windows.get(key) === w) this.#windows.delete(key);
      },
    );
  }

  get size(): number {
    return this.#answers.size;
  }

  /** How many windows are loaded. */
  get readyWindows(): number {
    return [...this.#windows.values()].filter((w) => w.ready).length;
  }

  #drop(key: string): void {
    const a = this.#answers.get(key);
    if (!a) return;
    this.#answers.delete(key);
    for (const s of a.scopes) this.#byScope.get(s)?.delete(key);
  }

  async #cached<T>(kind: string, q: UsageQuery | FirstSeenUsersQuery, compute: () => Promise<T>): Promise<T> {
    if (!cacheable(q)) return compute();
    const key = kind + JSON.stringify(q);
    const hit = this.#answers.get(key);
    if (hit) {
      this.hits++;
      return hit.value as Promise<T>;
    }
    this.misses++;
    const epoch = this.#epoch;
    const value = await compute();
    if (epoch === this.#epoch) this.#keep(key, scopeKeys(q), value);
    return value;
  }

  #keep(key: string, scopes: ScopeKey[], value: unknown): void {
    if (this.#answers.size >= MAX_ENTRIES) this.#drop(this.#answers.keys().next().value!);
    this.#answers.set(key, { scopes, value: Promise.resolve(value) });
    for (const s of scopes) {
      let set = this.#byScope.get(s);
      if (!set) this.#byScope.set(s, (set = new Set()));
      set.add(key);
    }
  }
}

/** The accounts and agent instances with events of stream sequences in (from, to], per environment. */
export async function touchedScopes(ch: Pick<ClickHouseClient, 'query'>, database: string, from: number, to: number): Promise<Map<string, { accounts: string[]; agents: string[] }>> {
  const rs = await ch.query({
    query: `SELECT environment_id AS e, groupUniqArray(account_id) AS a, groupUniqArray(agent_instance_id) AS i FROM (
              SELECT environment_id, account_id, agent_instance_id FROM ${database}.actions PREWHERE stream_seq > {from:UInt64} AND stream_seq <= {to:UInt64}
              UNION ALL
              SELECT environment_id, account_id, agent_instance_id FROM ${database}.outcomes PREWHERE stream_seq > {from:UInt64} AND stream_seq <= {to:UInt64})
            GROUP BY environment_id`,
    query_params: { from, to },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ e: string; a: string[]; i: string[] }>();
  return new Map(rows.map((r) => [r.e, { accounts: r.a.filter((x) => x !== ''), agents: r.i }]));
}

/**
 * Keeps a cache fresh: every `intervalMs`, reads the sink's floor, drops the answers of
 * the scopes with events newly under it, and refreshes their agents' usage in the cache's
 * windows. `floor` is the sink's floor and the stream it is a sequence of (floor 0: no
 * stream yet); `onTouched` hears the accounts with new events (the balance watch of live
 * usage, credits/watch.ts).
 */
export function startUsageInvalidation(
  cache: LiveUsageCache,
  ch: Pick<ClickHouseClient, 'query'>,
  database: string,
  floor: () => Promise<SinkFloor>,
  intervalMs: number,
  onTouched?: (environmentId: string, accountIds: readonly string[]) => void,
): Loop {
  let last: SinkFloor | undefined;
  return startLoop({
    name: 'live-usage-invalidation',
    intervalMs,
    run: async () => {
      const now = await floor();
      if (last === undefined || now.stream !== last.stream || now.floor < last.floor) {
        // First run, or another stream (its sequences say nothing of the last one's): what is cached may predate anything.
        cache.clear();
        last = now;
        return;
      }
      if (now.floor === last.floor) return;
      const touched = await touchedScopes(ch, database, last.floor, now.floor);
      for (const [env, t] of touched) {
        cache.invalidate(env, t.accounts, t.agents);
        onTouched?.(env, t.accounts);
      }
      last = now;
      for (const [env, t] of touched) cache.refreshLater(env, t.agents);
    },
  });
}
