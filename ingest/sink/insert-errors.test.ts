import { describe, expect, it } from 'vitest';
import { clickhouseErrorCode, isDataError } from './insert-errors.ts';
import { StallWatch } from './sink.ts';

describe('insert failures', () => {
  it('reads the code of chDB errors and of a ClickHouse server error', () => {
    expect(clickhouseErrorCode(new Error("Code: 691. DB::Exception: Unknown element 'x' for enum: (at row 1)"))).toBe(691);
    expect(clickhouseErrorCode(Object.assign(new Error('Cannot parse input'), { code: '27', type: 'CANNOT_PARSE_INPUT_ASSERTION_FAILED' }))).toBe(27);
    expect(clickhouseErrorCode(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8123'), { code: 'ECONNREFUSED' }))).toBeUndefined();
  });

  it('calls rows that cannot be parsed data errors, and everything else an outage', () => {
    expect(isDataError(new Error('Code: 27. DB::Exception: Cannot parse input'))).toBe(true);
    expect(isDataError(new Error('Code: 69. DB::Exception: Decimal value is too big'))).toBe(true);
    expect(isDataError(new Error('Code: 243. DB::Exception: Cannot reserve 1.00 MiB, not enough space'))).toBe(false);
    expect(isDataError(new Error('Code: 60. DB::Exception: Table t.actions does not exist'))).toBe(false);
    expect(isDataError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))).toBe(false);
    expect(isDataError(undefined)).toBe(false);
  });
});

describe('StallWatch', () => {
  it('asks whether messages wait only after stallMs without one, at most once per stallMs', async () => {
    let now = 0;
    let asked = 0;
    let waiting = 0;
    const w = new StallWatch(5000, async () => (asked++, waiting), () => now);
    now = 4999;
    expect(await w.stalled()).toBe(false);
    expect(asked).toBe(0);
    now = 5000;
    expect(await w.stalled()).toBe(false); // idle: nothing waits
    expect(asked).toBe(1);
    waiting = 3;
    now = 6000;
    expect(await w.stalled()).toBe(false); // asked a moment ago
    now = 10_000;
    expect(await w.stalled()).toBe(true);
    w.delivered();
    now = 12_000;
    expect(await w.stalled()).toBe(false);
  });

  it('takes a failed question (no consumer leader yet) as no stall', async () => {
    let now = 0;
    let asked = 0;
    const w = new StallWatch(10, async () => (asked++, Promise.reject(new Error('timeout'))), () => now);
    now = 100;
    expect(await w.stalled()).toBe(false);
    expect(asked).toBe(1);
  });

  it('asks again half a second after a failed question, not stallMs after: a new leader is found soon after its election', async () => {
    let now = 0;
    let asked = 0;
    let elected = false;
    const w = new StallWatch(5000, async () => (asked++, elected ? 7 : Promise.reject(new Error('timeout'))), () => now);
    now = 5000;
    expect(await w.stalled()).toBe(false);
    now = 5499;
    expect(await w.stalled()).toBe(false);
    expect(asked).toBe(1);
    elected = true;
    now = 5500;
    expect(await w.stalled()).toBe(true);
    expect(asked).toBe(2);
  });
});
