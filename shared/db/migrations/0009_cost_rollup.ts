import { type Kysely, sql } from 'kysely';

/**
 * State of the daily cost rollup (billing/costs/cost-rollup.ts), one row per
 * ClickHouse database, and the ranges cost rule changes made stale.
 *
 * - `cost_rollup_state.done_seq`: every action whose JetStream sequence is at most this
 *   is folded into `costs_daily` (-1: none yet). `planned_seq`: a step being applied, (done_seq,
 *   planned_seq], whose ClickHouse insert may or may not have happened; it is redone with
 *   the same deduplication token, so it lands exactly once.
 * - `cost_rollup_dirty`: a cost rule changed from `from_ts` in an environment:
 *   the rollup's days from then on are recomputed, and read from raw events until then.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE cost_rollup_state (
    ch_database text PRIMARY KEY,
    done_seq bigint NOT NULL,
    planned_seq bigint,
    updated_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE TABLE cost_rollup_dirty (
    id bigserial PRIMARY KEY,
    ch_database text NOT NULL,
    environment_id text NOT NULL,
    from_ts timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX cost_rollup_dirty_env ON cost_rollup_dirty (ch_database, environment_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE cost_rollup_dirty`.execute(db);
  await sql`DROP TABLE cost_rollup_state`.execute(db);
}
