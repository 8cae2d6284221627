import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../shared/auth/keys.ts';
import type { HttpRequest } from '../../shared/http/types.ts';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { apiEndpoints, type ApiDeps } from './index.ts';
import { Account, AgentType, ApiKey, ApiKeyCreated, Deleted, listOfA, listOfB } from './response-schemas.ts';
import { usageRoutes } from './usage-routes.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest', 'api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

type Operation = {
  'x-required-capability': string;
  requestBody?: unknown;
  operationId?: string;
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  responses: Record<string, { content?: Record<string, { schema?: unknown }> } & { $ref?: string }>;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>> };

describe('OpenAPI document', () => {
  it('is served on both families without a credential', async () => {
    const a = await call<Doc>(stack, 'GET', '/v1/openapi.json');
    const b = await call<Doc>(stack, 'GET', '/api/v1/openapi.json');
    expect(a.status).toBe(200);
    expect(a.body.openapi).toBe('3.1.0');
    expect(b.body).toEqual(a.body);
  });

  it('lists only routes that really exist, and every route answers as documented (401 without a key)', async () => {
    const { body: doc } = await call<Doc>(stack, 'GET', '/v1/openapi.json');
    const ops = Object.entries(doc.paths).flatMap(([p, methods]) => Object.keys(methods).map((m) => [m.toUpperCase(), p] as const));
    expect(ops.length).toBeGreaterThan(50);
    expect(ops.filter(([m, p]) => doc.paths[p]![m.toLowerCase()]!.security?.length === 0).map(([m, p]) => `${m} ${p}`).sort()).toEqual(
      ['GET /api/v1/openapi.json', 'GET /console', 'GET /console/app.css', 'GET /console/app.js', 'GET /healthz', 'GET /metrics', 'GET /readyz', 'GET /v1/openapi.json'],
    );
    for (const [method, p] of ops) {
      // Health, readiness, metrics and this document need no credential (`security: []`).
      if (doc.paths[p]![method.toLowerCase()]!.security?.length === 0) continue;
      const res = await call(stack, method, p.replace(/\{\w+\}/g, 'x_1'), method === 'GET' || method === 'DELETE' ? {} : { body: {} });
      expect(res.status, `${method} ${p}: ${JSON.stringify(res.body)}`).toBe(401);
    }
  });

  it('contains every path of the spec implemented here, with capabilities and request schemas', async () => {
    const { body: doc } = await call<Doc>(stack, 'GET', '/v1/openapi.json');
    const expected: [string, string, string][] = [
      ['get', '/v1/agents', 'read'],
      ['post', '/v1/agents', 'write'],
      ['get', '/v1/agents/{agent_id}', 'read'],
      ['get', '/v1/accounts', 'read'],
      ['post', '/v1/accounts', 'write'],
      ['post', '/v1/actions', 'send_events'],
      ['post', '/v1/outcomes', 'send_events'],
      ['get', '/v1/pricing/rate-plans', 'read'],
      ['get', '/v1/pricing/rate-plans/{rate_plan_id}', 'read'],
      ['get', '/v1/subscriptions', 'read'],
      ['post', '/v1/subscriptions', 'write'],
      ['get', '/api/v1/agent_type/all', 'read'],
      ['post', '/api/v1/agent_type/create', 'write'],
      ['put', '/api/v1/agent_type/{agent_type_id}', 'write'],
      ['delete', '/api/v1/agent_type/{agent_type_id}', 'write'],
      ['get', '/api/v1/agent_instance/all', 'read'],
      ['post', '/api/v1/agent_instance/create', 'write'],
      ['get', '/api/v1/agent_instance/{agent_instance_id}', 'read'],
      ['put', '/api/v1/agent_instance/{agent_instance_id}', 'write'],
      ['delete', '/api/v1/agent_instance/{agent_instance_id}', 'write'],
      ['post', '/api/v1/agent_instance/{agent_instance_id}/refresh', 'write'],
      ['post', '/api/v1/agent_instance/validate-secret', 'validate_secret'],
      ['get', '/api/v1/products/{product_id}', 'read'],
      ['post', '/api/v1/products/{product_id}/rateplans', 'write'],
      ['get', '/api/v1/products/rateplans/{rate_plan_id}', 'read'],
      ['get', '/api/v1/charge_models', 'read'],
      ['post', '/api/v1/charge_models', 'write'],
      ['post', '/api/v1/products/rateplans/{rate_plan_id}/charges', 'write'],
      ['get', '/api/v1/subscription/all', 'read'],
      ['post', '/api/v1/subscription/create', 'write'],
      ['get', '/api/v1/subscription/{subscription_id}', 'read'],
      ['post', '/api/v1/subscription/{subscription_id}/activate', 'write'],
      ['post', '/api/v1/subscription/{subscription_id}/cancel', 'write'],
      ['post', '/api/v1/subscription/{subscription_id}/renew', 'write'],
      ['get', '/api/v1/account/all', 'read'],
      ['get', '/api/v1/account/{account_id}', 'read'],
      ['post', '/api/v1/account/create', 'write'],
      ['put', '/api/v1/account/{account_id}', 'write'],
      ['delete', '/api/v1/account/{account_id}', 'write'],
      ['get', '/api/v1/contact/all', 'read'],
      ['post', '/api/v1/contact/create', 'write'],
      ['post', '/api/v1/api_keys', 'admin'],
    ];
    for (const [m, p, cap] of expected) {
      const op = doc.paths[p]?.[m];
      expect(op, `${m} ${p}`).toBeDefined();
      expect(op!['x-required-capability'], `${m} ${p}`).toBe(cap);
    }
    expect(doc.paths['/api/v1/account/create']!.post!.requestBody).toMatchObject({ content: { 'application/json': { schema: { required: ['name'] } } } });
  });
});

