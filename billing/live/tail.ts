/**
 * The live tail: the open period's usage within about a poll of an event's
 * acknowledgement, whatever the sink's lag (docs/spend-limits.md "How fast", docs/credits.md
 * `pending`). One per process (app/start.ts), shared by the live credit balance, the credit
 * watch and the spend-limit evaluator.
 *
 * What it holds: every events-stream message the sink has not stored yet, read from the
 * stream itself, decoded with the sink's decoder (`decodeAnyBatch`) and aggregated per
 * message by (environment, account, agent instance, action or outcome, type, event-time
 * second), each entry with its earliest and latest event time.
 *
 * What it answers (`query`, a UsageSource): ClickHouse's figure (through the LiveUsageCache)
 * plus the tail's entries matching the same filters (environment, accounts, agent
 * instances, types, the event-time window), exact: counts and tokens as bigint, outcome
 * values as decimal. ClickHouse's part leaves out, by the `unstored` cut of the usage query,
 * the rows of the current stream (ingested since its creation) whose sequence is above the
 * floor the tail knows and not among the sequences it knows stored: an event the sink
 * inserts between two polls is counted by the tail alone until the poll that drops it.
 *
 * How it stays exact, every `pollMs`:
 * 1. The stream's identity (its creation time): another stream (created again, a restore
 *    onto a fresh one) clears the tail and the cache, and `onReset` listeners hear it.
 * 2. What the sink has stored: its consumer's ack floor, and the sequences above it
 *    recorded in `sink_inserted` (shared/clickhouse/sink-progress.ts; recorded before the
 *    acks). For each newly stored sequence, in one synchronous step: its part of the tail
 *    is dropped, the cut moves past it, and the cached ClickHouse answers of the scopes it
 *    names are dropped, so no answer counts it twice or misses it (an answer computed
 *    across a drop of one of its own scopes is computed again; a drop of other scopes
 *    removed none of the entries it adds). A stored sequence the tail never held (read after
 *    the sink acknowledged it: the message is gone from the work-queue stream) names its
 *    scopes through ClickHouse (`touchedScopes`).
 * 3. The messages appended since that no usage delta brought: read by sequence (the stream
 *    is a work queue, which admits no second consumer, ordered or not: direct gets of the
 *    sequences above the floor), added to the tail; `onTouched` listeners hear their scopes
 *    (the limit evaluator and the credit watch evaluate them without waiting for the sink).
 *    While deltas flow, a message appended since the previous poll is left one poll for its
 *    delta.
 *
 * Usage deltas (between polls): ingest publishes each acknowledged message's usage,
 * aggregated by the same function (shared/events/usage-delta.ts), with its stream sequence,
 * on core NATS. A message neither stored nor held yet is held from its delta at once and its
 * scopes heard at once; whichever of delta and read comes first, a message is held once, so
 * the answers are the same with deltas lost (core NATS is at most once). A delta is trusted
 * to be of the stream the tail knows: one of a stream deleted and created again, arriving
 * after the tail's poll saw the new stream, would be held until the sink stores that
 * sequence of the new one (publication follows the PubAck by milliseconds, so this needs a
 * stream recreated within them).
 *
 * Duplicates: JetStream drops a message whose Nats-Msg-Id repeats within the stream's
 * duplicate window, so a micro-batch ingest publishes again never reaches the tail twice.
 * An event a client sends again (a copy ClickHouse already holds, or two copies both in
 * the tail) is counted once per copy by the tail until the sink stores them; ClickHouse
 * counts it once from then on (a transient over-count, never a gap). Lower bounds count an
 * event of the client's id (`UsageEntry.cid`) only once it is proven the one copy counted
 * ({@link LiveUsage.requestVerification}).
 * When the tail is behind the sink (just started, or back from its bound), an event
 * stored before the tail read it is missed until the next poll names it stored (a gap of
 * one poll, only then).
 *
 * Not extended by the tail (counted once the sink stores the event, as before): `users`
 * (@user, a distinct count over the whole window), outcomes derived by rules (a
 * ClickHouse materialized view), and an entry whose second straddles a query's window
 * boundary that is not a whole second (left to ClickHouse; `tally_live_tail_straddles_total`).
 *
 * Memory: per message and scope, not per event, and at most `maxEntries` entries. Beyond
 * that the tail fails safe: it empties, answers with ClickHouse alone (the floor's lag, as
 * before it existed), logs it and sets `tally_live_tail_degraded`, until the sink has stored
 * everything the stream held then; it then reads again from there. A poll with more than
 * `readBacklogMaxBytes` to read ({@link READ_BACKLOG_MAX_BYTES}) does the same at once: the
 * sink, often in the same process, stores a backlog faster without the tail reading it first.
 */
import { jetstreamManager, type JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { chunksOf, sqlString, uint } from '../../shared/clickhouse/literals.ts';
import { insertedAbove } from '../../shared/clickhouse/sink-progress.ts';
import { aggregateMessage, decodeDeltas, type UsageEntry } from '../../shared/events/usage-delta.ts';
import { TOKEN_CLASSES } from '../../shared/events/token-classes.ts';
import { logger } from '../../shared/log.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import { Counter, Gauge, Histogram, registry } from '../../shared/metrics.ts';
import type { NatsNames } from '../../shared/nats/names.ts';
import { Dec } from '../rating/money.ts';
import type { UsageSource } from '../invoicing/context.ts';
import { chTime, type FirstSeenUsersQuery, type UnstoredCut, type UsageQuery, type UsageRow } from '../usage/usage-query.ts';
import { cacheable, LiveUsageCache, touchedScopes } from './usage-cache.ts';

const log = logger('live-tail');

const metrics = {
  entries: new Gauge({ name: 'tally_live_tail_entries', help: 'Aggregated usage entries the live tail holds (events the sink has not stored yet)', registers: [registry] }),
  degraded: new Gauge({ name: 'tally_live_tail_degraded', help: '1 while live usage is ClickHouse alone (the sink floor\'s lag): the live tail was over TALLY_LIVE_TAIL_MAX_ENTRIES, or left a backlog over TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES to the sink', registers: [registry] }),
  skipped: new Counter({ name: 'tally_live_tail_backlogs_skipped_total', help: 'Backlogs (over TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES of messages no usage delta brought) the live tail left to the sink instead of reading them', registers: [registry] }),
  messages: new Counter({ name: 'tally_live_tail_messages_total', help: 'Events-stream messages the live tail read from the stream (direct gets: no usage delta of theirs had arrived)', registers: [registry] }),
  deltas: new Counter({ name: 'tally_live_tail_deltas_total', help: 'Events-stream messages the live tail took from the usage deltas ingest publishes (never read from the stream)', registers: [registry] }),
  badDeltas: new Counter({ name: 'tally_live_tail_bad_deltas_total', help: 'Usage-delta payloads the live tail could not read (another version): their messages are read from the stream', registers: [registry] }),
  verifications: new Histogram({ name: 'tally_live_tail_id_verification_seconds', help: 'Verifications of the client\'s ids the live tail holds against ClickHouse (lower bounds of spend limits count those events once verified), by duration', buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5], registers: [registry] }),
  identities: new Counter({ name: 'tally_live_tail_id_identities_total', help: 'Identities of the client\'s ids the live tail verified, by result: clean (they count in lower bounds), copy (ClickHouse holds another copy: never), stale (the tail forgot what it knew during the verification: a new stream, over its bound)', labelNames: ['result'], registers: [registry] }),
  poisoned: new Counter({ name: 'tally_live_tail_id_copies_total', help: 'Identities of the client\'s ids left out of lower bounds for good because another copy was seen: held twice, or stored in a message the live tail did not hold', labelNames: ['seen'], registers: [registry] }),
  straddles: new Counter({ name: 'tally_live_tail_straddles_total', help: 'Tail entries left out of an answer because their second straddles a window boundary that is not a whole second', registers: [registry] }),
};

