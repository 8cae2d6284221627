/**
 * What one agent's usage query (GET /v1/usage?agent_id=…, `UsageStore.query`) costs the
 * engine, by how many parts the actions table holds: INSERTS inserts (default 10) of ROWS
 * rows (200,000) of one agent, each with 3 rows of a second agent, whose usage is then
 * asked 50 times (after 50 to warm up). Prints the parts, the query's wall time and this
 * process's CPU (chDB runs in it), and the same for `SELECT 1` and a plain count of the
 * second agent's rows: the engine pays per part, however few rows match.
 *   INSERTS=25 node --import tsx bench/usage-query.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openClickHouse } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { ACTION_TABLE } from '../shared/events/tables.ts';
import { chdbNativeInserter } from '../ingest/sink/chdb-file-insert.ts';
import { NativeBlock } from '../ingest/sink/native.ts';
import { UsageStore } from '../billing/usage/usage-query.ts';
import { llmCallBatch } from './llm-call-events.ts';

const INSERTS = Number(process.env.INSERTS ?? 10);
const ROWS = Number(process.env.ROWS ?? 200_000);
const N = 50;
const DB = 'usage_query';
const ENV = 'env_01JDEVELOPMENT000000000000';
const PROBE = 'ai_01JPROBE00000000000000000';

/** Wall ms and CPU ms (this process: chDB's threads too) an iteration of `f`, over N after N to warm up. */
async function timed(f: () => Promise<unknown>): Promise<{ wallMs: number; cpuMs: number }> {
  for (let i = 0; i < N; i++) await f();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await f();
  const cpu = process.cpuUsage(cpu0);
  return { wallMs: (performance.now() - t0) / N, cpuMs: (cpu.user + cpu.system) / 1000 / N };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-usage-query-'));
const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
try {
  await migrateClickHouse(ch, DB);
  const insert = chdbNativeInserter(ch);
  const start = Date.now() - 60_000;
  for (let i = 0; i < INSERTS; i++) {
    const block = new NativeBlock(ACTION_TABLE, true);
    for (let at = i * ROWS; at < (i + 1) * ROWS; at += 100) block.add(llmCallBatch(start, at, 100, () => 'ai_01JAGENT00000000000000000'), i + 1);
    block.add(llmCallBatch(start, 0, 3, () => PROBE), i + 1);
    await insert(`${DB}.actions`, ACTION_TABLE, [Buffer.concat(block.chunks())]);
  }
  const [parts] = await (await ch.query({ query: `SELECT count() AS parts, sum(rows) AS rows FROM system.parts WHERE database = '${DB}' AND table = 'actions' AND active`, format: 'JSONEachRow' })).json<{ parts: string; rows: string }>();
  const store = new UsageStore(ch, DB);
  const usage = { environmentId: ENV, from: new Date(start - 3600_000), to: new Date(start + 2 * 3600_000), groupBy: 'agent' as const, agentInstanceIds: [PROBE] };
  const sql = (query: string) => () => ch.query({ query, format: 'JSONEachRow' }).then((r) => r.json());
  console.log(`${Number(parts!.rows).toLocaleString('en-US')} rows in ${parts!.parts} parts; ${N} queries each\n\n| query | wall ms | CPU ms |\n|---|---|---|`);
  for (const [label, f] of [
    ['`SELECT 1`', sql('SELECT 1')],
    ["a count of the second agent's rows, no FINAL", sql(`SELECT count() FROM ${DB}.actions PREWHERE environment_id = '${ENV}' AND agent_instance_id IN ['${PROBE}']`)],
    ["the second agent's usage (`UsageStore.query`: actions and outcomes, FINAL)", () => store.query(usage)],
  ] as const) {
    const t = await timed(f);
    console.log(`| ${label} | ${t.wallMs.toFixed(2)} | ${t.cpuMs.toFixed(2)} |`);
  }
} finally {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${DB} SYNC` }).catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}
