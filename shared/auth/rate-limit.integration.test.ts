import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as grpc from '@grpc/grpc-js';
import { call, createAgent, startTestStack, type TestStack } from '../../test/harness.ts';
import type { TallyProcess } from '../../app/start.ts';
import { loadUws } from '../http/uws-server.ts';

let stack: TestStack;
let second: TallyProcess;
beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest', 'api'] });
  second = await stack.startAnother(['api']);
});
afterAll(async () => {
  await stack?.cleanup();
});

const admin = () => stack.keys.development.admin;
async function newKey(limit: number | null, permission = 'read-only'): Promise<{ id: string; key: string; rate_limit_per_minute: number }> {
  const res = await call(stack, 'POST', '/api/v1/api_keys', { key: admin(), body: { name: `k${Math.random()}`, permission, rate_limit_per_minute: limit } });
  expect(res.status).toBe(201);
  return res.body as { id: string; key: string; rate_limit_per_minute: number };
}
/** Fixed one-minute windows: start a counting test at least 5 s before the next one. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 100));
}
const get = (key: string, port = stack.tally.port) =>
  fetch(`http://127.0.0.1:${port}/api/v1/account/all`, { headers: { authorization: `Bearer ${key}` } });

describe('rate limits', () => {
  it('sends X-RateLimit-* on every answer and 429 with Retry-After past the limit', async () => {
    const k = await newKey(3);
    await awayFromWindowEdge();
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await get(k.key));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
    expect(answers.map((a) => a.headers.get('x-ratelimit-remaining'))).toEqual(['2', '1', '0', '0']);
    for (const a of answers) {
      expect(a.headers.get('x-ratelimit-limit')).toBe('3');
      expect(Number(a.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    }
    const limited = answers[3]!;
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
  });

  it('holds across processes (shared over NATS)', async () => {
    const k = await newKey(10);
    await awayFromWindowEdge();
    for (let i = 0; i < 6; i++) expect((await get(k.key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 600)); // > one sync interval
    const statuses = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(k.key, second.port)).status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(4);
    expect(statuses.slice(4)).toEqual([429, 429]);
  });

  it('holds for a process that starts, or starts again, mid-minute: it learns the minute\'s counts before admitting', async () => {
    const k = await newKey(10);
    await awayFromWindowEdge();
    // Used up on the first process and on one that then goes away (as after kill -9: it never reports again).
    for (let i = 0; i < 5; i++) expect((await get(k.key)).status).toBe(200);
    const doomed = await stack.startAnother(['api']);
    for (let i = 0; i < 5; i++) expect((await get(k.key, doomed.port)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 600)); // > one sync interval: the first process has heard the other's 5
    await doomed.stop();
    // Both at their limit now admit nothing, so neither sends its counts again: a process
    // joining after them must ask for them.
    const joining = await stack.startAnother(['api']);
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await get(k.key, joining.port)).status);
    expect(statuses).toEqual([429, 429, 429]);
  });

  it('applies the defaults (1,000 per minute for API keys, 10,000 for SDK keys) and a raised limit at once', async () => {
    const k = await newKey(null);
    expect((await get(k.key)).headers.get('x-ratelimit-limit')).toBe('1000');
    const sdk = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: { agent_key: 'none', action_type: 'x' } });
    expect(sdk.headers.get('x-ratelimit-limit')).toBe('10000');
    const raised = await call(stack, 'PUT', `/api/v1/api_keys/${k.id}`, { key: admin(), body: { rate_limit_per_minute: 5_000_000 } });
    expect(raised.status).toBe(200);
    expect(raised.body.rate_limit_per_minute).toBe(5_000_000);
    expect((await get(k.key)).headers.get('x-ratelimit-limit')).toBe('5000000');
    const bad = await call(stack, 'PUT', `/api/v1/api_keys/${k.id}`, { key: admin(), body: { rate_limit_per_minute: 0 } });
    expect(bad.status).toBe(400);
    const notAdmin = await call(stack, 'PUT', `/api/v1/api_keys/${k.id}`, { key: k.key, body: { rate_limit_per_minute: 10 } });
    expect(notAdmin.status).toBe(403);
  });
});

/** POSTs `body` to an ingest route of the process on `port` and answers its status and X-RateLimit-Remaining. */
async function send(port: number, path: string, headers: Record<string, string>, body: unknown): Promise<[number, string | null]> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  await res.arrayBuffer();
  return [res.status, res.headers.get('x-ratelimit-remaining')];
}

