import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, type TestStack } from './harness.ts';
import { hashSecret } from '../shared/ids.ts';

/**
 * Generated hostile payloads for every operation of the OpenAPI document: a plausible
 * body is built from each operation's request schema, then every field in turn is
 * replaced by a hostile value (NUL bytes, lone surrogates, deep nesting, huge and
 * non-finite numbers, ids of another environment); path and query parameters get the
 * same. No answer may be a 5xx or a 503 (a retryable answer to bad input makes clients
 * retry forever); every 4xx carries the error body.
 */
let stack: TestStack;
let admin: string;
let agentSecret: string;
let agentId: string;
const foreignIds: string[] = [];

type Schema = Record<string, any>;
type Op = { method: string; path: string; schema: Schema | undefined };

beforeAll(async () => {
  stack = await startTestStack();
  admin = stack.keys.development.admin;
  await stack.tally.db!.updateTable('api_keys').set({ rate_limit_per_minute: 10_000_000 }).where('key_hash', '=', hashSecret(admin)).execute();
  const agent = await createAgent(stack);
  agentSecret = agent.secret;
  agentId = agent.id;
  // Ids of another environment (production), used where ids are expected.
  const prod = stack.keys.production.admin;
  const account = await call(stack, 'POST', '/api/v1/account/create', { key: prod, body: { name: 'Foreign' } });
  const other = await createAgent(stack, 'production');
  foreignIds.push(account.body.id, other.id, other.secret);
}, 60_000);
afterAll(async () => {
  await stack?.cleanup();
});

const NUL = 'a\u0000b';
const SURROGATE = 'x\ud800y';
const LOW_SURROGATE = '\udc00';
const deepValue = (n: number): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < n; i++) v = { a: v };
  return v;
};

/** Hostile replacements for one field. */
function hostileValues(): unknown[] {
  return [NUL, SURROGATE, LOW_SURROGATE, '\u0000', 'x'.repeat(70_000), 1e308, -1e308, 2 ** 64, -(2 ** 63), 1.5e-320, 0.1, -1, '9'.repeat(400), '0001-01-01', '9999-12-31T23:59:59Z', deepValue(70), [NUL], { k: SURROGATE }, ...foreignIds];
}

/** A plausible value of a JSON Schema (TypeBox output): the first variant, the enum's first member, sample strings. */
function sample(s: Schema | undefined, depth = 0): unknown {
  if (!s || depth > 6) return 'x';
  if ('const' in s) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return sample(s.anyOf.find((v: Schema) => v.type !== 'null') ?? s.anyOf[0], depth + 1);
  if (s.oneOf) return sample(s.oneOf[0], depth + 1);
  if (s.allOf) return Object.assign({}, ...s.allOf.map((v: Schema) => sample(v, depth + 1)));
  switch (s.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries<Schema>(s.properties ?? {})) out[k] = sample(v, depth + 1);
      return out;
    }
    case 'array':
      return [sample(s.items, depth + 1)];
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      if (s.format === 'date-time') return '2026-01-01T00:00:00Z';
      if (s.format === 'date') return '2026-01-01';
      if (s.format === 'email') return 'a@example.com';
      if (s.format === 'uri') return 'https://example.com/x';
      return 'x';
    default:
      return 'x';
  }
}

/** The paths to every value inside `v` (objects and arrays), at most `max` deep. */
function leafPaths(v: unknown, max = 4, prefix: (string | number)[] = []): (string | number)[][] {
  if (prefix.length >= max || v === null || typeof v !== 'object') return prefix.length ? [prefix] : [];
  const entries = Array.isArray(v) ? v.map((x, i) => [i, x] as const) : Object.entries(v);
  const out: (string | number)[][] = prefix.length ? [prefix] : [];
  for (const [k, x] of entries) out.push(...leafPaths(x, max, [...prefix, k]));
  return out;
}

function replaced(v: unknown, path: (string | number)[], value: unknown): unknown {
  const copy = structuredClone(v) as Record<string | number, unknown>;
  let at = copy;
  for (const k of path.slice(0, -1)) at = at[k] as Record<string | number, unknown>;
  at[path[path.length - 1]!] = value;
  return copy;
}

const EVENT: Record<string, unknown> = {
  '/v1/actions': { agent_key: '', action_type: 'call', id: 'e1', timestamp: '', user_id: 'u', metadata: { model: 'm', input_tokens: 1, cost: { amount: '1', currency: 'USD' } } },
  '/v1/outcomes': { agent_key: '', outcome_type: 'hire', value: 5, id: 'o1', user_id: 'u', metadata: { k: 'v' } },
};

const QUERY_PARAMS = ['limit', 'offset', 'start_date', 'end_date', 'group_by', 'agent_id', 'customer_id', 'account_id', 'status', 'granularity', 'from', 'to', 'product_id', 'rate_plan_id'];
const QUERY_VALUES = ['%00', 'a%00b', '%ED%A0%80', '0001-01-01', '9999-12-31', '0001-01-01T00:00:00Z', '1e309', '-99999999999999999999'];

const failures: string[] = [];
let sent = 0;

