import { type Kysely, sql } from 'kysely';

/**
 * The catalog and its customers: products, rate plans, charge models, charges,
 * subscriptions (with their recorded state changes) and the uniqueness rules the API
 * documents (account external_id, product and charge model names per environment).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE UNIQUE INDEX accounts_env_external_id ON accounts (environment_id, external_id) WHERE external_id IS NOT NULL`.execute(db);
  await db.schema.createIndex('contacts_account').on('contacts').column('account_id').execute();

  await db.schema
    .alterTable('api_keys')
    .addColumn('rotated_to', 'text')
    .execute();

  await db.schema
    .createTable('products')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('agent_type_id', 'text', (c) => c.notNull().references('agent_types.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('products_env_name', ['environment_id', 'name'])
    .execute();

  await db.schema
    .createTable('rate_plans')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('product_id', 'text', (c) => c.notNull().references('products.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('billing_cycle_code', 'text', (c) => c.notNull().check(sql`billing_cycle_code in ('monthly', 'quarterly', 'annual')`))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('rate_plans_product_name', ['product_id', 'name'])
    .execute();
  await db.schema.createIndex('rate_plans_environment').on('rate_plans').columns(['environment_id', 'created_at']).execute();

  await db.schema
    .createTable('charge_models')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('pricing_strategy', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('charge_models_env_name', ['environment_id', 'name'])
    .execute();

  await db.schema
    .createTable('charges')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('rate_plan_id', 'text', (c) => c.notNull().references('rate_plans.id'))
    .addColumn('charge_model_id', 'text', (c) => c.notNull().references('charge_models.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('charge_type', 'text', (c) => c.notNull().check(sql`charge_type in ('usage', 'recurring', 'one_time')`))
    .addColumn('unit_of_measure', 'text')
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('pricing', 'jsonb', (c) => c.notNull())
    .addColumn('resolved_pricing', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('charges_plan_name', ['rate_plan_id', 'name'])
    .execute();

  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('rate_plan_id', 'text', (c) => c.notNull().references('rate_plans.id'))
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('draft', 'active', 'paused', 'cancelled')`))
    .addColumn('contract_effective_date', 'timestamptz', (c) => c.notNull())
    .addColumn('activated_at', 'timestamptz')
    .addColumn('paused_at', 'timestamptz')
    .addColumn('cancel_date', 'timestamptz')
    .addColumn('cancel_reason', 'text')
    .addColumn('cancelled_at', 'timestamptz')
    .addColumn('renewed_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('subscriptions_environment').on('subscriptions').columns(['environment_id', 'created_at']).execute();

  await db.schema
    .createTable('subscription_agent_instances')
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
    .addColumn('agent_instance_id', 'text', (c) => c.notNull().references('agent_instances.id'))
    .addPrimaryKeyConstraint('subscription_agent_instances_pk', ['subscription_id', 'agent_instance_id'])
    .execute();

  await db.schema
    .createTable('subscription_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('subscription_id', 'text', (c) => c.notNull().references('subscriptions.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('from_status', 'text')
    .addColumn('to_status', 'text', (c) => c.notNull())
    .addColumn('rate_plan_id', 'text', (c) => c.notNull())
    .addColumn('effective_at', 'timestamptz', (c) => c.notNull())
    .addColumn('data', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('subscription_events_subscription').on('subscription_events').columns(['subscription_id', 'effective_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['subscription_events', 'subscription_agent_instances', 'subscriptions', 'charges', 'charge_models', 'rate_plans', 'products']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
  await db.schema.alterTable('api_keys').dropColumn('rotated_to').execute();
  await sql`DROP INDEX IF EXISTS contacts_account`.execute(db);
  await sql`DROP INDEX IF EXISTS accounts_env_external_id`.execute(db);
}
