import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { failedPaths, keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
});
afterAll(async () => {
  await stack?.cleanup();
});

const post = (path: string, body: unknown, key = dev.admin) => call(stack, 'POST', path, { key, body });
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const uniq = (s: string) => `${s}-${Math.random().toString(36).slice(2, 8)}`;

describe('accounts', () => {
  it('Family A creates with email and billing_address and lists with limit/offset and total', async () => {
    const res = await post('/v1/accounts', { name: 'Acme', email: 'billing@acme.test', billing_address: { street: '1 Main', city: 'Springfield', state: 'IL', zip: '62701', country: 'US' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Acme', email: 'billing@acme.test', billing_address: { city: 'Springfield' } });
    expect(res.body.id).toMatch(/^acct_/);
    expect(Date.parse(res.body.created_at)).toBeGreaterThan(0);
    const list = await get('/v1/accounts');
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ limit: 20, offset: 0 });
    expect(list.body.total).toBe(list.body.accounts.length);
    expect(list.body.accounts.map((a: { id: string }) => a.id)).toContain(res.body.id);
    expect((await get(`/v1/accounts/${res.body.id}`)).body.name).toBe('Acme');
  });

  it('Family B creates with external_id and description, gets, updates, lists with skip/limit', async () => {
    const ext = uniq('ext');
    const res = await post('/api/v1/account/create', { name: 'Globex', external_id: ext, description: 'a customer' });
    expect(res.status).toBe(201);
    const id = res.body.id;
    expect((await get(`/api/v1/account/${id}`)).body).toMatchObject({ id, name: 'Globex', external_id: ext, description: 'a customer' });
    const upd = await call(stack, 'PUT', `/api/v1/account/${id}`, { key: dev.readWrite, body: { description: 'changed', email: 'x@globex.test' } });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ name: 'Globex', description: 'changed', email: 'x@globex.test' });
    const list = await get('/api/v1/account/all?skip=0&limit=1');
    expect(list.body).toMatchObject({ skip: 0, limit: 1 });
    expect(list.body.accounts).toHaveLength(1);
    expect(list.body.total).toBeGreaterThanOrEqual(2);
    const second = await get('/api/v1/account/all?skip=1&limit=1');
    expect(second.body.accounts[0].id).not.toBe(list.body.accounts[0].id);
    expect((await get('/api/v1/account/all')).body.limit).toBe(100);
  });

  it('a duplicate external_id is a 409; the same external_id in another environment is fine', async () => {
    const ext = uniq('dup');
    expect((await post('/api/v1/account/create', { name: 'A', external_id: ext })).status).toBe(201);
    const dup = await post('/api/v1/account/create', { name: 'B', external_id: ext });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    expect((await post('/api/v1/account/create', { name: 'A', external_id: ext }, staging.admin)).status).toBe(201);
  });

  it.each([
    ['missing name', { email: 'a@b.co' }, 'name'],
    ['empty name', { name: '' }, 'name'],
    ['bad email', { name: 'A', email: 'nope' }, 'email'],
    ['address not an object', { name: 'A', billing_address: 'Main St' }, 'billing_address'],
    ['unknown address field', { name: 'A', billing_address: { planet: 'Mars' } }, 'billing_address.planet'],
    ['address field not a string', { name: 'A', billing_address: { zip: 62701 } }, 'billing_address.zip'],
  ])('rejects %s with 400 validation_failed naming the field', async (_label, body, path) => {
    for (const p of ['/v1/accounts', '/api/v1/account/create']) {
      const res = await post(p, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(failedPaths(res)).toContain(path);
      expect(res.body.error.request_id).toBeTruthy();
    }
  });

  it('rejects malformed JSON and out-of-range paging with 400', async () => {
    const bad = await call(stack, 'POST', '/v1/accounts', { key: dev.admin, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(bad.status).toBe(400);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'limit=2.5']) {
      const res = await get(`/v1/accounts?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    for (const q of ['limit=0', 'limit=101', 'skip=-1', 'skip=x']) expect((await get(`/api/v1/account/all?${q}`)).status, q).toBe(400);
    expect((await get('/v1/accounts?limit=100&offset=5')).status).toBe(200);
  });

  it('permissions: read-only and SDK keys may not create; SDK keys may not read; no key is 401', async () => {
    expect(await statuses(stack, 'POST', '/api/v1/account/create', [dev.readOnly, dev.sdk], { name: 'x' })).toEqual([403, 403]);
    expect(await statuses(stack, 'POST', '/v1/accounts', [dev.readOnly, dev.sdk], { name: 'x' })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/account/all', [dev.readOnly, dev.readWrite, dev.sdk])).toEqual([200, 200, 403]);
    expect(await statuses(stack, 'GET', '/v1/accounts', [dev.sdk])).toEqual([403]);
    const anon = await call(stack, 'GET', '/v1/accounts');
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe('unauthorized');
    const res = await call(stack, 'GET', '/api/v1/account/all', { headers: { 'api-key': dev.readOnly } });
    expect(res.status).toBe(200);
  });

  it('isolation: another environment never sees, changes or deletes an account', async () => {
    const { body: acct } = await post('/api/v1/account/create', { name: 'Private' });
    expect((await get(`/api/v1/account/${acct.id}`, staging.admin)).status).toBe(404);
    expect((await get(`/v1/accounts/${acct.id}`, staging.admin)).status).toBe(404);
    expect((await call(stack, 'PUT', `/api/v1/account/${acct.id}`, { key: staging.admin, body: { name: 'stolen' } })).status).toBe(404);
    expect((await call(stack, 'DELETE', `/api/v1/account/${acct.id}`, { key: staging.admin })).status).toBe(404);
    const list = await get('/api/v1/account/all', staging.admin);
    expect(list.body.accounts.map((a: { id: string }) => a.id)).not.toContain(acct.id);
    expect((await get(`/api/v1/account/${acct.id}`)).body.name).toBe('Private');
  });

  it('delete works when unreferenced and is refused (409) while a contact references the account', async () => {
    const { body: a } = await post('/api/v1/account/create', { name: 'Temp' });
    const del = await call(stack, 'DELETE', `/api/v1/account/${a.id}`, { key: dev.readWrite });
    expect(del.status).toBe(200);
    expect((await get(`/api/v1/account/${a.id}`)).status).toBe(404);
    expect((await call(stack, 'DELETE', `/api/v1/account/${a.id}`, { key: dev.admin })).status).toBe(404);
    const { body: b } = await post('/api/v1/account/create', { name: 'Kept' });
    await post('/api/v1/contact/create', { first_name: 'A', last_name: 'B', email: 'a@b.co', account_id: b.id });
    const refused = await call(stack, 'DELETE', `/api/v1/account/${b.id}`, { key: dev.admin });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/contacts/);
    expect((await get(`/api/v1/account/${b.id}`)).status).toBe(200);
    expect((await call(stack, 'DELETE', `/api/v1/account/${b.id}`, { key: dev.readOnly })).status).toBe(403);
  });
});

describe('contacts', () => {
  it('creates billing and technical contacts, lists them per account, updates and deletes', async () => {
    const { body: a } = await post('/api/v1/account/create', { name: 'With contacts' });
    const c1 = await post('/api/v1/contact/create', { first_name: 'Ada', last_name: 'L', email: 'ada@x.co', account_id: a.id });
    expect(c1.status).toBe(201);
    expect(c1.body).toMatchObject({ first_name: 'Ada', last_name: 'L', email: 'ada@x.co', account_id: a.id, role: 'billing' });
    const c2 = await post('/api/v1/contact/create', { first_name: 'Tim', last_name: 'B', email: 'tim@x.co', account_id: a.id, role: 'technical' });
    expect(c2.body.role).toBe('technical');
    const list = await get(`/api/v1/contact/all?account_id=${a.id}`);
    expect(list.body.total).toBe(2);
    expect(list.body.contacts.map((c: { id: string }) => c.id)).toEqual([c1.body.id, c2.body.id]);
    expect((await get('/api/v1/contact/all')).body.total).toBeGreaterThanOrEqual(2);
    const upd = await call(stack, 'PUT', `/api/v1/contact/${c1.body.id}`, { key: dev.readWrite, body: { email: 'ada@y.co' } });
    expect(upd.body.email).toBe('ada@y.co');
    expect((await get(`/api/v1/contact/${c1.body.id}`)).body.email).toBe('ada@y.co');
    expect((await call(stack, 'DELETE', `/api/v1/contact/${c2.body.id}`, { key: dev.admin })).status).toBe(200);
    expect((await get(`/api/v1/contact/${c2.body.id}`)).status).toBe(404);
  });

  it.each([
    ['missing first_name', { last_name: 'B', email: 'a@b.co' }, 'first_name'],
    ['bad email', { first_name: 'A', last_name: 'B', email: 'ab' }, 'email'],
    ['bad role', { first_name: 'A', last_name: 'B', email: 'a@b.co', role: 'sales' }, 'role'],
    ['missing account_id', { first_name: 'A', last_name: 'B', email: 'a@b.co', account_id: undefined }, 'account_id'],
  ])('rejects %s', async (_l, body, path) => {
    const { body: a } = await post('/api/v1/account/create', { name: 'v' });
    const res = await post('/api/v1/contact/create', { account_id: a.id, ...body });
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toContain(path);
  });

  it('an account of another environment is an unknown account_id (400), and contacts are not visible there', async () => {
    const { body: a } = await post('/api/v1/account/create', { name: 'dev only' });
    const res = await post('/api/v1/contact/create', { first_name: 'A', last_name: 'B', email: 'a@b.co', account_id: a.id }, staging.admin);
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual(['account_id']);
    const { body: c } = await post('/api/v1/contact/create', { first_name: 'A', last_name: 'B', email: 'a@b.co', account_id: a.id });
    expect((await get(`/api/v1/contact/${c.id}`, staging.admin)).status).toBe(404);
    expect((await get(`/api/v1/contact/all?account_id=${a.id}`, staging.admin)).body).toMatchObject({ total: 0, contacts: [] });
    expect(await statuses(stack, 'POST', '/api/v1/contact/create', [dev.readOnly, dev.sdk], { first_name: 'A', last_name: 'B', email: 'a@b.co', account_id: a.id })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/contact/all', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
  });
});

describe('agent types', () => {
  it('creates, lists (skip/limit, total), gets, updates; names are unique per environment (409)', async () => {
    const name = uniq('support-bot');
    const res = await post('/api/v1/agent_type/create', { name, description: 'answers tickets' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name, description: 'answers tickets' });
    expect((await post('/api/v1/agent_type/create', { name })).status).toBe(409);
    expect((await post('/api/v1/agent_type/create', { name }, staging.admin)).status).toBe(201);
    const list = await get('/api/v1/agent_type/all?limit=100');
    expect(list.body.agent_types.map((t: { id: string }) => t.id)).toContain(res.body.id);
    expect(list.body.total).toBe(list.body.agent_types.length);
    const upd = await call(stack, 'PUT', `/api/v1/agent_type/${res.body.id}`, { key: dev.readWrite, body: { description: 'v2' } });
    expect(upd.body).toMatchObject({ name, description: 'v2' });
    expect((await get(`/api/v1/agent_type/${res.body.id}`)).body.description).toBe('v2');
    const other = await post('/api/v1/agent_type/create', { name: uniq('other') });
    const clash = await call(stack, 'PUT', `/api/v1/agent_type/${other.body.id}`, { key: dev.admin, body: { name } });
    expect(clash.status).toBe(409);
  });

  it('validation, permissions and isolation', async () => {
    expect(failedPaths(await post('/api/v1/agent_type/create', { description: 'no name' }))).toEqual(['name']);
    expect(failedPaths(await post('/api/v1/agent_type/create', { name: 'x', description: 5 }))).toEqual(['description']);
    expect((await call(stack, 'PUT', '/api/v1/agent_type/at_x', { key: dev.admin, body: { name: '' } })).status).toBe(400);
    expect(await statuses(stack, 'POST', '/api/v1/agent_type/create', [dev.readOnly, dev.sdk], { name: uniq('n') })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/agent_type/all', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    const { body: t } = await post('/api/v1/agent_type/create', { name: uniq('iso') });
    expect(await statuses(stack, 'PUT', `/api/v1/agent_type/${t.id}`, [dev.readOnly, staging.admin], { name: 'x' })).toEqual([403, 404]);
    expect(await statuses(stack, 'DELETE', `/api/v1/agent_type/${t.id}`, [dev.readOnly, dev.sdk, staging.admin])).toEqual([403, 403, 404]);
    expect((await get(`/api/v1/agent_type/${t.id}`, staging.admin)).status).toBe(404);
  });

  it('delete is refused (409) while an agent instance uses the type, and works after', async () => {
    const { body: t } = await post('/api/v1/agent_type/create', { name: uniq('del') });
    const { body: inst } = await post('/api/v1/agent_instance/create', { name: 'i', agent_type_id: t.id });
    const refused = await call(stack, 'DELETE', `/api/v1/agent_type/${t.id}`, { key: dev.admin });
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/agent instances/);
    expect((await call(stack, 'DELETE', `/api/v1/agent_instance/${inst.id}`, { key: dev.admin })).status).toBe(200);
    expect((await call(stack, 'DELETE', `/api/v1/agent_type/${t.id}`, { key: dev.admin })).status).toBe(200);
    expect((await get(`/api/v1/agent_type/${t.id}`)).status).toBe(404);
  });
});
