import { Type } from '@sinclair/typebox';
import { createAccount, deleteAccount, getAccount, listAccounts, updateAccount } from '../catalog/accounts.ts';
import { createContact, deleteContact, getContact, listContacts, updateContact } from '../catalog/contacts.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, deleted, ok, type ApiDeps, type Endpoint } from './route.ts';
import { AccountCreate, AccountUpdate, ContactCreate, ContactUpdate, Id } from './schemas.ts';
import { body, query } from './validate.ts';
import { Account, Contact, Deleted, listOfA, listOfB } from './response-schemas.ts';

/** `GET /api/v1/contact/all`: contacts of one account. */
const ContactQuery = Type.Object({ account_id: Type.Optional(Id) });

/** Accounts on both families and contacts (Family B). */
export function accountEndpoints({ db }: ApiDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/v1/accounts',
      capability: 'read',
      query: [PageQueryA],
      response: listOfA('accounts', Account),
      summary: 'List accounts (limit/offset)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listAccounts(db, p.environmentId, page);
        return ok(listA('accounts', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/v1/accounts',
      capability: 'write',
      status: 201,
      response: Account,
      summary: 'Create an account (name, email, billing_address)',
      requestBody: AccountCreate,
      handle: async (req, p) => created(await createAccount(db, p.environmentId, body(req, AccountCreate))),
    },
    {
      method: 'GET',
      path: '/v1/accounts/:account_id',
      capability: 'read',
      response: Account,
      summary: 'One account',
      handle: async (req, p) => ok(await getAccount(db, p.environmentId, req.params.account_id!)),
    },
    {
      method: 'GET',
      path: '/api/v1/account/all',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('accounts', Account),
      summary: 'List accounts (skip/limit)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listAccounts(db, p.environmentId, page);
        return ok(listB('accounts', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/account/create',
      capability: 'write',
      status: 201,
      response: Account,
      summary: 'Create an account (name, external_id, description)',
      requestBody: AccountCreate,
      handle: async (req, p) => created(await createAccount(db, p.environmentId, body(req, AccountCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/account/:account_id',
      capability: 'read',
      response: Account,
      summary: 'One account',
      handle: async (req, p) => ok(await getAccount(db, p.environmentId, req.params.account_id!)),
    },
    {
      method: 'PUT',
      path: '/api/v1/account/:account_id',
      capability: 'write',
      response: Account,
      summary: 'Update an account',
      requestBody: AccountUpdate,
      handle: async (req, p) => ok(await updateAccount(db, p.environmentId, req.params.account_id!, body(req, AccountUpdate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/account/:account_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete an account (refused while referenced)',
      handle: async (req, p) => {
        await deleteAccount(db, p.environmentId, req.params.account_id!);
        return deleted(req.params.account_id!);
      },
    },
    {
      method: 'GET',
      path: '/api/v1/contact/all',
      capability: 'read',
      query: [PageQueryB, ContactQuery],
      response: listOfB('contacts', Contact),
      summary: 'List contacts (skip/limit; optional account_id filter)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { account_id } = query(req, ContactQuery);
        const { rows, total } = await listContacts(db, p.environmentId, page, account_id);
        return ok(listB('contacts', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/contact/create',
      capability: 'write',
      status: 201,
      response: Contact,
      summary: 'Create a contact of an account',
      requestBody: ContactCreate,
      handle: async (req, p) => created(await createContact(db, p.environmentId, body(req, ContactCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/contact/:contact_id',
      capability: 'read',
      response: Contact,
      summary: 'One contact',
      handle: async (req, p) => ok(await getContact(db, p.environmentId, req.params.contact_id!)),
    },
    {
      method: 'PUT',
      path: '/api/v1/contact/:contact_id',
      capability: 'write',
      response: Contact,
      summary: 'Update a contact',
      requestBody: ContactUpdate,
      handle: async (req, p) => ok(await updateContact(db, p.environmentId, req.params.contact_id!, body(req, ContactUpdate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/contact/:contact_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete a contact (refused while an agent instance references it)',
      handle: async (req, p) => {
        await deleteContact(db, p.environmentId, req.params.contact_id!);
        return deleted(req.params.contact_id!);
      },
    },
  ];
}
