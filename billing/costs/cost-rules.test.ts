import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { resolveOutcomeRule } from '../outcomes/outcome-rules.ts';
import { range } from '../api/date-range.ts';
import { resolveEffectiveFrom, resolveRuleFields, type CostRuleCreate } from './cost-rules.ts';

const base: CostRuleCreate = { name: 'r', category: 'llm', currency: 'usd', basis: 'per_input_token', rate: '0.000005' };

describe('cost rule fields', () => {
  it('canonicalizes rates and currency; per_unit defaults its unit field', () => {
    expect(resolveRuleFields({ ...base, rate: 2e-6, model_rates: { 'gpt-4o': '0.0000050' } })).toEqual({
      name: 'r', category: 'llm', currency: 'USD', basis: 'per_input_token', action_type: '', rate: '0.000002', models: ['gpt-4o'], model_rates: ['0.000005'], unit_field: '',
    });
    expect(resolveRuleFields({ ...base, basis: 'per_unit', rate: 1 }).unit_field).toBe('units');
    expect(resolveRuleFields({ ...base, basis: 'per_unit', rate: 1, unit_field: 'gb_hours' }).unit_field).toBe('gb_hours');
  });
  it.each<[string, Partial<CostRuleCreate>]>([
    ['no rate', { rate: null }],
    ['negative rate', { rate: '-0.1' }],
    ['13 decimals', { rate: '0.0000000000001' }],
    ['not a number', { rate: 'abc' }],
    ['bad currency', { currency: 'XX1' }],
    ['model rates on a per-action rule', { basis: 'per_action', model_rates: { a: 1 } }],
    ['unit field on a token rule', { unit_field: 'x' }],
  ])('refuses %s', (_what, patch) => {
    expect(() => resolveRuleFields({ ...base, ...patch })).toThrow(AppError);
  });
});

describe('effective time', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it.each<[string | undefined, boolean | undefined, number | 'error']>([
    [undefined, undefined, now],
    ['2026-11-21T12:00:00Z', undefined, now],
    ['2026-11-21T11:58:00Z', undefined, now - 120_000],
    ['2026-12-01', undefined, Date.parse('2026-12-01T00:00:00Z')],
    ['2026-11-01', undefined, 'error'],
    ['2026-11-01', true, Date.parse('2026-11-01T00:00:00Z')],
    ['yesterday', true, 'error'],
  ])('%s (reallocate %s)', (from, reallocate, expected) => {
    if (expected === 'error') expect(() => resolveEffectiveFrom(from, reallocate, now)).toThrow(AppError);
    else expect(resolveEffectiveFrom(from, reallocate, now)).toBe(expected);
  });
});

describe('outcome rule fields', () => {
  it('stores match values as JSON text and values as decimals', () => {
    expect(resolveOutcomeRule({ name: 'n', action_type: 'a', outcome_type: 'o', metadata_match: { stage: 'hired', n: 3, ok: true }, value: '2.50' })).toEqual({
      name: 'n', action_type: 'a', match_keys: ['stage', 'n', 'ok'], match_values: ['"hired"', '3', 'true'], outcome_type: 'o', value: '2.5', value_field: '',
    });
  });
  it.each([-1, '1e-10', 'x'])('refuses value %s', (value) => {
    expect(() => resolveOutcomeRule({ name: 'n', action_type: 'a', outcome_type: 'o', value })).toThrow(AppError);
  });
});

describe('report range', () => {
  const now = new Date('2026-11-21T12:00:00Z');
  it('defaults to the current month and checks order and length', () => {
    expect(range({}, now)).toEqual({ from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') });
    expect(() => range({ start_date: '2026-11-02', end_date: '2026-11-01' }, now)).toThrow(AppError);
    expect(() => range({ start_date: '2000-01-01', end_date: '2026-11-01' }, now)).toThrow(AppError);
    expect(() => range({ start_date: '2026-02-30' }, now)).toThrow(AppError);
  });
});

describe('token class bases', () => {
  it.each(['per_cache_read_token', 'per_cache_write_token', 'per_reasoning_token'] as const)('%s takes a rate and model rates', (basis) => {
    expect(resolveRuleFields({ ...base, basis, rate: null, model_rates: { 'gpt-4o': '0.00000125' } })).toMatchObject({ basis, models: ['gpt-4o'], model_rates: ['0.00000125'] });
  });
});
