import { type Kysely, sql } from 'kysely';

/**
 * Invoice numbers are assigned when an invoice is finalized (or paid as a draft), not
 * when its draft is created: drafts carry no number, voided drafts leave no gap, and
 * bill runs do not serialize on the per-environment number sequence.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE invoices ALTER COLUMN number DROP NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE invoices ALTER COLUMN number SET NOT NULL`.execute(db);
}
