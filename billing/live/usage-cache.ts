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
 * Bulk answers (the first read of an account without a ClickHouse query of its own): a
 * query shape (a query grouped by agent instance, less its agent instances or accounts)
 * that misses for BULK_AFTER_MISSES different scopes is answered for the whole environment
 * by one query (grouped by agent instance, or by agent instance and account), kept per
 * agent instance (or account): a later query of that shape for any of them is answered from
 * it. Each scope's part stays valid as a cached answer does (until a drop names it; a drop
 * while the bulk query computed leaves that scope out); a scope of a bulk answer that is
 * not valid any more is asked again together with every other such scope of the shape, in
 * one query, by the first query that needs one of them (queries arriving meanwhile wait
 * for it). The rows of one scope in a bulk answer are the rows of that scope's own query
 * (same filters, same grouping, same cut of what the live tail holds), so the figures are
 * the same either way (usage-cache.test.ts, pending.integration.test.ts).
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

/** Misses of one query shape (for different scopes) after which it is answered in bulk for the whole environment. */
export const BULK_AFTER_MISSES = 16;
/** Shapes answered in bulk at most (the least recently used goes first beyond it). */
const BULK_SHAPES_MAX = 4;
/** Scopes one bulk answer keeps at most (beyond it the shape is answered per scope again): with BULK_SHAPES_MAX, as many answers as the cache's MAX_ENTRIES. */
const BULK_SCOPES_MAX = 50_000;
/** Scopes asked again in one query at most (the rest by the next). */
const BULK_REFRESH_MAX = 10_000;

/** Which ids a bulk-answerable query filters on: one of agent instances or accounts (not both), grouped by agent instance. */
function bulkKind(q: UsageQuery): 'agent' | 'account' | undefined {
  if (q.groupBy !== 'agent' || !cacheable(q) || q.unstored) return undefined;
  if (q.agentInstanceIds && !q.accountIds && q.agentInstanceIds.length > 0) return 'agent';
  if (q.accountIds && !q.agentInstanceIds && q.accountIds.length > 0) return 'account';
  return undefined;
}

/**
 * The answers of one query shape for every agent instance (or account) of its environment,
 * from bulk queries. `complete` once the environment-wide query is in: a scope neither in
 * `rows` nor `invalid` then has no usage.
 */
