import { type Kysely, sql } from 'kysely';

/**
 * Indexes for what is read per account on hot paths (docs/performance.md, Credits): the
 * live credit balance and the balance watch after each stored invoice. Without them each
 * read scanned the environment: its subscriptions (the billable ones of one account, in
 * the order the live burn-down takes them) and its draft invoices (what drafts hold of an
 * account's grants), so a bill run of n invoices did O(n²) work. An agent's own balance
 * reads the subscriptions that list it, and a rating the charges of its plans.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX subscriptions_account ON subscriptions (account_id, created_at, id)`.execute(db);
  await sql`CREATE INDEX invoices_account_drafts ON invoices (account_id) WHERE status = 'draft'`.execute(db);
  await sql`CREATE INDEX subscription_agent_instances_agent ON subscription_agent_instances (agent_instance_id)`.execute(db);
  await sql`CREATE INDEX charges_rate_plan ON charges (rate_plan_id, created_at, id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS charges_rate_plan`.execute(db);
  await sql`DROP INDEX IF EXISTS subscription_agent_instances_agent`.execute(db);
  await sql`DROP INDEX IF EXISTS invoices_account_drafts`.execute(db);
  await sql`DROP INDEX IF EXISTS subscriptions_account`.execute(db);
}
