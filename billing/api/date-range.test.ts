import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { latestEnd, range } from './date-range.ts';

describe('range: at most 5 calendar years, end_date <= start_date + 5 years', () => {
  it.each([
    ['2021-11-22', '2026-11-22', true],
    ['2021-11-22', '2026-11-22T00:00:00.001Z', false],
    ['2021-11-22', '2026-11-23', false],
    ['2021-11-22', '2026-11-25', false], // a little over 5 years: accepted before
    ['2021-11-22T13:30:00Z', '2026-11-22T13:30:00Z', true],
    ['2021-11-22T13:30:00Z', '2026-11-22T13:30:01Z', false],
    ['2024-02-29', '2029-03-01', true], // from February 29: March 1 five years later
    ['2024-02-29', '2029-03-01T00:00:00.001Z', false],
    ['2020-01-01', '2025-01-01', true], // 1827 days (two leap days): still 5 years
    ['2020-01-01', '2025-01-02', false],
  ])('%s to %s: %s', (start_date, end_date, ok) => {
    if (ok) expect(range({ start_date, end_date })).toEqual({ from: new Date(start_date), to: new Date(end_date) });
    else {
      let error: unknown;
      try {
        range({ start_date, end_date });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).message).toBe(`the range covers at most 5 years: \`end_date\` must not be after ${latestEnd(new Date(start_date)).toISOString()} (\`start_date\` + 5 years)`);
    }
  });

  it('latestEnd is the same date and time five years on', () => {
    expect(latestEnd(new Date('2021-11-22T00:00:00Z')).toISOString()).toBe('2026-11-22T00:00:00.000Z');
    expect(latestEnd(new Date('2024-02-29T06:00:00Z')).toISOString()).toBe('2029-03-01T06:00:00.000Z');
  });
});
