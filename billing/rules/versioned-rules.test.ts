import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { OPEN_END, parseEffectiveFrom, toViews, type RuleVersion, type RuleView } from './versioned-rules.ts';

interface V extends RuleVersion {
  rate: string;
}
interface View extends RuleView {
  rate: string;
}
const kind = { fields: (v: V) => ({ rate: v.rate }), history: (v: V) => ({ rate: v.rate }) };
const version = (rule_id: string, effective_from: string, effective_to: string, rate: string, created_at = effective_from): V => ({ rule_id, effective_from, effective_to, rate, created_at });
const now = Date.parse('2026-11-21T12:00:00Z');

describe('rule views', () => {
  // Rule b: closed at 10:00, then reopened at 11:00 with a new rate, and a future version from tomorrow.
  // Rule a: created later, ended at 11:30 (inactive now). Rule c: future-dated only.
  const versions = [
    version('b', '2026-11-20 00:00:00.000', '2026-11-21 11:00:00.000', '1', '2026-11-20 00:00:00.000'),
    version('b', '2026-11-22 00:00:00.000', OPEN_END, '3'),
    version('b', '2026-11-21 11:00:00.000', '2026-11-22 00:00:00.000', '2'),
    version('a', '2026-11-21 09:00:00.000', '2026-11-21 11:30:00.000', '5'),
    version('c', '2026-11-23 00:00:00.000', OPEN_END, '7'),
  ];

  it('show the version in effect now (else the latest), activity, creation time and, when asked, the history', () => {
    expect(toViews<V, View>(kind, versions, now, false)).toEqual([
      { id: 'b', rate: '2', effective_from: '2026-11-21T11:00:00.000Z', effective_to: '2026-11-22T00:00:00.000Z', is_active: true, created_at: '2026-11-20T00:00:00.000Z' },
      { id: 'a', rate: '5', effective_from: '2026-11-21T09:00:00.000Z', effective_to: '2026-11-21T11:30:00.000Z', is_active: false, created_at: '2026-11-21T09:00:00.000Z' },
      { id: 'c', rate: '7', effective_from: '2026-11-23T00:00:00.000Z', effective_to: null, is_active: true, created_at: '2026-11-23T00:00:00.000Z' },
    ]);
    const [b] = toViews<V, View>(kind, versions, now, true) as (View & { versions: unknown[] })[];
    expect(b!.versions).toEqual([
      { effective_from: '2026-11-20T00:00:00.000Z', effective_to: '2026-11-21T11:00:00.000Z', rate: '1' },
      { effective_from: '2026-11-21T11:00:00.000Z', effective_to: '2026-11-22T00:00:00.000Z', rate: '2' },
      { effective_from: '2026-11-22T00:00:00.000Z', effective_to: null, rate: '3' },
    ]);
  });

  it('have no history when the kind shows none', () => {
    expect(toViews<V, View>({ fields: kind.fields }, versions, now, true).some((v) => 'versions' in v)).toBe(false);
  });
});

describe('effective time', () => {
  it.each<[string | undefined, number | undefined, number | 'error']>([
    [undefined, undefined, now],
    ['2026-11-01', undefined, Date.parse('2026-11-01T00:00:00Z')],
    ['2299-06-01', undefined, Date.parse('2299-06-01T00:00:00Z')],
    ['2299-06-01', Date.parse('2299-01-01T00:00:00Z'), 'error'],
    ['2299-12-31', undefined, 'error'],
    ['yesterday', undefined, 'error'],
  ])('%s (before %s)', (from, latest, expected) => {
    if (expected === 'error') expect(() => parseEffectiveFrom(from, now, latest)).toThrow(AppError);
    else expect(parseEffectiveFrom(from, now, latest)).toBe(expected);
  });
});
