import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, type TestStack } from './harness.ts';
import { hashSecret } from '../shared/ids.ts';

/**
 * Hostile input against every route the process serves: malformed, oversized, wrongly
 * typed and hostile payloads, in bodies, path parameters and query parameters. Every
 * answer must be a 4xx with the error body (or a 2xx where the input happens to be
 * valid), never a 5xx; the process must survive, and stored data must be unharmed.
 */
let stack: TestStack;
let admin: string;
let accountId: string;

beforeAll(async () => {
  stack = await startTestStack();
  admin = stack.keys.development.admin;
  // A fuzzer sends thousands of requests a minute: raise its key's limit.
  await stack.tally.db!.updateTable('api_keys').set({ rate_limit_per_minute: 1_000_000 }).where('key_hash', '=', hashSecret(admin)).execute();
  accountId = (await call(stack, 'POST', '/api/v1/account/create', { key: admin, body: { name: 'Survivor' } })).body.id;
  await createAgent(stack);
});
afterAll(async () => {
  await stack?.cleanup();
});

const INJECTIONS = [
  "' OR '1'='1",
  "'; DROP TABLE accounts; --",
  "1; SELECT pg_sleep(5)",
  "') UNION ALL SELECT name, name FROM system.tables --",
  '{env:String}',
  '\\\'; DROP DATABASE tally; --',
  '../../../../etc/passwd',
  '%00%ff',
  '<script>alert(1)</script>',
];
const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObj = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

/** Bodies: [description, raw body, content-type]. */
const BODIES: [string, string | Buffer, string][] = [
  ['empty', '', 'application/json'],
  ['malformed JSON', '{"name": ', 'application/json'],
  ['a number', '42', 'application/json'],
  ['null', 'null', 'application/json'],
  ['an array', '[1,2,3]', 'application/json'],
  ['a string', '"x"', 'application/json'],
  ['deep arrays', deep(20_000), 'application/json'],
  ['deep objects', deepObj(5_000), 'application/json'],
  ['a huge string', JSON.stringify({ name: 'x'.repeat(900_000), description: 'y' }), 'application/json'],
  ['an oversized body', 'x'.repeat(11 * 1024 * 1024), 'application/json'],
  ['wrong types', JSON.stringify({ name: 12, email: [], account_id: {}, rate_plan_id: true, limit: 'x', events: 'all', url: 5, tagged_actions: 'x', billing_date: 7, pricing: 'free', type: null }), 'application/json'],
  ['prototype pollution', '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "name": "p"}', 'application/json'],
  ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x6e, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x28, 0x22, 0x7d]), 'application/json'],
  ['injection strings', JSON.stringify(Object.fromEntries(['name', 'email', 'account_id', 'rate_plan_id', 'agent_key', 'action_type', 'external_id', 'description', 'secret', 'webhook_id', 'event', 'url', 'billing_period', 'billing_date', 'start_date', 'end_date', 'agent_instance_id', 'analysis_type'].map((k, i) => [k, INJECTIONS[i % INJECTIONS.length]]))), 'application/json'],
  ['an XML body', '<a>1</a>', 'application/xml'],
  ['NDJSON garbage', '{\n}\n{{{', 'application/x-ndjson'],
  ['msgpack garbage', Buffer.from([0xdf, 0xff, 0xff, 0xff, 0xff]), 'application/msgpack'],
];

const QUERY_PARAMS = ['limit', 'offset', 'skip', 'start_date', 'end_date', 'group_by', 'agent_id', 'customer_id', 'account_id', 'status', 'duration', 'kind', 'granularity', 'billing_period'];
const QUERY_VALUES = ['-1', '1e309', '999999999999999999999', 'NaN', '', '%', ...INJECTIONS];

function fill(path: string, value: string): string {
  return path.replace(/:[a-z_]+/g, encodeURIComponent(value));
}

/** Every answer that broke the rules; asserted empty at the end of each test (all listed at once). */
const failures: string[] = [];

async function check(method: string, url: string, body?: string | Buffer, contentType?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${admin}` };
  if (contentType) headers['content-type'] = contentType;
  let res: Response;
  try {
    res = await fetch(stack.baseUrl + url, { method, headers, ...(body !== undefined && method !== 'GET' && method !== 'DELETE' ? { body } : {}) });
  } catch (err) {
    throw new Error(`${method} ${url}: no answer (${(err as Error).message})`);
  }
  const text = await res.text();
  const where = `${method} ${url.slice(0, 120)} -> ${res.status} ${text.slice(0, 200)}`;
  if (res.status >= 500) failures.push(where);
  else if (res.status >= 400) {
    let parsed: { error?: { code?: string; request_id?: string } } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      /* reported below */
    }
    if (!parsed.error?.code || !parsed.error.request_id) failures.push(`no error body: ${where}`);
  }
  return res.status;
}

describe('hostile input against every route', () => {
  it('never answers 5xx to malformed, oversized, wrongly typed or hostile bodies', async () => {
    const routes = stack.tally.routes().filter((r) => r.method !== 'GET' && r.method !== 'DELETE');
    expect(routes.length).toBeGreaterThan(20);
    let n = 0;
    for (const r of routes) {
      for (const [, body, type] of BODIES) {
        await check(r.method, fill(r.path, 'x'), body, type);
        n++;
      }
    }
    expect(n).toBeGreaterThan(500);
    expect(failures.splice(0)).toEqual([]);
  }, 300_000);

  it('never answers 5xx to injection strings in path and query parameters', async () => {
    let n = 0;
    for (const r of stack.tally.routes()) {
      for (const v of INJECTIONS) {
        await check(r.method, fill(r.path, v), '{}', 'application/json');
        n++;
      }
      if (r.method === 'GET') {
        for (const p of QUERY_PARAMS) {
          for (const v of QUERY_VALUES) {
            await check('GET', `${fill(r.path, 'x')}?${p}=${encodeURIComponent(v)}`);
            n++;
          }
        }
      }
    }
    expect(n).toBeGreaterThan(1000);
    expect(failures.splice(0)).toEqual([]);
  }, 300_000);

  it('left stored data unharmed and no prototype polluted', async () => {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const acct = await call(stack, 'GET', `/api/v1/account/${accountId}`, { key: admin });
    expect(acct.status).toBe(200);
    expect(acct.body.name).toBe('Survivor');
    const tables = await stack.tally.db!.selectFrom('accounts').select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow();
    expect(Number(tables.n)).toBeGreaterThanOrEqual(1);
    const ch = await stack.tally.ch!.query({ query: `SELECT count() AS n FROM system.tables WHERE database = {db:String}`, query_params: { db: stack.env.CLICKHOUSE_DATABASE }, format: 'JSONEachRow' });
    expect(Number((await ch.json<{ n: number }>())[0]!.n)).toBeGreaterThanOrEqual(3);
    expect((await call(stack, 'GET', '/readyz')).status).toBe(200);
  });
});