async function send(method: string, url: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${admin}` }) {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined && method !== 'GET' && method !== 'DELETE') {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  let res: Response;
  try {
    res = await fetch(stack.baseUrl + url, init);
  } catch (err) {
    failures.push(`${method} ${url}: no answer (${(err as Error).message})`);
    return;
  }
  sent++;
  const text = await res.text();
  const where = `${method} ${url.slice(0, 100)} ${typeof body === 'string' ? body.slice(0, 160) : JSON.stringify(body)?.slice(0, 160)} -> ${res.status} ${text.slice(0, 160)}`;
  if (res.status >= 500) failures.push(where);
  else if (res.status >= 400) {
    try {
      const parsed = JSON.parse(text) as { error?: { code?: string; request_id?: string } };
      if (!parsed.error?.code || !parsed.error.request_id) failures.push(`no error body: ${where}`);
    } catch {
      failures.push(`no error body: ${where}`);
    }
  }
}

async function operations(): Promise<Op[]> {
  const { body: doc } = await call<{ paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: Schema }> } }>> }>(stack, 'GET', '/v1/openapi.json');
  return Object.entries(doc.paths).flatMap(([p, methods]) =>
    Object.entries(methods).map(([m, op]) => ({ method: m.toUpperCase(), path: p, schema: op.requestBody?.content['application/json']?.schema })),
  );
}

const fill = (path: string, value: string) => path.replace(/\{\w+\}/g, value);

describe('generated hostile payloads for every operation of the OpenAPI document', () => {
  it('never answer 5xx in request bodies', async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(80);
    for (const op of ops) {
      if (op.method === 'GET' || op.method === 'DELETE') continue;
      const base = EVENT[op.path] ? { ...(EVENT[op.path] as object), agent_key: agentId } : sample(op.schema);
      const headers = EVENT[op.path] ? { 'x-agent-secret': agentSecret } : undefined;
      for (const path of leafPaths(base)) {
        for (const v of hostileValues()) await send(op.method, fill(op.path, 'x'), replaced(base, path, v), headers);
      }
      // The whole body hostile: every string a NUL, then a lone surrogate; metadata 5,000 deep.
      await send(op.method, fill(op.path, 'x'), JSON.stringify(base).replace(/"x"/g, '"a\\u0000b"'), headers);
      await send(op.method, fill(op.path, 'x'), JSON.stringify(base).replace(/"x"/g, '"\\ud800"'), headers);
      await send(op.method, fill(op.path, 'x'), JSON.stringify({ ...(base as object), metadata: 0 }).replace('"metadata":0', `"metadata":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`), headers);
    }
    expect(sent).toBeGreaterThan(3_000);
    expect(failures.splice(0)).toEqual([]);
  }, 600_000);

  it('never answer 5xx in path and query parameters', async () => {
    const ops = await operations();
    for (const op of ops) {
      if (!op.path.includes('{')) continue;
      for (const v of ['a%00b', '%00', '%ED%A0%80', ...foreignIds.map(encodeURIComponent), '9'.repeat(400)]) {
        await send(op.method, fill(op.path, v), op.method === 'GET' || op.method === 'DELETE' ? undefined : sample(op.schema));
      }
    }
    for (const op of ops.filter((o) => o.method === 'GET')) {
      for (const p of QUERY_PARAMS) for (const v of QUERY_VALUES) await send('GET', `${fill(op.path, 'x')}?${p}=${v}`, undefined);
      await send('GET', `${fill(op.path, 'x')}?start_date=0001-01-01&end_date=9999-12-31`, undefined);
      await send('GET', `${fill(op.path, 'x')}?start_date=0001-01-01&end_date=9999-12-31`, undefined, { 'x-agent-secret': agentSecret });
    }
    expect(failures.splice(0)).toEqual([]);
  }, 600_000);

  it('a bad agent_key rejects that event alone, never the batch with a 503', async () => {
    const sdk = stack.keys.development.sdk;
    const res = await call(stack, 'POST', '/v1/actions', {
      key: sdk,
      body: [
        { agent_key: 'as_\u0000bad', action_type: 'call' },
        { agent_key: SURROGATE, action_type: 'call' },
        { agent_key: agentId, action_type: 'call' },
      ],
    });
    expect(res.status).toBe(207);
    expect(res.body).toMatchObject({ accepted: 1, rejected: 2 });
    expect(res.body.results[0].error.code).not.toBe('service_unavailable');
  });

  it('a NUL or a lone surrogate in a body is a 400 naming the field, not stored or mangled', async () => {
    for (const bad of ['"a\\u0000b"', '"x\\ud800y"', '"\\udc00"']) {
      const res = await call(stack, 'POST', '/api/v1/account/create', { key: admin, body: `{"name":${bad}}`, headers: { 'content-type': 'application/json' } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.details).toEqual([{ path: 'name', message: expect.stringMatching(/^`name` contains a (NUL|lone UTF-16 surrogate)/) }]);
      const rule = await call(stack, 'POST', '/v1/cost_rules', { key: admin, body: `{"name":"r","action_type":${bad},"category":"llm","basis":"per_call","rate":"1","currency":"USD"}`, headers: { 'content-type': 'application/json' } });
      expect(rule.status, JSON.stringify(rule.body)).toBe(400);
    }
    // Escaped text that only looks like an escape is kept as sent.
    const fine = await call(stack, 'POST', '/api/v1/account/create', { key: admin, body: { name: 'a\\u0000b \u{1F600}' } });
    expect(fine.status).toBe(201);
    expect(fine.body.name).toBe('a\\u0000b \u{1F600}');
    const events = await call(stack, 'POST', '/v1/actions', {
      headers: { 'x-agent-secret': agentSecret, 'content-type': 'application/json' },
      body: `[{"action_type":"a\\u0000b"},{"action_type":"ok","metadata":{"note":"\\ud800"}},{"action_type":"ok"}]`,
    });
    expect(events.status).toBe(207);
    expect(events.body.results.map((r: { status: string }) => r.status)).toEqual(['rejected', 'rejected', 'processed']);
    expect(events.body.results[1].error.message).toMatch(/`metadata.note` contains a lone UTF-16 surrogate/);
  });
});
