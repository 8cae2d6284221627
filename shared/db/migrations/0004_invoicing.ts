import { type Kysely, sql } from 'kysely';

/**
 * Invoicing: invoices and their lines, the per-environment invoice number sequence,
 * bill runs, and invoice templates (one active per environment).
 *
 * TRICKY: `invoices_subscription_period` (subscription_id, period_start) is what makes
 * generation idempotent across runs and processes; generation also locks the
 * subscription row, so the constraint is only the last line of defence.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('invoice_sequences')
    .addColumn('environment_id', 'text', (c) => c.primaryKey().references('environments.id'))
    .addColumn('last_number', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('bill_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('billing_date', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('running', 'completed', 'failed')`))
    .addColumn('subscriptions_considered', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invoices_created', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('invoices_existing', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('subscriptions_skipped', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('totals', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('bill_runs_environment').on('bill_runs').columns(['environment_id', 'created_at']).execute();

  await db.schema
    .createTable('invoices')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('number', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id'))
    .addColumn('rate_plan_id', 'text', (c) => c.notNull())
    .addColumn('billing_cycle', 'text', (c) => c.notNull())
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('period_start', 'timestamptz', (c) => c.notNull())
    .addColumn('period_end', 'timestamptz', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'finalized', 'paid', 'void')`))
    .addColumn('subtotal', 'numeric', (c) => c.notNull())
    .addColumn('discount_total', 'numeric', (c) => c.notNull())
    .addColumn('total', 'numeric', (c) => c.notNull())
    .addColumn('issue_date', 'timestamptz', (c) => c.notNull())
    .addColumn('due_date', 'timestamptz', (c) => c.notNull())
    .addColumn('grace_until', 'timestamptz', (c) => c.notNull())
    .addColumn('usage', 'jsonb', (c) => c.notNull())
    .addColumn('rated_at', 'timestamptz', (c) => c.notNull())
    .addColumn('finalized_at', 'timestamptz')
    .addColumn('paid_at', 'timestamptz')
    .addColumn('payment_reference', 'text')
    .addColumn('voided_at', 'timestamptz')
    .addColumn('bill_run_id', 'text', (c) => c.references('bill_runs.id'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('invoices_subscription_period', ['subscription_id', 'period_start'])
    .addUniqueConstraint('invoices_env_number', ['environment_id', 'number'])
    .execute();
  await db.schema.createIndex('invoices_environment').on('invoices').columns(['environment_id', 'created_at']).execute();
  await db.schema.createIndex('invoices_drafts').on('invoices').columns(['status', 'grace_until']).where(sql.ref('status'), '=', 'draft').execute();

  await db.schema
    .createTable('invoice_lines')
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('charge_id', 'text', (c) => c.notNull())
    .addColumn('charge_name', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('charge_type', 'text', (c) => c.notNull())
    .addColumn('unit', 'text')
    .addColumn('quantity', 'numeric', (c) => c.notNull())
    .addColumn('unit_price', 'numeric')
    .addColumn('tiers', 'jsonb')
    .addColumn('detail', 'jsonb', (c) => c.notNull())
    .addColumn('proration', 'numeric')
    .addColumn('amount', 'numeric', (c) => c.notNull())
    .addColumn('agent_instance_id', 'text')
    .addColumn('service_start', 'timestamptz', (c) => c.notNull())
    .addColumn('service_end', 'timestamptz', (c) => c.notNull())
    .addColumn('usage_query', 'jsonb')
    .addPrimaryKeyConstraint('invoice_lines_pk', ['invoice_id', 'position'])
    .execute();

  await db.schema
    .createTable('bill_run_invoices')
    .addColumn('bill_run_id', 'text', (c) => c.notNull().references('bill_runs.id').onDelete('cascade'))
    .addColumn('invoice_id', 'text', (c) => c.notNull().references('invoices.id'))
    .addColumn('created', 'boolean', (c) => c.notNull())
    .addPrimaryKeyConstraint('bill_run_invoices_pk', ['bill_run_id', 'invoice_id'])
    .execute();

  await db.schema
    .createTable('invoice_templates')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('template_data', 'jsonb', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await sql`CREATE UNIQUE INDEX invoice_templates_one_active ON invoice_templates (environment_id) WHERE is_active`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['invoice_templates', 'bill_run_invoices', 'invoice_lines', 'invoices', 'bill_runs', 'invoice_sequences']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
