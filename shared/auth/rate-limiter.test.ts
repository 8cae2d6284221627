import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import type { Principal } from './keys.ts';
import { DEFAULT_API_LIMIT_PER_MINUTE, DEFAULT_SDK_LIMIT_PER_MINUTE, RateLimiter } from './rate-limiter.ts';

const principal = (over: Partial<Principal> = {}): Principal => ({
  kind: 'sdk',
  permission: 'sdk',
  organizationId: 'o',
  environmentId: 'e',
  environmentName: 'development',
  credentialId: 'key_1',
  rateLimitPerMinute: 3,
  ...over,
});

describe('RateLimiter (one process)', () => {
  it('admits up to the limit per window, then 429 with Retry-After until the window resets', () => {
    let now = 60_000 * 1000 + 10_000; // 10 s into a window
    const rl = new RateLimiter(undefined, 'x', { now: () => now });
    const remaining = [0, 1, 2].map(() => rl.hit(principal(), {}).remaining);
    expect(remaining).toEqual([2, 1, 0]);
    const carrier = {};
    try {
      rl.hit(principal(), carrier);
      expect.unreachable();
    } catch (err) {
      expect((err as AppError).code).toBe('rate_limited');
      expect((err as AppError).retryAfterSeconds).toBe(50);
    }
    expect(rl.headersFor(carrier)).toEqual({ 'x-ratelimit-limit': '3', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(60 * 1001) });
    now += 50_000; // next window
    expect(rl.hit(principal(), {}).remaining).toBe(2);
  });

  it('counts each credential on its own and applies the defaults of the spec', () => {
    const rl = new RateLimiter(undefined, 'x', { now: () => 0 });
    expect(rl.hit(principal({ rateLimitPerMinute: null }), {}).limit).toBe(DEFAULT_SDK_LIMIT_PER_MINUTE);
    expect(rl.hit(principal({ kind: 'api', permission: 'admin', credentialId: 'k2', rateLimitPerMinute: null }), {}).limit).toBe(DEFAULT_API_LIMIT_PER_MINUTE);
    expect(rl.hit(principal({ credentialId: 'k3' }), {}).remaining).toBe(2);
  });

  it('has no headers for a request it never counted', () => {
    expect(new RateLimiter(undefined, 'x').headersFor({})).toBeUndefined();
  });
});
