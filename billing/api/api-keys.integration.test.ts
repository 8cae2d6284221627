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

const create = (body: unknown, key = dev.admin) => call(stack, 'POST', '/api/v1/api_keys', { key, body });
const canRead = async (key: string) => (await call(stack, 'GET', '/api/v1/account/all', { key })).status;

describe('API keys', () => {
  it.each([
    ['read-only', 'sk_api_', [200, 403, 403]],
    ['read-write', 'sk_api_', [200, 201, 403]],
    ['admin', 'sk_api_', [200, 201, 200]],
  ] as const)('a new %s key is returned once and has its permission', async (permission, prefix, expected) => {
    const res = await create({ name: `ci ${permission}`, permission });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: `ci ${permission}`, kind: 'api', permission, status: 'active', revoked_at: null, expires_at: null });
    expect(res.body.key.startsWith(prefix)).toBe(true);
    const key = res.body.key;
    const got = [
      (await call(stack, 'GET', '/api/v1/account/all', { key })).status,
      (await call(stack, 'POST', '/api/v1/account/create', { key, body: { name: 'x' } })).status,
      (await call(stack, 'GET', '/api/v1/api_keys', { key })).status,
    ];
    expect(got).toEqual(expected);
    const list = await call(stack, 'GET', '/api/v1/api_keys', { key: dev.admin });
    expect(JSON.stringify(list.body)).not.toContain(key);
    expect(list.body.api_keys.find((k: { id: string }) => k.id === res.body.id)).toMatchObject({ permission, prefix: expect.stringMatching(/^sk_api_/) });
  });

  it('creates SDK keys (sk_test_ outside production) that send events but may not read the catalog', async () => {
    const res = await create({ name: 'sdk', permission: 'sdk' });
    expect(res.status).toBe(201);
    expect(res.body.kind).toBe('sdk');
    expect(res.body.key).toMatch(/^sk_test_/);
    expect(await canRead(res.body.key)).toBe(403);
  });

  it('lists with skip/limit and total', async () => {
    const all = await call(stack, 'GET', '/api/v1/api_keys?limit=100', { key: dev.admin });
    expect(all.body.total).toBe(all.body.api_keys.length);
    expect(all.body.total).toBeGreaterThanOrEqual(4);
    const page = await call(stack, 'GET', '/api/v1/api_keys?skip=1&limit=1', { key: dev.admin });
    expect(page.body.api_keys[0].id).toBe(all.body.api_keys[1].id);
    expect((await call(stack, 'GET', '/api/v1/api_keys?limit=0', { key: dev.admin })).status).toBe(400);
  });

  it.each([
    ['missing name', { permission: 'admin' }, 'name'],
    ['unknown permission', { name: 'x', permission: 'root' }, 'permission'],
    ['missing permission', { name: 'x' }, 'permission'],
  ])('rejects %s', async (_l, body, path) => {
    const res = await create(body);
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual([path]);
  });

  it('only admin keys manage keys', async () => {
    const body = { name: 'x', permission: 'read-only' };
    expect(await statuses(stack, 'POST', '/api/v1/api_keys', [dev.readOnly, dev.readWrite, dev.sdk], body)).toEqual([403, 403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/api_keys', [dev.readOnly, dev.readWrite, dev.sdk])).toEqual([403, 403, 403]);
    const { body: k } = await create(body);
    expect(await statuses(stack, 'DELETE', `/api/v1/api_keys/${k.id}`, [dev.readOnly, dev.readWrite, dev.sdk])).toEqual([403, 403, 403]);
    expect(await statuses(stack, 'POST', `/api/v1/api_keys/${k.id}/rotate`, [dev.readOnly, dev.readWrite, dev.sdk])).toEqual([403, 403, 403]);
    expect(await canRead(k.key)).toBe(200);
  });

  it('revoke stops the key at once (also in the authenticator cache) and is idempotent', async () => {
    const { body: k } = await create({ name: 'to revoke', permission: 'read-only' });
    expect(await canRead(k.key)).toBe(200); // cached now
    const res = await call(stack, 'DELETE', `/api/v1/api_keys/${k.id}`, { key: dev.admin });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('revoked');
    expect(await canRead(k.key)).toBe(401);
    expect((await call(stack, 'DELETE', `/api/v1/api_keys/${k.id}`, { key: dev.admin })).body.status).toBe('revoked');
    expect((await call(stack, 'POST', `/api/v1/api_keys/${k.id}/rotate`, { key: dev.admin })).status).toBe(409);
  });

  it('rotation: a new key at once, the old one keeps working for 24 hours, then stops', async () => {
    const { body: k } = await create({ name: 'rotating', permission: 'read-write' });
    expect(await canRead(k.key)).toBe(200);
    const before = Date.now();
    const rot = await call(stack, 'POST', `/api/v1/api_keys/${k.id}/rotate`, { key: dev.admin });
    expect(rot.status).toBe(201);
    expect(rot.body).toMatchObject({ name: 'rotating', permission: 'read-write', rotated_from: k.id });
    expect(rot.body.key).not.toBe(k.key);
    const graceMs = Date.parse(rot.body.old_key_expires_at) - before;
    expect(graceMs).toBeGreaterThanOrEqual(24 * 3600_000 - 5_000);
    expect(graceMs).toBeLessThanOrEqual(24 * 3600_000 + 5_000);
    expect(await canRead(k.key)).toBe(200);
    expect(await canRead(rot.body.key)).toBe(200);
    const list = await call(stack, 'GET', '/api/v1/api_keys?limit=100', { key: dev.admin });
    expect(list.body.api_keys.find((x: { id: string }) => x.id === k.id)).toMatchObject({ status: 'rotating', rotated_to: rot.body.id });
    expect((await call(stack, 'POST', `/api/v1/api_keys/${k.id}/rotate`, { key: dev.admin })).status).toBe(409);
    // 24 hours later (moved by hand): the old key no longer works, the new one does.
    await stack.tally.db!.updateTable('api_keys').set({ expires_at: new Date(Date.now() - 1000) }).where('id', '=', k.id).execute();
    stack.tally.bus.publish({ type: 'all' });
    expect(await canRead(k.key)).toBe(401);
    expect(await canRead(rot.body.key)).toBe(200);
  });

  it('isolation: keys of another environment are invisible and cannot be revoked from here', async () => {
    const { body: k } = await create({ name: 'staging key', permission: 'read-only' }, staging.admin);
    const list = await call(stack, 'GET', '/api/v1/api_keys?limit=100', { key: dev.admin });
    expect(list.body.api_keys.map((x: { id: string }) => x.id)).not.toContain(k.id);
    expect((await call(stack, 'DELETE', `/api/v1/api_keys/${k.id}`, { key: dev.admin })).status).toBe(404);
    expect((await call(stack, 'POST', `/api/v1/api_keys/${k.id}/rotate`, { key: dev.admin })).status).toBe(404);
    expect(await canRead(k.key)).toBe(200);
    // A staging key works only in staging: it never sees development data.
    const { body: acct } = await call(stack, 'POST', '/api/v1/account/create', { key: dev.admin, body: { name: 'dev acct' } });
    expect((await call(stack, 'GET', `/api/v1/account/${acct.id}`, { key: k.key })).status).toBe(404);
  });
});
