import { type Kysely, sql } from 'kysely';

/**
 * A version of what the spend-limit evaluator publishes and plans from (issue 32): a
 * sequence bumped at commit by every change to `spend_limits` and by every change to
 * `spend_limit_states` that alters the reached set or a period end (not by an evaluation
 * that only moves `current`). The billing role reads it (one row, no scan) on every
 * heartbeat and pass, and reads the reached set and the due limits again only when it
 * moved (billing/limits/evaluator.ts `LimitVersion`), instead of joining every state
 * with its limit four times a second and every 100 ms whatever changed.
 *
 * TRICKY: the triggers are constraint triggers, deferred: they bump at commit, so a reader
 * who sees the new version reads the change's rows at once or within milliseconds
 * (the evaluator keeps reading for a settle time after each move it sees, for that window).
 * A sequence is not transactional: a rolled-back change still moves it (one read more).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE SEQUENCE spend_limit_version`.execute(db);
  // Called once, so that `last_value` moves on the first change too (before it, 1 and not called).
  await sql`SELECT nextval('spend_limit_version')`.execute(db);
  await sql`CREATE FUNCTION spend_limit_version_bump() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      PERFORM nextval('spend_limit_version');
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER spend_limits_version AFTER INSERT OR UPDATE OR DELETE ON spend_limits
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION spend_limit_version_bump()`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER spend_limit_states_version_insert AFTER INSERT OR DELETE ON spend_limit_states
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION spend_limit_version_bump()`.execute(db);
  await sql`CREATE CONSTRAINT TRIGGER spend_limit_states_version_update AFTER UPDATE ON spend_limit_states
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW
    WHEN (OLD.reached IS DISTINCT FROM NEW.reached OR OLD.period_end IS DISTINCT FROM NEW.period_end OR OLD.period_start IS DISTINCT FROM NEW.period_start)
    EXECUTE FUNCTION spend_limit_version_bump()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER spend_limit_states_version_update ON spend_limit_states`.execute(db);
  await sql`DROP TRIGGER spend_limit_states_version_insert ON spend_limit_states`.execute(db);
  await sql`DROP TRIGGER spend_limits_version ON spend_limits`.execute(db);
  await sql`DROP FUNCTION spend_limit_version_bump()`.execute(db);
  await sql`DROP SEQUENCE spend_limit_version`.execute(db);
}
