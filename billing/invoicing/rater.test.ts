import { afterAll, describe, expect, it } from 'vitest';
import type { RateSegmentsInput } from '../rating/index.ts';
import { inlineRater, poolRater } from './rater.ts';

const NOV = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const input = (usage: Record<string, string>): RateSegmentsInput => ({
  currency: 'USD',
  period: NOV,
  segments: [{ from: NOV.start, to: NOV.end, usage, charges: [{ id: 'c', name: 'per action', model: 'per_unit', charge_type: 'usage', unit_of_measure: '@action', pricing: { kind: 'per_unit', unit_price: '0.000002' } }] }],
});

const pool = poolRater({ threads: 1, maxQueue: 2 });
afterAll(() => pool.close());

describe('rating on piscina workers', () => {
  it('gives the same result as inline rating', async () => {
    const a = await pool.rate(input({ '@action': '1234567' }));
    const b = await inlineRater().rate(input({ '@action': '1234567' }));
    expect(a).toEqual(b);
    expect(a.ok && a.result.total).toBe('2.47');
  });

  it('returns invalid input as a rejection value, not a thrown error', async () => {
    const r = await pool.rate(input({ '@tokens': '5' }));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.rejection).toMatchObject({ name: 'RatingError', path: 'input.segments[0].usage.@tokens' });
  });

  it('a full queue is a retryable 503 (service_unavailable), and the pool keeps working', async () => {
    const results = await Promise.allSettled(Array.from({ length: 30 }, () => pool.rate(input({ '@action': '1' }))));
    const rejected = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason);
    expect(rejected.length).toBeGreaterThan(0);
    for (const e of rejected) expect(e).toMatchObject({ code: 'service_unavailable', retryAfterSeconds: 1 });
    expect((await pool.rate(input({ '@action': '1' }))).ok).toBe(true);
  });

  it('refuses bad options loudly', () => {
    expect(() => poolRater({ threads: 0, maxQueue: 1 })).toThrow(/threads/);
    expect(() => poolRater({ threads: 1, maxQueue: 0 })).toThrow(/maxQueue/);
  });
});
