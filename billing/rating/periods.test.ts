import { describe, expect, it } from 'vitest';
import {
  PeriodError,
  nextPeriod,
  normalizeBillingCycle,
  periodContaining,
  periodFromLabel,
  periodLabel,
  previousPeriod,
  prorationFraction,
  prorationRatio,
  toEpochMs,
} from './periods.ts';

const DAY = 86_400_000;
const p = (start: string, end: string) => ({ start: `${start}T00:00:00.000Z`, end: `${end}T00:00:00.000Z` });

describe('normalizeBillingCycle', () => {
  it.each([
    ['monthly', 'monthly'],
    ['Month', 'monthly'],
    ['MONTHLY', 'monthly'],
    ['quarterly', 'quarterly'],
    ['quarter', 'quarterly'],
    ['annual', 'annual'],
    ['annually', 'annual'],
    ['yearly', 'annual'],
    ['Year', 'annual'],
    [' monthly ', 'monthly'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizeBillingCycle(input)).toBe(expected);
  });

  it.each(['weekly', 'daily', '', 'months', 12, null])('rejects %j', (input) => {
    expect(normalizeBillingCycle(input)).toBeNull();
  });
});

describe('periodContaining (calendar aligned, UTC, half-open)', () => {
  it.each([
    ['2026-11-15T10:00:00Z', 'monthly', p('2026-11-01', '2026-12-01')],
    ['2026-11-01T00:00:00.000Z', 'monthly', p('2026-11-01', '2026-12-01')], // start is inside
    ['2026-11-30T23:59:59.999Z', 'monthly', p('2026-11-01', '2026-12-01')], // end is outside
    ['2026-12-31T23:59:59.999Z', 'monthly', p('2026-12-01', '2027-01-01')], // year end
    ['2027-01-01T00:00:00.000Z', 'monthly', p('2027-01-01', '2027-02-01')],
    ['2028-02-29T12:00:00Z', 'monthly', p('2028-02-01', '2028-03-01')], // leap day
    ['2027-02-28T12:00:00Z', 'monthly', p('2027-02-01', '2027-03-01')],
    ['2026-12-31T23:30:00-01:00', 'monthly', p('2027-01-01', '2027-02-01')], // offset: 00:30Z next year
    ['2026-11-15', 'monthly', p('2026-11-01', '2026-12-01')], // date only = UTC midnight
    ['2026-02-10T00:00:00Z', 'quarterly', p('2026-01-01', '2026-04-01')],
    ['2026-04-01T00:00:00Z', 'quarterly', p('2026-04-01', '2026-07-01')],
    ['2026-09-30T23:59:59.999Z', 'quarterly', p('2026-07-01', '2026-10-01')],
    ['2026-11-30T00:00:00Z', 'quarter', p('2026-10-01', '2027-01-01')],
    ['2028-07-04T00:00:00Z', 'annual', p('2028-01-01', '2029-01-01')],
    ['2026-12-31T23:59:59.999Z', 'yearly', p('2026-01-01', '2027-01-01')],
  ])('%s %s', (instant, cycle, expected) => {
    expect(periodContaining(instant, cycle)).toEqual(expected);
  });

  it('accepts Date and epoch ms', () => {
    expect(periodContaining(new Date(Date.UTC(2026, 10, 5)), 'monthly')).toEqual(p('2026-11-01', '2026-12-01'));
    expect(periodContaining(Date.UTC(2026, 10, 5), 'monthly')).toEqual(p('2026-11-01', '2026-12-01'));
  });

  it.each(['2026-13-01', '2026-02-30', 'yesterday', '', '2026/11/01'])('rejects instant %j', (bad) => {
    expect(() => periodContaining(bad, 'monthly')).toThrow(PeriodError);
  });

  it('rejects an unknown cycle', () => {
    expect(() => periodContaining('2026-11-01', 'weekly')).toThrow(/billing cycle/);
  });

  it('reads a date-time without offset as UTC', () => {
    expect(toEpochMs('2026-11-01T00:00:00')).toBe(Date.UTC(2026, 10, 1));
  });
});

