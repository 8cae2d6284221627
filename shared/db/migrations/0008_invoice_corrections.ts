import { type Kysely, sql } from 'kysely';

/**
 * Corrections of issued invoices as new documents (billing/invoicing/corrections.ts).
 *
 * - `invoices.kind`: `invoice` or `credit_note`. A credit note reverses one invoice in
 *   full (`corrects_invoice_id`, negative lines); a replacement invoice carries the
 *   re-rating (`replaces_invoice_id`). Neither link is ever written on the corrected
 *   document: "corrected by" is derived by query, so issued rows are never updated.
 * - Credit notes are numbered from their own gapless per-environment sequence
 *   (`CN-000001`, table `credit_note_sequences`); invoices keep `INV-`.
 *
 * TRICKY: the (subscription_id, period_start) unique constraint of 0004 becomes a
 * partial unique index over the *original* invoice of each slot (kind invoice, no
 * `replaces_invoice_id`): it still makes generation idempotent, while a slot can hold
 * a chain original -> replacement -> replacement... Each document is replaced at most
 * once and credited at most once (unique indexes below), so the chain is linear and
 * its head (the invoice nobody replaces) is the slot's current invoice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE invoices
    ADD COLUMN kind text NOT NULL DEFAULT 'invoice' CHECK (kind IN ('invoice', 'credit_note')),
    ADD COLUMN corrects_invoice_id text REFERENCES invoices (id),
    ADD COLUMN replaces_invoice_id text REFERENCES invoices (id),
    ADD COLUMN correction_reason text,
    ADD CONSTRAINT invoices_kind_links CHECK (
      (kind = 'credit_note' AND corrects_invoice_id IS NOT NULL AND replaces_invoice_id IS NULL AND status = 'finalized')
      OR (kind = 'invoice' AND corrects_invoice_id IS NULL)
    )`.execute(db);
  await sql`ALTER TABLE invoices DROP CONSTRAINT invoices_subscription_period`.execute(db);
  await sql`CREATE UNIQUE INDEX invoices_subscription_period ON invoices (subscription_id, period_start) WHERE kind = 'invoice' AND replaces_invoice_id IS NULL`.execute(db);
  await sql`CREATE INDEX invoices_slot ON invoices (subscription_id, period_start)`.execute(db);
  await sql`CREATE UNIQUE INDEX invoices_replaces_once ON invoices (replaces_invoice_id) WHERE replaces_invoice_id IS NOT NULL`.execute(db);
  await sql`CREATE UNIQUE INDEX invoices_credited_once ON invoices (corrects_invoice_id) WHERE corrects_invoice_id IS NOT NULL`.execute(db);
  await db.schema
    .createTable('credit_note_sequences')
    .addColumn('environment_id', 'text', (c) => c.primaryKey().references('environments.id'))
    .addColumn('last_number', 'bigint', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('credit_note_sequences').ifExists().execute();
  await sql`DELETE FROM invoice_lines WHERE invoice_id IN (SELECT id FROM invoices WHERE kind = 'credit_note' OR replaces_invoice_id IS NOT NULL)`.execute(db);
  await sql`DELETE FROM bill_run_invoices WHERE invoice_id IN (SELECT id FROM invoices WHERE kind = 'credit_note' OR replaces_invoice_id IS NOT NULL)`.execute(db);
  await sql`DELETE FROM invoices WHERE kind = 'credit_note' OR replaces_invoice_id IS NOT NULL`.execute(db);
  await sql`DROP INDEX IF EXISTS invoices_subscription_period`.execute(db);
  await sql`DROP INDEX IF EXISTS invoices_slot`.execute(db);
  await sql`ALTER TABLE invoices ADD CONSTRAINT invoices_subscription_period UNIQUE (subscription_id, period_start)`.execute(db);
  await sql`ALTER TABLE invoices DROP CONSTRAINT invoices_kind_links, DROP COLUMN correction_reason, DROP COLUMN replaces_invoice_id, DROP COLUMN corrects_invoice_id, DROP COLUMN kind`.execute(db);
}
