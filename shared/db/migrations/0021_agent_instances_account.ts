import { type Kysely, sql } from 'kysely';

/**
 * An index for the agent instances of one account of an environment. Two queries filter
 * agent_instances by environment and account: the spend-limit evaluator's pass, for each
 * environment with touched accounts, takes the agent-instance spend limits of those
 * accounts' instances (billing/limits/evaluator.ts, a subquery run on every pass under
 * load), and `GET /v1/agents?account_id=` lists an account's instances
 * (billing/catalog/agent-instances.ts listAgentInstances). Without it both read every
 * instance of the environment (agent_instances_environment) and filter by account.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX agent_instances_environment_account ON agent_instances (environment_id, account_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP INDEX IF EXISTS agent_instances_environment_account`.execute(db);
}