describe('periodFromLabel', () => {
  it.each([
    ['2026-11', 'monthly', p('2026-11-01', '2026-12-01')],
    ['2026-12', 'monthly', p('2026-12-01', '2027-01-01')],
    ['2028-02', 'monthly', p('2028-02-01', '2028-03-01')],
    ['2026-11', 'quarterly', p('2026-10-01', '2027-01-01')],
    ['2026-01', 'quarterly', p('2026-01-01', '2026-04-01')],
    ['2026-06', 'quarterly', p('2026-04-01', '2026-07-01')],
    ['2026-11', 'annual', p('2026-01-01', '2027-01-01')],
    ['2026-Q2', 'quarterly', p('2026-04-01', '2026-07-01')],
    ['2028', 'annual', p('2028-01-01', '2029-01-01')],
  ])('%s %s', (label, cycle, expected) => {
    expect(periodFromLabel(label, cycle)).toEqual(expected);
  });

  it.each(['2026-13', '2026-00', '26-11', '2026/11', '2026-Q5', 'nov'])('rejects %j', (bad) => {
    expect(() => periodFromLabel(bad, 'monthly')).toThrow(PeriodError);
  });

  it('labels a period by its first month', () => {
    expect(periodLabel(p('2026-10-01', '2027-01-01'))).toBe('2026-10');
  });
});

describe('nextPeriod / previousPeriod', () => {
  it.each([
    [p('2026-11-01', '2026-12-01'), 'monthly', p('2026-12-01', '2027-01-01')],
    [p('2026-12-01', '2027-01-01'), 'monthly', p('2027-01-01', '2027-02-01')],
    [p('2028-01-01', '2028-02-01'), 'monthly', p('2028-02-01', '2028-03-01')],
    [p('2026-10-01', '2027-01-01'), 'quarterly', p('2027-01-01', '2027-04-01')],
    [p('2028-01-01', '2029-01-01'), 'annual', p('2029-01-01', '2030-01-01')],
  ])('after %j (%s)', (period, cycle, expected) => {
    expect(nextPeriod(period, cycle)).toEqual(expected);
    expect(previousPeriod(expected, cycle)).toEqual(period);
  });
});

describe('prorationFraction (elapsed ms overlap / period ms)', () => {
  const nov = p('2026-11-01', '2026-12-01'); // 30 days
  const feb28 = p('2028-02-01', '2028-03-01'); // 29 days (leap)
  it.each([
    [null, null, nov, '1'],
    ['2026-11-16T00:00:00Z', null, nov, '0.5'],
    [null, '2026-11-16T00:00:00Z', nov, '0.5'],
    ['2026-11-11T00:00:00Z', '2026-11-21T00:00:00Z', p('2026-11-01', '2026-11-21'), '0.5'],
    ['2026-10-01T00:00:00Z', '2027-01-01T00:00:00Z', nov, '1'], // active beyond both ends
    ['2026-12-01T00:00:00Z', null, nov, '0'], // starts at the exclusive end
    [null, '2026-11-01T00:00:00Z', nov, '0'],
    ['2026-11-25T00:00:00Z', '2026-11-20T00:00:00Z', nov, '0'], // inverted window
    ['2027-02-15T00:00:00Z', null, p('2027-02-01', '2027-03-01'), '0.5'], // 14 of 28 days
    ['2026-11-23T12:00:00Z', null, nov, '0.25'], // 7.5 of 30 days
    ['2026-07-02T12:00:00Z', null, p('2026-01-01', '2027-01-01'), '0.5'], // 182.5 of 365 days
    ['2028-07-02T00:00:00Z', null, p('2028-01-01', '2029-01-01'), '0.5'], // 183 of 366 days (leap)
    ['2026-10-16T12:00:00Z', null, p('2026-10-01', '2027-01-01'), '0.8315217391304347826086956521739130434783'], // 76.5 of 92 days = 153/184, 40 significant digits
  ])('active [%s, %s) in %j = %s', (from, to, period, expected) => {
    expect(prorationFraction(from, to, period)).toBe(expected);
  });

  it('leap February: 15 of 29 days', () => {
    expect(prorationRatio('2028-02-15T00:00:00Z', null, feb28)).toEqual({ overlap_ms: 15 * DAY, period_ms: 29 * DAY });
    // 15/29 to 40 significant digits, half up ("...379310", trailing zero dropped)
    expect(prorationFraction('2028-02-15T00:00:00Z', null, feb28)).toBe('0.517241379310344827586206896551724137931');
  });

  it('has millisecond precision', () => {
    expect(prorationRatio('2026-11-30T23:59:59.999Z', null, nov)).toEqual({ overlap_ms: 1, period_ms: 30 * DAY });
  });

  it('rejects an empty period', () => {
    expect(() => prorationFraction(null, null, p('2026-11-01', '2026-11-01'))).toThrow(PeriodError);
  });
});
