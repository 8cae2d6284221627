import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { failedPaths, keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let typeId: string;
let accountId: string;
let contactId: string;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  typeId = (await post('/api/v1/agent_type/create', { name: 'recruiter' })).body.id;
  accountId = (await post('/api/v1/account/create', { name: 'Acme' })).body.id;
  contactId = (await post('/api/v1/contact/create', { first_name: 'A', last_name: 'B', email: 'a@acme.co', account_id: accountId, role: 'technical' })).body.id;
});
afterAll(async () => {
  await stack?.cleanup();
});

function post(path: string, body: unknown, key = dev.admin) {
  return call(stack, 'POST', path, { key, body });
}
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
/** A usage read authenticated by the agent secret: goes through the agent cache that the bus must invalidate. */
const asAgent = (secret: string) =>
  call(stack, 'GET', `/v1/usage?start_date=2026-01-01&end_date=2026-02-01`, { headers: { 'x-agent-secret': secret } });

describe('agent instances (Family B)', () => {
  it('create returns the secret once; get and list never show it', async () => {
    const res = await post('/api/v1/agent_instance/create', { name: 'bot-1', description: 'd', agent_type_id: typeId, account_id: accountId, contact_id: contactId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'bot-1', description: 'd', agent_type_id: typeId, account_id: accountId, contact_id: contactId, is_active: true });
    expect(res.body.id).toMatch(/^ai_/);
    expect(res.body.secret).toMatch(/^as_/);
    const one = await get(`/api/v1/agent_instance/${res.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body.secret).toBeUndefined();
    expect(JSON.stringify(one.body)).not.toContain(res.body.secret);
    const list = await get('/api/v1/agent_instance/all');
    expect(list.body).toMatchObject({ skip: 0, limit: 100 });
    expect(list.body.total).toBe(list.body.agent_instances.length);
    expect(JSON.stringify(list.body)).not.toContain(res.body.secret);
    expect((await asAgent(res.body.secret)).status).toBe(200);
  });

  it('pages with skip/limit and reports the total', async () => {
    for (let i = 0; i < 3; i++) await post('/api/v1/agent_instance/create', { name: `page-${i}`, agent_type_id: typeId });
    const all = await get('/api/v1/agent_instance/all?limit=100');
    const page = await get('/api/v1/agent_instance/all?skip=1&limit=2');
    expect(page.body.total).toBe(all.body.total);
    expect(page.body.agent_instances.map((a: { id: string }) => a.id)).toEqual(all.body.agent_instances.slice(1, 3).map((a: { id: string }) => a.id));
    expect((await get('/api/v1/agent_instance/all?limit=101')).status).toBe(400);
    expect((await get('/api/v1/agent_instance/all?skip=-5')).status).toBe(400);
  });

  it('lists one account\'s instances on both families (account_id)', async () => {
    const mine = (await post('/api/v1/account/create', { name: 'owner' })).body.id;
    const other = (await post('/api/v1/account/create', { name: 'nobody' })).body.id;
    const a = (await post('/api/v1/agent_instance/create', { name: 'owned', agent_type_id: typeId, account_id: mine })).body.id;
    await post('/api/v1/agent_instance/create', { name: 'unowned', agent_type_id: typeId });
    for (const [path, key] of [['/api/v1/agent_instance/all?limit=100', 'agent_instances'], ['/v1/agents?limit=100', 'agents']] as const) {
      const one = await get(`${path}&account_id=${mine}`);
      expect(one.body[key].map((x: { id: string }) => x.id), path).toEqual([a]);
      expect(one.body.total).toBe(1);
      expect((await get(`${path}&account_id=${other}`)).body).toMatchObject({ total: 0, [key]: [] });
    }
  });

  it.each([
    ['missing name', { agent_type_id: 'x' }, ['name']],
    ['missing agent_type_id', { name: 'n' }, ['agent_type_id']],
    ['unknown agent_type_id', { name: 'n', agent_type_id: 'at_nope' }, ['agent_type_id']],
    ['unknown account_id', { name: 'n', agent_type_id: '$type', account_id: 'acct_nope' }, ['account_id']],
    ['contact of no such id', { name: 'n', agent_type_id: '$type', contact_id: 'ct_nope' }, ['contact_id']],
    ['is_active not boolean on create ignored, bad type', { name: 'n', agent_type_id: '$type', type: 'autogen' }, ['type']],
  ])('rejects %s', async (_l, body, paths) => {
    const b = JSON.parse(JSON.stringify(body).replace('$type', typeId));
    const res = await post('/api/v1/agent_instance/create', b);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(failedPaths(res)).toEqual(paths);
  });

  it('a contact must belong to the instance account', async () => {
    const other = (await post('/api/v1/account/create', { name: 'Other' })).body.id;
    const res = await post('/api/v1/agent_instance/create', { name: 'n', agent_type_id: typeId, account_id: other, contact_id: contactId });
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual(['contact_id']);
  });

  it('refresh issues a new secret and the old one stops working at once', async () => {
    const { body: inst } = await post('/api/v1/agent_instance/create', { name: 'rot', agent_type_id: typeId });
    expect((await asAgent(inst.secret)).status).toBe(200); // now cached
    const r = await post(`/api/v1/agent_instance/${inst.id}/refresh`, undefined, dev.readWrite);
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(inst.id);
    expect(r.body.secret).toMatch(/^as_/);
    expect(r.body.secret).not.toBe(inst.secret);
    expect((await asAgent(inst.secret)).status).toBe(401);
    expect((await asAgent(r.body.secret)).status).toBe(200);
    const v = await post('/api/v1/agent_instance/validate-secret', { secret: inst.secret });
    expect(v.status).toBe(401);
    expect((await get(`/api/v1/agent_instance/${inst.id}`)).status).toBe(200);
    expect(await statuses(stack, 'POST', `/api/v1/agent_instance/${inst.id}/refresh`, [dev.readOnly, dev.sdk, staging.admin])).toEqual([403, 403, 404]);
  });

  it('validate-secret returns the instance metadata to SDK and API keys of the same environment only', async () => {
    const { body: inst } = await post('/api/v1/agent_instance/create', { name: 'val', agent_type_id: typeId, account_id: accountId });
    for (const key of [dev.sdk, dev.readOnly, dev.admin]) {
      const res = await post('/api/v1/agent_instance/validate-secret', { secret: inst.secret }, key);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ valid: true, agent_instance: { id: inst.id, name: 'val', agent_type_id: typeId, account_id: accountId, is_active: true } });
      expect(res.body.agent_instance.secret).toBeUndefined();
    }
    expect((await post('/api/v1/agent_instance/validate-secret', { secret: inst.secret }, staging.sdk)).status).toBe(401);
    expect((await post('/api/v1/agent_instance/validate-secret', { secret: 'as_wrong' })).status).toBe(401);
    expect(failedPaths(await post('/api/v1/agent_instance/validate-secret', {}))).toEqual(['secret']);
  });

  it('is_active updates reach the agent cache at once; other fields update and are validated', async () => {
    const { body: inst } = await post('/api/v1/agent_instance/create', { name: 'act', agent_type_id: typeId });
    expect((await asAgent(inst.secret)).status).toBe(200);
    const off = await call(stack, 'PUT', `/api/v1/agent_instance/${inst.id}`, { key: dev.readWrite, body: { is_active: false } });
    expect(off.status).toBe(200);
    expect(off.body.is_active).toBe(false);
    expect((await asAgent(inst.secret)).status).toBe(403);
    const on = await call(stack, 'PUT', `/api/v1/agent_instance/${inst.id}`, { key: dev.admin, body: { is_active: true, name: 'renamed', account_id: accountId, contact_id: contactId } });
    expect(on.body).toMatchObject({ is_active: true, name: 'renamed', account_id: accountId, contact_id: contactId });
    expect((await asAgent(inst.secret)).status).toBe(200);
    const bad = await call(stack, 'PUT', `/api/v1/agent_instance/${inst.id}`, { key: dev.admin, body: { is_active: 'no' } });
    expect(bad.status).toBe(400);
    expect(failedPaths(bad)).toEqual(['is_active']);
    expect(await statuses(stack, 'PUT', `/api/v1/agent_instance/${inst.id}`, [dev.readOnly, dev.sdk, staging.admin], { is_active: false })).toEqual([403, 403, 404]);
    expect((await asAgent(inst.secret)).status).toBe(200);
  });

  it('isolation: another environment never sees or deletes an instance', async () => {
    const { body: inst } = await post('/api/v1/agent_instance/create', { name: 'iso', agent_type_id: typeId });
    expect((await get(`/api/v1/agent_instance/${inst.id}`, staging.admin)).status).toBe(404);
    expect((await get(`/v1/agents/${inst.id}`, staging.admin)).status).toBe(404);
    expect((await call(stack, 'DELETE', `/api/v1/agent_instance/${inst.id}`, { key: staging.admin })).status).toBe(404);
    const list = await get('/api/v1/agent_instance/all', staging.admin);
    expect(list.body.agent_instances.map((a: { id: string }) => a.id)).not.toContain(inst.id);
    // A staging type may not be referenced from development.
    const stType = (await post('/api/v1/agent_type/create', { name: 'st' }, staging.admin)).body.id;
    expect((await post('/api/v1/agent_instance/create', { name: 'x', agent_type_id: stType })).status).toBe(400);
    expect(await statuses(stack, 'GET', '/api/v1/agent_instance/all', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    expect(await statuses(stack, 'POST', '/api/v1/agent_instance/create', [dev.sdk, dev.readOnly], { name: 'x', agent_type_id: typeId })).toEqual([403, 403]);
  });

  it('delete removes the instance and its secret stops working', async () => {
    const { body: inst } = await post('/api/v1/agent_instance/create', { name: 'gone', agent_type_id: typeId });
    expect((await asAgent(inst.secret)).status).toBe(200);
    expect((await call(stack, 'DELETE', `/api/v1/agent_instance/${inst.id}`, { key: dev.readOnly })).status).toBe(403);
    expect((await call(stack, 'DELETE', `/api/v1/agent_instance/${inst.id}`, { key: dev.admin })).status).toBe(200);
    expect((await get(`/api/v1/agent_instance/${inst.id}`)).status).toBe(404);
    expect((await asAgent(inst.secret)).status).toBe(401);
  });
});

describe('agents (Family A)', () => {
  it('creates with name, type, description and returns the secret once', async () => {
    const res = await post('/v1/agents', { name: 'crew', type: 'crewai', description: 'hiring crew' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'crew', type: 'crewai', description: 'hiring crew', is_active: true });
    expect(res.body.secret).toMatch(/^as_/);
    const one = await get(`/v1/agents/${res.body.id}`);
    expect(one.body).toMatchObject({ id: res.body.id, name: 'crew', type: 'crewai' });
    expect(one.body.secret).toBeUndefined();
    // The same agent is an instance on Family B.
    expect((await get(`/api/v1/agent_instance/${res.body.id}`)).body).toMatchObject({ name: 'crew', type: 'crewai' });
  });

  it('lists with limit (default 20, max 100) and offset, and total', async () => {
    for (let i = 0; i < 22; i++) await post('/v1/agents', { name: `a${i}`, type: 'custom' });
    const first = await get('/v1/agents');
    expect(first.status).toBe(200);
    expect(first.body.agents).toHaveLength(20);
    expect(first.body).toMatchObject({ limit: 20, offset: 0 });
    expect(first.body.total).toBeGreaterThanOrEqual(22);
    const rest = await get(`/v1/agents?limit=100&offset=20`);
    expect(rest.body.agents).toHaveLength(first.body.total - 20);
    const ids = new Set([...first.body.agents, ...rest.body.agents].map((a: { id: string }) => a.id));
    expect(ids.size).toBe(first.body.total);
    for (const q of ['limit=101', 'limit=0', 'offset=-1', 'offset=1.5']) expect((await get(`/v1/agents?${q}`)).status, q).toBe(400);
  });

  it.each([
    ['missing type', { name: 'x' }, 'type'],
    ['unknown type', { name: 'x', type: 'autogen' }, 'type'],
    ['missing name', { type: 'n8n' }, 'name'],
    ['description not a string', { name: 'x', type: 'n8n', description: 1 }, 'description'],
  ])('rejects %s', async (_l, body, path) => {
    const res = await post('/v1/agents', body);
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toContain(path);
  });

  it('permissions and isolation', async () => {
    expect(await statuses(stack, 'POST', '/v1/agents', [dev.readOnly, dev.sdk], { name: 'x', type: 'custom' })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/v1/agents', [dev.sdk, dev.readOnly, dev.readWrite])).toEqual([403, 200, 200]);
    const { body: a } = await post('/v1/agents', { name: 'mine', type: 'langgraph' });
    const theirs = await get('/v1/agents?limit=100', staging.readOnly);
    expect(theirs.body.agents.map((x: { id: string }) => x.id)).not.toContain(a.id);
    expect((await get('/v1/agents/nope')).status).toBe(404);
  });
});
