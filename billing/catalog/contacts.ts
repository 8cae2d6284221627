import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { ContactsTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { guarded, iso, notFound } from '../../shared/db/db-errors.ts';
import { requireRef } from './refs.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';

/** Contact roles: billing contacts receive invoices, technical contacts notifications. */
const CONTACT_ROLES = ['billing', 'technical'] as const;
type ContactRole = (typeof CONTACT_ROLES)[number];

interface ContactInput {
  first_name?: string;
  last_name?: string;
  email?: string;
  account_id?: string;
  role?: ContactRole;
}

/** A contact as the API returns it. */
function contactView(r: Selectable<ContactsTable>) {
  return {
    id: r.id,
    account_id: r.account_id,
    first_name: r.first_name,
    last_name: r.last_name,
    email: r.email,
    role: r.role,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** Creates a contact of an account of this environment. */
export async function createContact(db: Db, environmentId: string, input: Required<Omit<ContactInput, 'role'>> & { role?: ContactRole }) {
  await requireRef(db, 'accounts', environmentId, 'account_id', input.account_id);
  const row = await db
    .insertInto('contacts')
    .values({
      id: newId('ct'),
      environment_id: environmentId,
      account_id: input.account_id,
      first_name: input.first_name,
      last_name: input.last_name,
      email: input.email,
      role: input.role ?? 'billing',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return contactView(row);
}

/** One page of contacts, optionally of one account. */
export async function listContacts(db: Db, environmentId: string, page: Page, accountId?: string) {
  let q = db.selectFrom('contacts').where('environment_id', '=', environmentId);
  if (accountId) q = q.where('account_id', '=', accountId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(contactView), total };
}

export async function getContact(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('contacts').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('contact', id);
  return contactView(row);
}

/** Updates a contact; moving it to another account checks that account exists here. */
export async function updateContact(db: Db, environmentId: string, id: string, input: ContactInput) {
  if (input.account_id !== undefined) await requireRef(db, 'accounts', environmentId, 'account_id', input.account_id);
  const set: Record<string, unknown> = { updated_at: new Date() };
  for (const k of ['first_name', 'last_name', 'email', 'account_id', 'role'] as const) if (input[k] !== undefined) set[k] = input[k];
  const row = await db.updateTable('contacts').set(set).where('environment_id', '=', environmentId).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('contact', id);
  return contactView(row);
}

/** Deletes a contact; refused (409) while an agent instance references it. */
export async function deleteContact(db: Db, environmentId: string, id: string): Promise<void> {
  const res = await guarded(`contact ${id}`, () => db.deleteFrom('contacts').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst());
  if (res.numDeletedRows === 0n) throw notFound('contact', id);
}

/** Checks that a contact belongs to an account (both of this environment). */
export async function requireContactOfAccount(db: Db, environmentId: string, contactId: string, accountId: string | null): Promise<void> {
  const row = await db.selectFrom('contacts').select('account_id').where('environment_id', '=', environmentId).where('id', '=', contactId).executeTakeFirst();
  if (!row) throw new AppError('validation_failed', `contact_id ${contactId} does not exist`, { details: [{ path: 'contact_id', message: 'contact_id does not exist' }] });
  if (accountId && row.account_id !== accountId) {
    throw new AppError('validation_failed', `contact ${contactId} belongs to another account`, { details: [{ path: 'contact_id', message: 'contact_id must be a contact of account_id' }] });
  }
}