/** Every operation of the document, with its method and path. */
function operations(doc: Doc): { method: string; path: string; op: Operation }[] {
  return Object.entries(doc.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ method, path, op })));
}

/** Where a key named `errorMessage` is used as a JSON Schema keyword (not a property name under `properties`). */
function nonStandardKeywords(node: unknown, at = '#', out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n, i) => nonStandardKeywords(n, `${at}/${i}`, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === 'errorMessage' && !at.endsWith('/properties')) out.push(`${at}/${k}`);
      nonStandardKeywords(v, `${at}/${k}`, out);
    }
  }
  return out;
}

/**
 * The path and query parameter names a handler reads, found by calling it with a request
 * that records every `params` and `query` read. Dependencies throw on first use, so only
 * what the handler reads before its first query of a store is seen: parameters are read
 * first (paging, filters), before any store is asked.
 */
async function readNames(handle: (req: HttpRequest) => Promise<unknown>, search = ''): Promise<{ path: Set<string>; query: Set<string> }> {
  const path = new Set<string>();
  const query = new Set<string>();
  class RecordingQuery extends URLSearchParams {
    override get(name: string): string | null {
      query.add(name);
      return super.get(name);
    }
    override has(name: string): boolean {
      query.add(name);
      return super.has(name);
    }
  }
  const params = new Proxy({} as Record<string, string>, {
    get: (_t, k) => {
      if (typeof k === 'string') path.add(k);
      return 'x_1';
    },
  });
  for (const [type, body] of [['application/json', '{}'], ['text/plain', 'SELECT 1']] as const) {
    const req = { method: 'GET', path: '/', params, query: new RecordingQuery(search), headers: { 'content-type': type }, body: Buffer.from(body), requestId: 'r', receivedAt: 0 } as HttpRequest;
    await handle(req).catch(() => undefined);
  }
  return { path, query };
}

/** A dependency that throws at first use (the handler under test has read its parameters by then). */
const unusable = (): any =>
  new Proxy(function () {}, {
    get: () => unusable(),
    apply: () => {
      throw new Error('not used here');
    },
  });

