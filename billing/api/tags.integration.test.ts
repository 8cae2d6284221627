import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { failedPaths, keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;

beforeAll(async () => {
  stack = await startTestStack(); // every role: events go through the real ingest and sink
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
});
afterAll(async () => {
  await stack?.cleanup();
});

const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const put = (path: string, body: unknown, key = dev.admin) => call(stack, 'PUT', path, { key, body });
const uid = () => `e-${Math.random().toString(36).slice(2)}`;

interface Item {
  kind: 'action' | 'outcome';
  name: string;
  count: number;
  last_seen_at: string;
  tagged: boolean;
  description: string | null;
}

/** Sends events through ingest (the SDK key) and checks each was accepted. */
async function send(path: '/v1/actions' | '/v1/outcomes', events: Record<string, unknown>[], key = stack.keys.development.sdk) {
  const res = await call(stack, 'POST', path, { key, body: events });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
}
/** Polls taggable items until `done` holds (events reach ClickHouse asynchronously). */
function itemsUntil(done: (items: Item[]) => boolean, key = dev.admin, q = '') {
  return waitFor(async () => (await get(`/api/v1/taggable_items${q}`, key)).body.taggable_items as Item[], (items) => Array.isArray(items) && done(items));
}
const find = (items: Item[], kind: string, name: string) => items.find((i) => i.kind === kind && i.name === name);

describe('tagged actions and tagged outcomes', () => {
  it('PUT replaces the set, GET returns it (by name); tags that stay keep created_at', async () => {
    expect((await get('/api/v1/tagged_actions')).body).toEqual({ total: 0, tagged_actions: [] });
    const first = await put('/api/v1/tagged_actions', {
      tagged_actions: [
        { action_name: 'tool_call', description: 'a tool' },
        { action_name: 'llm_call', description: 'an LLM call' },
      ],
    });
    expect(first.status).toBe(200);
    expect(first.body.total).toBe(2);
    expect(first.body.tagged_actions).toMatchObject([
      { action_name: 'llm_call', description: 'an LLM call' },
      { action_name: 'tool_call', description: 'a tool' },
    ]);
    const llmCreated = first.body.tagged_actions[0].created_at;
    expect(Date.parse(llmCreated)).toBeGreaterThan(0);

    const second = await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'llm_call', description: 'changed' }, { action_name: 'embedding' }] }, dev.readWrite);
    expect(second.status).toBe(200);
    const got = await get('/api/v1/tagged_actions', dev.readOnly);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(second.body);
    expect(got.body.tagged_actions.map((t: { action_name: string }) => t.action_name)).toEqual(['embedding', 'llm_call']);
    expect(got.body.tagged_actions[0].description).toBeNull();
    expect(got.body.tagged_actions[1]).toMatchObject({ description: 'changed', created_at: llmCreated });

    expect((await put('/api/v1/tagged_actions', { tagged_actions: [] })).body).toEqual({ total: 0, tagged_actions: [] });
    expect((await get('/api/v1/tagged_actions')).body.total).toBe(0);
  });

  it('outcomes are a separate set with outcome_name; actions are untouched by it', async () => {
    await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'successful_hire', description: 'an action of the same name' }] });
    const res = await put('/api/v1/tagged_outcomes', { tagged_outcomes: [{ outcome_name: 'successful_hire', description: 'a hire' }, { outcome_name: 'converted_lead', description: 'a lead' }] });
    expect(res.status).toBe(200);
    expect(res.body.tagged_outcomes).toMatchObject([
      { outcome_name: 'converted_lead', description: 'a lead' },
      { outcome_name: 'successful_hire', description: 'a hire' },
    ]);
    expect((await get('/api/v1/tagged_outcomes')).body).toEqual(res.body);
    expect((await get('/api/v1/tagged_actions')).body.tagged_actions).toMatchObject([{ action_name: 'successful_hire', description: 'an action of the same name' }]);
    await put('/api/v1/tagged_outcomes', { tagged_outcomes: [] });
    expect((await get('/api/v1/tagged_actions')).body.total).toBe(1);
    await put('/api/v1/tagged_actions', { tagged_actions: [] });
  });

  it('concurrent PUTs leave one body or the other, never a mix', async () => {
    const a = Array.from({ length: 50 }, (_, i) => ({ action_name: `a${i}` }));
    const b = Array.from({ length: 50 }, (_, i) => ({ action_name: `b${i}` }));
    await Promise.all([put('/api/v1/tagged_actions', { tagged_actions: a }), put('/api/v1/tagged_actions', { tagged_actions: b }), put('/api/v1/tagged_actions', { tagged_actions: a })]);
    const names: string[] = (await get('/api/v1/tagged_actions')).body.tagged_actions.map((t: { action_name: string }) => t.action_name[0]);
    expect(names).toHaveLength(50);
    expect(new Set(names).size).toBe(1);
    await put('/api/v1/tagged_actions', { tagged_actions: [] });
  });

  it.each([
    ['missing list', '/api/v1/tagged_actions', {}, 'tagged_actions'],
    ['list not an array', '/api/v1/tagged_actions', { tagged_actions: { action_name: 'x' } }, 'tagged_actions'],
    ['missing name', '/api/v1/tagged_actions', { tagged_actions: [{ description: 'x' }] }, 'tagged_actions[0].action_name'],
    ['empty name', '/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'ok' }, { action_name: '' }] }, 'tagged_actions[1].action_name'],
    ['name of 129 characters', '/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'x'.repeat(129) }] }, 'tagged_actions[0].action_name'],
    ['name not a string', '/api/v1/tagged_actions', { tagged_actions: [{ action_name: 5 }] }, 'tagged_actions[0].action_name'],
    ['description not a string', '/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'x', description: ['no'] }] }, 'tagged_actions[0].description'],
    ['duplicate name', '/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'x' }, { action_name: 'y' }, { action_name: 'x' }] }, 'tagged_actions[2].action_name'],
    ['more than 1000', '/api/v1/tagged_actions', { tagged_actions: Array.from({ length: 1001 }, (_, i) => ({ action_name: `n${i}` })) }, 'tagged_actions'],
    ['outcome: action_name instead of outcome_name', '/api/v1/tagged_outcomes', { tagged_outcomes: [{ action_name: 'x' }] }, 'tagged_outcomes[0].outcome_name'],
    ['outcome: duplicate name', '/api/v1/tagged_outcomes', { tagged_outcomes: [{ outcome_name: 'hire' }, { outcome_name: 'hire' }] }, 'tagged_outcomes[1].outcome_name'],
    ['outcome: name of 129 characters', '/api/v1/tagged_outcomes', { tagged_outcomes: [{ outcome_name: 'o'.repeat(129) }] }, 'tagged_outcomes[0].outcome_name'],
  ])('rejects %s with 400 naming the field, and changes nothing', async (_l, path, body, field) => {
    const list = path.endsWith('actions') ? 'tagged_actions' : 'tagged_outcomes';
    const name = list === 'tagged_actions' ? 'action_name' : 'outcome_name';
    await put(path, { [list]: [{ [name]: 'keep', description: 'kept' }] });
    const res = await put(path, body);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(failedPaths(res)).toContain(field);
    expect((await get(path)).body[list]).toMatchObject([{ [name]: 'keep', description: 'kept' }]);
    await put(path, { [list]: [] });
  });

  it('accepts names of exactly 128 characters', async () => {
    const res = await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'x'.repeat(128) }] });
    expect(res.status).toBe(200);
    await put('/api/v1/tagged_actions', { tagged_actions: [] });
  });

  it('permissions: read-only reads, read-write and admin replace, SDK keys do neither', async () => {
    for (const [path, body] of [
      ['/api/v1/tagged_actions', { tagged_actions: [] }],
      ['/api/v1/tagged_outcomes', { tagged_outcomes: [] }],
    ] as const) {
      expect(await statuses(stack, 'PUT', path, [dev.readOnly, dev.sdk], body)).toEqual([403, 403]);
      expect(await statuses(stack, 'PUT', path, [dev.readWrite, dev.admin], body)).toEqual([200, 200]);
      expect(await statuses(stack, 'GET', path, [dev.readOnly, dev.readWrite, dev.admin, dev.sdk])).toEqual([200, 200, 200, 403]);
      expect((await call(stack, 'GET', path)).status).toBe(401);
    }
    expect(await statuses(stack, 'GET', '/api/v1/taggable_items', [dev.readOnly, dev.readWrite, dev.admin, dev.sdk])).toEqual([200, 200, 200, 403]);
    expect((await call(stack, 'GET', '/api/v1/taggable_items')).status).toBe(401);
  });

  it('isolation: another environment has its own sets and never changes these', async () => {
    await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'dev_only' }] });
    await put('/api/v1/tagged_outcomes', { tagged_outcomes: [{ outcome_name: 'dev_outcome' }] });
    expect((await get('/api/v1/tagged_actions', staging.admin)).body).toEqual({ total: 0, tagged_actions: [] });
    expect((await get('/api/v1/tagged_outcomes', staging.admin)).body).toEqual({ total: 0, tagged_outcomes: [] });
    await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'staging_only' }] }, staging.admin);
    await put('/api/v1/tagged_outcomes', { tagged_outcomes: [] }, staging.admin);
    expect((await get('/api/v1/tagged_actions')).body.tagged_actions.map((t: { action_name: string }) => t.action_name)).toEqual(['dev_only']);
    expect((await get('/api/v1/tagged_outcomes')).body.tagged_outcomes.map((t: { outcome_name: string }) => t.outcome_name)).toEqual(['dev_outcome']);
    expect((await get('/api/v1/tagged_actions', staging.admin)).body.tagged_actions.map((t: { action_name: string }) => t.action_name)).toEqual(['staging_only']);
    await put('/api/v1/tagged_actions', { tagged_actions: [] });
    await put('/api/v1/tagged_outcomes', { tagged_outcomes: [] });
    await put('/api/v1/tagged_actions', { tagged_actions: [] }, staging.admin);
  });
});

