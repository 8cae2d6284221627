import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { parseEnv, type Env } from '../../shared/config/parse.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import { chTime } from '../usage/usage-query.ts';
import { decimalFromClickHouse } from '../../shared/clickhouse/decimal.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';
import { outcomeEventData } from '../webhooks/payloads.ts';
import type { SinkFloor } from '../../shared/clickhouse/sink-progress.ts';
import { logger } from '../../shared/log.ts';

const log = logger('outcome-notifier');

const NotifierEnv = Type.Object({
  /** How often the billing role looks for newly stored outcomes to announce (outcome.completed). */
  TALLY_OUTCOME_POLL_INTERVAL_MS: Type.Integer({ minimum: 50, default: 1000 }),
});

export interface OutcomeNotifierConfig {
  readonly intervalMs: number;
}

export function parseOutcomeNotifierConfig(env: Env): OutcomeNotifierConfig {
  const e = parseEnv(NotifierEnv, env);
  return Object.freeze({ intervalMs: e.TALLY_OUTCOME_POLL_INTERVAL_MS });
}

/** The sink's floor (shared/nats/connection.ts `sinkFloorOf`): sequences of `stream` up to it are in ClickHouse. */
type AckFloor = () => Promise<SinkFloor>;

const CURSOR = 'outcome_completed_seq';
/**
 * The last outcome read: (stream_seq, environment, agent, event id), the history cut-off
 * (outcomes stored before it are not news), the stream the sequence is of (absent in
 * cursors kept before streams were told apart), and, while outcomes stored on a previous
 * stream are being read again after a change of stream, that pass's position.
 */
type Cursor = [number, string, string, string, string, string?, Drain?];
/** A pass over the outcomes stored before `until`, in identity order, after (environment, agent, event id). */
interface Drain {
  until: string;
  after: [string, string, string];
}
/** Outcomes stored this long before the poller's first run are history, not news. */
const HISTORY_MS = 60_000;

interface OutcomeRow {
  environment_id: string;
  agent_instance_id: string;
  account_id: string;
  event_id: string;
  type_s: string;
  value_s: string;
  ts_s: string;
  seq: string;
  metadata: string;
  voided: number | string;
}

/**
 * Records `outcome.completed` for every outcome (direct or derived) stored in ClickHouse.
 * The sink has no Postgres, so the billing role polls: it reads outcome rows by the
 * JetStream sequence of their message (`stream_seq`; derived outcomes carry their
 * action's) past a cursor kept in Postgres, up to the sink's ack floor: every message up
 * to it is in ClickHouse, so no row is skipped and none waits for a guessed delay. For
 * each outcome not yet announced it writes the webhook event through the outbox in the
 * same transaction as its `outcome_notifications` row (primary key: the event identity),
 * so copies of an outcome and concurrent pollers announce it once; a derived outcome's
 * first stored row decides, and a voided one (its action's copy did not match) announces
 * nothing. The cursor is the
 * (stream_seq, environment, agent, event id) of the last row read, the time before
 * which outcomes are history (a minute before the first run), and the stream (its
 * creation time) the sequence is of.
 *
 * Another stream (Postgres and ClickHouse restored onto a fresh one, or the stream
 * created again) restarts its sequences: a cursor of the old one would skip the new
 * one's outcomes up to it, and the old one's outcomes above the new floor would wait for
 * it. So a change of stream first reads again every outcome ClickHouse stored before the
 * change (by identity, not sequence: each is claimed once by its notification row, so
 * those already announced announce nothing), then follows the new stream's sequences
 * from 0 for outcomes stored from then on.
 */
export class OutcomeNotifier {
  #loop: Loop | undefined;

  constructor(
    private readonly db: Db,
    private readonly ch: Pick<ClickHouseClient, 'query'>,
    private readonly database: string,
    private readonly cfg: OutcomeNotifierConfig,
    private readonly ackFloor: AckFloor,
    /** Outcomes read per query (and per transaction). */
    private readonly batchSize = 2000,
  ) {}

  /** Polls now, then every `intervalMs` after each poll, until {@link stop}. */
  start(): void {
    this.#loop ??= startLoop({ name: 'outcome-notifier', intervalMs: this.cfg.intervalMs, run: () => this.pollOnce() });
  }

  async stop(): Promise<void> {
    await this.#loop?.stop();
  }