describe('OpenAPI document for client generators', () => {
  it('passes Redocly lint (recommended ruleset) with no error and no warning', async () => {
    const res = await call(stack, 'GET', '/v1/openapi.json');
    const config = await createConfig({
      extends: ['recommended'],
      rules: {
        // Tally is private and ships no license: there is none to name.
        'info-license': 'off',
        // Spec-mandated Family B paths: /api/v1/products/{product_id}/rateplans and
        // /api/v1/products/rateplans/{rate_plan_id}. The router matches the literal
        // segment `rateplans` first, so both resolve; clients call each by operationId.
        'no-ambiguous-paths': 'off',
      },
    });
    // The document is linted as a string: no file and no network is read.
    const problems = await lintFromString({ source: JSON.stringify(res.body), absoluteRef: '/openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('gives every operation a unique operationId and a 2xx answer with a schema', async () => {
    const { body: doc } = await call<Doc>(stack, 'GET', '/v1/openapi.json');
    const ids = new Set<string>();
    for (const { method, path, op } of operations(doc)) {
      expect(op.operationId, `${method} ${path}`).toMatch(/^[a-z][A-Za-z0-9]+$/);
      expect(ids.has(op.operationId!), `${op.operationId} twice`).toBe(false);
      ids.add(op.operationId!);
      const ok = Object.entries(op.responses).filter(([s]) => /^2\d\d$/.test(s));
      expect(ok.length, `${method} ${path}`).toBeGreaterThan(0);
      // 204 No Content has no body to describe.
      for (const [status, r] of ok) expect(status === '204' ? r.content === undefined : Object.values(r.content ?? {}).every((c) => c.schema !== undefined) && r.content !== undefined, `${method} ${path} ${status}`).toBe(true);
    }
    expect(doc.paths['/v1/accounts']!.get!.responses['200']!.content!['application/json']!.schema).toMatchObject({
      properties: { accounts: { items: { $ref: '#/components/schemas/Account' } }, total: { type: 'integer' } },
    });
    expect(Object.keys(doc.paths['/v1/actions']!.post!.responses)).toEqual(expect.arrayContaining(['200', '207', '400', '401', '403', '413', '415', '422', '429', '503']));
  });

  it('documents the event bodies in every accepted encoding, and the ingest, OTLP and operations routes', async () => {
    const { body: doc } = await call<Doc>(stack, 'GET', '/v1/openapi.json');
    const content = (doc.paths['/v1/outcomes']!.post!.requestBody as { content: Record<string, unknown> }).content;
    expect(Object.keys(content).sort()).toEqual(['application/json', 'application/msgpack', 'application/x-ndjson']);
    expect(JSON.stringify(content['application/json'])).toContain('outcome_type');
    expect(Object.keys((doc.paths['/v1/traces']!.post!.requestBody as { content: object }).content).sort()).toEqual(['application/json', 'application/x-protobuf']);
    expect(Object.keys(doc.paths['/metrics']!.get!.responses['200']!.content!)).toEqual(['text/plain']);
    for (const p of ['/healthz', '/readyz', '/metrics', '/v1/traces', '/v1/usage']) expect(doc.paths[p], p).toBeDefined();
  });

  it('documents answers as the endpoints really give them', async () => {
    // TypeBox checks a `format` only once it is registered: an ISO 8601 time as toISOString() writes it.
    if (!FormatRegistry.Has('date-time')) FormatRegistry.Set('date-time', (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(v));
    const key = stack.keys.development.admin;
    const answers: [unknown, Parameters<typeof Value.Check>[0]][] = [];
    const made = await call(stack, 'POST', '/api/v1/account/create', { key, body: { name: 'Docs', billing_address: { city: 'Oslo' } } });
    answers.push([made.body, Account]);
    answers.push([(await call(stack, 'GET', '/v1/accounts', { key })).body, listOfA('accounts', Account)]);
    answers.push([(await call(stack, 'GET', '/api/v1/account/all', { key })).body, listOfB('accounts', Account)]);
    answers.push([(await call(stack, 'DELETE', `/api/v1/account/${made.body.id}`, { key })).body, Deleted]);
    answers.push([(await call(stack, 'POST', '/api/v1/agent_type/create', { key, body: { name: 'docs-type' } })).body, AgentType]);
    answers.push([(await call(stack, 'POST', '/api/v1/api_keys', { key, body: { name: 'docs', permission: 'read-only' } })).body, ApiKeyCreated]);
    answers.push([(await call(stack, 'GET', '/api/v1/api_keys', { key })).body, listOfB('api_keys', ApiKey)]);
    for (const [body, schema] of answers) expect([...Value.Errors(schema, body)].map((e) => `${e.path} ${e.message}`), JSON.stringify(body)).toEqual([]);
  });

  it('keeps no non-standard keyword (errorMessage) anywhere', async () => {
    const res = await call(stack, 'GET', '/v1/openapi.json');
    expect(nonStandardKeywords(res.body)).toEqual([]);
  });

  it('documents every path and query parameter the handlers read, and no other query parameter', async () => {
    const { body: doc } = await call<Doc>(stack, 'GET', '/v1/openapi.json');
    const documented = (method: string, path: string, where: string) =>
      new Set((doc.paths[path.replace(/:(\w+)/g, '{$1}')]?.[method.toLowerCase()]?.parameters ?? []).filter((p) => p.in === where).map((p) => p.name));
    const deps = { db: unusable(), auth: unusable(), bus: unusable(), ch: unusable(), chDatabase: 'x', invoicing: unusable() } as ApiDeps;
    const principal = { environmentId: 'env_x', organizationId: 'org_x', agentInstanceId: 'ai_x' } as unknown as Principal;
    const handlers = apiEndpoints(deps).map((e) => ({ method: e.method, path: e.path, handle: (req: HttpRequest) => e.handle(req, principal) }));
    const auth = { require: async () => ({ ...principal, agentInstanceId: undefined }) };
    for (const r of usageRoutes(auth as never, unusable())) handlers.push({ method: r.method, path: r.path, handle: async (req) => r.handler(req) });
    expect(handlers.length).toBeGreaterThan(100);
    let withQuery = 0;
    for (const h of handlers) {
      const read = await readNames(h.handle, h.path === '/v1/usage' ? 'start_date=2026-01-01&end_date=2026-02-01' : '');
      const where = `${h.method} ${h.path}`;
      expect([...read.path].filter((n) => !documented(h.method, h.path, 'path').has(n)), where).toEqual([]);
      expect([...read.query].sort(), where).toEqual([...documented(h.method, h.path, 'query')].sort());
      if (read.query.size) withQuery++;
    }
    expect(withQuery).toBeGreaterThanOrEqual(30);
  });
});
