/**
 * The open period's usage as ClickHouse holds it, cached per query and dropped as soon
 * as new events of its scope are stored, so repeated live balances and limit evaluations
 * cost no ClickHouse query and a fresh one costs one (docs/credits.md "Credits", `pending`).
 *
 * Who drops answers: the live tail (tail.ts). It notices each stream sequence the sink
 * has stored (its floor, and the sequences recorded as inserted above it) and drops the
 * answers of the accounts and agent instances those events name, in the same synchronous
 * step that drops the sequence's part of the tail. An answer whose computation overlapped
 * a drop of one of its own scopes is not kept (it may have missed what the drop
 * announced); a drop of other scopes leaves it alone (their events are not in it: under
 * load some scope is dropped at every poll, so a global rule kept almost nothing). An
 * environment-wide answer has the environment's scope, which every drop of the
 * environment names. Another stream (created again, or a restore onto a fresh one) drops
 * everything, and every answer then computing.
 *
 * Only usage is cached: the catalog, the subscriptions and the invoices are read from
 * Postgres on every rating, so a change there counts at once.
 */
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
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
export const cacheable = (q: { ingestedBefore?: Date }) => q.ingestedBefore === undefined;

/** The largest number of answers kept (the oldest go first beyond it). */
const MAX_ENTRIES = 200_000;

/** A computation in flight, until `done`: `stale` once a drop named one of its scopes (or everything). */
export interface ScopeWatch {
  readonly stale: boolean;
  done(): void;
}

/** A usage source whose answers stay until new events of their scope are stored. */
export class LiveUsageCache implements UsageSource {
  readonly #answers = new Map<string, { scopes: ScopeKey[]; value: Promise<unknown> }>();
  readonly #byScope = new Map<ScopeKey, Set<string>>();
  /** Computations in flight by scope: a drop of the scope marks them stale. */
  readonly #inflight = new Map<ScopeKey, Set<{ stale: boolean }>>();
  hits = 0;
  misses = 0;

  constructor(private readonly source: UsageSource) {}

  query(q: UsageQuery): Promise<UsageRow[]> {
    return this.#cached('q', q, () => this.source.query(q));
  }

  firstSeenUsers(q: FirstSeenUsersQuery): Promise<string[]> {
    return this.#cached('u', q, () => this.source.firstSeenUsers(q));
  }

  /** Drops every answer about these accounts and agent instances of an environment. */
  invalidate(environmentId: string, accountIds: Iterable<string>, agentInstanceIds: Iterable<string>): void {
    const keys = [`${environmentId}\u0000*`];
    for (const id of accountIds) keys.push(accountKey(environmentId, id));
    for (const id of agentInstanceIds) keys.push(agentKey(environmentId, id));
    for (const s of keys) {
      for (const w of this.#inflight.get(s) ?? []) w.stale = true;
      for (const k of this.#byScope.get(s) ?? []) this.#drop(k);
      this.#byScope.delete(s);
    }
  }

  /** Drops everything (the stream restarted its sequences), and marks every computation in flight stale. */
  clear(): void {
    for (const set of this.#inflight.values()) for (const w of set) w.stale = true;
    this.#answers.clear();
    this.#byScope.clear();
  }

  /**
   * Watches the scopes of a query while it is answered: the watch turns stale when a drop
   * names one of them (or everything) before `done`. The live tail retries an answer whose
   * own scope was dropped meanwhile (tail.ts); the cache keeps only answers whose watch
   * stayed fresh.
   */
  watch(q: { environmentId: string; accountIds?: string[]; agentInstanceIds?: string[] }): ScopeWatch {
    const w = { stale: false };
    const scopes = scopeKeys(q);
    for (const s of scopes) {
      let set = this.#inflight.get(s);
      if (!set) this.#inflight.set(s, (set = new Set()));
      set.add(w);
    }
    return {
      get stale() {
        return w.stale;
      },
      done: () => {
        for (const s of scopes) {
          const set = this.#inflight.get(s);
          set?.delete(w);
          if (set?.size === 0) this.#inflight.delete(s);
        }
      },
    };
  }

  get size(): number {
    return this.#answers.size;
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
    const w = this.watch(q);
    let value: T;
    try {
      value = await compute();
    } finally {
      w.done();
    }
    if (!w.stale) this.#keep(key, scopeKeys(q), value);
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
    query: `/* touched-scopes */ SELECT environment_id AS e, groupUniqArray(account_id) AS a, groupUniqArray(agent_instance_id) AS i FROM (
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
