/**
 * The open period's usage as ClickHouse holds it, cached per query and dropped as soon
 * as new events of its scope are stored, so repeated live balances and limit evaluations
 * cost no ClickHouse query and a fresh one costs one (docs/credits.md "Credits", `pending`).
 *
 * Who drops answers: the live tail (tail.ts). It notices each stream sequence the sink
 * has stored (its floor, and the sequences recorded as inserted above it) and drops the
 * answers of the accounts and agent instances those events name, in the same synchronous
 * step that drops the sequence's part of the tail. An answer whose computation overlapped
 * a drop is not kept (it may have missed what the drop announced). Another stream
 * (created again, or a restore onto a fresh one) drops everything.
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
  invalidate(environmentId: string, accountIds: Iterable<string>, agentInstanceIds: Iterable<string>): void {
    this.#epoch++;
    const keys = [`${environmentId}\u0000*`];
    for (const id of accountIds) keys.push(accountKey(environmentId, id));
    for (const id of agentInstanceIds) keys.push(agentKey(environmentId, id));
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
