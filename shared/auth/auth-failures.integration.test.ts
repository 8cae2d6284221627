import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../../test/harness.ts';
import type { TallyProcess } from '../../app/start.ts';

/**
 * The failed-authentication limit across processes, behind a trusted proxy. Every process
 * here shares one NATS prefix, so their counts are shared: each test uses its own client
 * addresses (X-Forwarded-For from the trusted 127.0.0.1), except the last, which counts
 * the peer's own address.
 */
let stack: TestStack;
const limited = { TALLY_AUTH_FAILURES_PER_MINUTE: '5', TALLY_TRUSTED_PROXIES: '127.0.0.1, ::1' };
beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

/** Fixed one-minute windows: start a counting test at least 5 s before the next one. */
async function awayFromWindowEdge(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((r) => setTimeout(r, left + 100));
}
const get = (p: TallyProcess, key: string, from?: string) =>
  fetch(`http://127.0.0.1:${p.port}/api/v1/account/all`, { headers: { authorization: `Bearer ${key}`, ...(from ? { 'x-forwarded-for': from } : {}) } });
const guesses = async (p: TallyProcess, n: number, from?: string) => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await get(p, `sk_test_guess${i}`, from)).status);
  return out;
};

describe('the failed-authentication limit', () => {
  it('limits the failures of the client address a trusted proxy names, and lets a valid key from it through', async () => {
    const api = await stack.startAnother(['api'], { env: limited });
    await awayFromWindowEdge();
    expect(await guesses(api, 7, '203.0.113.10')).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const limitedAnswer = await get(api, 'sk_test_more', '203.0.113.10');
    expect(limitedAnswer.headers.get('retry-after')).toMatch(/^\d+$/);
    expect((await get(api, stack.keys.development.admin, '203.0.113.10')).status).toBe(200);
    // Another client behind the same proxy is not affected.
    expect(await guesses(api, 1, '203.0.113.11')).toEqual([401]);
  });

  it('counts failures across processes, and a process that joins mid-minute knows them', async () => {
    const [p, q] = [await stack.startAnother(['api'], { env: limited }), await stack.startAnother(['api'], { env: limited })];
    await awayFromWindowEdge();
    expect(await guesses(p, 3, '203.0.113.20')).toEqual([401, 401, 401]);
    await new Promise((r) => setTimeout(r, 600)); // > one sync interval
    expect(await guesses(q, 3, '203.0.113.20')).toEqual([401, 401, 429]);
    await new Promise((r) => setTimeout(r, 600));
    const joining = await stack.startAnother(['api'], { env: limited });
    expect(await guesses(joining, 1, '203.0.113.20')).toEqual([429]);
    expect((await get(joining, stack.keys.development.admin, '203.0.113.20')).status).toBe(200);
  });

  it('ignores X-Forwarded-For from a peer that is not a trusted proxy', async () => {
    const api = await stack.startAnother(['api'], { env: { TALLY_AUTH_FAILURES_PER_MINUTE: '5' } });
    await awayFromWindowEdge();
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(api, `sk_test_guess${i}`, `198.51.100.${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429]);
  });
});
