import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadUws } from '../../shared/http/uws-server.ts';
import { actionCounts, call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';

// The whole stack with TALLY_HTTP_SERVER=uws, where a uWebSockets.js binary fits this
// runtime (the default server, Node's HTTP stack, runs every other integration test).
const uws = loadUws();

describe.skipIf(!uws.ok)('Tally on uWebSockets.js (TALLY_HTTP_SERVER=uws)', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({ env: { TALLY_HTTP_SERVER: 'uws' } });
  });
  afterAll(async () => {
    await stack?.cleanup();
  });

  it('serves readiness, meters an event, a batch and a gzip batch, and answers the API', async () => {
    expect(stack.tally.httpServer).toBe('uws');
    const ready = await call(stack, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    const agent = await createAgent(stack);
    const sdk = stack.keys.development.sdk;
    const one = await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.id, action_type: 'llm_call' } });
    expect(one.status).toBe(200);
    const batch = Array.from({ length: 5 }, () => ({ agent_key: agent.id, action_type: 'tool_call' }));
    const many = await call(stack, 'POST', '/v1/actions', { key: sdk, body: batch });
    expect(many.body).toMatchObject({ accepted: 5, rejected: 0 });
    const zipped = await call(stack, 'POST', '/v1/actions', { key: sdk, headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync(JSON.stringify(batch)) });
    expect(zipped.body).toMatchObject({ accepted: 5 });
    const counts = await waitFor(() => actionCounts(stack, agent.id), (c) => c.size === 11);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const missing = await call(stack, 'GET', '/api/v1/nothing', { key: sdk });
    expect(missing.status).toBe(404);
  });
});
