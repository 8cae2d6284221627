import { describe, expect, it } from 'vitest';
import { LiveUsageCache } from './usage-cache.ts';
import type { UsageQuery, UsageRow } from '../usage/usage-query.ts';

/** A usage source whose answers the test releases one at a time (what ClickHouse would answer, counted). */
function slowSource() {
  const waiting: (() => void)[] = [];
  let calls = 0;
  const source = {
    query: async (q: UsageQuery): Promise<UsageRow[]> => {
      calls++;
      await new Promise<void>((r) => waiting.push(r));
      return [{ account_id: q.accountIds?.[0] ?? '', actions: String(calls), outcomes: '0', outcome_value: '0', users: '0', input_tokens: '0', output_tokens: '0', total_tokens: '0', cache_read_input_tokens: '0', cache_creation_input_tokens: '0', reasoning_tokens: '0' }];
    },
    firstSeenUsers: async () => [],
  };
  return { source, calls: () => calls, release: () => waiting.splice(0).forEach((r) => r()) };
}

const period = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z'), groupBy: 'none' as const };
const byAccount = (id: string): UsageQuery => ({ environmentId: 'env1', ...period, accountIds: [id] });
const byAgent = (id: string): UsageQuery => ({ environmentId: 'env1', ...period, agentInstanceIds: [id] });
const envWide: UsageQuery = { environmentId: 'env1', ...period };

/** Asks `q`, runs `during` while the source computes, then asks again: whether the second ask reached the source. */
async function recomputedAfter(q: UsageQuery, during: (c: LiveUsageCache) => void): Promise<boolean> {
  const s = slowSource();
  const cache = new LiveUsageCache(s.source);
  const first = cache.query(q);
  await Promise.resolve();
  during(cache);
  s.release();
  await first;
  const again = cache.query(q);
  s.release();
  await again;
  return s.calls() === 2;
}

describe('live usage cache: which answers computed across a drop are kept', () => {
  it.each([
    ['an account answer, its account dropped', byAccount('a1'), (c: LiveUsageCache) => c.invalidate('env1', ['a1'], [])],
    ['an agent answer, its agent dropped', byAgent('i1'), (c: LiveUsageCache) => c.invalidate('env1', [], ['i1'])],
    ['an environment-wide answer, any scope of its environment dropped', envWide, (c: LiveUsageCache) => c.invalidate('env1', ['a9'], [])],
    ['an account answer, everything cleared', byAccount('a1'), (c: LiveUsageCache) => c.clear()],
  ])('not kept: %s while it computed', async (_name, q, during) => {
    expect(await recomputedAfter(q, during)).toBe(true);
  });

  it.each([
    ['an account answer, another account dropped', byAccount('a1'), (c: LiveUsageCache) => c.invalidate('env1', ['a2'], ['i2'])],
    ['an agent answer, another agent dropped', byAgent('i1'), (c: LiveUsageCache) => c.invalidate('env1', ['a2'], ['i2'])],
    ['an account answer, the same account id in another environment dropped', byAccount('a1'), (c: LiveUsageCache) => c.invalidate('env2', ['a1'], [])],
    ['an account answer, nothing dropped', byAccount('a1'), () => {}],
  ])('kept: %s while it computed', async (_name, q, during) => {
    expect(await recomputedAfter(q, during)).toBe(false);
  });

  it('a kept answer is dropped once its scope is', async () => {
    const s = slowSource();
    const cache = new LiveUsageCache(s.source);
    const first = cache.query(byAccount('a1'));
    s.release();
    await first;
    cache.invalidate('env1', ['a2'], []);
    await cache.query(byAccount('a1'));
    expect(s.calls()).toBe(1);
    cache.invalidate('env1', ['a1'], []);
    const again = cache.query(byAccount('a1'));
    s.release();
    await again;
    expect(s.calls()).toBe(2);
  });

  it('a watch turns stale when its own scope is dropped before it is done, and only then', () => {
    const cache = new LiveUsageCache(slowSource().source);
    const own = cache.watch(byAgent('i1'));
    const other = cache.watch(byAgent('i2'));
    cache.invalidate('env1', ['a1'], ['i1']);
    expect(own.stale).toBe(true);
    expect(other.stale).toBe(false);
    own.done();
    other.done();
    cache.invalidate('env1', [], ['i2']);
    expect(other.stale).toBe(false); // done before the drop
  });
});