describe('taggable items: the action and outcome types seen in this environment', () => {
  it('lists each type seen through ingest with its count, last seen time and whether it is tagged', async () => {
    const agent = await createAgent(stack);
    const t0 = Date.now() - 3_600_000;
    const at = (min: number) => new Date(t0 + min * 60_000).toISOString();
    await send('/v1/actions', [
      { agent_key: agent.secret, action_type: 'llm_call', timestamp: at(1), id: uid() },
      { agent_key: agent.secret, action_type: 'llm_call', timestamp: at(5), id: uid() },
      { agent_key: agent.secret, action_type: 'llm_call', timestamp: at(3), id: uid() },
      { agent_key: agent.secret, action_type: 'tool_call', timestamp: at(2), id: uid() },
    ]);
    await send('/v1/outcomes', [
      { agent_key: agent.secret, outcome_type: 'successful_hire', value: 1, timestamp: at(7), id: uid() },
      { agent_key: agent.id, outcome_type: 'successful_hire', value: 2, timestamp: at(4), id: uid() },
    ]);
    await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'llm_call', description: 'billable LLM calls' }, { action_name: 'never_seen' }] });
    await put('/api/v1/tagged_outcomes', { tagged_outcomes: [{ outcome_name: 'successful_hire', description: 'hires' }] });

    const items = await itemsUntil((i) => find(i, 'action', 'llm_call')?.count === 3 && find(i, 'action', 'tool_call') !== undefined && find(i, 'outcome', 'successful_hire')?.count === 2);
    expect(items).toEqual([
      { kind: 'action', name: 'llm_call', count: 3, last_seen_at: at(5), tagged: true, description: 'billable LLM calls' },
      { kind: 'action', name: 'tool_call', count: 1, last_seen_at: at(2), tagged: false, description: null },
      { kind: 'outcome', name: 'successful_hire', count: 2, last_seen_at: at(7), tagged: true, description: 'hires' },
    ]);
    const res = await get('/api/v1/taggable_items', dev.readOnly);
    expect(res.body).toMatchObject({ total: 3, skip: 0, limit: 100 });

    // Tagging is read at request time: untag, and the same items show untagged.
    await put('/api/v1/tagged_actions', { tagged_actions: [] });
    expect(find((await get('/api/v1/taggable_items')).body.taggable_items, 'action', 'llm_call')).toMatchObject({ tagged: false, description: null });
    await put('/api/v1/tagged_actions', { tagged_actions: [{ action_name: 'llm_call', description: 'billable LLM calls' }] });
  });

  it('pages with skip/limit and filters by kind', async () => {
    await itemsUntil((i) => i.length >= 3);
    const all = (await get('/api/v1/taggable_items')).body;
    const page = await get('/api/v1/taggable_items?skip=1&limit=1');
    expect(page.body).toMatchObject({ total: all.total, skip: 1, limit: 1 });
    expect(page.body.taggable_items).toEqual([all.taggable_items[1]]);
    const outcomes = await get('/api/v1/taggable_items?kind=outcome');
    expect(outcomes.body.taggable_items.map((i: Item) => i.kind)).toEqual(['outcome']);
    expect(outcomes.body.total).toBe(1);
    const actions = await get('/api/v1/taggable_items?kind=action');
    expect(actions.body.taggable_items.every((i: Item) => i.kind === 'action')).toBe(true);
    expect(actions.body.total).toBe(all.total - 1);
    for (const q of ['kind=event', 'limit=0', 'limit=101', 'skip=-1']) {
      const res = await get(`/api/v1/taggable_items?${q}`);
      expect(res.status, q).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('counts an event identity once, also when a copy of it is stored again (a sink redelivery)', async () => {
    const agent = await createAgent(stack);
    const id = uid();
    await send('/v1/actions', [{ agent_key: agent.secret, action_type: 'dedup_probe', id }]);
    await send('/v1/actions', [{ agent_key: agent.secret, action_type: 'dedup_probe', id }]); // a client retry
    await itemsUntil((i) => find(i, 'action', 'dedup_probe')?.count === 1);
    // A second stored copy of the same identity, as an at-least-once sink insert can leave
    // before ClickHouse merges parts.
    const db = stack.env.CLICKHOUSE_DATABASE;
    const copies = async () => {
      const rs = await stack.tally.ch!.query({ query: `SELECT count() AS n FROM ${db}.actions WHERE event_id = {id:String}`, query_params: { id }, format: 'JSONEachRow' });
      return Number((await rs.json<{ n: string }>())[0]!.n);
    };
    const before = await copies(); // the retry's copy stays stored until a merge
    await stack.tally.ch!.command({
      query: `INSERT INTO ${db}.actions SELECT * REPLACE (now64(3) AS ingested_at) FROM ${db}.actions WHERE event_id = {id:String} LIMIT 1`,
      query_params: { id },
    });
    expect(await copies()).toBe(before + 1);
    expect(find((await get('/api/v1/taggable_items')).body.taggable_items, 'action', 'dedup_probe')?.count).toBe(1);
  });

  it('isolation: another environment sees only its own event types', async () => {
    await itemsUntil((i) => find(i, 'action', 'llm_call') !== undefined);
    const stagingAgent = await createAgent(stack, 'staging');
    await send('/v1/actions', [{ agent_key: stagingAgent.secret, action_type: 'staging_action', id: uid() }], stack.keys.staging.sdk);
    const theirs = await itemsUntil((i) => i.length > 0, staging.admin);
    expect(theirs.map((i) => i.name)).toEqual(['staging_action']);
    expect(theirs[0]).toMatchObject({ count: 1, tagged: false });
    // Development's tags do not leak into staging's answer, nor its types into ours.
    const ours = (await get('/api/v1/taggable_items')).body.taggable_items as Item[];
    expect(ours.map((i) => i.name)).not.toContain('staging_action');
    expect(find(ours, 'action', 'llm_call')?.tagged).toBe(true);
    expect((await get('/api/v1/taggable_items', stack.keys.production.admin)).body).toMatchObject({ total: 0, taggable_items: [] });
  });

  it('the OpenAPI document lists the tag endpoints with their capabilities', async () => {
    const { body: doc } = await call(stack, 'GET', '/v1/openapi.json');
    const cap = (p: string, m: string) => doc.paths[p]?.[m]?.['x-required-capability'];
    expect([cap('/api/v1/tagged_actions', 'get'), cap('/api/v1/tagged_actions', 'put')]).toEqual(['read', 'write']);
    expect([cap('/api/v1/tagged_outcomes', 'get'), cap('/api/v1/tagged_outcomes', 'put')]).toEqual(['read', 'write']);
    expect(cap('/api/v1/taggable_items', 'get')).toBe('read');
  });
});
