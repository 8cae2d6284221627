/**
 * Storage per event, measured (docs/operations.md, sizing): generates
 * `SIZING_ROWS` (default 1,000,000) realistic actions into Tally's schema in a
 * throw-away chDB directory, folds them into `cost_events` as the cost rollup keeps
 * them, merges (OPTIMIZE … FINAL, as background merges eventually do) and prints
 * bytes on disk per row from `system.parts`.
 *   node --import tsx shared/clickhouse/storage-sizing.ts
 * Rows: 50 environments, 5,000 agent instances, 2 % resent copies, time-ordered
 * server-style event ids, 10 action types, 6 models, token counts, ~120-byte JSON
 * metadata, one month of timestamps. Not part of the tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openClickHouse } from './client.ts';
import { migrateClickHouse } from './schema.ts';

const ROWS = Number(process.env.SIZING_ROWS ?? 1_000_000);
const DB = 'sizing';

const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-sizing-'));
try {
  const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
  await migrateClickHouse(ch, DB);
  const run = (query: string) => ch.command({ query });
  // n: the event; every 50th is stored twice (a resent copy, a second later).
  await run(`INSERT INTO ${DB}.actions (environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, action_type, ts, ingested_at, user_id, anonymous_id, model, input_tokens, output_tokens, total_tokens, metadata, stream_seq)
    SELECT concat('env_01JD', leftPad(toString(e), 22, '0')), concat('org_01JD', leftPad(toString(e % 20), 22, '0')),
      concat('ai_01JD', leftPad(hex(cityHash64(a)), 22, '0')), concat('acct_', toString(a % 2000)),
      concat('evt_', hex(toUnixTimestamp64Milli(t)), substring(hex(cityHash64(n, 1)), 1, 16)), 'server',
      ['llm_call', 'tool_call', 'search', 'email_sent', 'crm_update', 'hire_step', 'retrieval', 'summarize', 'classify', 'translate'][n % 10 + 1],
      t, t + toIntervalMillisecond(20 + n % 200 + copy * 1000), if(n % 3 = 0, concat('user-', toString(n % 10000)), ''), '',
      if(n % 10 < 4, ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4', 'claude-haiku', 'gemini-2.5-pro', 'llama-3.1-70b'][n % 6 + 1], ''),
      if(n % 10 < 4, 200 + cityHash64(n, 2) % 4000, 0) AS inp, if(n % 10 < 4, 50 + cityHash64(n, 3) % 800, 0) AS outp, inp + outp,
      concat('{"session":"s-', toString(n % 100000), '","step":', toString(n % 17), ',"latency_ms":', toString(cityHash64(n, 4) % 3000),
        ',"status":"', ['ok', 'ok', 'ok', 'retry', 'error'][n % 5 + 1], '","region":"', ['us-east-1', 'eu-west-1', 'ap-south-1'][n % 3 + 1], '"}'),
      n + copy
    FROM (SELECT number AS n, number % 50 AS e, cityHash64(number) % 5000 AS a,
            toDateTime64('2026-10-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(intDiv(number * 2678400000, ${ROWS})) AS t
          FROM numbers(${ROWS}))
    ARRAY JOIN if(n % 50 = 0, [0, 1], [0]) AS copy`);
  await run(`INSERT INTO ${DB}.cost_events (environment_id, agent_instance_id, event_id, rank, folded_seq, ts, account_id, action_type, model, input_tokens, output_tokens, total_tokens, metadata)
    SELECT environment_id, agent_instance_id, event_id, first_seen_rank, stream_seq, ts, account_id, action_type, model, input_tokens, output_tokens, total_tokens, metadata FROM ${DB}.actions FINAL`);
  for (const t of ['actions', 'cost_events']) await run(`OPTIMIZE TABLE ${DB}.${t} FINAL`);
  const rs = await ch.query({
    query: `SELECT table, sum(rows) AS rows, sum(bytes_on_disk) AS bytes, sum(data_uncompressed_bytes) AS raw FROM system.parts WHERE database = '${DB}' AND active AND table IN ('actions', 'cost_events') GROUP BY table ORDER BY table`,
    format: 'JSONEachRow',
  });
  for (const r of await rs.json<{ table: string; rows: number; bytes: number; raw: number }>()) {
    console.log(`${r.table}: ${r.rows} rows, ${(r.bytes / 1e6).toFixed(1)} MB on disk (${(r.bytes / r.rows).toFixed(1)} B/row; ${(r.raw / r.rows).toFixed(1)} B/row uncompressed) -> ${(r.bytes / r.rows).toFixed(0)} GB per billion rows`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