/** ClickHouse rows kept per scope for lower bounds (the oldest go first beyond it). */
const LAST_ROWS_MAX = 100_000;

/** How long a part the sink stored stays beside the kept ClickHouse answers for lower bounds. */
const RECENT_MS = 60_000;

/** Identities of the client's ids verified against ClickHouse at once at most (one statement per environment and kind). */
const VERIFY_MAX = 2000;

/**
 * An entry of the client's ids is verified only once held this long: ClickHouse bills the
 * copy ingested first, and ingest stamps the arrival when a request begins, so a copy that
 * arrived first may be published (sequenced) a little after another (a tester's defect:
 * requests 1–4 ms apart, the first one's message without a delta, over its size). By then
 * its message is in the stream, and a verification reads what the tail has not seen below
 * the stream's last message ({@link LiveUsage.#readGaps}).
 */
const VERIFY_SETTLE_MS = 250;

/** Messages a verification reads itself at most when the tail has not seen them (more: it waits for a poll). */
const GAP_READ_MAX = 64;

/** Messages asked for at once. */
const READ_CONCURRENCY = 64;
/** Messages read per poll at most (the rest on the next). */
const READ_MAX = 20_000;
/**
 * A poll with more than this to read (bytes, estimated by the stream's mean message: the
 * events stream is a work queue, so it holds the sink's backlog alone), none of it brought
 * by a usage delta (a process started on a backlog, or back after an outage of ingest's
 * deltas), leaves it to the sink. About 20,000 events of the bench's; ingest's messages
 * carry from one event to thousands, so messages are no measure.
 * Reading them costs about what the sink's storing them does (decoding every message, by
 * one direct get each), in the same process under `npm start`: the tail read the whole
 * backlog ahead of the sink and halved its rate (issue 34; bench:ingest's sink phase, 0.41 of
 * the bare consumer with the api role in the sink's process against 0.92 without). Live usage
 * is then ClickHouse's alone, as when over the bound, until the sink stored them.
 */
export const READ_BACKLOG_MAX_BYTES = 4 * 1024 * 1024;
/** Deltas count as flowing while one arrived within this (else every poll reads up to the stream's last message). */
const DELTAS_FLOWING_MS = 5000;

export interface LiveTailOptions {
  /** Pause between polls (TALLY_LIVE_USAGE_POLL_MS). */
  pollMs: number;
  /** Entries held at most (TALLY_LIVE_TAIL_MAX_ENTRIES). */
  maxEntries: number;
  /**
   * Bytes a poll reads from the stream at most before it leaves them to the sink instead
   * (TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES; default {@link READ_BACKLOG_MAX_BYTES}).
   */
  readBacklogMaxBytes?: number;
  /** Misses of a query shape after which the cache answers it in bulk (usage-cache.ts; default BULK_AFTER_MISSES, 0: never). */
  bulkAfterMisses?: number;
}

type Entry = UsageEntry;

/**
 * Which of the tail's events of the client's ids an answer counts: 'all' (every copy, until
 * stored), 'verified' (each proven the one copy counted: lower bounds, the decisions), or
 * 'unpoisoned' (no other copy known yet, verified or not: what a verification could add).
 */
export type ClientIds = 'all' | 'verified' | 'unpoisoned';

/**
 * An event identity of the client's ids (environment, agent instance, kind, id) the tail
 * knows a copy of, held or stored lately: how many copies it knows, whether it may never
 * count in a lower bound (`poisoned`: a second copy was known, or ClickHouse holds a copy the
 * tail does not know), and the verification epoch that found ClickHouse holding no other
 * copy (`v`; 0: none).
 */
interface Ident {
  /** The sequence of the first copy known. */
  seq: number;
  copies: number;
  poisoned: boolean;
  v: number;
}

/**
 * An entry of outcomes with an id shaped as those of outcomes derived by rules
 * (`drv_<rule>_<action id>`, written by ClickHouse when the action is stored, never held by
 * the tail): never verified (a tester's defect: a client's outcomes with such ids counted
 * while the derived copies, billed first, were not stored yet).
 */
const derivedLike = (e: Entry): boolean => e.k === 2 && e.ids!.some((id) => id.startsWith('drv_'));

const identKey = (e: Entry, id: string) => `${e.env}\u0000${e.agent}\u0000${e.k}\u0000${id}`;

/** Accounts and agent instances per environment. */
export type Touched = Map<string, { accounts: Set<string>; agents: Set<string> }>;

function touch(t: Touched, env: string, acct: string, agent: string): void {
  let s = t.get(env);
  if (!s) t.set(env, (s = { accounts: new Set(), agents: new Set() }));
  if (acct) s.accounts.add(acct);
  if (agent) s.agents.add(agent);
}

const envKey = (env: string) => `${env}\u0000*`;
const accountKey = (env: string, id: string) => `${env}\u0000a\u0000${id}`;
const agentKey = (env: string, id: string) => `${env}\u0000i\u0000${id}`;

/** A grouped query without its ids: with a scope's id, the key of its last ClickHouse row. */
function lastKey(q: UsageQuery): string {
  const { agentInstanceIds: _a, accountIds: _b, unstored: _c, ...rest } = q;
  return `${JSON.stringify(rest)}\u0000${q.groupBy === 'agent' && q.accountIds ? JSON.stringify(q.accountIds) : ''}\u0000`;
}

/** A query by agent instance of whole accounts (no agent instance ids): its answer is kept whole for lower bounds. */
const wholeAccountsByAgent = (q: UsageQuery): boolean => q.groupBy === 'agent' && q.accountIds !== undefined && q.agentInstanceIds === undefined;

/** Plain decimal text without trailing zeros (as the usage query's rows carry it). */
const plain = (d: Dec): string => {
  const t = d.toFixed();
  return t.includes('.') ? t.replace(/0+$/, '').replace(/\.$/, '') : t;
};

/**
 * A query of the events that arrived in a window still open (a day or week spend limit counts
 * by arrival): the tail's events arrived just now, so they are in it, whatever their event
 * time (the query's event-time range still applies). Not cached (answered by ClickHouse each
 * time), but live. An event that arrived just before the window opened and is stored just
 * after counts in it until the sink stores it: a transient over-count of one poll at most.
 */
function arrivingNow(q: UsageQuery, now = Date.now()): boolean {
  return q.ingestedBefore !== undefined && q.ingestedBefore.getTime() > now && (q.ingestedFrom === undefined || q.ingestedFrom.getTime() <= now);
}

