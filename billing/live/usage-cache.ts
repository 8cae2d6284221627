/**
 * The open period's usage, cached per query and dropped as soon as new events of its
 * scope are in ClickHouse, so repeated live balances cost no ClickHouse query and a fresh
 * one costs one (README "Credits", `pending`).
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

/** A usage source whose answers stay until new events of their scope are stored. */
export class LiveUsageCache implements UsageSource {
  readonly #answers = new Map<string, { scopes: ScopeKey[]; value: Promise<unknown> }>();
  readonly #byScope = new Map<ScopeKey, Set<string>>();
  /** Bumped by every drop: an answer computed across one is not kept. */
  #epoch = 0;
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
  invalidate(environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]): void {
    this.#epoch++;
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
 * Keeps a cache fresh: every `intervalMs`, reads the sink's floor and drops the answers of
 * the scopes with events newly under it. `floor` is the sink's floor and the stream it is
 * a sequence of (floor 0: no stream yet).
 */
export function startUsageInvalidation(cache: LiveUsageCache, ch: Pick<ClickHouseClient, 'query'>, database: string, floor: () => Promise<SinkFloor>, intervalMs: number): Loop {
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
      for (const [env, t] of await touchedScopes(ch, database, last.floor, now.floor)) cache.invalidate(env, t.accounts, t.agents);
      last = now;
    },
  });
}
