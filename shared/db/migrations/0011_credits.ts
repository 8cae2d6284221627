import { type Kysely, sql } from 'kysely';

/**
 * Prepaid credits (billing/credits/): grants, their immutable ledger, and what each
 * invoice applies of each grant.
 *
 * - `credit_grants`: one grant of credit to an account, in one currency (the account's),
 *   `amount` exact NUMERIC in the currency's minor units. Never updated except
 *   `usable_at` (an `on_payment` grant becomes usable when its purchase is paid) and
 *   `voided_at`.
 * - `credit_entries`: the ledger. Every change of a balance is one row, written once,
 *   never updated or deleted: grant (+), burn (-, an issued invoice used it), release
 *   (+, that invoice was voided or corrected), expiry (-), void (-, the remainder of a
 *   voided grant), adjustment (+/-, manual, with a reason). A grant's remaining credit
 *   is the sum of its entries, less what draft invoices hold (`credit_applications`).
 * - `credit_applications`: what one invoice applies of one grant (its `credits_applied`
 *   lines). A draft's are provisional (replaced when it is re-rated); when the invoice
 *   leaves draft they are written to the ledger as burns.
 *
 * - Purchase invoices: a paid grant is billed by an invoice with no subscription (its one
 *   line names the grant); `subscription_id`, `rate_plan_id` and `billing_cycle` are null
 *   on those only.
 *
 * TRICKY: `credit_entries_once` is the database's guarantee that a grant's credit is
 * burned (and released) at most once per invoice, and granted, expired or voided at most
 * once per grant (per invoice for a release landing on an already closed grant), whatever
 * races: two bill runs, the scheduler and an on-demand generate may all try. Overspending
 * a grant across invoices is prevented by locking the account's grant rows (FOR UPDATE,
 * in id order) in the transaction that computes and writes the applications, and by the
 * CHECK on `credit_applications.amount`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('credit_grants')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('paid', 'free')`))
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addColumn('price', 'numeric', (c) => c.check(sql`price >= 0`))
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('effective_at', 'timestamptz', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz')
    .addColumn('scope', 'jsonb')
    .addColumn('metadata', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('usable', 'text', (c) => c.notNull().check(sql`usable in ('immediately', 'on_payment')`))
    .addColumn('usable_at', 'timestamptz')
    .addColumn('invoice_id', 'text', (c) => c.references('invoices.id'))
    .addColumn('voided_at', 'timestamptz')
    .addColumn('expiry_written_at', 'timestamptz')
    .addColumn('void_reason', 'text')
    .addColumn('idempotency_key', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('created_by', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint('credit_grants_expiry_after_effective', sql`expires_at IS NULL OR expires_at > effective_at`)
    .addUniqueConstraint('credit_grants_idempotency', ['environment_id', 'idempotency_key'])
    .execute();
  await db.schema.createIndex('credit_grants_account').on('credit_grants').columns(['account_id', 'currency', 'id']).execute();
  // The scheduler's expiry step reads only grants past their expiry it has not yet written: no history scan.
  await sql`CREATE INDEX credit_grants_to_expire ON credit_grants (expires_at) WHERE expires_at IS NOT NULL AND expiry_written_at IS NULL`.execute(db);

  await db.schema
    .createTable('credit_entries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('seq', 'bigserial', (c) => c.notNull().unique())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'text', (c) => c.notNull().references('credit_grants.id'))
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('grant', 'burn', 'release', 'expiry', 'void', 'adjustment')`))
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('invoice_id', 'text', (c) => c.references('invoices.id'))
    .addColumn('reason', 'text')
    .addColumn('created_by', 'text')
    .addColumn('occurred_at', 'timestamptz', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addCheckConstraint(
      'credit_entries_sign',
      sql`(type IN ('grant', 'release') AND amount > 0) OR (type IN ('burn', 'expiry', 'void') AND amount < 0) OR (type = 'adjustment' AND amount <> 0)`,
    )
    .addCheckConstraint('credit_entries_invoice', sql`(type IN ('burn', 'release') AND invoice_id IS NOT NULL) OR type NOT IN ('burn', 'release')`)
    .execute();
  await sql`CREATE UNIQUE INDEX credit_entries_once ON credit_entries (grant_id, type, invoice_id) NULLS NOT DISTINCT WHERE type <> 'adjustment'`.execute(db);
  await db.schema.createIndex('credit_entries_account').on('credit_entries').columns(['account_id', 'seq']).execute();
  await db.schema.createIndex('credit_entries_invoice').on('credit_entries').columns(['invoice_id']).execute();

  await db.schema
    .createTable('credit_applications')
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
    .addColumn('grant_id', 'text', (c) => c.notNull().references('credit_grants.id'))
    .addColumn('amount', 'numeric', (c) => c.notNull().check(sql`amount > 0`))
    .addPrimaryKeyConstraint('credit_applications_pk', ['invoice_id', 'grant_id'])
    .execute();
  await db.schema.createIndex('credit_applications_grant').on('credit_applications').columns(['grant_id']).execute();

  // A paid grant's purchase is an invoice of its own: no subscription, plan nor cycle.
  await sql`ALTER TABLE invoices ALTER COLUMN subscription_id DROP NOT NULL, ALTER COLUMN rate_plan_id DROP NOT NULL, ALTER COLUMN billing_cycle DROP NOT NULL`.execute(db);
  await sql`ALTER TABLE invoices ADD CONSTRAINT invoices_subscription_or_purchase CHECK (subscription_id IS NOT NULL OR (kind = 'invoice' AND rate_plan_id IS NULL))`.execute(db);
  // The invoice's money after credits: total (after discounts and any true-up) - credits_applied = amount_due.
  await sql`ALTER TABLE invoices ADD COLUMN credits_applied numeric NOT NULL DEFAULT 0, ADD COLUMN amount_due numeric`.execute(db);
  // total - total: a zero with the total's scale ("0.00" for USD, "0" for JPY).
  await sql`UPDATE invoices SET amount_due = total, credits_applied = total - total`.execute(db);
  await sql`ALTER TABLE invoices ALTER COLUMN amount_due SET NOT NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE invoices DROP COLUMN amount_due, DROP COLUMN credits_applied, DROP CONSTRAINT invoices_subscription_or_purchase`.execute(db);
  for (const t of ['credit_applications', 'credit_entries', 'credit_grants']) await db.schema.dropTable(t).ifExists().execute();
}
