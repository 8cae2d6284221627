import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { openClickHouse, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../../shared/clickhouse/schema.ts';
import { UsageStore } from './usage-query.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import { uniqueSuffix } from '../../test/harness.ts';

const database = `u_${uniqueSuffix()}`;
let ch: ClickHouseClient;
let usage: UsageStore;
beforeAll(async () => {
  const cfg = parseCommonConfig({ TALLY_DATA_DIR: path.join(os.tmpdir(), `tally-test-${process.pid}`), CLICKHOUSE_DATABASE: database });
  ch = await openClickHouse(cfg.clickhouse);
  await migrateClickHouse(ch, database);
});
afterAll(async () => {
  await ch?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
});

const ms = (iso: string) => Date.parse(iso);
async function action(agent: string, id: string, ts: string, ingested: string, extra: Record<string, unknown> = {}) {
  await ch.insert({
    table: `${database}.actions`,
    values: [{ environment_id: 'env', organization_id: 'org', agent_instance_id: agent, account_id: 'acc', event_id: id, id_source: 'client', action_type: 'llm_call', ts: ms(ts), ingested_at: ms(ingested), user_id: '', anonymous_id: '', model: '', input_tokens: 0, output_tokens: 0, total_tokens: 0, metadata: '{}', ...extra }],
    format: 'JSONEachRow',
  });
}
const month = (agent: string, from: string, to: string) =>
  usage.query({ environmentId: 'env', from: new Date(from), to: new Date(to), groupBy: 'agent', agentInstanceIds: [agent] }).then((r) => r[0]?.actions ?? '0');

describe('UsageStore counts each event once', () => {
  it('counts copies of one id with timestamps in different months once, in the month of the first-ingested copy', async () => {
    usage = new UsageStore(ch, database);
    // First sent on Oct 31 (stamped then); resent a day later with a new timestamp in November.
    await action('a1', 'dup', '2026-10-31T23:00:00Z', '2026-10-31T23:00:01Z', { input_tokens: 7 });
    await action('a1', 'dup', '2026-11-01T01:00:00Z', '2026-11-02T00:00:00Z', { input_tokens: 99 });
    expect(await month('a1', '2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z')).toBe('1');
    expect(await month('a1', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z')).toBe('0');
    const [oct] = await usage.query({ environmentId: 'env', from: new Date('2026-10-01T00:00:00Z'), to: new Date('2026-11-01T00:00:00Z'), groupBy: 'agent', agentInstanceIds: ['a1'] });
    expect(oct!.input_tokens).toBe('7'); // the first copy's values, not the resend's
  });

  it('counts the same copy inserted twice (a sink redelivery) once, and distinct ids separately', async () => {
    for (let i = 0; i < 2; i++) await action('a2', 'redelivered', '2026-10-10T00:00:00Z', '2026-10-10T00:00:01Z');
    await action('a2', 'other', '2026-10-10T00:00:00Z', '2026-10-10T00:00:01Z');
    expect(await month('a2', '2026-10-01T00:00:00Z', '2026-11-01T00:00:00Z')).toBe('2');
  });

  it('reads copies up to 36 days apart, so a late copy in a later month never counts again', async () => {
    await action('a3', 'late', '2026-09-30T12:00:00Z', '2026-09-30T12:00:00Z');
    await action('a3', 'late', '2026-11-04T12:00:00Z', '2026-11-04T12:00:00Z'); // 35 days later, no timestamp sent
    expect(await month('a3', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z')).toBe('0');
    expect(await month('a3', '2026-09-01T00:00:00Z', '2026-10-01T00:00:00Z')).toBe('1');
  });
});

describe('UsageStore.firstSeenUsers: the period\'s distinct users, each in the window of their first action', () => {
  it('counts a user active in several windows once, leaves out the gaps between windows, and reads user_id else anonymous_id', async () => {
    usage = new UsageStore(ch, database);
    const act = (agent: string, id: string, ts: string, extra: Record<string, unknown>) => action(agent, id, ts, ts, extra);
    // Windows: Nov 1-10, (gap: a pause Nov 10-20), Nov 20-25, Nov 25-Dec 1.
    await act('f1', 'e1', '2026-11-02T00:00:00Z', { user_id: 'ann' });
    await act('f1', 'e2', '2026-11-21T00:00:00Z', { user_id: 'ann' }); // again after the pause: not again
    await act('f1', 'e3', '2026-11-12T00:00:00Z', { user_id: 'bob' }); // during the pause: not counted there
    await act('f1', 'e4', '2026-11-22T00:00:00Z', { user_id: 'bob' }); // first billable action of bob
    await act('f1', 'e5', '2026-11-23T00:00:00Z', { anonymous_id: 'anon-1' });
    await act('f1', 'e6', '2026-11-15T00:00:00Z', { user_id: 'cy' }); // only during the pause
    await act('f1', 'e7', '2026-11-26T00:00:00Z', { user_id: 'dee' });
    await act('f1', 'e8', '2026-11-27T00:00:00Z', { user_id: 'ann' });
    await act('f1', 'e9', '2026-11-28T00:00:00Z', {}); // no user
    await act('f2', 'e1', '2026-11-03T00:00:00Z', { user_id: 'eve' }); // another agent, out of scope
    const windows = [
      { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-10T00:00:00Z') },
      { from: new Date('2026-11-20T00:00:00Z'), to: new Date('2026-11-25T00:00:00Z') },
      { from: new Date('2026-11-25T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z') },
    ];
    expect(await usage.firstSeenUsers({ environmentId: 'env', windows, agentInstanceIds: ['f1'] })).toEqual(['1', '2', '1']);
    expect(await usage.firstSeenUsers({ environmentId: 'env', windows, agentInstanceIds: ['f1', 'f2'] })).toEqual(['2', '2', '1']);
    expect(await usage.firstSeenUsers({ environmentId: 'env', windows: windows.slice(1), agentInstanceIds: ['f1'] })).toEqual(['3', '1']);
    expect(await usage.firstSeenUsers({ environmentId: 'env', windows: [], agentInstanceIds: ['f1'] })).toEqual([]);
    // As it stood before the last ones arrived.
    expect(await usage.firstSeenUsers({ environmentId: 'env', windows, agentInstanceIds: ['f1'], ingestedBefore: new Date('2026-11-22T12:00:00Z') })).toEqual(['1', '1', '0']);
  });
});
