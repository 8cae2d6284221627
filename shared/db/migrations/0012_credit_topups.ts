import { type Kysely, sql } from 'kysely';

/**
 * Credit balance alerts and top-ups (billing/credits/watch.ts, topups.ts).
 *
 * - `credit_settings`: per account and currency, `low_balance_threshold` (NUMERIC, >= 0):
 *   `credits.balance_low` is sent when the available balance falls below it.
 * - `credit_watch_dirty`: an (account, currency) whose available balance may have
 *   changed and is not looked at yet. Written by triggers in the transaction of the change
 *   (a ledger entry, a draft's applications, an invoice with credits changing status), so
 *   a change is never missed, whatever crashes; the watch step deletes the marks it saw in
 *   the transaction that acts on them. Marks are appended, never upserted, so a change
 *   never waits for a watch (no lock is shared with billing's transactions).
 * - `credit_crossings`: one row per time the balance crossed below a line
 *   (`watch`: `balance_low`, `depleted`, or `topup:<rule id>`), numbered per
 *   (account, currency, watch); `rearmed_at` is set when the balance is back above the line,
 *   and only then may crossing n+1 be written.
 * - `credit_topups`: top-up rules (recurring: every week or month; threshold: when the
 *   available balance falls below `threshold`). `next_run_at` is when a recurring rule is
 *   next due (the scheduler reads only rules due, no history scan).
 * - `credit_topup_runs`: what each trigger of a rule granted.
 * - Money already paid (billing/invoicing/corrections.ts): `invoices.payment_applied` is
 *   what a payment of the invoice it replaces settles of it (amount_due = total -
 *   credits_applied - payment_applied). What was paid beyond the replacement becomes
 *   account credit: a grant with an `overpayment` entry (+, `invoice_id` = the corrected
 *   invoice, once per grant and invoice). A `refund` entry (-, with its reason) records
 *   account credit paid back; several may land on one grant.
 *
 * TRICKY: exactly once per crossing and per trigger is the database's doing, not a
 * check-then-write: `credit_crossings_once` (account, currency, watch, crossing) and
 * `credit_topup_runs` primary key (topup_id, trigger). Two billing processes looking at one
 * balance at once both compute crossing n+1; one insert wins, the other writes nothing and
 * sends nothing. Webhook events and grants are written in the transaction of the winning
 * insert.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE credit_settings (
    account_id text NOT NULL REFERENCES accounts(id),
    currency text NOT NULL,
    environment_id text NOT NULL REFERENCES environments(id),
    low_balance_threshold numeric NOT NULL CHECK (low_balance_threshold >= 0),
    updated_by text,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, currency)
  )`.execute(db);

  // Append-only marks (no unique key): a change never waits on the watch, nor the watch on a change.
  await sql`CREATE TABLE credit_watch_dirty (
    id bigserial PRIMARY KEY,
    account_id text NOT NULL,
    currency text NOT NULL,
    environment_id text NOT NULL,
    marked_at timestamptz NOT NULL DEFAULT now()
  )`.execute(db);
  await sql`CREATE INDEX credit_watch_dirty_balance ON credit_watch_dirty (account_id, currency)`.execute(db);

  await sql`CREATE TABLE credit_crossings (
    id text PRIMARY KEY,
    environment_id text NOT NULL REFERENCES environments(id),
    account_id text NOT NULL REFERENCES accounts(id),
    currency text NOT NULL,
    watch text NOT NULL,
    crossing integer NOT NULL CHECK (crossing > 0),
    threshold numeric NOT NULL,
    available numeric NOT NULL,
    crossed_at timestamptz NOT NULL,
    rearmed_at timestamptz,
    CONSTRAINT credit_crossings_once UNIQUE (account_id, currency, watch, crossing)
  )`.execute(db);

  await sql`CREATE TABLE credit_topups (
    id text PRIMARY KEY,
    environment_id text NOT NULL REFERENCES environments(id),
    account_id text NOT NULL REFERENCES accounts(id),
    currency text NOT NULL,
    type text NOT NULL CHECK (type IN ('recurring', 'threshold')),
    grant_kind text NOT NULL CHECK (grant_kind IN ('paid', 'free')),
    amount numeric CHECK (amount > 0),
    price numeric CHECK (price >= 0),
    target_balance numeric CHECK (target_balance > 0),
    threshold numeric CHECK (threshold >= 0),
    interval text CHECK (interval IN ('week', 'month')),
    starts_at timestamptz NOT NULL,
    next_run_at timestamptz,
    priority integer NOT NULL,
    usable text NOT NULL CHECK (usable IN ('immediately', 'on_payment')),
    expires_after_days integer CHECK (expires_after_days > 0),
    metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
    disabled_at timestamptz,
    created_by text,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT credit_topups_shape CHECK (
      (type = 'recurring' AND interval IS NOT NULL AND amount IS NOT NULL AND threshold IS NULL AND target_balance IS NULL)
      OR (type = 'threshold' AND interval IS NULL AND threshold IS NOT NULL AND (amount IS NULL) <> (target_balance IS NULL)
          AND (target_balance IS NULL OR target_balance > threshold))
    )
  )`.execute(db);
  await sql`CREATE INDEX credit_topups_account ON credit_topups (account_id, currency) WHERE disabled_at IS NULL`.execute(db);
  await sql`CREATE INDEX credit_topups_due ON credit_topups (next_run_at) WHERE disabled_at IS NULL AND next_run_at IS NOT NULL`.execute(db);

  await sql`CREATE TABLE credit_topup_runs (
    topup_id text NOT NULL REFERENCES credit_topups(id),
    trigger text NOT NULL,
    grant_id text REFERENCES credit_grants(id),
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (topup_id, trigger)
  )`.execute(db);

  await sql`ALTER TABLE invoices ADD COLUMN payment_applied numeric NOT NULL DEFAULT 0`.execute(db);
  await sql`ALTER TABLE credit_entries DROP CONSTRAINT credit_entries_type_check`.execute(db);
  await sql`ALTER TABLE credit_entries ADD CONSTRAINT credit_entries_type_check CHECK (type IN ('grant', 'burn', 'release', 'expiry', 'void', 'adjustment', 'overpayment', 'refund'))`.execute(db);
  await sql`ALTER TABLE credit_entries DROP CONSTRAINT credit_entries_sign`.execute(db);
  await sql`ALTER TABLE credit_entries ADD CONSTRAINT credit_entries_sign CHECK (
    (type IN ('grant', 'release', 'overpayment') AND amount > 0) OR (type IN ('burn', 'expiry', 'void', 'refund') AND amount < 0) OR (type = 'adjustment' AND amount <> 0))`.execute(db);
  await sql`ALTER TABLE credit_entries DROP CONSTRAINT credit_entries_invoice`.execute(db);
  await sql`ALTER TABLE credit_entries ADD CONSTRAINT credit_entries_invoice CHECK (
    (type IN ('burn', 'release', 'overpayment') AND invoice_id IS NOT NULL) OR type NOT IN ('burn', 'release', 'overpayment'))`.execute(db);
  await sql`ALTER TABLE credit_entries ADD CONSTRAINT credit_entries_refund_reason CHECK (type <> 'refund' OR (reason IS NOT NULL AND reason <> ''))`.execute(db);
  // Refunds are not once per grant (several may be paid back); every other type still is.
  await sql`DROP INDEX credit_entries_once`.execute(db);
  await sql`CREATE UNIQUE INDEX credit_entries_once ON credit_entries (grant_id, type, invoice_id) NULLS NOT DISTINCT WHERE type NOT IN ('adjustment', 'refund')`.execute(db);

  // Every change of an available balance marks (account, currency) in its own transaction.
  await sql`CREATE FUNCTION credit_watch_mark(p_env text, p_account text, p_currency text) RETURNS void LANGUAGE sql AS $$
    INSERT INTO credit_watch_dirty (account_id, currency, environment_id) VALUES (p_account, p_currency, p_env)
  $$`.execute(db);
  await sql`CREATE FUNCTION credit_watch_on_entry() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM credit_watch_mark(NEW.environment_id, NEW.account_id, NEW.currency); RETURN NULL; END $$`.execute(db);
  await sql`CREATE TRIGGER credit_entries_watch AFTER INSERT ON credit_entries FOR EACH ROW EXECUTE FUNCTION credit_watch_on_entry()`.execute(db);
  await sql`CREATE FUNCTION credit_watch_on_application() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE r record;
    BEGIN
      SELECT g.environment_id, g.account_id, g.currency INTO r FROM credit_grants g WHERE g.id = COALESCE(NEW.grant_id, OLD.grant_id);
      IF FOUND THEN PERFORM credit_watch_mark(r.environment_id, r.account_id, r.currency); END IF;
      RETURN NULL;
    END $$`.execute(db);
  await sql`CREATE TRIGGER credit_applications_watch AFTER INSERT OR DELETE ON credit_applications FOR EACH ROW EXECUTE FUNCTION credit_watch_on_application()`.execute(db);
  await sql`CREATE FUNCTION credit_watch_on_invoice() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM credit_watch_mark(NEW.environment_id, NEW.account_id, NEW.currency); RETURN NULL; END $$`.execute(db);
  await sql`CREATE TRIGGER invoices_credit_watch AFTER UPDATE OF status ON invoices FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.credits_applied <> 0) EXECUTE FUNCTION credit_watch_on_invoice()`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TRIGGER IF EXISTS invoices_credit_watch ON invoices`.execute(db);
  await sql`DROP TRIGGER IF EXISTS credit_applications_watch ON credit_applications`.execute(db);
  await sql`DROP TRIGGER IF EXISTS credit_entries_watch ON credit_entries`.execute(db);
  for (const f of ['credit_watch_on_invoice()', 'credit_watch_on_application()', 'credit_watch_on_entry()', 'credit_watch_mark(text, text, text)']) await sql.raw(`DROP FUNCTION IF EXISTS ${f}`).execute(db);
  await sql`DROP INDEX credit_entries_once`.execute(db);
  await sql`CREATE UNIQUE INDEX credit_entries_once ON credit_entries (grant_id, type, invoice_id) NULLS NOT DISTINCT WHERE type <> 'adjustment'`.execute(db);
  await sql`ALTER TABLE credit_entries DROP CONSTRAINT credit_entries_refund_reason`.execute(db);
  await sql`ALTER TABLE invoices DROP COLUMN payment_applied`.execute(db);
  for (const t of ['credit_topup_runs', 'credit_topups', 'credit_crossings', 'credit_watch_dirty', 'credit_settings']) await db.schema.dropTable(t).ifExists().execute();
}