/** A usage source of ClickHouse (cached) plus the live tail, and the loop that keeps both current. */
export class LiveUsage implements UsageSource {
  readonly cache: LiveUsageCache;
  /** The stream the tail is of (its creation time); undefined before the first poll. */
  #stream: string | undefined;
  /** Its creation time. */
  #streamCreated = new Date(0);
  /** Every sequence up to it is stored in ClickHouse. */
  #known = 0;
  /** Stored sequences above `#known`. */
  #stored = new Set<number>();
  /** Every sequence up to it was read (held, or gone from the stream) or is stored. */
  #read = 0;
  readonly #segments = new Map<number, Entry[]>();
  readonly #index = new Map<string, Set<Entry>>();
  #entries = 0;
  /** While degraded: the stream's last sequence then (the tail reads again once it is stored). */
  #degradedThrough: number | undefined;
  /** The highest sequence the tail heard of (a poll's last, or a delta's). */
  #lastSeq = 0;
  /** The stream's last sequence at the previous poll: what a poll reads while deltas flow. */
  #prevLast = 0;
  /** When a usage delta last arrived (ms). */
  #lastDeltaAt = 0;
  #deltaSub: Subscription | undefined;
  /** Bumped whenever the kept ClickHouse rows are forgotten (a new stream, over the bound). */
  #clears = 0;
  #loop: Loop | undefined;
  #jsm: Promise<JetStreamManager> | undefined;
  readonly #touched: ((environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]) => void)[] = [];
  readonly #resets: (() => void)[] = [];
  /**
   * The last ClickHouse row of each scope of a grouped query (by agent or account), by the
   * query without its ids and the scope's id ({@link lowerBound}); null: none (zero). A query
   * by agent of whole accounts keeps all its rows, by the query (its account ids included).
   */
  readonly #lastRows = new Map<string, { rows: UsageRow | UsageRow[] | null; gen: number }>();
  /** The store generation of the latest ClickHouse answer kept of each scope (by its index key): parts stored before it need no verification. */
  readonly #scopeKept = new Map<string, number>();
  /**
   * Parts of the tail the sink stored lately ({@link RECENT_MS}), by scope, each with the
   * store generation that dropped it: a kept ClickHouse answer (of generation G, the
   * generation when it was kept) counts none stored after G, so its lower bound adds those
   * (issue 32: without them a bound stood still from the sink's store of an event until a
   * pass read ClickHouse again, seconds under load, and money limits were refused late).
   */
  readonly #recent = new Map<string, Set<Entry>>();
  readonly #recentGen = new Map<Entry, { gen: number; at: number }>();
  /** Bumped by every store of sequences the tail held. */
  #storeGen = 0;
  /**
   * The identities of the client's ids the tail knows (held, or stored parts kept), and the
   * verifications of them (lowerBound; issue 32: every SDK event carries an id the client
   * chose). A verification of epoch `v` holds while `v >= #idValidFrom` (the epoch moves
   * when the tail forgets what it knew: a new stream, over its bound).
   */
  readonly #idents = new Map<string, Ident>();
  #idEpoch = 0;
  #idValidFrom = 1;
  /** Bumped by every change of an identity's standing (poisoned, verified, forgotten); with it, each entry's standing is computed once. */
  #identGen = 0;
  readonly #checked = new WeakMap<Entry, { gen: number; ok: boolean; settled: boolean }>();
  /** When each held entry of the client's ids was held (ms). */
  readonly #heldAt = new WeakMap<Entry, number>();
  /** Scopes whose held identities a verification is asked for, and the one running. */
  #verifyWanted: Touched = new Map();
  #verifying: Promise<void> | undefined;
  readonly #verified: ((environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]) => void)[] = [];
  #stopped = false;
  /** Verifications run (tests read it). */
  verifications = 0;
  /** Polls completed (tests wait on it). */
  polls = 0;
  /** Messages taken from usage deltas, and read from the stream (direct gets), by this tail. */
  readonly taken = { deltas: 0, reads: 0 };

  constructor(
    private readonly deps: { nc: NatsConnection; names: NatsNames; ch: Pick<ClickHouseClient, 'query'>; database: string; usage: UsageSource },
    private readonly opts: LiveTailOptions,
  ) {
    // ClickHouse's part leaves out what the tail holds (the cut of the moment each answer is computed; not part of its cache key).
    this.cache = new LiveUsageCache(
      {
        query: (q) => deps.usage.query(this.exact ? { ...q, unstored: this.#cut() } : q),
        firstSeenUsers: (q) => deps.usage.firstSeenUsers(q),
      },
      opts.bulkAfterMisses === undefined ? {} : { bulkAfterMisses: opts.bulkAfterMisses },
    );
  }

  /** What ClickHouse's part leaves out: the current stream's sequences not known stored. */
  #cut(): UnstoredCut {
    return { streamCreated: this.#streamCreated, floor: this.#known, stored: [...this.#stored] };
  }

  start(): this {
    this.#deltaSub ??= this.deps.nc.subscribe(this.deps.names.liveDeltaSubject, {
      callback: (err, msg) => {
        if (!err) this.#onDeltas(msg.data);
      },
    });
    this.#loop ??= startLoop({ name: 'live-tail', intervalMs: this.opts.pollMs, run: () => this.poll() });
    return this;
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#deltaSub?.unsubscribe();
    await this.#loop?.stop();
  }

