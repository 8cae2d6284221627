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

/** The sink's ack floor (shared/nats/connection.ts `sinkAckFloor`): sequences up to it are in ClickHouse. */
type AckFloor = () => Promise<number>;

const CURSOR = 'outcome_completed_seq';
/** The last outcome read: (stream_seq, environment, agent, event id), and the history cut-off. */
type Cursor = [number, string, string, string, string];
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
 * (stream_seq, environment, agent, event id) of the last row read, and the time before
 * which outcomes are history (a minute before the first run).
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
    const floor = await this.ackFloor();
    for (;;) {
      const cur = await this.db.selectFrom('poller_cursors').select('position').where('name', '=', CURSOR).executeTakeFirst();
      const c: Cursor = cur ? JSON.parse(cur.position) : [0, '', '', '', chTime(new Date(now - HISTORY_MS))];
      const rs = await this.ch.query({
        query: `SELECT environment_id, agent_instance_id, account_id, event_id, toString(outcome_type) AS type_s, toString(value) AS value_s,
                  toString(ts) AS ts_s, toString(stream_seq) AS seq, metadata, voided
                FROM ${this.database}.outcomes
                PREWHERE stream_seq >= {s:UInt64} AND stream_seq <= {floor:UInt64}
                WHERE (stream_seq, environment_id, agent_instance_id, event_id) > ({s:UInt64}, {e:String}, {a:String}, {id:String})
                  AND inserted_at >= {since:DateTime64(3)}
                ORDER BY stream_seq, environment_id, agent_instance_id, event_id
                LIMIT ${this.batchSize}`,
        query_params: { s: c[0], e: c[1], a: c[2], id: c[3], since: c[4], floor },
        format: 'JSONEachRow',
      });
      const rows = await rs.json<OutcomeRow>();
      const last = rows[rows.length - 1];
      if (!last) {
        // Nothing more up to the floor: the cursor moves to it, past sequences without outcomes.
        if (c[0] < floor) await this.#save(this.db, [floor, '', '', '', c[4]]);
        return announced;
      }
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
        await this.#save(tx, [Number(last.seq), last.environment_id, last.agent_instance_id, last.event_id, c[4]]);
      });
      if (rows.length < this.batchSize) return announced;
    }
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
