import v8 from 'node:v8';
import vm from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BodyBudget, defaultBodyBudgetBytes, GARBAGE_FALLBACK_MS, SMALL_REQUEST_BYTES } from './body-budget.ts';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;

describe('defaultBodyBudgetBytes', () => {
  it.each([
    ['24 GiB machine, 4 GiB heap: a quarter of the heap', { totalBytes: 24 * GiB, constrainedBytes: 2 ** 64, heapLimitBytes: 4 * GiB }, GiB],
    ['2 GiB cgroup (memory.max) on a 24 GiB machine: a quarter of the cgroup', { totalBytes: 24 * GiB, constrainedBytes: 2 * GiB, heapLimitBytes: 4 * GiB }, 512 * MiB],
    ['no cgroup limit reported (0)', { totalBytes: 8 * GiB, constrainedBytes: 0, heapLimitBytes: 16 * GiB }, 2 * GiB],
    ['no constrainedMemory (undefined)', { totalBytes: 8 * GiB, constrainedBytes: undefined, heapLimitBytes: 16 * GiB }, 2 * GiB],
    ['a tiny container: at least 64 MiB', { totalBytes: 8 * GiB, constrainedBytes: 128 * MiB, heapLimitBytes: 4 * GiB }, 64 * MiB],
  ])('%s', (_name, memory, expected) => {
    expect(defaultBodyBudgetBytes(memory)).toBe(expected);
  });
});

describe('BodyBudget', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('gives each request room until the budget is spent, keeps an eighth for small requests, and takes back what is released', () => {
    vi.useFakeTimers();
    const budget = new BodyBudget(80 * MiB);
    const a = budget.reserve();
    const b = budget.reserve();
    expect(a.tryTake(40 * MiB)).toBe(true);
    expect(b.tryTake(40 * MiB)).toBe(false); // a large request stops at 70 MiB
    expect(b.tryTake(30 * MiB)).toBe(true);
    expect(budget.full).toBe(true);
    const small = budget.reserve();
    expect(small.tryTake(SMALL_REQUEST_BYTES)).toBe(true); // the last eighth is the small requests'
    expect(small.tryTake(1)).toBe(false);
    const refusal = budget.reserve().refusal(SMALL_REQUEST_BYTES);
    expect([refusal.status, refusal.code, refusal.retryAfterSeconds]).toEqual([503, 'service_unavailable', 1]);
    small.release(); // a small request's bytes come back at once
    expect(budget.used).toBe(70 * MiB);
    a.release();
    a.release(); // once
    expect(a.tryTake(1)).toBe(false); // a released share takes nothing more
    b.release();
    vi.advanceTimersByTime(GARBAGE_FALLBACK_MS);
    expect(budget.used).toBe(0);
  });

  it("counts a large request's bytes until V8's next full collection frees them (at the latest after the fallback delay)", () => {
    vi.useFakeTimers();
    const budget = new BodyBudget(80 * MiB);
    const a = budget.reserve(5); // a JSON body: itself and four times it to parse
    expect(a.tryTake(10 * MiB)).toBe(true);
    expect(a.held).toBe(50 * MiB);
    a.release();
    expect(budget.used).toBe(50 * MiB);
    vi.advanceTimersByTime(GARBAGE_FALLBACK_MS);
    expect(budget.used).toBe(0);
  });

  it('collects the garbage of answered requests before giving their bytes back when no full collection came in time', () => {
    vi.useFakeTimers();
    const budget = new BodyBudget(200 * MiB);
    const a = budget.reserve(5);
    let tree: { i: number }[] | undefined = Array.from({ length: 1_000_000 }, (_, i) => ({ i })); // a parsed body
    expect(a.tryTake(10 * MiB)).toBe(true);
    expect(tree.length).toBe(1_000_000);
    a.release();
    tree = undefined;
    const before = process.memoryUsage().heapUsed;
    vi.advanceTimersByTime(GARBAGE_FALLBACK_MS);
    expect(budget.used).toBe(0);
    // Freed, not only forgotten: ~24 MB of objects and 8 MB of array.
    expect(before - process.memoryUsage().heapUsed).toBeGreaterThan(20 * MiB);
  });

  it("gives a large request's bytes back at the second full collection after its answer, not the first: the first may have begun marking while it ran", async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const collected = () => new Promise((r) => setTimeout(r, 50)); // GC entries reach observers asynchronously
    const budget = new BodyBudget(80 * MiB);
    const a = budget.reserve(5);
    expect(a.tryTake(10 * MiB)).toBe(true);
    a.release();
    gc();
    await collected();
    expect(budget.used).toBe(50 * MiB);
    gc();
    await collected();
    expect(budget.used).toBe(0);
  });

  it('answers 413, not a retryable 503, to a request that could never fit', () => {
    const budget = new BodyBudget(64 * MiB);
    const r = budget.reserve();
    const err = r.refusal(60 * MiB);
    expect([err.status, err.code, err.retryAfterSeconds]).toEqual([413, 'payload_too_large', undefined]);
    expect(() => r.take(60 * MiB)).toThrow(/TALLY_MAX_INFLIGHT_BODY_BYTES/);
  });
});
