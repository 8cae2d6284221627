import { describe, expect, it } from 'vitest';
import type { UsageQuery, UsageRow } from '../usage/usage-query.ts';
import { BatchedUsage } from './batched-usage.ts';

const row = (agent: string, account: string, actions: string): UsageRow => ({
  agent_instance_id: agent,
  account_id: account,
  actions,
  outcomes: '0',
  outcome_value: '0',
  users: '1',
  input_tokens: '0',
  output_tokens: '0',
  total_tokens: '0',
  cache_read_input_tokens: '0',
  cache_creation_input_tokens: '0',
  reasoning_tokens: '0',
});

/** A fake source that records its queries and answers from a fixed table. */
function source() {
  const calls: UsageQuery[] = [];
  const table = [row('a1', 'acc1', '5'), row('a2', 'acc1', '7'), row('a3', 'acc2', '9')];
  return {
    calls,
    async query(q: UsageQuery): Promise<UsageRow[]> {
      calls.push(q);
      if (q.groupBy === 'agent_account') return table;
      if (q.groupBy === 'agent') return table.map(({ account_id: _x, ...r }) => r);
      return [];
    },
    async firstSeenUsers(): Promise<string[]> {
      return [];
    },
  };
}
const base = { environmentId: 'env', from: new Date('2026-10-01T00:00:00Z'), to: new Date('2026-11-01T00:00:00Z') };

describe('BatchedUsage', () => {
  it('answers per-agent queries of one range from one grouped query', async () => {
    const s = source();
    const b = new BatchedUsage(s);
    const [one, two] = await Promise.all([
      b.query({ ...base, groupBy: 'agent', agentInstanceIds: ['a1'] }),
      b.query({ ...base, groupBy: 'agent', agentInstanceIds: ['a2', 'a3'] }),
    ]);
    expect(one.map((r) => [r.agent_instance_id, r.actions])).toEqual([['a1', '5']]);
    expect(two.map((r) => [r.agent_instance_id, r.actions])).toEqual([['a2', '7'], ['a3', '9']]);
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatchObject({ groupBy: 'agent' });
    expect(s.calls[0]!.agentInstanceIds).toBeUndefined();
  });

  it('gives an agent list\'s rows in the source\'s order, each once, whatever the order and repeats of the ids', async () => {
    const b = new BatchedUsage(source());
    const rows = await b.query({ ...base, groupBy: 'agent', agentInstanceIds: ['a3', 'a1', 'a3', 'nobody'] });
    expect(rows.map((r) => [r.agent_instance_id, r.actions])).toEqual([['a1', '5'], ['a3', '9']]);
    const one = await b.query({ ...base, groupBy: 'agent', agentInstanceIds: ['a2'], accountIds: ['acc2'] });
    expect(one).toEqual([]);
  });

  it('answers one-account queries from the (agent, account) grouping, without the account column', async () => {
    const s = source();
    const b = new BatchedUsage(s);
    const rows = await b.query({ ...base, groupBy: 'agent', accountIds: ['acc1'] });
    expect(rows.map((r) => [r.agent_instance_id, r.actions])).toEqual([['a1', '5'], ['a2', '7']]);
    expect(rows[0]).not.toHaveProperty('account_id');
    expect(s.calls[0]).toMatchObject({ groupBy: 'agent_account' });
  });

  it.each([
    ['no grouping', { groupBy: 'none' as const }],
    ['several accounts', { groupBy: 'agent' as const, accountIds: ['acc1', 'acc2'] }],
    ['a type filter', { groupBy: 'agent' as const, actionTypes: ['x'] }],
  ])('passes %s through unchanged', async (_n, extra) => {
    const s = source();
    await new BatchedUsage(s).query({ ...base, ...extra });
    expect(s.calls[0]).toMatchObject(extra);
  });

  it('keeps ranges apart', async () => {
    const s = source();
    const b = new BatchedUsage(s);
    await b.query({ ...base, groupBy: 'agent', agentInstanceIds: ['a1'] });
    await b.query({ ...base, to: new Date('2026-10-15T00:00:00Z'), groupBy: 'agent', agentInstanceIds: ['a1'] });
    expect(s.calls).toHaveLength(2);
  });
});
