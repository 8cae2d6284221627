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
