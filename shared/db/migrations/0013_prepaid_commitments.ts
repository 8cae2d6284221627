import { type Kysely, sql } from 'kysely';

/**
 * Prepaid commitments (docs/credits.md "Commitments", billing/credits/commitments.ts): an amount
 * for a term (e.g. 12 months from the subscription's start), invoiced up front or in
 * installments, usable from the term's start as credit scoped to the subscription.
 *
 * - `rate_plans.prepaid_commitment`, `subscriptions.prepaid_commitment`: the commitment
 *   (JSON: `amount` decimal text at the currency's minor units, `term_months`,
 *   `installments`, `renews`); a subscription's null means its plan's, an amount of 0 none.
 * - `commitment_terms`: one row per term of a subscription's commitment (numbered from 1),
 *   with the paid credit grant that carries its amount (the ledger of credits/ does the
 *   rest: burn-down, expiry of the remainder). `closed_at`: the scheduler looked at its
 *   renewal (renewed or not), so it never looks again.
 * - `commitment_installments`: the parts of a term's amount and when each is invoiced;
 *   `invoice_id` is written once, in the transaction that issues the invoice.
 *
 * TRICKY: exactly once is the database's doing: one term per (subscription, term) and one
 * installment per (term, n); an installment is invoiced by an UPDATE ... WHERE invoice_id
 * IS NULL under the row's lock, so two schedulers never bill it twice.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`ALTER TABLE rate_plans ADD COLUMN prepaid_commitment jsonb`.execute(db);
  await sql`ALTER TABLE subscriptions ADD COLUMN prepaid_commitment jsonb`.execute(db);
  await sql`CREATE TABLE commitment_terms (
    id text PRIMARY KEY,
    environment_id text NOT NULL REFERENCES environments(id),
    subscription_id text NOT NULL REFERENCES subscriptions(id),
    account_id text NOT NULL REFERENCES accounts(id),
    currency text NOT NULL,
    term integer NOT NULL CHECK (term > 0),
    starts_at timestamptz NOT NULL,
    ends_at timestamptz NOT NULL,
    amount numeric NOT NULL CHECK (amount > 0),
    term_months integer NOT NULL CHECK (term_months > 0),
    installments integer NOT NULL CHECK (installments > 0),
    renews boolean NOT NULL,
    grant_id text NOT NULL REFERENCES credit_grants(id),
    closed_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT commitment_terms_once UNIQUE (subscription_id, term),
    CONSTRAINT commitment_terms_dates CHECK (ends_at > starts_at)
  )`.execute(db);
  await sql`CREATE INDEX commitment_terms_open ON commitment_terms (ends_at) WHERE closed_at IS NULL`.execute(db);
  await sql`CREATE TABLE commitment_installments (
    term_id text NOT NULL REFERENCES commitment_terms(id),
    n integer NOT NULL CHECK (n > 0),
    due_at timestamptz NOT NULL,
    amount numeric NOT NULL CHECK (amount >= 0),
    invoice_id text REFERENCES invoices(id),
    PRIMARY KEY (term_id, n)
  )`.execute(db);
  await sql`CREATE INDEX commitment_installments_due ON commitment_installments (due_at) WHERE invoice_id IS NULL`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP TABLE IF EXISTS commitment_installments`.execute(db);
  await sql`DROP TABLE IF EXISTS commitment_terms`.execute(db);
  await sql`ALTER TABLE subscriptions DROP COLUMN prepaid_commitment`.execute(db);
  await sql`ALTER TABLE rate_plans DROP COLUMN prepaid_commitment`.execute(db);
}
