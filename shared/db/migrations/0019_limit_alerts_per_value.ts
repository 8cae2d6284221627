import { type Kysely, sql } from 'kysely';

/**
 * Spend-limit alerts once per (limit, period, threshold, limit value): a limit raised and
 * reached again in the same period alerts again for its new value (README "Stopping
 * runaway spend"). The constraint keeps its name, so the evaluator's insert is unchanged;
 * numeric equality makes "10" and "10.00" one value.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE spend_limit_alerts DROP CONSTRAINT spend_limit_alerts_once`.execute(db);
  await sql`ALTER TABLE spend_limit_alerts ADD CONSTRAINT spend_limit_alerts_once UNIQUE (limit_id, period_start, threshold, limit_value)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE spend_limit_alerts DROP CONSTRAINT spend_limit_alerts_once`.execute(db);
  await sql`ALTER TABLE spend_limit_alerts ADD CONSTRAINT spend_limit_alerts_once UNIQUE (limit_id, period_start, threshold)`.execute(db);
}