  /** Announces the outcomes stored since the cursor; returns how many were new. */
  async pollOnce(now = Date.now()): Promise<number> {
    let announced = 0;
    const { stream, floor } = await this.ackFloor();
    let c = await this.#cursor(stream, now);
    while (c[6]) {
      const drain: Drain = c[6];
      const rows = await this.#read(
        `inserted_at >= {since:DateTime64(3)} AND inserted_at < {until:DateTime64(3)}
         AND (environment_id, agent_instance_id, event_id) > ({e:String}, {a:String}, {id:String})
         ORDER BY environment_id, agent_instance_id, event_id, inserted_at`,
        { since: c[4], until: drain.until, e: drain.after[0], a: drain.after[1], id: drain.after[2] },
      );
      const last = rows[rows.length - 1];
      const next: Cursor = last && rows.length === this.batchSize
        ? [c[0], c[1], c[2], c[3], c[4], c[5], { until: drain.until, after: [last.environment_id, last.agent_instance_id, last.event_id] }]
        : [0, '', '', '', drain.until, c[5]];
      announced += await this.#announce(rows, next);
      c = next;
    }
    for (;;) {
      const rows = await this.#read(
        `stream_seq >= {s:UInt64} AND stream_seq <= {floor:UInt64}
         AND (stream_seq, environment_id, agent_instance_id, event_id) > ({s:UInt64}, {e:String}, {a:String}, {id:String})
         AND inserted_at >= {since:DateTime64(3)}
         ORDER BY stream_seq, environment_id, agent_instance_id, event_id`,
        { s: c[0], e: c[1], a: c[2], id: c[3], since: c[4], floor },
      );
      const last = rows[rows.length - 1];
      if (!last) {
        // Nothing more up to the floor: the cursor moves to it, past sequences without outcomes.
        if (c[0] < floor) await this.#save(this.db, [floor, '', '', '', c[4], c[5]]);
        return announced;
      }
      c = [Number(last.seq), last.environment_id, last.agent_instance_id, last.event_id, c[4], c[5]];
      announced += await this.#announce(rows, c);
      if (rows.length < this.batchSize) return announced;
    }
  }

  /**
   * The cursor, on the stream of the floor: a cursor of another stream starts a pass over
   * what ClickHouse stored before now ({@link Drain}), then the new stream from 0. A cursor
   * kept before streams were told apart is of this stream unless the stream is younger
   * than the cursor's last move.
   */
  async #cursor(stream: string, now: number): Promise<Cursor> {
    const cur = await this.db.selectFrom('poller_cursors').select(['position', 'updated_at']).where('name', '=', CURSOR).executeTakeFirst();
    if (!cur) return [0, '', '', '', chTime(new Date(now - HISTORY_MS)), stream];
    const c = JSON.parse(cur.position) as Cursor;
    if (stream === '' || c[5] === stream) return c;
    const other = c[5] !== undefined || new Date(stream) > new Date(cur.updated_at);
    if (!other) return [c[0], c[1], c[2], c[3], c[4], stream];
    const until = chTime(new Date(now));
    log.warn('the events stream is not the one the outcome cursor was taken on (restored onto a fresh stream, or created again): reading again the outcomes stored before it', { cursor: c.slice(0, 6), stream, until });
    const drain: Cursor = [c[0], c[1], c[2], c[3], c[4], stream, { until, after: ['', '', ''] }];
    await this.#save(this.db, drain);
    return drain;
  }

  async #read(where: string, params: Record<string, unknown>): Promise<OutcomeRow[]> {
    const rs = await this.ch.query({
      query: `SELECT environment_id, agent_instance_id, account_id, event_id, toString(outcome_type) AS type_s, toString(value) AS value_s,
                toString(ts) AS ts_s, toString(stream_seq) AS seq, metadata, voided
              FROM ${this.database}.outcomes
              WHERE ${where}
              LIMIT ${this.batchSize}`,
      query_params: params,
      format: 'JSONEachRow',
    });
    return rs.json<OutcomeRow>();
  }

  /** Announces the rows not yet announced, and saves `cursor`, in one transaction; returns how many were new. */
  async #announce(rows: readonly OutcomeRow[], cursor: Cursor): Promise<number> {
    let announced = 0;
    await this.db.transaction().execute(async (tx) => {
      for (const r of rows) {
        const fresh = await tx
          .insertInto('outcome_notifications')
          .values({ environment_id: r.environment_id, agent_instance_id: r.agent_instance_id, event_id: r.event_id, webhook_event_id: '' })
          .onConflict((oc) => oc.doNothing())
          .returning('event_id')
          .executeTakeFirst();
        // A voided row (schema.ts: the copy of an action its rule does not match) claims
        // the identity and announces nothing: a later copy that matches is not the counted one.
        if (!fresh || Number(r.voided) !== 0) continue;
        let derived: unknown;
        try {
          derived = (JSON.parse(r.metadata) as Record<string, unknown>).derived_from;
        } catch {
          derived = undefined;
        }
        const data = outcomeEventData({
          eventId: r.event_id,
          agentInstanceId: r.agent_instance_id,
          accountId: r.account_id || null,
          outcomeType: r.type_s,
          value: decimalFromClickHouse(r.value_s),
          timestamp: new Date(r.ts_s.replace(' ', 'T') + 'Z'),
          ...(derived ? { derivedFrom: derived } : {}),
        });
        const id = await emitWebhookEvent(tx, r.environment_id, 'outcome.completed', data);
        await tx
          .updateTable('outcome_notifications')
          .set({ webhook_event_id: id })
          .where('environment_id', '=', r.environment_id)
          .where('agent_instance_id', '=', r.agent_instance_id)
          .where('event_id', '=', r.event_id)
          .execute();
        announced++;
      }
      await this.#save(tx, cursor);
    });
    return announced;
  }

  async #save(db: Db, position: Cursor): Promise<void> {
    const text = JSON.stringify(position);
    await db
      .insertInto('poller_cursors')
      .values({ name: CURSOR, position: text })
      .onConflict((oc) => oc.column('name').doUpdateSet({ position: text, updated_at: sql`now()` }))
      .execute();
  }
}
