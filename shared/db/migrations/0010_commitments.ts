import { type Kysely, sql } from 'kysely';

/**
 * Minimum commitments (docs/credits.md "Commitments"): a minimum per billing period on a rate
 * plan, in the plan's currency, optionally overridden per subscription. Null: none (a
 * subscription's null means its plan's). Exact decimals, never negative; the API stores
 * them at the currency's minor units.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rate_plans ADD COLUMN minimum_commitment numeric CHECK (minimum_commitment >= 0)`.execute(db);
  await sql`ALTER TABLE subscriptions ADD COLUMN minimum_commitment numeric CHECK (minimum_commitment >= 0)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE subscriptions DROP COLUMN minimum_commitment`.execute(db);
  await sql`ALTER TABLE rate_plans DROP COLUMN minimum_commitment`.execute(db);
}
