import { type Kysely, sql } from 'kysely';

/** Tenancy, credentials and the agents that send events. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organizations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('name', 'text', (c) => c.notNull().check(sql`name in ('development', 'staging', 'production')`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('environments_org_name', ['organization_id', 'name'])
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('sdk', 'api')`))
    .addColumn('permission', 'text', (c) => c.notNull().check(sql`permission in ('sdk', 'read-only', 'read-write', 'admin')`))
    .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('key_prefix', 'text', (c) => c.notNull())
    .addColumn('key_hash', 'text', (c) => c.notNull().unique())
    .addColumn('rate_limit_per_minute', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz')
    .addColumn('revoked_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('api_keys_environment').on('api_keys').column('environment_id').execute();

  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('email', 'text')
    .addColumn('external_id', 'text')
    .addColumn('description', 'text')
    .addColumn('billing_address', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('accounts_environment').on('accounts').columns(['environment_id', 'created_at']).execute();

  await db.schema
    .createTable('contacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull().defaultTo('billing'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();

  await db.schema
    .createTable('agent_types')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addUniqueConstraint('agent_types_env_name', ['environment_id', 'name'])
    .execute();

  await db.schema
    .createTable('agent_instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('agent_type_id', 'text', (c) => c.references('agent_types.id'))
    .addColumn('framework', 'text')
    .addColumn('account_id', 'text', (c) => c.references('accounts.id'))
    .addColumn('contact_id', 'text', (c) => c.references('contacts.id'))
    .addColumn('is_active', 'boolean', (c) => c.notNull().defaultTo(true))
    .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema.createIndex('agent_instances_environment').on('agent_instances').columns(['environment_id', 'created_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['agent_instances', 'agent_types', 'contacts', 'accounts', 'api_keys', 'environments', 'organizations']) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
