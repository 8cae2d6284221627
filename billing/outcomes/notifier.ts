import { Type } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { parseEnv, type Env } from '../../shared/config/parse.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { logger } from '../../shared/log.ts';
import { emitWebhookEvent } from '../webhooks/outbox.ts';

const log = logger('outcome-notifier');

const NotifierEnv = Type.Object({
  /** How often the billing role looks for newly stored outcomes to announce (outcome.completed). */
  TALLY_OUTCOME_POLL_INTERVAL_MS: Type.Integer({ minimum: 50, default: 2000 }),
  /** Outcomes are read once stored for this long, so inserts still in flight are not skipped. */
  TALLY_OUTCOME_POLL_LAG_MS: Type.Integer({ minimum: 0, default: 10_000 }),
});

export interface OutcomeNotifierConfig {
  readonly intervalMs: number;
  readonly lagMs: number;
}

export function parseOutcomeNotifierConfig(env: Env): OutcomeNotifierConfig {
  const e = parseEnv(NotifierEnv, env);
  return Object.freeze({ intervalMs: e.TALLY_OUTCOME_POLL_INTERVAL_MS, lagMs: e.TALLY_OUTCOME_POLL_LAG_MS });
}

const CURSOR = 'outcome_completed';
const BATCH = 2000;

interface OutcomeRow {
  environment_id: string;
  agent_instance_id: string;
  account_id: string;
  event_id: string;
  type_s: string;
  value_s: string;
  ts_s: string;
  inserted_s: string;
  metadata: string;
}

/**
 * Records `outcome.completed` for every outcome (direct or derived) stored in ClickHouse.
 * The sink has no Postgres, so the billing role polls: it reads outcome rows by their
 * ClickHouse insertion time (`inserted_at`) past a cursor kept in Postgres, up to
 * `lagMs` ago, and for each one not yet announced writes the webhook event through the
 * outbox in the same transaction as its `outcome_notifications` row (primary key: the
 * event identity), so copies of an outcome and concurrent pollers announce it once. The
 * cursor is the (inserted_at, environment, agent, event id) of the last row read.
 */
export class OutcomeNotifier {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(
    private readonly db: Db,
    private readonly ch: Pick<ClickHouseClient, 'query'>,
    private readonly database: string,
    private readonly cfg: OutcomeNotifierConfig,
  ) {}

  start(): void {
    const loop = async () => {
      if (this.#stopped) return;
      this.#running = this.pollOnce().then(
        () => undefined,
        (err) => log.warn('outcome poll failed; retrying', { err }),
      );
      await this.#running;
      if (!this.#stopped) this.#timer = setTimeout(loop, this.cfg.intervalMs);
    };
    this.#timer = setTimeout(loop, 0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Announces the outcomes stored since the cursor; returns how many were new. */
  async pollOnce(now = Date.now()): Promise<number> {
    let announced = 0;
    for (;;) {
      const cur = await this.db.selectFrom('poller_cursors').select('position').where('name', '=', CURSOR).executeTakeFirst();
      // First run: start a minute back (older outcomes are history, not news).
      const c = cur ? (JSON.parse(cur.position) as string[]) : [new Date(now - 60_000).toISOString().replace('T', ' ').replace('Z', ''), '', '', ''];
      const rs = await this.ch.query({
        query: `SELECT environment_id, agent_instance_id, account_id, event_id, toString(outcome_type) AS type_s, toString(value) AS value_s,
                  toString(ts) AS ts_s, toString(inserted_at) AS inserted_s, metadata
                FROM ${this.database}.outcomes
                WHERE inserted_at >= {t:DateTime64(3)} AND inserted_at < {upto:DateTime64(3)}
                  AND (inserted_at, environment_id, agent_instance_id, event_id) > ({t:DateTime64(3)}, {e:String}, {a:String}, {id:String})
                ORDER BY inserted_at, environment_id, agent_instance_id, event_id
                LIMIT ${BATCH}`,
        query_params: { t: c[0], e: c[1], a: c[2], id: c[3], upto: new Date(now - this.cfg.lagMs).toISOString().replace('T', ' ').replace('Z', '') },
        format: 'JSONEachRow',
      });
      const rows = await rs.json<OutcomeRow>();
      if (rows.length === 0) return announced;
      const last = rows[rows.length - 1]!;
      await this.db.transaction().execute(async (tx) => {
        for (const r of rows) {
          const fresh = await tx
            .insertInto('outcome_notifications')
            .values({ environment_id: r.environment_id, agent_instance_id: r.agent_instance_id, event_id: r.event_id, webhook_event_id: '' })
            .onConflict((oc) => oc.doNothing())
            .returning('event_id')
            .executeTakeFirst();
          if (!fresh) continue;
          let derived: unknown;
          try {
            derived = (JSON.parse(r.metadata) as Record<string, unknown>).derived_from;
          } catch {
            derived = undefined;
          }
          const id = await emitWebhookEvent(tx, r.environment_id, 'outcome.completed', {
            outcome_id: r.event_id,
            agent_instance_id: r.agent_instance_id,
            account_id: r.account_id || null,
            outcome_type: r.type_s,
            value: r.value_s.includes('.') ? r.value_s.replace(/0+$/, '').replace(/\.$/, '') : r.value_s,
            timestamp: new Date(r.ts_s.replace(' ', 'T') + 'Z').toISOString(),
            ...(derived ? { derived_from: derived } : {}),
          });
          await tx
            .updateTable('outcome_notifications')
            .set({ webhook_event_id: id })
            .where('environment_id', '=', r.environment_id)
            .where('agent_instance_id', '=', r.agent_instance_id)
            .where('event_id', '=', r.event_id)
            .execute();
          announced++;
        }
        const position = JSON.stringify([last.inserted_s, last.environment_id, last.agent_instance_id, last.event_id]);
        await tx
          .insertInto('poller_cursors')
          .values({ name: CURSOR, position })
          .onConflict((oc) => oc.column('name').doUpdateSet({ position, updated_at: sql`now()` }))
          .execute();
      });
      if (rows.length < BATCH) return announced;
    }
  }
}
