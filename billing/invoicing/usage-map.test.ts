import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../usage/usage-query.ts';
import { engineUsage, usageTotals } from './usage-map.ts';

const row = (id: string, r: Partial<UsageRow>): UsageRow => ({ agent_instance_id: id, actions: '0', outcomes: '0', outcome_value: '0', users: '0', input_tokens: '0', output_tokens: '0', total_tokens: '0', cache_read_input_tokens: '0', cache_creation_input_tokens: '0', reasoning_tokens: '0', ...r });

describe('engineUsage', () => {
  it('splits @action and @outcome (sum of values) by agent instance, leaving out zeros', () => {
    const u = engineUsage([row('a', { actions: '3', outcome_value: '2.5', outcomes: '2' }), row('b', { actions: '0', outcome_value: '1' })]);
    expect(u['@action']).toEqual({ total: '3', by_agent_instance: { a: '3' } });
    expect(u['@outcome']).toEqual({ total: '3.5', by_agent_instance: { a: '2.5', b: '1' } });
    expect(u['@user']).toBeUndefined();
  });

  it('@user and @seat come from the segment\'s users (first active in it), not the sum per instance', () => {
    const u = engineUsage([row('a', { users: '2' }), row('b', { users: '2' })], '3');
    expect(u['@user']).toBe('3');
    expect(u['@seat']).toBe('3');
  });

  it('no usage at all is zero of every unit', () => {
    const u = engineUsage([], '0');
    expect(usageTotals(u)).toEqual({ '@action': '0', '@outcome': '0', '@user': '0', '@seat': '0' });
  });

  it('huge counts stay exact', () => {
    const u = engineUsage([row('a', { actions: '9007199254740993' }), row('b', { actions: '1' })]);
    expect(usageTotals(u)['@action']).toBe('9007199254740994');
  });
});
