import { sql } from 'kysely';
import { clusterOf, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { SinkFloor } from '../../shared/clickhouse/sink-progress.ts';
import { sqlString, uint } from '../../shared/clickhouse/literals.ts';
import { chTime } from '../usage/usage-query.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { DEDUP_QUERY_SLACK_MS } from '../../shared/events/limits.ts';
import { logger } from '../../shared/log.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import { rollupCaughtUp } from '../metrics.ts';
import { COST_LINES_SQL, rulesByEnvironmentSql, type CostRollupReader } from './cost-query.ts';

const log = logger('cost-rollup');
const DAY_MS = 86_400_000;
/** Actions folded at a time unless configured (TALLY_COST_ROLLUP_STEP_ACTIONS). */
const DEFAULT_STEP_ACTIONS = 100_000;

/**
 * Where the rollup learns how far the sink got: the JetStream sequence up to which every
 * event message is inserted into ClickHouse (the sink consumer's ack floor), and the
 * stream it is a sequence of. `waitMs`: how long to wait for the sink to acknowledge what
 * the stream held when asked.
 */
type AckFloor = (waitMs: number) => Promise<SinkFloor>;

/** The Postgres advisory lock serializing rollup steps (and whatever else rewrites the rollup) of one ClickHouse database. */
export const costRollupLockKey = (database: string): string => `cost_rollup:${database}`;

const ROW = 'tuple(ts, account_id, action_type, model, input_tokens, output_tokens, total_tokens, metadata)';

/**
 * An event's identity as one key of `cost_counted`: environment and agent instance ids
 * are Tally's own (no `/` in them), the event id last, so no two identities share a key.
 */
const IDENTITY_KEY = "concat(environment_id, '/', agent_instance_id, '/', event_id)";

/**
 * The daily cost rollup: `costs_daily` holds, per environment, UTC day, agent instance,
 * account, category and currency, the cost and the number of actions that carried it,
 * counting each event once exactly as the live query does (`FINAL`: the best-ranked,
 * i.e. first-ingested, copy of each (environment, agent instance, event id) wins).
 *
 * How it stays exact without re-reading all events:
 * - Every action row carries the JetStream sequence of the message it came in. A step
 *   folds in the rows of sequences (done, floor], where floor is the sink's ack floor:
 *   every message up to it is in ClickHouse, so no row of the step can appear later.
 * - `cost_events` keeps, per event, the copy the rollup counts, and `cost_counted` (one
 *   server) its rank by identity. A step compares each event's best new copy with it
 *   (point lookups of the step's keys, {@link #compared}): none yet, add the new copy; a
 *   new copy that outranks it (a redelivered, earlier-ingested copy), add the new and
 *   subtract the counted one; otherwise (a duplicate) nothing. The raw table cannot serve
 *   as that record: its merges drop a counted copy once a better one lands.
 * - Crash safety: a step is planned in Postgres before its ClickHouse inserts (rollup
 *   first, then `cost_events`), which carry deduplication tokens of its bounds, so a step
 *   redone after a crash lands once. Steps are serialized by a Postgres advisory lock,
 *   across processes. The first step (from sequence -1) takes in every row ClickHouse
 *   already holds, those written before the rollup existed (sequence 0) included.
 * - A position is a sequence of one stream: the state keeps the stream's creation time
 *   beside it. On another stream (Postgres and ClickHouse restored onto a fresh one, or
 *   the stream deleted and created again) sequences restart, and a step by sequence would
 *   skip the new stream's actions up to the old position, forever. So the rollup is
 *   rebuilt from what ClickHouse holds, by event identity: `costs_daily` and
 *   `cost_events` emptied, then a first step over every row (planned before it starts;
 *   a crash redoes it from the emptying on). Readers use the live query meanwhile.
 * - Bounded memory: a backlog is folded in steps of about `stepActions` actions each
 *   ({@link #steps}), and the first build or a rebuild in parts of agent ranges of about
 *   as many ({@link #parts}).
 * - A cost rule change marks its environment stale from its effective time
 *   (`cost_rollup_dirty`); the next step recomputes those days from `cost_events`, and
 *   readers use the live query for them until then.
 * - Ranges that are not whole UTC days (the reports' dates always are) use the live query.
 *
 * Readers ({@link covers}) first catch up with every event the sink acknowledged when
 * they asked (waiting up to `readWaitMs` for the sink), so a report is as live as usage;
 * if that takes longer than `readBudgetMs` (a backlog under heavy ingest), they read the
 * rollup as it stands while the step goes on.
 */
export class CostRollup implements CostRollupReader {
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;
  #loop: Loop | undefined;
  /** One server: counted ranks in the key-value table `cost_counted` (a cluster has none shared by its nodes). */
  readonly #keyed: boolean;
  #countedFilled = false;

  constructor(
    private readonly db: Db,
    private readonly ch: Pick<ClickHouseClient, 'query' | 'command'>,
    private readonly database: string,
    private readonly ackFloor: AckFloor,
    /**
     * `lookup`: how counted copies are found; 'scan' (a cluster's way) is for comparisons (bench/rollup-step.ts).
     * `stepActions`: actions folded at a time (TALLY_COST_ROLLUP_STEP_ACTIONS; {@link #steps}, {@link #parts}).
     */
    private readonly opts: { readWaitMs?: number; readBudgetMs?: number; lookup?: 'keyed' | 'scan'; stepActions?: number } = {},
  ) {
    this.#keyed = clusterOf(ch as ClickHouseClient) === undefined;
  }

  /** Folds in new actions now, then every `intervalMs` after each step (the billing role runs this). */
  start(intervalMs: number): void {
    this.#loop ??= startLoop({ name: 'cost-rollup', intervalMs, run: () => this.catchUp(0) });
  }

  /** Ends the loop and waits for the steps in flight (readers' included). */
  async stop(): Promise<void> {
    await this.#loop?.stop();
    await Promise.allSettled([this.#running, this.#queued]);
  }

  /**
   * Whether the rollup answers costs of [from, to) exactly: whole UTC days, caught up with
   * the sink, and no pending rule change for the environment before `to`.
   */
  async covers(environmentId: string, from: Date, to: Date): Promise<boolean> {
    return (await this.coverage(environmentId, from, to)).covers;
  }

  /** {@link covers}, and whether the answer would be the rollup as it stands while a step still folds (behind the sink). */
  async coverage(environmentId: string, from: Date, to: Date): Promise<{ covers: boolean; behind: boolean }> {
    const no = { covers: false, behind: false };
    if (from.getTime() % DAY_MS !== 0 || to.getTime() % DAY_MS !== 0) return no;
    // Catch up, within a budget: a large backlog (heavy ingest) goes on folding in the
    // background while this answer uses the rollup as it stands. A failed step (say
    // ClickHouse refused it) sends the reader to raw events.
    const caughtUp = this.catchUp(this.opts.readWaitMs ?? 250).then(
      () => true,
      (err) => {
        log.warn('cost rollup could not catch up; answering from raw events', { err });
        return false;
      },
    );
    const budget = new Promise<'behind'>((r) => setTimeout(() => r('behind'), this.opts.readBudgetMs ?? 500).unref());
    const reached = await Promise.race([caughtUp, budget]);
    if (reached === false) return no;
    // Not built yet (the first step takes in everything ClickHouse holds): raw events.
    const state = await this.db.selectFrom('cost_rollup_state').select('done_seq').where('ch_database', '=', this.database).executeTakeFirst();
    if (!state || Number(state.done_seq) < 0) return no;
    const stale = await this.db
      .selectFrom('cost_rollup_dirty')
      .select((eb) => eb.fn.min('from_ts').as('from_ts'))
      .where('ch_database', '=', this.database)
      .where('environment_id', '=', environmentId)
      .executeTakeFirst();
    return { covers: !stale?.from_ts || new Date(stale.from_ts) >= to, behind: reached === 'behind' };
  }

  /**
   * Runs a step that starts after this call (callers arriving while one runs share the
   * next one), so everything acknowledged before the call is folded in when it resolves.
   */
  catchUp(waitMs: number): Promise<void> {
    if (!this.#running) {
      this.#running = this.#step(waitMs).finally(() => (this.#running = undefined));
      return this.#running;
    }
    this.#queued ??= this.#running
      .catch(() => undefined)
      .then(() => {
        this.#queued = undefined;
        return this.catchUp(waitMs);
      });
    return this.#queued;
  }

  async #step(waitMs: number): Promise<void> {
    const { stream, floor } = await this.ackFloor(waitMs);
    const floorReadAt = Date.now();
    const caughtUp = await this.db.connection().execute(async (conn) => {
      const key = costRollupLockKey(this.database);
      await sql`select pg_advisory_lock(hashtext(${key}))`.execute(conn);
      try {
        let { done, onStream } = await this.#state(conn);
        const marks = await conn
          .selectFrom('cost_rollup_dirty')
          .select(['id', 'environment_id', 'from_ts'])
          .where('ch_database', '=', this.database)
          .execute();
        if (stream !== '' && !(await this.#sameStream(conn, onStream, stream, done))) {
          // Rebuilt with the rules in effect now: pending rule changes are part of it.
          await this.#plan(conn, { done_seq: -1, planned_seq: floor, stream_created: stream });
          await this.#rebuild(stream, floor);
          if (marks.length > 0) await conn.deleteFrom('cost_rollup_dirty').where('id', 'in', marks.map((m) => m.id)).execute();
          await this.#plan(conn, { done_seq: floor, planned_seq: null });
          return true;
        }
        for (const [env, from] of earliestPerEnvironment(marks)) await this.#recompute(env, from);
        if (marks.length > 0) await conn.deleteFrom('cost_rollup_dirty').where('id', 'in', marks.map((m) => m.id)).execute();
        if (floor < done && floor > 0) log.debug("the sink's floor is below the cost rollup's last step (messages awaiting redelivery after a restart); the rollup waits", { floor, done });
        if (floor > done && done < 0) {
          // The first step: a build from everything ClickHouse holds, in parts.
          await this.#plan(conn, { planned_seq: floor });
          await this.#rebuild(onStream, floor, { empty: false });
          done = floor;
          await this.#plan(conn, { done_seq: done, planned_seq: null });
        }
        // A backlog in steps of bounded size, each planned and done as any step.
        if (floor > done) {
          for (const end of await this.#steps(done, floor)) {
            await this.#plan(conn, { planned_seq: end });
            await this.#fold(onStream, done, end);
            done = end;
            await this.#plan(conn, { done_seq: done, planned_seq: null });
          }
        }
        return floor >= done;
      } finally {
        await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
      }
    });
    if (caughtUp) rollupCaughtUp(floorReadAt);
  }

  async #plan(conn: Db, set: { done_seq?: number; planned_seq?: number | null; stream_created?: string }): Promise<void> {
    await conn.updateTable('cost_rollup_state').set({ ...set, updated_at: new Date() }).where('ch_database', '=', this.database).execute();
  }

  /**
   * Whether the rollup's position is a sequence of `stream`. A position kept before
   * streams were told apart (no stream recorded) is taken as this stream's unless the
   * stream was created after the position's last step; such a position, and one without
   * any step yet, is recorded as this stream's.
   */
  async #sameStream(conn: Db, onStream: string | null, stream: string, done: number): Promise<boolean> {
    if (onStream === stream) return true;
    if (onStream === null) {
      const state = await conn.selectFrom('cost_rollup_state').select('updated_at').where('ch_database', '=', this.database).executeTakeFirstOrThrow();
      if (done < 0 || new Date(stream) <= new Date(state.updated_at)) {
        await this.#plan(conn, { stream_created: stream });
        return true;
      }
    }
    log.warn('the events stream is not the one the cost rollup\'s position was taken on (restored onto a fresh stream, or created again): rebuilding the rollup from what ClickHouse holds', { was: onStream, stream, done });
    return false;
  }

  /** The folded sequence (-1: none yet) and its stream; finishes a step a crash interrupted. */
  async #state(conn: Db): Promise<{ done: number; onStream: string | null }> {
    const s = await conn.selectFrom('cost_rollup_state').select(['done_seq', 'planned_seq', 'stream_created']).where('ch_database', '=', this.database).executeTakeFirst();
    if (!s) {
      await conn.insertInto('cost_rollup_state').values({ ch_database: this.database, done_seq: -1 }).execute();
      return { done: -1, onStream: null };
    }
    const done = Number(s.done_seq);
    const onStream = s.stream_created;
    if (s.planned_seq === null) return { done, onStream };
    const planned = Number(s.planned_seq);
    log.info('finishing an interrupted cost rollup step', { from: done, to: planned });
    // A first build or a rebuild (a step from -1): redone from the emptying.
    if (done < 0) await this.#rebuild(onStream, planned);
    else await this.#fold(onStream, done, planned);
    await this.#plan(conn, { done_seq: planned, planned_seq: null });
    return { done: planned, onStream };
  }

  /**
   * Rebuilds the rollup from every action ClickHouse holds (a first step over emptied
   * tables): the counted copy of each event by identity and rank, as the live query
   * counts, whatever stream its sequence was of. Sequences up to `s1` of `stream` are in
   * ClickHouse; rows above it that are already there are counted now and found counted
   * (same rank) when a step reaches them.
   */
  async #rebuild(stream: string | null, s1: number, opts = { empty: true }): Promise<void> {
    // The first build finds the tables empty (nothing was ever folded); a rebuild and a redone build empty them.
    if (opts.empty) for (const table of ['costs_daily', 'cost_events', 'cost_counted']) await this.ch.command({ query: `TRUNCATE TABLE ${this.database}.${table}` });
    const attempt = Date.now();
    // Parts of disjoint event identities: no part has a copy counted by another, so none looks any up.
    const parts = await this.#parts();
    for (const [i, where] of parts.entries()) await this.#fold(stream, -1, s1, { attempt, part: parts.length > 1 ? i : undefined, where });
  }

  /**
   * The sub-ranges of (s0, s1] a backlog is folded in, by their ends: each with about
   * `stepActions` actions at most (a range ends after the message that reaches it, so one
   * message is never split). The actions are counted by sequence in ClickHouse, which
   * returns only the ends. Its numbers are literals, not query parameters: chDB runs
   * parameterized queries one at a time (shared/clickhouse/chdb-queue.ts), and a reader's
   * step would wait there behind the background loops' polls.
   */
  async #steps(s0: number, s1: number): Promise<number[]> {
    const max = this.opts.stepActions ?? DEFAULT_STEP_ACTIONS;
    const rows = await (
      await this.ch.query({
        query: `SELECT max(seq) AS end FROM (
            SELECT seq, sum(n) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) - n AS before
            FROM (SELECT stream_seq AS seq, count() AS n FROM ${this.database}.actions PREWHERE stream_seq > ${uint(s0)} AND stream_seq <= ${uint(s1)} GROUP BY seq)
          )
          GROUP BY intDiv(before, ${uint(max)}) ORDER BY end`,
        format: 'JSONEachRow',
      })
    ).json<{ end: string }>();
    const ends = rows.map((r) => Number(r.end)).filter((e) => e < s1);
    return [...ends, s1];
  }

  /**
   * The parts a first build or a rebuild folds one at a time: ranges of (environment,
   * agent instance), the sort key's prefix, of about `stepActions` actions each, cut at
   * the starts of the primary index's granules (`mergeTreeIndex`: the sparse index, one
   * row per 8,192, read without the data). Every copy of an event falls in one part; one
   * agent instance's actions are never split (its granules' index rows carry only the
   * prefix). A part's bounds are a condition on the sort key, so it reads its own
   * granules. A cluster (Distributed tables) builds in one part.
   */
  async #parts(): Promise<(string | undefined)[]> {
    if (!this.#keyed) return [undefined];
    const max = this.opts.stepActions ?? DEFAULT_STEP_ACTIONS;
    const rows = await (
      await this.ch.query({
        query: `SELECT e, a FROM (
            SELECT e, a, sum(n) OVER (ORDER BY e, a ROWS UNBOUNDED PRECEDING) - n AS before
            FROM (SELECT toString(environment_id) AS e, agent_instance_id AS a, sum(rows_in_granule) AS n FROM mergeTreeIndex({db:String}, 'actions') GROUP BY e, a)
          )
          ORDER BY e, a LIMIT 1 BY intDiv(before, {max:UInt64})`,
        query_params: { db: this.database, max },
        format: 'JSONEachRow',
      })
    ).json<{ e: string; a: string }>();
    // Lower bounds; the first part starts at the lowest key whatever it is.
    const from = (b: { e: string; a: string }) => `(environment_id > ${sqlString(b.e)} OR (environment_id = ${sqlString(b.e)} AND agent_instance_id >= ${sqlString(b.a)}))`;
    const below = (b: { e: string; a: string }) => `(environment_id < ${sqlString(b.e)} OR (environment_id = ${sqlString(b.e)} AND agent_instance_id < ${sqlString(b.a)}))`;
    if (rows.length <= 1) return [undefined];
    return rows.map((b, i) => [i > 0 ? from(b) : '', i + 1 < rows.length ? below(rows[i + 1]!) : ''].filter(Boolean).join(' AND '));
  }

  /**
   * Folds in the actions of sequences (s0, s1]. The comparison of new and counted copies
   * is staged once, then written to the rollup and only then to `cost_events`: a step
   * redone after a crash stages the same comparison, since `cost_events` holds none of
   * its rows unless both inserts already landed (and then both are deduplicated).
   */
  async #fold(stream: string | null, s0: number, s1: number, rebuild?: { attempt: number; part?: number; where?: string }): Promise<void> {
    const db = this.database;
    // Deduplication tokens name the stream: another stream's steps have the same bounds.
    // A rebuild's name its attempt (each empties the tables first) and its part.
    const step = `${stream === null ? '' : `${stream}:`}${rebuild ? `rebuild${rebuild.attempt}:${rebuild.part === undefined ? '' : `part${rebuild.part}:`}` : ''}${s0}:${s1}`;
    // A rebuild reads every action (of its part), a step those of its sequences.
    const read = rebuild ? (rebuild.where ? `PREWHERE ${rebuild.where}` : '') : `PREWHERE stream_seq > ${s0} AND stream_seq <= ${s1}`;
    const stage = `${db}.cost_fold_stage`;
    const fresh = `${db}.cost_fold_new`;
    for (const t of [stage, fresh]) await this.ch.command({ query: `TRUNCATE TABLE ${t}` });
    // The step's new copies, the best of each event, staged once: its lookups read them.
    await this.ch.command({
      query: `INSERT INTO ${fresh} (environment_id, agent_instance_id, event_id, nrow, nrank)
        SELECT environment_id, agent_instance_id, event_id, argMax(${ROW}, first_seen_rank), max(first_seen_rank)
        FROM ${db}.actions
        ${read}
        GROUP BY environment_id, agent_instance_id, event_id`,
    });
    await this.ch.command({ query: `INSERT INTO ${stage} (environment_id, agent_instance_id, event_id, nrow, nrank, orow, orank) ${await this.#compared(s0, fresh)}` });
    const contributions = `
      SELECT environment_id, agent_instance_id, s.1 AS sign, s.2.1 AS ts, s.2.2 AS account_id, s.2.3 AS action_type,
        s.2.4 AS model, s.2.5 AS input_tokens, s.2.6 AS output_tokens, s.2.7 AS total_tokens, s.2.8 AS metadata
      FROM ${stage}
      ARRAY JOIN if(orank = 0, [(toInt8(1), nrow)], [(toInt8(1), nrow), (toInt8(-1), orow)]) AS s`;
    await this.#insert(contributions, `fold:${step}`);
    await this.ch.command({
      query: `
        INSERT INTO ${db}.cost_events (environment_id, agent_instance_id, event_id, rank, folded_seq, ts, account_id, action_type, model, input_tokens, output_tokens, total_tokens, metadata)
        SETTINGS insert_deduplication_token = '${tokenText(`events:${step}`)}'
        SELECT environment_id, agent_instance_id, event_id, nrank, ${s1}, nrow.1, nrow.2, nrow.3, nrow.4, nrow.5, nrow.6, nrow.7, nrow.8
        FROM ${stage}`,
    });
    // Last: a step redone after a crash compares with the ranks counted before it (the
    // inserts above are then deduplicated whatever it stages), and a rank only rises.
    if (this.#keyed) await this.ch.command({ query: `INSERT INTO ${db}.cost_counted (key, rank) SELECT ${IDENTITY_KEY}, nrank FROM ${stage}` });
  }

  /**
   * The SELECT of the step's copies that change what is counted, as the stage's columns:
   * each new copy (`fresh`) with none counted yet (orank 0), or outranking the counted
   * one (orow: the counted copy, subtracted). With one server the counted ranks are
   * point lookups of the step's own keys (`cost_counted`, a key-value table), and only
   * the rare outranked copies are read from `cost_events`, through its sort key: the
   * step's cost follows the step, not the history. A cluster (no key-value table shared
   * by its nodes) finds counted copies by scanning `cost_events`' key hashes.
   */
  async #compared(s0: number, fresh: string): Promise<string> {
    const db = this.database;
    const identity = (a: string, b: string) => `${a}.environment_id = ${b}.environment_id AND ${a}.agent_instance_id = ${b}.agent_instance_id AND ${a}.event_id = ${b}.event_id`;
    // The first step has nothing counted yet: no lookup (orank 0: no counted copy).
    if (s0 < 0) return `SELECT environment_id, agent_instance_id, event_id, nrow, nrank, nrow, toUInt64(0) FROM ${fresh}`;
    if (!this.#keyed || this.opts.lookup === 'scan') {
      return `SELECT n.environment_id, n.agent_instance_id, n.event_id, n.nrow, n.nrank, o.row, o.counted_rank
        FROM ${fresh} AS n
        LEFT JOIN (
          SELECT environment_id, agent_instance_id, event_id, argMax(${ROW}, rank) AS row, max(rank) AS counted_rank
          FROM ${db}.cost_events
          -- A narrow hash column finds the few counted copies; the join then matches exactly.
          PREWHERE key_hash IN (SELECT cityHash64(environment_id, agent_instance_id, event_id) FROM ${fresh}) AND folded_seq <= ${s0}
          GROUP BY environment_id, agent_instance_id, event_id
        ) AS o ON ${identity('n', 'o')}
        WHERE n.nrank > o.counted_rank`;
    }
    await this.#fillCounted();
    const counted = `(SELECT key, rank FROM ${db}.cost_counted WHERE key IN (SELECT ${IDENTITY_KEY} FROM ${fresh}))`;
    return `SELECT n.environment_id, n.agent_instance_id, n.event_id, n.nrow, n.nrank, o.row, c.rank
      FROM ${fresh} AS n
      LEFT JOIN ${counted} AS c ON c.key = ${IDENTITY_KEY.replace(/(environment_id|agent_instance_id|event_id)/g, 'n.$1')}
      LEFT JOIN (
        SELECT environment_id, agent_instance_id, event_id, argMax(${ROW}, rank) AS row
        FROM ${db}.cost_events
        PREWHERE (environment_id, agent_instance_id, event_id) IN (
          SELECT f.environment_id, f.agent_instance_id, f.event_id FROM ${fresh} AS f INNER JOIN ${counted} AS k ON k.key = ${IDENTITY_KEY.replace(/(environment_id|agent_instance_id|event_id)/g, 'f.$1')}
          WHERE f.nrank > k.rank)
        GROUP BY environment_id, agent_instance_id, event_id
      ) AS o ON ${identity('n', 'o')}
      WHERE n.nrank > c.rank`;
  }

  /**
   * Fills `cost_counted` from `cost_events` once, where the counted copies predate it (a
   * rollup built before the key-value table existed); checked once a process.
   */
  async #fillCounted(): Promise<void> {
    if (this.#countedFilled) return;
    const any = async (table: string) => (await (await this.ch.query({ query: `SELECT 1 AS x FROM ${this.database}.${table} LIMIT 1`, format: 'JSONEachRow' })).json()).length > 0;
    if (!(await any('cost_counted')) && (await any('cost_events'))) {
      log.info('filling the cost rollup\'s counted keys from cost_events (once)');
      await this.ch.command({
        query: `INSERT INTO ${this.database}.cost_counted (key, rank)
          SELECT ${IDENTITY_KEY}, max(rank) FROM ${this.database}.cost_events GROUP BY environment_id, agent_instance_id, event_id`,
      });
    }
    this.#countedFilled = true;
  }

  /** Recomputes an environment's days from `from` on, from the counted copies. */
  async #recompute(environmentId: string, from: Date): Promise<void> {
    const day = new Date(Math.floor(from.getTime() / DAY_MS) * DAY_MS);
    // Literals, not query parameters: a mutation (ALTER ... DELETE) keeps its text.
    const env = `environment_id = ${sqlString(environmentId)} AND`;
    const at = (d: Date) => `toDateTime64(${sqlString(chTime(d))}, 3, 'UTC')`;
    log.info('recomputing cost rollup', { environment: environmentId, from: day.toISOString() });
    await this.ch.command({
      query: `ALTER TABLE ${this.database}.costs_daily DELETE WHERE ${env} day >= toDate(${at(day)})`,
      clickhouse_settings: { mutations_sync: '2' },
    });
    // FINAL over a window widened by the dedup slack: every copy of an event meets.
    const contributions = `
      SELECT environment_id, agent_instance_id, toInt8(1) AS sign, ts, account_id, action_type, model, input_tokens, output_tokens, total_tokens, metadata
      FROM ${this.database}.cost_events FINAL
      PREWHERE ${env} ts >= ${at(new Date(Math.max(0, day.getTime() - DEDUP_QUERY_SLACK_MS)))}
      WHERE ts >= ${at(day)}`;
    await this.#insert(contributions, `recompute:${environmentId}:${day.getTime()}:${Date.now()}`);
  }

  /**
   * Inserts signed contributions (rows of environment_id, agent_instance_id, sign +1/-1,
   * and the action columns the cost needs) as costs summed per day and group. An action
   * counts once per (category, currency) it has a cost in: its lines are summed per
   * (category, currency) before they meet other actions'. Every insert carries a token:
   * the table deduplicates by token, never by content.
   */
  async #insert(contributions: string, token: string): Promise<void> {
    const db = this.database;
    await this.ch.command({
      query: `
        INSERT INTO ${db}.costs_daily (environment_id, day, agent_instance_id, account_id, category, currency, amount, actions)
        SETTINGS insert_deduplication_token = '${tokenText(token)}'
        SELECT environment_id, day, agent_instance_id, account_id, g.1 AS category, g.2 AS currency, sum(sign * g.3), sum(sign)
        FROM (
          SELECT environment_id, toDate(ts) AS day, agent_instance_id, account_id, sign,
            arrayMap(k -> (k.1, k.2, arraySum(arrayMap(l -> l.3, arrayFilter(l -> l.1 = k.1 AND l.2 = k.2, lines)))),
                     arrayDistinct(arrayMap(l -> (l.1, l.2), lines))) AS groups
          FROM (
            SELECT c.*, ${COST_LINES_SQL} AS lines
            FROM (${contributions}) AS c
            LEFT JOIN ${rulesByEnvironmentSql(db)} AS ru ON c.environment_id = ru.environment_id
          )
        )
        ARRAY JOIN groups AS g
        GROUP BY environment_id, day, agent_instance_id, account_id, category, currency`,
    });
  }
}

/**
 * Marks an environment's rolled-up costs from `from` on stale (a cost rule changed from
 * then): the next step recomputes them, and readers use raw events until it has.
 */
export async function markCostsStale(db: Db, chDatabase: string, environmentId: string, from: Date): Promise<void> {
  await db.insertInto('cost_rollup_dirty').values({ ch_database: chDatabase, environment_id: environmentId, from_ts: from }).execute();
}

/** The earliest stale time per environment of a set of marks (pure). */
function earliestPerEnvironment(marks: readonly { environment_id: string; from_ts: Date | string }[]): Map<string, Date> {
  const out = new Map<string, Date>();
  for (const m of marks) {
    const t = new Date(m.from_ts);
    const cur = out.get(m.environment_id);
    if (!cur || t < cur) out.set(m.environment_id, t);
  }
  return out;
}

/** A deduplication token's text: word characters and `:*.-` only. */
function tokenText(token: string): string {
  return token.replace(/[^\w:*.-]/g, '_');
}