  /** Hears the scopes of new events: read by the tail, and again once stored (outcomes derived from them, users). */
  onTouched(fn: (environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]) => void): void {
    this.#touched.push(fn);
  }

  /** Hears a new stream (or the first poll): anything measured before may be wrong. */
  onReset(fn: () => void): void {
    this.#resets.push(fn);
  }

  /** Whether answers include the tail now (started, and not degraded). */
  get exact(): boolean {
    return this.#stream !== undefined && this.#degradedThrough === undefined;
  }

  get entries(): number {
    return this.#entries;
  }

  async query(q: UsageQuery): Promise<UsageRow[]> {
    return this.#query(q, 'all');
  }

  /**
   * As {@link query}, with the tail's events of the client's ids counted only once verified
   * (as in lower bounds: each the one copy that will be counted; the fast pass of spend
   * limits asks for verifications where they would decide a crossing): what the spend-limit
   * evaluator's passes and the credit watch read, so a copy the tail holds
   * (a retry, a resend) never blocks an account or fires an alert before the sink stores it
   * (until then {@link query} counts it once per copy). Lower than {@link query} until the
   * sink stored what is left out.
   */
  async queryVerified(q: UsageQuery): Promise<UsageRow[]> {
    return this.#query(q, 'verified');
  }

  /** A usage source of {@link queryVerified}: what decides spend limits, credit alerts and threshold top-ups. */
  verified(): UsageSource {
    return { query: (q) => this.queryVerified(q), firstSeenUsers: (q) => this.firstSeenUsers(q) };
  }

  async #query(q: UsageQuery, ids: ClientIds): Promise<UsageRow[]> {
    if (!this.exact || !(cacheable(q) || arrivingNow(q))) return this.cache.query(q);
    for (let attempt = 0; ; attempt++) {
      // A drop of the query's own scopes while ClickHouse answered: the answer may predate an
      // event the tail no longer holds. A drop of other scopes removed none of its entries.
      const w = this.cache.watch(q);
      const cleared = this.#clears;
      let rows: UsageRow[];
      try {
        rows = await this.cache.query(q);
      } finally {
        w.done();
      }
      if (cleared === this.#clears && this.exact) this.#keepLast(q, rows);
      if (!w.stale || attempt >= 5) return this.exact ? this.#withTail(q, rows, [], ids) : rows;
    }
  }

  firstSeenUsers(q: FirstSeenUsersQuery): Promise<string[]> {
    return this.cache.firstSeenUsers(q);
  }

  /**
   * A lower bound of a grouped query's answer (by agent or account), at once, with no
   * ClickHouse query: the last ClickHouse rows of its scopes (however old), plus the parts the
   * sink stored since they were kept (for {@link RECENT_MS}), plus what the tail holds now.
   * Never above the exact answer: a ClickHouse answer counts only sequences known stored when
   * it was computed, a part stored since is added only to answers kept before its store, and
   * the tail never holds a sequence known stored, so no message is counted twice (one stored
   * before the tail read it is missed: lower, never higher). Of the tail's and the stored
   * parts, events whose ids ingest made count (`cid` 0); an entry of the client's ids counts
   * only when each of its identities is {@link eligible}: an id the client chose may be a copy
   * of an event counted already, which ClickHouse counts once (issue 32: resent ids blocked an
   * account whose exact spend was below its limit). A query by agent
   * of whole accounts (no agent instance ids: how an account's subscription is rated) is
   * bounded by that query's last answer, all its rows. Undefined while the tail is not exact
   * (not started, degraded).
   */
  lowerBound(q: UsageQuery, clientIds: 'verified' | 'unpoisoned' = 'verified'): UsageRow[] | undefined {
    if (!this.exact || (q.groupBy !== 'agent' && q.groupBy !== 'account')) return undefined;
    const base = lastKey(q);
    const stored: Entry[] = [];
    const agents = q.agentInstanceIds && new Set(q.agentInstanceIds);
    const accounts = q.accountIds && new Set(q.accountIds);
    /** The scope's parts stored after generation `gen` (none of them in an answer kept then) within the query's agents and accounts. */
    const storedSince = (key: string, gen: number) => {
      for (const e of this.#recent.get(key) ?? []) {
        if (this.#recentGen.get(e)!.gen > gen && (!agents || agents.has(e.agent)) && (!accounts || accounts.has(e.acct))) stored.push(e);
      }
    };
    if (wholeAccountsByAgent(q)) {
      const kept = this.#lastRows.get(base);
      for (const id of q.accountIds!) storedSince(accountKey(q.environmentId, id), kept?.gen ?? 0);
      return this.#withTail(q, Array.isArray(kept?.rows) ? kept.rows : [], stored, clientIds);
    }
    const ids = (q.groupBy === 'agent' ? q.agentInstanceIds : q.accountIds) ?? [];
    const rows: UsageRow[] = [];
    for (const id of ids) {
      const kept = this.#lastRows.get(base + id);
      if (kept?.rows && !Array.isArray(kept.rows)) rows.push(kept.rows);
      storedSince(q.groupBy === 'agent' ? agentKey(q.environmentId, id) : accountKey(q.environmentId, id), kept?.gen ?? 0);
    }
    return this.#withTail(q, rows, stored, clientIds);
  }

  /** Keeps a grouped answer's rows per scope (a scope without a row: zero), or a whole-accounts query's rows together. */
  #keepLast(q: UsageQuery, rows: UsageRow[]): void {
    if (q.groupBy !== 'agent' && q.groupBy !== 'account') return;
    const base = lastKey(q);
    // The generation now, not the one its query was asked at: parts stored in between are in
    // neither (lower, never double); a cached answer predates no store of its scopes (each
    // store drops their cached answers).
    const gen = this.#storeGen;
    const keep = (k: string, v: UsageRow | UsageRow[] | null) => {
      this.#lastRows.delete(k); // re-inserted last: the oldest go first
      this.#lastRows.set(k, { rows: v, gen });
    };
    const keptScope = (k: string) => {
      this.#scopeKept.delete(k);
      this.#scopeKept.set(k, gen);
    };
    if (wholeAccountsByAgent(q)) {
      keep(base, rows);
      for (const id of q.accountIds!) keptScope(accountKey(q.environmentId, id));
    } else {
      const ids = (q.groupBy === 'agent' ? q.agentInstanceIds : q.accountIds) ?? [];
      const byId = new Map(rows.map((r) => [(q.groupBy === 'agent' ? r.agent_instance_id : r.account_id) ?? '', r]));
      for (const id of ids) {
        keep(base + id, byId.get(id) ?? null);
        keptScope(q.groupBy === 'agent' ? agentKey(q.environmentId, id) : accountKey(q.environmentId, id));
      }
    }
    while (this.#lastRows.size > LAST_ROWS_MAX) this.#lastRows.delete(this.#lastRows.keys().next().value!);
    while (this.#scopeKept.size > LAST_ROWS_MAX) this.#scopeKept.delete(this.#scopeKept.keys().next().value!);
  }

  /**
   * The ClickHouse rows plus the tail's entries matching the query (and `stored`: parts stored
   * since those rows, within its scopes); `ids`: which entries of the client's ids count (see
   * {@link ClientIds}); 'verified': only once
   * {@link eligible}.
   */
  #withTail(q: UsageQuery, rows: UsageRow[], stored: Entry[] = [], ids: ClientIds = 'all'): UsageRow[] {
    const candidates = q.agentInstanceIds
      ? q.agentInstanceIds.map((id) => this.#index.get(agentKey(q.environmentId, id)))
      : q.accountIds
        ? q.accountIds.map((id) => this.#index.get(accountKey(q.environmentId, id)))
        : [this.#index.get(envKey(q.environmentId))];
    if (stored.length > 0) candidates.push(new Set(stored));
    if (candidates.every((c) => c === undefined || c.size === 0)) return rows;
    const from = q.from.getTime();
    const to = q.to.getTime();
    const accounts = q.accountIds && q.agentInstanceIds ? new Set(q.accountIds) : undefined;
    const atypes = q.actionTypes ? new Set(q.actionTypes) : undefined;
    const otypes = q.outcomeTypes ? new Set(q.outcomeTypes) : undefined;
    const keyOf = (agent: string, acct: string): string => (q.groupBy === 'agent' ? agent : q.groupBy === 'account' ? acct : q.groupBy === 'agent_account' ? `${agent}\u0000${acct}` : '');
    interface Sum {
      agent: string;
      acct: string;
      actions: bigint;
      outcomes: bigint;
      value: Dec;
      tin: bigint;
      tout: bigint;
      ttot: bigint;
      classes: bigint[];
    }
    const sums = new Map<string, Sum>();
    for (const set of candidates) {
      for (const e of set ?? []) {
        if (e.max < from || e.min >= to) continue;
        if (e.min < from || e.max >= to) {
          metrics.straddles.inc();
          continue;
        }
        if (accounts && !accounts.has(e.acct)) continue;
        // A lower bound leaves out events with the client's ids until each is proven no copy of one counted elsewhere.
        if (e.cid !== 0 && ids !== 'all' && !(ids === 'verified' ? this.#eligible(e) : this.#unpoisoned(e))) continue;
        if (e.k === 1 ? atypes && !atypes.has(e.type) : otypes && !otypes.has(e.type)) continue;
        const key = keyOf(e.agent, e.acct);
        let s = sums.get(key);
        if (!s) sums.set(key, (s = { agent: e.agent, acct: e.acct, actions: 0n, outcomes: 0n, value: new Dec(0), tin: 0n, tout: 0n, ttot: 0n, classes: TOKEN_CLASSES.map(() => 0n) }));
        if (e.k === 1) {
          s.actions += BigInt(e.n);
          s.tin += BigInt(e.tin);
          s.tout += BigInt(e.tout);
          s.ttot += BigInt(e.ttot);
          e.classes.forEach((c, j) => (s.classes[j]! += BigInt(c)));
        } else {
          s.outcomes += BigInt(e.n);
          s.value = s.value.plus(e.value);
        }
      }
    }
    if (sums.size === 0) return rows;
    const out = rows.map((r) => ({ ...r }));
    const byKey = new Map(out.map((r) => [keyOf(r.agent_instance_id ?? '', r.account_id ?? ''), r]));
    for (const [key, s] of sums) {
      let r = byKey.get(key);
      if (!r) {
        r = { actions: '0', outcomes: '0', outcome_value: '0', users: '0', input_tokens: '0', output_tokens: '0', total_tokens: '0', cache_read_input_tokens: '0', cache_creation_input_tokens: '0', reasoning_tokens: '0' };
        if (q.groupBy === 'agent' || q.groupBy === 'agent_account') r.agent_instance_id = s.agent;
        if (q.groupBy === 'account' || q.groupBy === 'agent_account') r.account_id = s.acct;
        byKey.set(key, r);
        out.push(r);
      }
      r.actions = String(BigInt(r.actions) + s.actions);
      r.outcomes = String(BigInt(r.outcomes) + s.outcomes);
      r.outcome_value = plain(new Dec(r.outcome_value).plus(s.value));
      r.input_tokens = String(BigInt(r.input_tokens) + s.tin);
      r.output_tokens = String(BigInt(r.output_tokens) + s.tout);
      r.total_tokens = String(BigInt(r.total_tokens) + s.ttot);
      TOKEN_CLASSES.forEach((c, j) => (r[c.field] = String(BigInt(r[c.field]) + s.classes[j]!)));
    }
    return out;
  }

  /** One poll: the stream's identity, what the sink stored since, what the stream holds beyond. */
  async poll(): Promise<void> {
    const jsm = await (this.#jsm ??= jetstreamManager(this.deps.nc).catch((err: unknown) => {
      this.#jsm = undefined;
      throw err;
    }));
    const { names } = this.deps;
    let created: string;
    let last: number;
    let meanBytes: number;
    try {
      const info = await jsm.streams.info(names.stream);
      created = info.created;
      last = info.state.last_seq;
      meanBytes = info.state.messages > 0 ? info.state.bytes / info.state.messages : 0;
    } catch (err) {
      if (!/not found/i.test(String(err))) throw err;
      if (this.#stream !== '') this.#reset('', 0);
      return;
    }
    let ack: number;
    try {
      ack = (await jsm.consumers.info(names.stream, names.sinkConsumer)).ack_floor.stream_seq;
    } catch (err) {
      if (!/not found/i.test(String(err))) throw err;
      ack = 0;
    }
    if (created !== this.#stream || ack < this.#known) {
      this.#reset(created, ack);
    }
    if (last > this.#lastSeq) this.#lastSeq = last;
    await this.#stored_(created, ack, last);
    // While deltas flow, a message appended since the previous poll is left one poll for its delta.
    const flowing = Date.now() - this.#lastDeltaAt < DELTAS_FLOWING_MS;
    await this.#readNew(flowing ? Math.min(last, this.#prevLast) : last, meanBytes);
    this.#prevLast = last;
    this.polls++;
  }

  #reset(stream: string, floor: number): void {
    this.#stream = stream;
    // Sub-millisecond digits dropped: the cut's instant is at or before the creation.
    this.#streamCreated = new Date(stream ? Math.floor(Date.parse(stream)) : 0);
    this.#known = floor;
    this.#read = floor;
    this.#lastSeq = floor;
    this.#prevLast = floor;
    this.#stored.clear();
    this.#clearTail();
    this.#forgetIdents();
    this.#degradedThrough = undefined;
    metrics.degraded.set(0);
    this.#forgetClickHouse();
    for (const fn of this.#resets) fn();
  }

  /** Forgets every ClickHouse answer (cached, and kept for lower bounds). */
  #forgetClickHouse(): void {
    this.cache.clear();
    this.#lastRows.clear();
    this.#scopeKept.clear();
    this.#clears++;
  }

  /** Forgets the stored parts kept and every identity of the client's ids (a reset, over the bound: what the tail knew is no more). */
  #forgetIdents(): void {
    this.#recent.clear();
    this.#recentGen.clear();
    this.#idents.clear();
    this.#identGen++;
    // A verification running now stops holding.
    this.#idValidFrom = ++this.#idEpoch;
  }

  /**
   * Knows the identities of a held entry of the client's ids: a second copy of one poisons it
   * (the first-ingested copy is the one ClickHouse counts, and copies may differ). Beyond
   * `maxEntries` identities an entry's ids are not kept: it never counts in a bound, and once
   * stored, its identities are looked up in ClickHouse like those of a message never held.
   */
  #holdIds(e: Entry): void {
    if (e.cid === 0 || !e.ids) return;
    if (this.#idents.size + e.ids.length > this.opts.maxEntries) {
      delete e.ids;
      return;
    }
    this.#heldAt.set(e, Date.now());
    for (const id of e.ids) {
      const key = identKey(e, id);
      const st = this.#idents.get(key);
      if (st) {
        st.copies++;
        if (!st.poisoned) metrics.poisoned.inc({ seen: 'held' });
        st.poisoned = true;
        this.#identGen++;
      } else this.#idents.set(key, { seq: e.seq, copies: 1, poisoned: false, v: 0 });
    }
  }

  /** Forgets a copy of each of an entry's identities (its stored part expired). */
  #releaseIds(e: Entry): void {
    if (!e.ids) return;
    for (const id of e.ids) {
      const key = identKey(e, id);
      const st = this.#idents.get(key);
      if (st && --st.copies <= 0) {
        this.#idents.delete(key);
        this.#identGen++;
      }
    }
  }

  /**
   * Whether an entry of the client's ids counts in a lower bound: each identity has one copy
   * known (this one), and a verification that began after the last invalidation found
   * ClickHouse holding no copy of it but this one. Every other copy ClickHouse can count is
   * then seen before any answer counts it, and poisons the identity: stored before the
   * verification began, ClickHouse held it; stored since, it was held by the tail (a second
   * copy), or its message's ids were unknown to the tail, which looks them up in ClickHouse
   * before its cut lets any answer count that message (`#stored_`). So none is counted twice.
   */
  #eligible(e: Entry): boolean {
    if (!e.ids) return false;
    const cached = this.#checked.get(e);
    if (cached?.gen === this.#identGen) return cached.ok;
    let ok = true;
    let settled = true; // each identity verified or poisoned: nothing left to verify
    for (const id of e.ids) {
      const st = this.#idents.get(identKey(e, id));
      const verified = st !== undefined && st.v >= this.#idValidFrom;
      if (!st || st.poisoned || st.copies !== 1 || !verified) ok = false;
      if (st && !st.poisoned && st.copies === 1 && !verified) settled = false;
    }
    this.#checked.set(e, { gen: this.#identGen, ok, settled });
    return ok;
  }

  /** Whether an entry of the client's ids has one copy known of each identity, none known elsewhere (verified or not). */
  #unpoisoned(e: Entry): boolean {
    if (!e.ids) return false;
    for (const id of e.ids) {
      const st = this.#idents.get(identKey(e, id));
      if (!st || st.poisoned || st.copies !== 1) return false;
    }
    return true;
  }

  /** Hears the scopes whose lower bounds grew with no new usage: their held identities of the client's ids verified. */
  onVerified(fn: (environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]) => void): void {
    this.#verified.push(fn);
  }

  /**
   * Asks for the identities of the client's ids of these scopes (events held, or stored lately)
   * to be verified against ClickHouse, so their events count in lower bounds; one
   * verification runs at a time, and `onVerified` listeners hear the scopes that gained.
   * Nothing to verify: nothing is asked of ClickHouse.
   */
  requestVerification(environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]): void {
    void this.verify(environmentId, accountIds, agentInstanceIds);
  }

  /** {@link requestVerification}, settled once these scopes were verified (or the verification failed: it is asked again next time). */
  verify(environmentId: string, accountIds: readonly string[], agentInstanceIds: readonly string[]): Promise<void> {
    if (!this.exact || this.#stopped) return Promise.resolve();
    for (const a of accountIds) touch(this.#verifyWanted, environmentId, a, '');
    for (const i of agentInstanceIds) touch(this.#verifyWanted, environmentId, '', i);
    if (this.#verifying || this.#verifyWanted.size === 0) return this.#verifying ?? Promise.resolve();
    this.#verifying = (async () => {
      await null; // never settled before it is assigned
      try {
        while (this.#verifyWanted.size > 0 && this.exact) {
          const wanted = this.#verifyWanted;
          this.#verifyWanted = new Map();
          await this.#verify(wanted);
        }
      } catch (err) {
        // Safe (those events count once the sink stored them), but crossings wait for that.
        log.warn('verification of client ids failed: their events count in spend limits once stored', { err });
      } finally {
        this.#verifying = undefined;
      }
    })();
    return this.#verifying;
  }

  /**
   * The lowest sequence the tail has neither held, read nor known stored: a message
   * acknowledged whose events it has not seen (its delta not arrived yet, or lost). A copy of
   * an event may be there, ingested before any copy held above it, so only entries below it
   * are verified (a tester's defect: a retry held and verified before the tail read the
   * message of the first copy counted, with the retry's tokens).
   */
  /**
   * Reads now (direct gets) the messages the tail has not seen below the last it heard of,
   * when they are few ({@link GAP_READ_MAX}): a delta lost or late, which a poll would read
   * (polls wait for ClickHouse, seconds at a saturating load), holds back every verification
   * above it ({@link #firstUnseen}). Returns those found gone from the stream: the sink
   * acknowledged them, after storing them, so a verification begun now sees their copies in
   * ClickHouse.
   */
  async #readGaps(): Promise<Set<number>> {
    const gone = new Set<number>();
    if (!this.#jsm) return gone;
    // The stream's last message now: every message published before the verification begins.
    const last = (await (await this.#jsm).streams.info(this.deps.names.stream)).state.last_seq;
    if (last > this.#lastSeq) this.#lastSeq = last;
    const gaps: number[] = [];
    for (let s = Math.max(this.#known, this.#read) + 1; s <= this.#lastSeq && gaps.length <= GAP_READ_MAX; s++) {
      if (!this.#segments.has(s) && !this.#stored.has(s)) gaps.push(s);
    }
    if (gaps.length === 0 || gaps.length > GAP_READ_MAX || !this.#jsm) return gone;
    const jsm = await this.#jsm;
    const stream = this.#stream;
    // null: gone (no such message); undefined: not read (any other failure: still unseen).
    const msgs = await Promise.all(
      gaps.map((seq) => jsm.streams.getMessage(this.deps.names.stream, { seq }).catch((err: unknown) => (/no message found|not found/i.test(String(err)) ? null : undefined))),
    );
    if (this.#stream !== stream || !this.exact) return gone;
    const touched: Touched = new Map();
    for (const [j, seq] of gaps.entries()) {
      const m = msgs[j];
      if (m === null) gone.add(seq);
      // Gone (stored: the next poll names it), or held meanwhile: as a poll's read.
      if (!m || this.#stored.has(seq) || seq <= this.#known || this.#segments.has(seq)) continue;
      this.#holdRead(seq, m.data, touched);
    }
    if (this.#entries > this.opts.maxEntries) this.#degrade();
    metrics.entries.set(this.#entries);
    this.#emit(touched);
    return gone;
  }

  #firstUnseen(gone: ReadonlySet<number> = new Set()): number {
    let s = Math.max(this.#known, this.#read) + 1;
    while (this.#segments.has(s) || this.#stored.has(s) || gone.has(s)) s++;
    return s;
  }

  /** One verification: the wanted scopes' identities not verified yet (held, or stored lately), looked up by event identity in ClickHouse (any copy, no FINAL). */
  async #verify(wanted: Touched): Promise<void> {
    const byEnvKind = new Map<string, Map<string, { agent: string; id: string; seq: number; e: Entry }>>();
    let n = 0;
    const settledBefore = Date.now() - VERIFY_SETTLE_MS;
    // Scopes with entries held too lately: asked again once they have settled.
    const later: Touched = new Map();
    const askLater = () => {
      if (later.size === 0) return;
      const t = setTimeout(() => {
        for (const [env, sc] of later) this.requestVerification(env, [...sc.accounts], [...sc.agents]);
      }, VERIFY_SETTLE_MS);
      t.unref();
    };
    const gone = await this.#readGaps();
    const unseen = this.#firstUnseen(gone);
    // Each scope's share of the verification: one scope's flood never starves another's crossing.
    const scopes = [...wanted].flatMap(([env, t]) => [...[...t.accounts].map((a) => [env, accountKey(env, a)] as const), ...[...t.agents].map((i) => [env, agentKey(env, i)] as const)]);
    const share = Math.max(100, Math.ceil(VERIFY_MAX / Math.max(1, scopes.length)));
    for (const [env, key] of scopes) {
      // Oldest first, what a bound needs first: the parts stored since the scope's latest kept
      // answer (one stored before it adds to no bound of it: that answer counts it), then the
      // held entries (in the order the tail took them).
      const kept = this.#scopeKept.get(key) ?? 0;
      const candidates = [...[...(this.#recent.get(key) ?? [])].filter((e) => this.#recentGen.get(e)!.gen > kept), ...(this.#index.get(key) ?? [])];
      let taken = 0;
      scope: for (const e of candidates) {
        if (e.cid === 0 || !e.ids || e.seq >= unseen || derivedLike(e)) continue;
        if ((this.#heldAt.get(e) ?? Infinity) > settledBefore) {
          touch(later, env, e.acct, e.agent);
          continue;
        }
        this.#eligible(e);
        if (this.#checked.get(e)!.settled) continue;
        const batch = byEnvKind.get(`${env}\u0000${e.k}`) ?? new Map();
        byEnvKind.set(`${env}\u0000${e.k}`, batch);
        for (const id of e.ids) {
          const ik = identKey(e, id);
          const st = this.#idents.get(ik);
          if (!st || st.poisoned || st.copies !== 1 || st.v >= this.#idValidFrom || batch.has(ik)) continue;
          batch.set(ik, { agent: e.agent, id, seq: e.seq, e });
          n++;
          if (++taken >= share) break scope;
        }
      }
    }
    askLater();
    if (n === 0) return;
    const ep = ++this.#idEpoch;
    const stopTimer = metrics.verifications.startTimer();
    const stream = this.#stream;
    const created = this.#streamCreated.getTime();
    const found = new Map<string, { seq: number; at: number }[]>();
    for (const [ek, batch] of byEnvKind) {
      const [env, k] = ek.split('\u0000') as [string, string];
      // The pairs as one set: a key range each (two sets of agents and ids would make their
      // product, measured 3-5 times slower at the bench's load with 30 agents).
      const rows: { a: string; i: string; s: string; t: string }[] = [];
      for (const chunk of chunksOf([...batch.values()], (b) => 8 + 3 * (b.agent.length + b.id.length), 100_000)) {
        const pairs = chunk.map((b) => `(${sqlString(b.agent)}, ${sqlString(b.id)})`).join(', ');
        const part = await this.deps.ch
          .query({
            query: `/* live-tail verify */ SELECT agent_instance_id AS a, event_id AS i, toString(stream_seq) AS s, toString(toUnixTimestamp64Milli(ingested_at)) AS t FROM ${this.deps.database}.${k === '1' ? 'actions' : 'outcomes'} WHERE environment_id = ${sqlString(env)} AND (agent_instance_id, event_id) IN (${pairs})`,
            format: 'JSONEachRow',
          })
          .then((r) => r.json<{ a: string; i: string; s: string; t: string }>());
        rows.push(...part);
      }
      for (const r of rows) {
        const key = `${env}\u0000${r.a}\u0000${k}\u0000${r.i}`;
        let list = found.get(key);
        if (!list) found.set(key, (list = []));
        list.push({ seq: Number(r.s), at: Number(r.t) });
      }
    }
    this.verifications++;
    stopTimer();
    // Invalidated meanwhile (a new stream, over the bound): nothing holds.
    if (this.#stream !== stream || ep < this.#idValidFrom) {
      metrics.identities.inc({ result: 'stale' }, n);
      return;
    }
    const gained: Touched = new Map();
    for (const batch of byEnvKind.values()) {
      for (const [key, b] of batch) {
        const st = this.#idents.get(key);
        if (!st) continue;
        // Only this copy may be there (stored since it was held: it is in the current stream under its own sequence).
        if ((found.get(key) ?? []).some((c) => c.seq !== b.seq || c.at < created)) {
          st.poisoned = true;
          this.#identGen++;
          metrics.identities.inc({ result: 'copy' });
        } else if (!st.poisoned && st.copies === 1) {
          st.v = ep;
          this.#identGen++;
          metrics.identities.inc({ result: 'clean' });
          touch(gained, b.e.env, b.e.acct, b.e.agent);
        }
      }
    }
    for (const [env, t] of gained) {
      for (const fn of this.#verified) {
        try {
          fn(env, [...t.accounts], [...t.agents]);
        } catch (err) {
          log.warn('live tail listener failed', { err });
        }
      }
    }
  }

  /** Keeps a stored part for lower bounds ({@link RECENT_MS}). */
  #keepRecent(e: Entry, gen: number, at: number): void {
    for (const k of [accountKey(e.env, e.acct), agentKey(e.env, e.agent)]) {
      let set = this.#recent.get(k);
      if (!set) this.#recent.set(k, (set = new Set()));
      set.add(e);
    }
    this.#recentGen.set(e, { gen, at });
  }

  /** Forgets stored parts older than RECENT_MS, and the oldest beyond the tail's bound (a lower bound without them is lower, never wrong). */
  #expireRecent(now: number): void {
    for (const [e, { at }] of this.#recentGen) {
      if (now - at < RECENT_MS && this.#recentGen.size <= this.opts.maxEntries) break; // in insertion order: the rest are newer
      this.#recentGen.delete(e);
      this.#releaseIds(e);
      for (const k of [accountKey(e.env, e.acct), agentKey(e.env, e.agent)]) {
        const set = this.#recent.get(k);
        set?.delete(e);
        if (set?.size === 0) this.#recent.delete(k);
      }
    }
  }

  #clearTail(): void {
    this.#segments.clear();
    this.#index.clear();
    this.#entries = 0;
    metrics.entries.set(0);
  }

  /** Drops the part of every newly stored sequence, with the cached answers of its scopes. */
  async #stored_(created: string, ack: number, last: number): Promise<void> {
    const inserted = await insertedAbove(this.deps.ch, this.deps.database, created, ack, last);
    const newly: number[] = [];
    for (let s = this.#known + 1; s <= ack; s++) if (!this.#stored.has(s)) newly.push(s);
    for (const s of inserted) if (s > this.#known && !this.#stored.has(s)) newly.push(s);
    if (newly.length === 0) return;
    // Sequences the tail does not hold: their scopes from ClickHouse (they are stored there).
    const unknown = newly.filter((s) => !this.#segments.has(s));
    let fromCh = new Map<string, { accounts: string[]; agents: string[] }>();
    if (unknown.length > 0) {
      const lo = unknown.reduce((a, b) => Math.min(a, b));
      const hi = unknown.reduce((a, b) => Math.max(a, b));
      fromCh = await touchedScopes(this.deps.ch, this.deps.database, lo - 1, hi);
    }
    // Sequences whose ids of the client the tail does not know (never held, or held without
    // them): the identities ClickHouse took with them, each a possible copy of one it knows.
    const idless = this.#idents.size === 0 ? [] : [...unknown, ...newly.filter((s) => this.#segments.get(s)?.some((e) => e.cid !== 0 && !e.ids))];
    const copies = idless.length === 0 ? [] : await this.#storedIdentities(idless, created);
    if (this.#stream !== created) return; // reset meanwhile (cannot happen within one poll; kept honest)
    // From here to the end: synchronous, so no answer sees the tail without its drop or the reverse.
    const touched: Touched = new Map();
    for (const [env, t] of fromCh) {
      for (const a of t.accounts) touch(touched, env, a, '');
      for (const i of t.agents) touch(touched, env, '', i);
    }
    const gen = ++this.#storeGen;
    const at = Date.now();
    // ClickHouse took these with sequences whose ids the tail did not know: never in a bound
    // (answers count them from now on), unless the copy the tail knows is that one (its delta
    // arrived while this poll asked ClickHouse).
    for (const { key, seq } of copies) {
      const st = this.#idents.get(key);
      if (st && !st.poisoned && st.seq !== seq) {
        this.#identGen++;
        st.poisoned = true;
        metrics.poisoned.inc({ seen: 'stored' });
      }
    }
    for (const s of newly) {
      for (const e of this.#segments.get(s) ?? []) {
        touch(touched, e.env, e.acct, e.agent);
        this.#unindex(e);
        if (e.cid === 0 || e.ids) this.#keepRecent(e, gen, at);
      }
      this.#segments.delete(s);
      this.#stored.add(s);
    }
    this.#expireRecent(at);
    metrics.entries.set(this.#entries);
    for (const [env, t] of touched) this.cache.invalidate(env, t.accounts, t.agents);
    if (ack > this.#known) this.#known = ack;
    while (this.#stored.has(this.#known + 1)) this.#known++;
    for (const s of this.#stored) if (s <= this.#known) this.#stored.delete(s);
    this.#emit(touched);
  }

  /** The identities (as `identKey`) of the client's ids ClickHouse holds with these sequences of the stream created at `created`. */
  async #storedIdentities(seqs: number[], created: string): Promise<{ key: string; seq: number }[]> {
    const since = `toDateTime64(${sqlString(chTime(new Date(Math.floor(Date.parse(created)))))}, 3, 'UTC')`;
    const rows: { e: string; a: string; k: number; i: string; s: string }[] = [];
    for (const chunk of chunksOf(seqs, () => 18, 50_000)) {
      const list = chunk.map(uint).join(', ');
      const of = (table: string, k: number) =>
        `SELECT environment_id AS e, agent_instance_id AS a, ${k} AS k, event_id AS i, toString(stream_seq) AS s FROM ${this.deps.database}.${table} PREWHERE stream_seq IN (${list}) WHERE id_source = 'client' AND ingested_at >= ${since}`;
      const part = await this.deps.ch
        .query({ query: `/* live-tail stored ids */ ${of('actions', 1)} UNION ALL ${of('outcomes', 2)}`, format: 'JSONEachRow' })
        .then((r) => r.json<{ e: string; a: string; k: number; i: string; s: string }>());
      rows.push(...part);
    }
    return rows.map((r) => ({ key: `${r.e}\u0000${r.a}\u0000${r.k}\u0000${r.i}`, seq: Number(r.s) }));
  }

  /** Reads the messages appended since the last poll (up to READ_MAX); `meanBytes`: the stream's mean message size. */
  async #readNew(last: number, meanBytes: number): Promise<void> {
    if (this.#degradedThrough !== undefined) {
      if (this.#known < this.#degradedThrough) return;
      log.info('live tail reads the stream again: the sink stored what it held when it was over its bound');
      this.#degradedThrough = undefined;
      metrics.degraded.set(0);
      this.#forgetClickHouse(); // its answers counted everything ClickHouse held
    }
    const from = Math.max(this.#read, this.#known) + 1;
    const to = Math.min(last, from + READ_MAX - 1);
    if (to < from) return;
    const stream = this.#stream;
    const jsm = await this.#jsm!;
    const seqs: number[] = [];
    // A sequence whose delta arrived is held already: never read.
    for (let s = from; s <= to; s++) if (!this.#stored.has(s) && !this.#segments.has(s)) seqs.push(s);
    const bytes = Math.round(seqs.length * meanBytes);
    if (bytes > (this.opts.readBacklogMaxBytes ?? READ_BACKLOG_MAX_BYTES)) {
      metrics.skipped.inc();
      this.#degrade(`a backlog of ${seqs.length}${to < last ? '+' : ''} messages (about ${bytes} bytes) no usage delta brought, over TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES: left to the sink`);
      return;
    }
    const touched: Touched = new Map();
    for (let i = 0; i < seqs.length; i += READ_CONCURRENCY) {
      const chunk = seqs.slice(i, i + READ_CONCURRENCY);
      const msgs = await Promise.all(
        chunk.map((seq) =>
          jsm.streams.getMessage(this.deps.names.stream, { seq }).catch((err: unknown) => {
            // Gone: the sink acknowledged it (it is stored; the next poll names its scopes).
            if (/no message found|not found/i.test(String(err))) return null;
            throw err;
          }),
        ),
      );
      if (this.#stream !== stream) return;
      for (const [j, seq] of chunk.entries()) {
        const m = msgs[j];
        // Its delta may have arrived while it was read: held once.
        if (!m || this.#stored.has(seq) || seq <= this.#known || this.#segments.has(seq)) continue;
        this.#holdRead(seq, m.data, touched);
      }
      this.#read = chunk.at(-1)!;
      if (this.#entries > this.opts.maxEntries) {
        this.#degrade();
        break;
      }
    }
    if (this.#degradedThrough === undefined) this.#read = Math.max(this.#read, to);
    metrics.entries.set(this.#entries);
    this.#emit(touched);
  }

  /** Holds a message read from the stream (not held yet, not stored), naming its scopes in `touched`. */
  #holdRead(seq: number, data: Uint8Array, touched: Touched): void {
    let entries: Entry[];
    try {
      entries = aggregateMessage(seq, data);
    } catch {
      entries = []; // what no sink can read is set aside by the sink, not counted
    }
    this.#segments.set(seq, entries);
    for (const e of entries) {
      this.#indexEntry(e);
      touch(touched, e.env, e.acct, e.agent);
    }
    metrics.messages.inc();
    this.taken.reads++;
  }

  /** Over the bound, or a backlog left to the sink: ClickHouse alone until the sink stored every message the tail heard of. */
  #degrade(why = `over its bound (TALLY_LIVE_TAIL_MAX_ENTRIES, ${this.opts.maxEntries})`): void {
    log.warn(`live tail ${why}: live usage is ClickHouse alone until the sink catches up`, { entries: this.#entries, through: this.#lastSeq });
    this.#clearTail();
    this.#forgetIdents();
    this.#degradedThrough = this.#lastSeq;
    this.#read = this.#lastSeq;
    metrics.degraded.set(1);
    this.#forgetClickHouse(); // its answers left out what the tail held
  }

  /**
   * Usage deltas (ingest publishes each acknowledged message's usage, aggregated): each
   * message not stored and not held yet is held from its delta at once, and its scopes are
   * heard at once (the limit evaluator and the credit watch), without waiting for a poll.
   * Core NATS is at most once: a message whose delta never arrives is read by a poll, so
   * what the tail holds is the same either way.
   */
  #onDeltas(data: Uint8Array): void {
    if (!this.exact) return;
    const msgs = decodeDeltas(data);
    if (!msgs) {
      metrics.badDeltas.inc();
      return;
    }
    this.#lastDeltaAt = Date.now();
    const touched: Touched = new Map();
    let taken = 0;
    for (const { seq, entries } of msgs) {
      if (seq <= this.#known || this.#stored.has(seq) || this.#segments.has(seq)) continue;
      this.#segments.set(seq, entries);
      for (const e of entries) {
        this.#indexEntry(e);
        touch(touched, e.env, e.acct, e.agent);
      }
      if (seq > this.#lastSeq) this.#lastSeq = seq;
      taken++;
    }
    metrics.deltas.inc(taken);
    this.taken.deltas += taken;
    if (this.#entries > this.opts.maxEntries) this.#degrade();
    metrics.entries.set(this.#entries);
    this.#emit(touched);
  }

  #indexEntry(e: Entry): void {
    this.#holdIds(e);
    for (const k of [envKey(e.env), accountKey(e.env, e.acct), agentKey(e.env, e.agent)]) {
      let set = this.#index.get(k);
      if (!set) this.#index.set(k, (set = new Set()));
      set.add(e);
    }
    this.#entries++;
  }

  #unindex(e: Entry): void {
    for (const k of [envKey(e.env), accountKey(e.env, e.acct), agentKey(e.env, e.agent)]) {
      const set = this.#index.get(k);
      if (!set) continue;
      set.delete(e);
      if (set.size === 0) this.#index.delete(k);
    }
    this.#entries--;
  }

  #emit(touched: Touched): void {
    for (const [env, t] of touched) {
      const accounts = [...t.accounts];
      const agents = [...t.agents];
      for (const fn of this.#touched) {
        try {
          fn(env, accounts, agents);
        } catch (err) {
          log.warn('live tail listener failed', { err });
        }
      }
    }
  }
}
