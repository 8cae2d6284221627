import { type Kysely, sql } from 'kysely';

/**
 * Tagged actions and outcomes (one table, `kind` tells which) and webhook endpoint
 * configuration. Delivery (the outbox and attempts) is a later migration.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('tagged_items')
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('action', 'outcome')`))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('tagged_items_pk', ['environment_id', 'kind', 'name'])
    .execute();

  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events', sql`text[]`, (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('secret_rotated_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('webhook_endpoints_environment').on('webhook_endpoints').columns(['environment_id', 'created_at']).execute();
  await sql`COMMENT ON COLUMN webhook_endpoints.secret IS ${sql.lit(
    'Signing secret in clear, unlike API keys and agent secrets (stored hashed): an HMAC-SHA256 signature ' +
      'needs the secret itself, so a hash would make signing impossible. Never returned by the API after ' +
      'create or rotate-secret; never logged.',
  )}`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('webhook_endpoints').ifExists().execute();
  await db.schema.dropTable('tagged_items').ifExists().execute();
}
