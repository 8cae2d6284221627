import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
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

const post = (path: string, body?: unknown, key = dev.admin) => call(stack, 'POST', path, { key, ...(body !== undefined ? { body } : {}) });
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const put = (path: string, body: unknown, key = dev.admin) => call(stack, 'PUT', path, { key, body });
const storedSecret = async (id: string) => (await stack.tally.db!.selectFrom('webhook_endpoints').select('secret').where('id', '=', id).executeTakeFirstOrThrow()).secret;
const ALL_EVENTS = ['invoice.created', 'invoice.paid', 'outcome.completed', 'payment.successful', 'subscription.created', 'subscription.updated', 'subscription.cancelled'];

describe('webhook endpoints', () => {
  it('creates with a generated whsec_ secret returned once and stored for signing; reads never show it', async () => {
    const res = await post('/api/v1/webhooks', { url: 'https://hooks.example.com/tally', events: ['invoice.created', 'invoice.paid'], description: 'finance' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ url: 'https://hooks.example.com/tally', events: ['invoice.created', 'invoice.paid'], description: 'finance', is_active: true, secret_rotated_at: null });
    expect(res.body.id).toMatch(/^wh_/);
    expect(res.body.secret).toMatch(/^whsec_[A-Za-z0-9]{40}$/);
    // Usable as issued by Standard Webhooks verifiers: whsec_ and the base64 of a 30-byte key.
    expect(Buffer.from(res.body.secret.slice(6), 'base64').toString('base64')).toBe(res.body.secret.slice(6));
    expect(() => new Webhook(res.body.secret)).not.toThrow();
    expect(res.body.secret_hint).toBe(`whsec_…${res.body.secret.slice(-4)}`);
    expect(Date.parse(res.body.created_at)).toBeGreaterThan(0);
    // Stored in clear: HMAC signing of deliveries needs the secret itself.
    expect(await storedSecret(res.body.id)).toBe(res.body.secret);

    const one = await get(`/api/v1/webhooks/${res.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: res.body.id, url: res.body.url, events: res.body.events });
    expect(one.body.secret).toBeUndefined();
    const listB = await get('/api/v1/webhooks');
    const listA = await get('/v1/webhooks');
    for (const l of [listB, listA]) {
      expect(l.status).toBe(200);
      expect(l.body.webhooks.map((w: { id: string }) => w.id)).toContain(res.body.id);
      expect(JSON.stringify(l.body)).not.toContain(res.body.secret);
    }
    expect(JSON.stringify(one.body)).not.toContain(res.body.secret);
  });

  it('takes a given secret, every spec event name, ["*"], and http URLs; Family A creates too', async () => {
    const given = 'my-own-signing-secret-0123456789';
    const a = await post('/api/v1/webhooks', { url: 'http://10.0.0.5:8080/in', events: ALL_EVENTS, secret: given });
    expect(a.status).toBe(201);
    expect(a.body.secret).toBe(given);
    expect(a.body.events).toEqual(ALL_EVENTS);
    expect(a.body.secret_hint).toBe('…6789');
    const star = await post('/v1/webhooks', { url: 'https://all.example.com', events: ['*'] });
    expect(star.status).toBe(201);
    expect(star.body).toMatchObject({ events: ['*'], description: null });
    expect(star.body.secret).toMatch(/^whsec_/);
    expect((await get(`/api/v1/webhooks/${star.body.id}`)).body.events).toEqual(['*']);
  });

  it('pages: Family B skip/limit (default 100), Family A limit/offset (default 20), total always', async () => {
    for (let i = 0; i < 3; i++) expect((await post('/api/v1/webhooks', { url: `https://page${i}.example.com`, events: ['*'] })).status).toBe(201);
    const all = await get('/api/v1/webhooks');
    expect(all.body).toMatchObject({ skip: 0, limit: 100 });
    expect(all.body.total).toBe(all.body.webhooks.length);
    expect(all.body.total).toBeGreaterThanOrEqual(3);
    const page = await get('/api/v1/webhooks?skip=1&limit=1');
    expect(page.body).toMatchObject({ skip: 1, limit: 1, total: all.body.total });
    expect(page.body.webhooks.map((w: { id: string }) => w.id)).toEqual([all.body.webhooks[1].id]);
    const a = await get('/v1/webhooks?limit=2&offset=1');
    expect(a.body).toMatchObject({ limit: 2, offset: 1, total: all.body.total });
    expect(a.body.webhooks.map((w: { id: string }) => w.id)).toEqual(all.body.webhooks.slice(1, 3).map((w: { id: string }) => w.id));
    expect((await get('/v1/webhooks')).body).toMatchObject({ limit: 20, offset: 0 });
    for (const q of ['limit=0', 'limit=101', 'skip=-1']) expect((await get(`/api/v1/webhooks?${q}`)).status, q).toBe(400);
    for (const q of ['limit=0', 'limit=101', 'offset=-1']) expect((await get(`/v1/webhooks?${q}`)).status, q).toBe(400);
  });

  it('updates url, events, description and is_active; PUT may not change the secret', async () => {
    const { body: w } = await post('/api/v1/webhooks', { url: 'https://old.example.com', events: ['invoice.paid'] });
    const upd = await put(`/api/v1/webhooks/${w.id}`, { url: 'https://new.example.com/x', events: ['subscription.created', 'subscription.cancelled'], description: 'subs', is_active: false });
    expect(upd.status).toBe(200);
    expect(upd.body).toMatchObject({ id: w.id, url: 'https://new.example.com/x', events: ['subscription.created', 'subscription.cancelled'], description: 'subs', is_active: false });
    expect(Date.parse(upd.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(w.updated_at));
    const partial = await put(`/api/v1/webhooks/${w.id}`, { is_active: true }, dev.readWrite);
    expect(partial.body).toMatchObject({ url: 'https://new.example.com/x', is_active: true, description: 'subs' });
    expect((await put(`/api/v1/webhooks/${w.id}`, { description: null })).body.description).toBeNull();
    const sec = await put(`/api/v1/webhooks/${w.id}`, { secret: 'another-secret-value-123' });
    expect(sec.status).toBe(400);
    expect(failedPaths(sec)).toEqual(['secret']);
    expect(await storedSecret(w.id)).toBe(w.secret);
  });

  it('rotate-secret: a new secret returned once replaces the old one at once; a given one is taken', async () => {
    const { body: w } = await post('/api/v1/webhooks', { url: 'https://rot.example.com', events: ['*'] });
    const rot = await post(`/api/v1/webhooks/${w.id}/rotate-secret`);
    expect(rot.status).toBe(200);
    expect(rot.body.secret).toMatch(/^whsec_/);
    expect(rot.body.secret).not.toBe(w.secret);
    expect(Date.parse(rot.body.secret_rotated_at)).toBeGreaterThan(0);
    expect(await storedSecret(w.id)).toBe(rot.body.secret);
    expect((await get(`/api/v1/webhooks/${w.id}`)).body).toMatchObject({ secret_hint: `whsec_…${rot.body.secret.slice(-4)}`, secret_rotated_at: rot.body.secret_rotated_at });
    const given = await post(`/api/v1/webhooks/${w.id}/rotate-secret`, { secret: 'chosen-by-the-receiver-42' }, dev.readWrite);
    expect(given.status).toBe(200);
    expect(given.body.secret).toBe('chosen-by-the-receiver-42');
    expect(await storedSecret(w.id)).toBe('chosen-by-the-receiver-42');
    const short = await post(`/api/v1/webhooks/${w.id}/rotate-secret`, { secret: 'short' });
    expect(short.status).toBe(400);
    expect(failedPaths(short)).toEqual(['secret']);
    const std = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
    expect((await post(`/api/v1/webhooks/${w.id}/rotate-secret`, { secret: std })).body.secret).toBe(std);
    const notBase64 = await post(`/api/v1/webhooks/${w.id}/rotate-secret`, { secret: 'whsec_this is not base64' });
    expect(notBase64.status).toBe(400);
    expect(failedPaths(notBase64)).toEqual(['secret']);
    const notBase64NoSpaces = await post(`/api/v1/webhooks/${w.id}/rotate-secret`, { secret: 'whsec_not-base64-not-base64-not-base64!' });
    expect(notBase64NoSpaces.status).toBe(400);
    expect(failedPaths(notBase64NoSpaces)).toEqual(['secret']);
    expect(await storedSecret(w.id)).toBe(std);
  });

  it('deletes; the endpoint is gone afterwards (404 on every path)', async () => {
    const { body: w } = await post('/api/v1/webhooks', { url: 'https://gone.example.com', events: ['*'] });
    const del = await call(stack, 'DELETE', `/api/v1/webhooks/${w.id}`, { key: dev.readWrite });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: w.id, deleted: true });
    expect((await get(`/api/v1/webhooks/${w.id}`)).status).toBe(404);
    expect((await put(`/api/v1/webhooks/${w.id}`, { is_active: false })).status).toBe(404);
    expect((await post(`/api/v1/webhooks/${w.id}/rotate-secret`)).status).toBe(404);
    expect((await call(stack, 'DELETE', `/api/v1/webhooks/${w.id}`, { key: dev.admin })).status).toBe(404);
    expect((await stack.tally.db!.selectFrom('webhook_endpoints').select('id').where('id', '=', w.id).execute()).length).toBe(0);
  });

  it.each([
    ['missing url', { events: ['*'] }, 'url'],
    ['non-http scheme', { url: 'ftp://files.example.com', events: ['*'] }, 'url'],
    ['relative url', { url: '/hooks', events: ['*'] }, 'url'],
    ['url without a host', { url: 'https://', events: ['*'] }, 'url'],
    ['url with spaces', { url: 'https://a b.example.com', events: ['*'] }, 'url'],
    ['url not a string', { url: 42, events: ['*'] }, 'url'],
    ['missing events', { url: 'https://x.example.com' }, 'events'],
    ['empty events', { url: 'https://x.example.com', events: [] }, 'events'],
    ['events not an array', { url: 'https://x.example.com', events: 'invoice.paid' }, 'events'],
    ['unknown event', { url: 'https://x.example.com', events: ['invoice.created', 'invoice.deleted'] }, 'events[1]'],
    ['duplicate event', { url: 'https://x.example.com', events: ['invoice.paid', 'invoice.paid'] }, 'events'],
    ['* with other events', { url: 'https://x.example.com', events: ['*', 'invoice.paid'] }, 'events'],
    ['short secret', { url: 'https://x.example.com', events: ['*'], secret: 'abc' }, 'secret'],
    ['secret with spaces', { url: 'https://x.example.com', events: ['*'], secret: 'has spaces in the secret value' }, 'secret'],
    ['whsec_ secret not base64', { url: 'https://x.example.com', events: ['*'], secret: 'whsec_not-base64-not-base64-not-base64!' }, 'secret'],
    ['whsec_ secret with bad padding', { url: 'https://x.example.com', events: ['*'], secret: `whsec_${'A'.repeat(33)}` }, 'secret'],
    ['whsec_ secret under 24 bytes', { url: 'https://x.example.com', events: ['*'], secret: `whsec_${Buffer.alloc(16, 7).toString('base64')}` }, 'secret'],
    ['whsec_ secret over 64 bytes', { url: 'https://x.example.com', events: ['*'], secret: `whsec_${Buffer.alloc(65, 7).toString('base64')}` }, 'secret'],
    ['description not a string', { url: 'https://x.example.com', events: ['*'], description: 7 }, 'description'],
    ['is_active not a boolean', { url: 'https://x.example.com', events: ['*'], is_active: 'yes' }, 'is_active'],
  ])('rejects %s with 400 validation_failed naming the field (both families, create and update)', async (_label, b, path) => {
    const before = (await get('/api/v1/webhooks?limit=1')).body.total;
    for (const p of ['/api/v1/webhooks', '/v1/webhooks']) {
      const res = await post(p, b);
      expect(res.status, p).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(failedPaths(res), p).toContain(path);
    }
    expect((await get('/api/v1/webhooks?limit=1')).body.total).toBe(before);
    // The same field is checked on update, when the body carries it (the secret is rotate-secret's).
    const field = path.replace(/\[\d+\]$/, '');
    if (field in b && field !== 'secret') {
      const { body: w } = await post('/api/v1/webhooks', { url: 'https://valid.example.com', events: ['*'] });
      const res = await put(`/api/v1/webhooks/${w.id}`, { [field]: (b as Record<string, unknown>)[field] });
      expect(res.status).toBe(400);
      expect(failedPaths(res)).toContain(path);
      expect((await get(`/api/v1/webhooks/${w.id}`)).body).toMatchObject({ url: 'https://valid.example.com', events: ['*'] });
    }
  });

  it('rejects malformed JSON', async () => {
    const res = await call(stack, 'POST', '/api/v1/webhooks', { key: dev.admin, body: '{"url":', headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(400);
  });

  it('permissions: read-write and admin write, read-only reads, SDK keys do neither, no key is 401', async () => {
    const body = { url: 'https://perm.example.com', events: ['*'] };
    expect(await statuses(stack, 'POST', '/api/v1/webhooks', [dev.readOnly, dev.sdk], body)).toEqual([403, 403]);
    expect(await statuses(stack, 'POST', '/v1/webhooks', [dev.readOnly, dev.sdk], body)).toEqual([403, 403]);
    expect(await statuses(stack, 'POST', '/api/v1/webhooks', [dev.readWrite, dev.admin], body)).toEqual([201, 201]);
    const { body: w } = await post('/api/v1/webhooks', body);
    expect(await statuses(stack, 'GET', '/api/v1/webhooks', [dev.readOnly, dev.readWrite, dev.admin, dev.sdk])).toEqual([200, 200, 200, 403]);
    expect(await statuses(stack, 'GET', '/v1/webhooks', [dev.readOnly, dev.sdk])).toEqual([200, 403]);
    expect(await statuses(stack, 'GET', `/api/v1/webhooks/${w.id}`, [dev.readOnly, dev.sdk])).toEqual([200, 403]);
    expect(await statuses(stack, 'PUT', `/api/v1/webhooks/${w.id}`, [dev.readOnly, dev.sdk], { is_active: false })).toEqual([403, 403]);
    expect(await statuses(stack, 'POST', `/api/v1/webhooks/${w.id}/rotate-secret`, [dev.readOnly, dev.sdk])).toEqual([403, 403]);
    expect(await statuses(stack, 'DELETE', `/api/v1/webhooks/${w.id}`, [dev.readOnly, dev.sdk])).toEqual([403, 403]);
    expect(await storedSecret(w.id)).toBe(w.secret);
    expect((await get(`/api/v1/webhooks/${w.id}`)).body.is_active).toBe(true);
    const anon = await call(stack, 'GET', '/api/v1/webhooks');
    expect(anon.status).toBe(401);
    expect(anon.body.error.code).toBe('unauthorized');
    expect((await call(stack, 'GET', '/api/v1/webhooks', { headers: { 'api-key': dev.readOnly } })).status).toBe(200);
  });

  it('isolation: another environment never sees, changes, rotates or deletes an endpoint', async () => {
    const { body: w } = await post('/api/v1/webhooks', { url: 'https://private.example.com', events: ['invoice.created'] });
    expect((await get(`/api/v1/webhooks/${w.id}`, staging.admin)).status).toBe(404);
    expect((await put(`/api/v1/webhooks/${w.id}`, { url: 'https://evil.example.com' }, staging.admin)).status).toBe(404);
    expect((await post(`/api/v1/webhooks/${w.id}/rotate-secret`, undefined, staging.admin)).status).toBe(404);
    expect((await call(stack, 'DELETE', `/api/v1/webhooks/${w.id}`, { key: staging.admin })).status).toBe(404);
    for (const p of ['/api/v1/webhooks', '/v1/webhooks']) {
      expect((await get(p, staging.admin)).body.webhooks.map((x: { id: string }) => x.id)).not.toContain(w.id);
    }
    const { body: mine } = await post('/api/v1/webhooks', { url: 'https://staging.example.com', events: ['*'] }, staging.admin);
    expect((await get('/api/v1/webhooks', staging.admin)).body.webhooks.map((x: { id: string }) => x.id)).toEqual([mine.id]);
    expect((await get(`/api/v1/webhooks/${mine.id}`)).status).toBe(404);
    expect(await storedSecret(w.id)).toBe(w.secret);
    expect((await get(`/api/v1/webhooks/${w.id}`)).body).toMatchObject({ url: 'https://private.example.com', events: ['invoice.created'] });
  });

  it('is in the OpenAPI document with its capabilities', async () => {
    const { body: doc } = await call(stack, 'GET', '/v1/openapi.json');
    const cap = (p: string, m: string) => doc.paths[p]?.[m]?.['x-required-capability'];
    expect(cap('/api/v1/webhooks', 'post')).toBe('write');
    expect(cap('/api/v1/webhooks', 'get')).toBe('read');
    expect(cap('/v1/webhooks', 'post')).toBe('write');
    expect(cap('/v1/webhooks', 'get')).toBe('read');
    expect(cap('/api/v1/webhooks/{webhook_id}', 'get')).toBe('read');
    expect(cap('/api/v1/webhooks/{webhook_id}', 'put')).toBe('write');
    expect(cap('/api/v1/webhooks/{webhook_id}', 'delete')).toBe('write');
    expect(cap('/api/v1/webhooks/{webhook_id}/rotate-secret', 'post')).toBe('write');
    expect(doc.paths['/api/v1/webhooks'].post.requestBody.content['application/json'].schema.required).toEqual(['url', 'events']);
  });
});
