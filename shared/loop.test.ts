import { afterEach, describe, expect, it, vi } from 'vitest';
import { startLoop } from './loop.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The loop's log lines (JSON on stderr) written while `fn` runs. */
async function logLines(fn: () => Promise<void>): Promise<{ msg: string; loop?: string; err?: { message: string } }[]> {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await fn();
  } finally {
    spy.mockRestore();
  }
  return lines.map((l) => JSON.parse(l)).filter((l) => l.component === 'loop');
}

afterEach(() => vi.restoreAllMocks());

describe('startLoop', () => {
  it('runs again and again, never two runs at once, each after the pause', async () => {
    let active = 0;
    let maxActive = 0;
    const starts: number[] = [];
    const loop = startLoop({
      name: 't',
      intervalMs: 5,
      run: async () => {
        starts.push(Date.now());
        active++;
        maxActive = Math.max(maxActive, active);
        await sleep(20); // longer than the interval
        active--;
      },
    });
    await sleep(150);
    await loop.stop();
    expect(starts.length).toBeGreaterThanOrEqual(3);
    expect(maxActive).toBe(1);
    // The pause counts from the end of a run: consecutive starts are a run plus a pause apart.
    for (let i = 1; i < starts.length; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(24);
  });

  it('stop waits for the run in flight, and no run starts after it', async () => {
    let runs = 0;
    let finished = false;
    const loop = startLoop({
      name: 't',
      intervalMs: 1,
      run: async () => {
        runs++;
        finished = false;
        await sleep(40);
        finished = true;
      },
    });
    await sleep(10); // the first run is in flight
    await loop.stop();
    expect(finished).toBe(true);
    const after = runs;
    await sleep(30);
    expect(runs).toBe(after);
  });

  it('waits firstDelayMs before the first run; stopped before it, never runs', async () => {
    let runs = 0;
    const loop = startLoop({ name: 't', intervalMs: 1, firstDelayMs: 60_000, run: () => void runs++ });
    await sleep(20);
    await loop.stop();
    expect(runs).toBe(0);
  });

  it('logs each distinct error once per failure streak with its name, calls onError every time, and goes on', async () => {
    const script = ['a', 'a', 'a', 'b', 'a', 'ok', 'a', 'ok'];
    const seen: string[] = [];
    let i = 0;
    const lines = await logLines(async () => {
      const loop = startLoop({
        name: 'flaky',
        intervalMs: 1,
        run: () => {
          const step = script[i++];
          if (step === undefined || step === 'ok') return;
          throw new Error(`boom ${step}`);
        },
        onError: (err) => {
          seen.push((err as Error).message);
          throw new Error('the hook fails too'); // ignored
        },
      });
      while (i < script.length + 2) await sleep(2);
      await loop.stop();
    });
    expect(seen).toEqual(['boom a', 'boom a', 'boom a', 'boom b', 'boom a', 'boom a']);
    expect(lines.map((l) => [l.msg, l.loop, l.err?.message])).toEqual([
      ['background run failed; retrying', 'flaky', 'boom a'],
      ['background run failed; retrying', 'flaky', 'boom b'],
      ['background run recovered', 'flaky', undefined],
      ['background run failed; retrying', 'flaky', 'boom a'],
      ['background run recovered', 'flaky', undefined],
    ]);
  });

  it('a run that throws synchronously or rejects with a non-Error never escapes', async () => {
    let runs = 0;
    const errors: unknown[] = [];
    const lines = await logLines(async () => {
      const loop = startLoop({
        name: 'odd',
        intervalMs: 1,
        run: () => {
          runs++;
          if (runs === 1) throw new Error('sync');
          return Promise.reject('a string');
        },
        onError: (e) => errors.push(e),
      });
      while (runs < 4) await sleep(2);
      await loop.stop();
    });
    expect(errors.slice(0, 3)).toEqual([new Error('sync'), 'a string', 'a string']);
    expect(lines).toHaveLength(2);
  });
});
