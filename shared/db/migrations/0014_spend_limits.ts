import { type Kysely, sql } from 'kysely';

/**
 * Spend limits and their alerts (billing/limits/*, README "Stopping runaway spend").
 *
 * - `spend_limits`: a limit of an environment, on one account, one agent instance or the
 *   whole environment (`scope`): money spent in the billing period (`metric` spend, in a
 *   currency, rated as the invoice rates it), the available credit balance
 *   (`available_balance`: reached when the available balance is at or below `value`), or
 *   a quantity of a unit (`quantity`: @action, @outcome, @user, tokens) per day, week or
 *   billing period (`window`). `thresholds` are percentages of `value` that alert;
 *   `action` is what happens at 100 %: notify, flag (events accepted and marked) or block
 *   (events refused at the ingest edge with 402). Deleted limits keep their row
 *   (`deleted_at`) so their alerts stay readable.
 * - `spend_limit_states`: the last evaluation of each limit (its current period, value,
 *   and whether it is reached): the blocked and flagged set pushed to every ingest process
 *   is read from here, so several billing processes publish the same set.
 * - `spend_limit_alerts`: one row per alert fired.
 *
 * TRICKY: exactly once per threshold per period is the database's doing:
 * `spend_limit_alerts_once` (limit_id, period_start, threshold). Two billing processes
 * (or a restart redoing an evaluation) both try the insert; one lands, and the webhook
 * event is written in that insert's transaction (the outbox), so an alert is neither lost
 * nor doubled by a crash. `limit.reset` is threshold 0 of the new period.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE spend_limits (
    id text PRIMARY KEY,
    environment_id text NOT NULL REFERENCES environments(id),
    scope text NOT NULL CHECK (scope IN ('account', 'agent_instance', 'environment')),
    account_id text REFERENCES accounts(id),
    agent_instance_id text REFERENCES agent_instances(id),
    metric text NOT NULL CHECK (metric IN ('spend', 'available_balance', 'quantity')),
    currency text,
    unit text,
    "window" text NOT NULL CHECK ("window" IN ('day', 'week', 'billing_period')),
    value numeric NOT NULL CHECK (value >= 0),
    thresholds integer[] NOT NULL,
    action text NOT NULL CHECK (action IN ('notify', 'flag', 'block')),
    description text,
    created_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    deleted_at timestamptz,
    CHECK ((scope = 'account') = (account_id IS NOT NULL) AND (scope = 'agent_instance') = (agent_instance_id IS NOT NULL)),
    CHECK ((metric = 'quantity') = (unit IS NOT NULL) AND (metric <> 'quantity') = (currency IS NOT NULL))
  )`.execute(db);
  await sql`CREATE INDEX spend_limits_account ON spend_limits (environment_id, account_id) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX spend_limits_agent ON spend_limits (environment_id, agent_instance_id) WHERE deleted_at IS NULL`.execute(db);
  await sql`CREATE INDEX spend_limits_updated ON spend_limits (updated_at)`.execute(db);

  await sql`CREATE TABLE spend_limit_states (
    limit_id text PRIMARY KEY REFERENCES spend_limits(id),
    period_start timestamptz NOT NULL,
    period_end timestamptz NOT NULL,
    current numeric NOT NULL,
    reached boolean NOT NULL,
    evaluated_at timestamptz NOT NULL
  )`.execute(db);
  await sql`CREATE INDEX spend_limit_states_reached ON spend_limit_states (limit_id) WHERE reached`.execute(db);

  await sql`CREATE TABLE spend_limit_alerts (
    id text PRIMARY KEY,
    environment_id text NOT NULL REFERENCES environments(id),
    limit_id text NOT NULL REFERENCES spend_limits(id),
    period_start timestamptz NOT NULL,
    threshold integer NOT NULL,
    event text NOT NULL,
    value numeric NOT NULL,
    limit_value numeric NOT NULL,
    fired_at timestamptz NOT NULL,
    CONSTRAINT spend_limit_alerts_once UNIQUE (limit_id, period_start, threshold)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE spend_limit_alerts`.execute(db);
  await sql`DROP TABLE spend_limit_states`.execute(db);
  await sql`DROP TABLE spend_limits`.execute(db);
}