interface BulkShape {
  kind: 'agent' | 'account';
  /** The query without its ids. */
  shape: UsageQuery;
  /** Valid answers per scope. */
  rows: Map<string, UsageRow[]>;
  /** Scopes dropped since their answer was computed (asked again by the next refresh). */
  invalid: Set<string>;
  complete: boolean;
  /** Misses of single-scope queries of this shape before it is answered in bulk. */
  misses: number;
  /** Scopes dropped while a bulk query is in flight (their part of its answer is not kept). */
  droppedDuring: Set<string>[];
  /** The bulk query in flight (the first fill or a refresh): what waits for it joins it. */
  inflight: Promise<void> | undefined;
  /** Bumped by `clear`: a bulk query of an older generation keeps nothing. */
  generation: number;
  /** Disabled: too many scopes for a bulk answer. */
  tooBig: boolean;
}

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
  /** Query shapes answered in bulk, by environment and shape key. */
  readonly #bulk = new Map<string, BulkShape>();
  #generation = 0;
  hits = 0;
  misses = 0;
  /** Queries answered from a bulk answer; bulk queries run (environment-wide fills and refreshes). */
  readonly bulk = { hits: 0, fills: 0, refreshes: 0 };

  constructor(
    private readonly source: UsageSource,
    private readonly opts: { bulkAfterMisses?: number } = {},
  ) {}

  query(q: UsageQuery): Promise<UsageRow[]> {
    return this.#cached('q', q, () => this.#fromBulk(q) ?? this.source.query(q));
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
    for (const b of this.#bulk.values()) {
      if (b.shape.environmentId !== environmentId) continue;
      for (const id of b.kind === 'agent' ? agentInstanceIds : accountIds) {
        b.rows.delete(id);
        if (b.complete) b.invalid.add(id);
        for (const d of b.droppedDuring) d.add(id);
      }
    }
  }

  /** Drops everything (the stream restarted its sequences), and marks every computation in flight stale. */
  clear(): void {
    for (const set of this.#inflight.values()) for (const w of set) w.stale = true;
    this.#answers.clear();
    this.#byScope.clear();
    this.#bulk.clear();
    this.#generation++;
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

  /** Query shapes with a bulk answer in. */
  get bulkShapes(): number {
    return [...this.#bulk.values()].filter((b) => b.complete).length;
  }

  /**
   * A query's answer from its shape's bulk answer (waiting for the bulk query in flight, or
   * starting a refresh of the scopes not valid any more), or undefined: asked on its own
   * (not a bulk shape, not answered in bulk yet, or a scope dropped again meanwhile).
   * Counts the misses that make a shape bulk, and starts its environment-wide query.
   */
  #fromBulk(q: UsageQuery): Promise<UsageRow[]> | undefined {
    const kind = bulkKind(q);
    const after = this.opts.bulkAfterMisses ?? BULK_AFTER_MISSES;
    if (!kind || after <= 0) return undefined;
    const ids = (kind === 'agent' ? q.agentInstanceIds : q.accountIds)!;
    const { agentInstanceIds: _a, accountIds: _b, ...shape } = q;
    const key = `${kind}\u0000${JSON.stringify(shape)}`;
    let b = this.#bulk.get(key);
    if (b) {
      this.#bulk.delete(key); // re-inserted last: the least recently used goes first
      this.#bulk.set(key, b);
    } else {
      b = { kind, shape, rows: new Map(), invalid: new Set(), complete: false, misses: 0, droppedDuring: [], inflight: undefined, generation: this.#generation, tooBig: false };
      this.#bulk.set(key, b);
      if (this.#bulk.size > BULK_SHAPES_MAX) this.#bulk.delete(this.#bulk.keys().next().value!);
    }
    if (b.tooBig) return undefined;
    if (!b.complete) {
      if (++b.misses >= after && !b.inflight) void this.#bulkQuery(b, undefined);
      return undefined;
    }
    const answer = this.#bulkAnswer(b, ids);
    if (answer) {
      this.bulk.hits++;
      return Promise.resolve(answer);
    }
    // Some scope is not valid: asked again with every other such scope of the shape (or with the refresh in flight, then once more).
    return (async () => {
      for (let attempt = 0; attempt < 2; attempt++) {
        await (b.inflight ?? this.#bulkQuery(b, [...b.invalid].slice(0, BULK_REFRESH_MAX)));
        if (this.#bulk.get(key) !== b) break;
        const now = this.#bulkAnswer(b, ids);
        if (now) {
          this.bulk.hits++;
          return now;
        }
      }
      return this.source.query(q);
    })();
  }

  /** The rows of these scopes from a complete bulk answer, or undefined when one of them is not valid. */
  #bulkAnswer(b: BulkShape, ids: readonly string[]): UsageRow[] | undefined {
    const out: UsageRow[] = [];
    for (const id of new Set(ids)) {
      const rows = b.rows.get(id);
      if (rows) out.push(...rows);
      else if (b.invalid.has(id)) return undefined;
    }
    return out;
  }

  /**
   * One bulk query of a shape: environment-wide (`ids` undefined: the first fill) or for
   * these scopes (a refresh). Keeps each scope's rows unless a drop named it meanwhile.
   */
  #bulkQuery(b: BulkShape, ids: string[] | undefined): Promise<void> {
    const dropped = new Set<string>();
    b.droppedDuring.push(dropped);
    const generation = this.#generation;
    const filter = ids ? (b.kind === 'agent' ? { agentInstanceIds: ids } : { accountIds: ids }) : {};
    // Grouped by agent instance, and by account when the scopes are accounts (an agent instance's events may name several).
    const q: UsageQuery = { ...b.shape, ...filter, groupBy: b.kind === 'agent' ? 'agent' : 'agent_account' };
    if (ids) this.bulk.refreshes++;
    else this.bulk.fills++;
    const run = (async () => {
      try {
        const rows = await this.source.query(q);
        if (generation !== this.#generation) return;
        const byId = new Map<string, UsageRow[]>();
        for (const r of rows) {
          const id = (b.kind === 'agent' ? r.agent_instance_id : r.account_id) ?? '';
          const row = { ...r };
          if (b.kind === 'account') delete row.account_id; // as the scope's own query (grouped by agent instance) answers
          let list = byId.get(id);
          if (!list) byId.set(id, (list = []));
          list.push(row);
        }
        if (!ids) {
          if (byId.size > BULK_SCOPES_MAX) {
            b.tooBig = true;
            b.rows.clear();
            return;
          }
          for (const [id, list] of byId) if (!dropped.has(id)) b.rows.set(id, list);
          b.invalid = new Set(dropped);
          b.complete = true;
          return;
        }
        for (const id of ids) {
          if (dropped.has(id)) continue;
          b.rows.set(id, byId.get(id) ?? []);
          b.invalid.delete(id);
        }
      } finally {
        b.droppedDuring.splice(b.droppedDuring.indexOf(dropped), 1);
      }
    })();
    const settled = run.catch(() => {}); // a failed bulk query leaves its scopes invalid: asked on their own
    b.inflight = settled;
    void settled.then(() => {
      if (b.inflight === settled) b.inflight = undefined;
    });
    return settled;
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
