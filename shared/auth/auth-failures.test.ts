import { describe, expect, it } from 'vitest';
import { AuthFailureLimiter } from './auth-failures.ts';

describe('AuthFailureLimiter (one process)', () => {
  it('answers failures past the limit with the seconds left in the minute, per address, and starts again next minute', () => {
    let now = 60_000 * 1000 + 15_000; // 15 s into a minute
    const limiter = new AuthFailureLimiter(3, { now: () => now });
    expect([1, 2, 3].map(() => limiter.failed('203.0.113.7'))).toEqual([undefined, undefined, undefined]);
    expect(limiter.failed('203.0.113.7')).toBe(45);
    expect(limiter.failed('203.0.113.8')).toBeUndefined(); // another address
    now += 45_000;
    expect(limiter.failed('203.0.113.7')).toBeUndefined();
  });
});
