import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import type { TallyProcess } from '../../app/start.ts';

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
async function newKey(limit: number | null, permission = 'read-only') {
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
