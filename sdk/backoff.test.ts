import { describe, expect, it } from 'vitest';
import { backoffDelay, parseRetryAfter, retryDelay } from './src/backoff.ts';
import { BoundedBuffer } from './src/buffer.ts';

const opts = { baseMs: 500, maxMs: 30_000 };

describe('backoff', () => {
  it.each([
    [0, 250, 500],
    [1, 500, 1000],
    [2, 1000, 2000],
    [3, 2000, 4000],
    [10, 15_000, 30_000],
  ])('retry %i waits between %i and %i ms', (attempt, lo, hi) => {
    expect(backoffDelay(attempt, opts, () => 0)).toBe(lo);
    expect(backoffDelay(attempt, opts, () => 1)).toBe(hi);
    for (let i = 0; i < 50; i++) {
      const d = backoffDelay(attempt, opts);
      expect(d).toBeGreaterThanOrEqual(lo);
      expect(d).toBeLessThanOrEqual(hi);
    }
  });

  it('jitters: delays of one attempt differ', () => {
    expect(new Set(Array.from({ length: 20 }, () => backoffDelay(3, opts))).size).toBeGreaterThan(1);
  });

  it.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
    [' 7 ', 7000],
    [new Date(1_000_000 + 3000).toUTCString(), 3000],
    [new Date(1_000_000 - 3000).toUTCString(), 0],
    ['soon', undefined],
    ['', undefined],
    [null, undefined],
  ])('Retry-After %j is %j ms', (v, ms) => {
    expect(parseRetryAfter(v, 1_000_000)).toBe(ms);
  });

  it('prefers Retry-After to backoff, capped at maxMs', () => {
    expect(retryDelay(0, 4000, opts)).toBe(4000);
    expect(retryDelay(0, 120_000, opts)).toBe(30_000);
    expect(retryDelay(2, undefined, opts, () => 1)).toBe(2000);
  });
});

describe('bounded buffer: drop oldest', () => {
  it('keeps the newest events and returns the dropped oldest ones', () => {
    const b = new BoundedBuffer<number>(3);
    expect([1, 2, 3].flatMap((n) => b.push(n))).toEqual([]);
    expect(b.push(4)).toEqual([1]);
    expect(b.take(10)).toEqual([2, 3, 4]);
  });

  it('puts a batch back in front, in order, dropping the oldest when over capacity', () => {
    const b = new BoundedBuffer<number>(4);
    b.push(5);
    b.push(6);
    expect(b.unshift([1, 2, 3])).toEqual([1]);
    expect(b.take(2)).toEqual([2, 3]);
    expect(b.take(5)).toEqual([5, 6]);
    expect(b.length).toBe(0);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new BoundedBuffer(0)).toThrow(RangeError);
    expect(() => new BoundedBuffer(1.5)).toThrow(RangeError);
  });
});
