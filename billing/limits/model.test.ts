import { describe, expect, it } from 'vitest';
import { alertsFor, calendarMonth, calendarWindow, isReached, remaining, usedPercent } from './model.ts';

describe('spend limit rules', () => {
  it.each([
    ['day', '2026-11-26T04:00:00.000Z', '2026-11-26T00:00:00.000Z', '2026-11-27T00:00:00.000Z'],
    ['week', '2026-11-26T04:00:00.000Z', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['week', '2026-11-23T00:00:00.000Z', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
    ['week', '2026-11-29T23:59:59.999Z', '2026-11-23T00:00:00.000Z', '2026-11-30T00:00:00.000Z'],
  ] as const)('%s window of %s', (w, now, start, end) => {
    expect(calendarWindow(w, new Date(now))).toEqual({ start, end });
  });

  it('calendar month, December into January', () => {
    expect(calendarMonth(new Date('2026-12-31T23:00:00Z'))).toEqual({ start: '2026-12-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' });
  });

  it.each([
    ['spend', '0.00', '100.00', '0', false],
    ['spend', '99.99', '100.00', '99.99', false],
    ['spend', '100.00', '100.00', '100', true],
    ['spend', '5', '0', '100', true],
    ['spend', '999999999999999.999', '999999999999999.999', '100', true],
    ['quantity', '800', '1000', '80', false],
    ['available_balance', '0.000', '0', '100', true],
    ['available_balance', '-1', '0', '100', true],
    ['available_balance', '0.001', '0', '0', false],
  ] as const)('%s %s of %s: %s %%', (metric, current, value, pct, reached) => {
    expect(usedPercent(metric, current, value).toFixed()).toBe(pct);
    expect(isReached(metric, current, value)).toBe(reached);
  });

  it('fires every threshold passed, 100 as exceeded, reset first', () => {
    expect(alertsFor('spend', [50, 80], '85', '100', true)).toEqual([
      { threshold: 0, event: 'limit.reset' },
      { threshold: 50, event: 'limit.threshold_reached' },
      { threshold: 80, event: 'limit.threshold_reached' },
    ]);
    expect(alertsFor('quantity', [50, 80, 100], '1000', '1000', false).map((a) => a.threshold)).toEqual([50, 80, 100]);
    expect(alertsFor('quantity', [], '1', '1000', false)).toEqual([]);
  });

  it('remaining never negative', () => {
    expect(remaining('spend', '120', '100')).toBe('0');
    expect(remaining('spend', '20.5', '100')).toBe('79.5');
    expect(remaining('available_balance', '30', '10')).toBe('20');
  });
});
