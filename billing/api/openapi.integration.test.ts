import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest', 'api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

type Doc = { openapi: string; paths: Record<string, Record<string, { 'x-required-capability': string; requestBody?: unknown }>> };

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
    for (const [method, p] of ops) {
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
