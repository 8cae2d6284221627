import { type Kysely, sql } from 'kysely';

/**
 * Adds P&L analyses (computed in the background), and the state of the
 * outcome.completed poller: the ClickHouse insertion-time cursor and the outcomes
 * already announced (one webhook event per outcome identity, whatever its copies).
 * Cost and outcome rules live in ClickHouse (see shared/clickhouse/schema.ts 0002).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('pnl_analyses')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('analysis_type', 'text', (c) => c.notNull().check(sql`analysis_type in ('agent', 'customer', 'environment')`))
    .addColumn('agent_instance_id', 'text')
    .addColumn('account_id', 'text')
    .addColumn('start_date', 'timestamptz', (c) => c.notNull())
    .addColumn('end_date', 'timestamptz', (c) => c.notNull())
    .addColumn('granularity', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('pending').check(sql`status in ('pending', 'running', 'completed', 'failed')`))
    .addColumn('result', 'jsonb')
    .addColumn('error', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('started_at', 'timestamptz')
    .addColumn('completed_at', 'timestamptz')
    .execute();
  await db.schema.createIndex('pnl_analyses_environment').on('pnl_analyses').columns(['environment_id', 'created_at']).execute();

  await db.schema
    .createTable('outcome_notifications')
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('agent_instance_id', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('webhook_event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('outcome_notifications_pk', ['environment_id', 'agent_instance_id', 'event_id'])
    .execute();

  await db.schema
    .createTable('poller_cursors')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('position', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ['poller_cursors', 'outcome_notifications', 'pnl_analyses']) await db.schema.dropTable(t).ifExists().execute();
}
