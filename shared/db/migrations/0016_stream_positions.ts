import { type Kysely, sql } from 'kysely';

/**
 * The events stream a stored position was taken on (billing/costs/cost-rollup.ts): a
 * JetStream sequence means nothing on another stream (Postgres and ClickHouse restored
 * onto a fresh one, or the stream deleted and created again restarts its sequences).
 * `stream_created`: the stream's creation time as JetStream reports it (null: taken
 * before this migration, on whichever stream existed then).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cost_rollup_state ADD COLUMN stream_created text`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE cost_rollup_state DROP COLUMN stream_created`.execute(db);
}