/** An OTLP/gRPC export of nothing, with `metadata`: its status code (0: OK). */
function exportGrpc(port: number, metadata: Record<string, string>): Promise<number> {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(metadata)) md.set(k, v);
  const id = (b: Buffer) => b;
  return new Promise<number>((resolve) =>
    client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', id, id, Buffer.alloc(0), md, (err) => resolve(err ? err.code : 0)),
  ).finally(() => client.close());
}

describe('ingest routes', () => {
  const event = (agent: string) => ({ agent_key: agent, action_type: 'rate.test' });
  const outcome = (agent: string) => ({ agent_key: agent, outcome_type: 'rate.test' });
  const traces = { resourceSpans: [] };

  // uWS where a binary fits this runtime (Node 20 here; none for 22 and later).
  const servers = loadUws().ok ? (['node', 'uws'] as const) : (['node'] as const);
  it.each(servers)('count each request once against its key (%s HTTP server)', async (server) => {
    const proc = server === 'node' ? stack.tally : await stack.startAnother(['ingest'], { env: { TALLY_HTTP_SERVER: 'uws' } });
    expect(proc.httpServer).toBe(server);
    const agent = await createAgent(stack);
    const k = await newKey(30, 'sdk');
    await awayFromWindowEdge();
    const bearer = { authorization: `Bearer ${k.key}` };
    const answers = [
      await send(proc.port, '/v1/actions', bearer, event(agent.id)),
      await send(proc.port, '/v1/actions', bearer, [event(agent.id), event(agent.id)]),
      await send(proc.port, '/v1/outcomes', bearer, outcome(agent.id)),
      await send(proc.port, '/v1/traces', bearer, traces),
      await send(proc.port, '/api/v1/events', bearer, { specversion: '1.0', id: `e${Math.random()}`, source: 's', type: 'rate.test', subject: agent.id }),
    ];
    expect(answers.map(([, remaining]) => remaining)).toEqual(['29', '28', '27', '26', '25']);
    // 25 more are admitted (40 sent in all), then every request is refused.
    const more = [];
    for (let i = 0; i < 30; i++) more.push((await send(proc.port, '/v1/actions', bearer, event(agent.id)))[0]);
    expect(more.filter((s) => s === 200)).toHaveLength(25);
    expect(more.slice(25)).toEqual([429, 429, 429, 429, 429]);
  });

  it('count a refused request once (a key that may not send events: 403)', async () => {
    const k = await newKey(5, 'read-only');
    await awayFromWindowEdge();
    const refused = await send(stack.tally.port, '/v1/actions', { authorization: `Bearer ${k.key}` }, event('none'));
    expect(refused).toEqual([403, '4']);
    expect((await get(k.key)).headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('count each request of an agent secret once (X-Agent-Secret alone)', async () => {
    const agent = await createAgent(stack);
    await awayFromWindowEdge();
    const secret = { 'x-agent-secret': agent.secret };
    const remaining = [];
    remaining.push((await send(stack.tally.port, '/v1/actions', secret, { action_type: 'rate.test' }))[1]);
    remaining.push((await send(stack.tally.port, '/v1/outcomes', secret, { outcome_type: 'rate.test' }))[1]);
    remaining.push((await send(stack.tally.port, '/v1/traces', secret, traces))[1]);
    expect(remaining).toEqual(['9999', '9998', '9997']);
  });

  it('count each OTLP/gRPC export once', async () => {
    const k = await newKey(3, 'sdk');
    await awayFromWindowEdge();
    const port = stack.tally.ingest!.grpcPort!;
    const codes = [];
    for (let i = 0; i < 4; i++) codes.push(await exportGrpc(port, { authorization: `Bearer ${k.key}` }));
    expect(codes).toEqual([0, 0, 0, grpc.status.RESOURCE_EXHAUSTED]);
  });
});
