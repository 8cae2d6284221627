/**
 * What chDB costs by Native block size: ROWS action rows inserted INSERT_ROWS at a time,
 * each insert's file holding blocks of BLOCK_ROWS rows. Why the sink merges the columns of
 * its messages into one block instead of passing each message's block through (100-row
 * blocks cost the engine about 3x as much CPU a row as 100,000-row ones). Prints one JSON line.
 *   node --import tsx bench/block-size.ts [rows] [insert rows] [block rows]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { openClickHouse } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { llmCallBatch } from './llm-call-events.ts';
import { chdbNativeInserter } from '../ingest/sink/chdb-file-insert.ts';
import { NativeBlock } from '../ingest/sink/native.ts';
import { ACTION_TABLE } from '../shared/events/tables.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const INSERT_ROWS = Number(process.argv[3] ?? 100_000);
const BLOCK_ROWS = Number(process.argv[4] ?? 100_000);
const DB = 'exp_blocks';
const start = Date.now();
const batch = (first: number, n: number) => llmCallBatch(start, first, n, (i) => 'ai_01JAGENT00000000000' + (i % 50));
function chunk(first: number, n: number, seq: number): Buffer[] {
  const out: Buffer[] = [];
  for (let b = first; b < first + n; b += BLOCK_ROWS) {
    const block = new NativeBlock(ACTION_TABLE, true);
    const end = Math.min(first + n, b + BLOCK_ROWS);
    for (let at = b; at < end; at += 100) block.add(batch(at, Math.min(100, end - at)), seq);
    out.push(Buffer.concat(block.chunks()));
  }
  return out;
}
const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-exp-'));
const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
try {
  await migrateClickHouse(ch, DB);
  const chunks: Buffer[][] = [];
  for (let first = 0, seq = 1; first < ROWS; first += INSERT_ROWS, seq++) chunks.push(chunk(first, Math.min(INSERT_ROWS, ROWS - first), seq));
  const insert = chdbNativeInserter(ch);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const c of chunks) await insert(`${DB}.actions`, ACTION_TABLE, c);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rs = await ch.query({ query: `SELECT count() AS n FROM ${DB}.actions`, format: 'JSONEachRow' });
  const n = Number((await rs.json<{ n: string }>())[0]!.n);
  if (n !== ROWS) throw new Error(`inserted ${n} rows, expected ${ROWS}`);
  process.stdout.write(JSON.stringify({ blockRows: BLOCK_ROWS, rows: ROWS, seconds, rowsPerSec: Math.round(ROWS / seconds), cpuUsPerRow: (cpu.user + cpu.system) / ROWS }) + '\n');
} finally {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${DB} SYNC` }).catch(() => {});
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
process.exit(0);
