import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { AccountsTable } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { guarded, iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';

/** Billing address of an account (all fields optional strings). */
interface BillingAddress {
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
  country?: string;
}

/** Fields of an account accepted on create and update, both families. */
interface AccountInput {
  name?: string;
  email?: string | null;
  external_id?: string | null;
  description?: string | null;
  billing_address?: BillingAddress | null;
}

/** An account as both families return it. */
function accountView(r: Selectable<AccountsTable>) {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    external_id: r.external_id,
    description: r.description,
    billing_address: r.billing_address,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** Creates an account; a duplicate `external_id` in the environment is a 409. */
export async function createAccount(db: Db, environmentId: string, input: AccountInput & { name: string }) {
  const row = await guarded('an account with this external_id', () =>
    db
      .insertInto('accounts')
      .values({
        id: newId('acct'),
        environment_id: environmentId,
        name: input.name,
        email: input.email ?? null,
        external_id: input.external_id ?? null,
        description: input.description ?? null,
        billing_address: input.billing_address ? JSON.stringify(input.billing_address) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return accountView(row);
}

/** One page of the environment's accounts, oldest first, and the total count. */
export async function listAccounts(db: Db, environmentId: string, page: Page) {
  const q = db.selectFrom('accounts').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(accountView), total };
}

/** One account of this environment, or 404. */
export async function getAccount(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('accounts').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('account', id);
  return accountView(row);
}

/** Updates the given fields of an account, or 404. */
export async function updateAccount(db: Db, environmentId: string, id: string, input: AccountInput) {
  const set: Record<string, unknown> = { updated_at: new Date() };
  for (const k of ['name', 'email', 'external_id', 'description'] as const) if (input[k] !== undefined) set[k] = input[k];
  if (input.billing_address !== undefined) set.billing_address = input.billing_address ? JSON.stringify(input.billing_address) : null;
  const row = await guarded('an account with this external_id', () =>
    db.updateTable('accounts').set(set).where('environment_id', '=', environmentId).where('id', '=', id).returningAll().executeTakeFirst(),
  );
  if (!row) throw notFound('account', id);
  return accountView(row);
}

/** Deletes an account; refused (409) while contacts, agent instances or subscriptions reference it. */
export async function deleteAccount(db: Db, environmentId: string, id: string): Promise<void> {
  const res = await guarded(`account ${id}`, () => db.deleteFrom('accounts').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst());
  if (res.numDeletedRows === 0n) throw notFound('account', id);
}
