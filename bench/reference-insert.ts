/**
 * The sink's reference: ROWS action rows like the ingest benchmark's, built as Native
 * blocks (the cheapest input the engine takes) in memory before the clock starts, inserted into a fresh `actions` table (Tally's
 * migrations) INSERT_ROWS at a time the way the sink inserts into chDB. No NATS, no
 * decoding, no row building: what the engine itself costs. Prints one JSON line:
 * `{rows, seconds, rowsPerSec, cpuUsPerRow}` (CPU: this process, engine threads included).
 *   node --import tsx bench/reference-insert.ts [rows] [insert rows]
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
const DB = 'reference_insert';

/**
 * The ingest benchmark's events (LLM calls of one agent, ids and times assigned as ingest
 * assigns them at about 200,000 events/s), as the sink receives them (100 a message), as
 * one Native block.
 */
function chunk(first: number, n: number, seq: number): Buffer {
  const block = new NativeBlock(ACTION_TABLE, true);
  for (let at = first; at < first + n; at += 100) block.add(batch(at, Math.min(100, first + n - at)), seq);
  return Buffer.concat(block.chunks());
}

const start = Date.now();
const batch = (first: number, n: number) => llmCallBatch(start, first, n, () => 'ai_01JAGENT00000000000000000');

const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-reference-insert-'));
const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
try {
  await migrateClickHouse(ch, DB);
  const chunks: Buffer[] = [];
  for (let first = 0, seq = 1; first < ROWS; first += INSERT_ROWS, seq++) chunks.push(chunk(first, Math.min(INSERT_ROWS, ROWS - first), seq));
  const insert = chdbNativeInserter(ch);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const c of chunks) await insert(`${DB}.actions`, ACTION_TABLE, [c]);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const rs = await ch.query({ query: `SELECT count() AS n FROM ${DB}.actions`, format: 'JSONEachRow' });
  const n = Number((await rs.json<{ n: string }>())[0]!.n);
  if (n !== ROWS) throw new Error(`inserted ${n} rows, expected ${ROWS}`);
  process.stdout.write(JSON.stringify({ rows: ROWS, seconds, rowsPerSec: ROWS / seconds, cpuUsPerRow: (cpu.user + cpu.system) / ROWS }) + '\n');
} finally {
  // The engine's background work ends with the database; what it still holds goes at exit.
  await ch.command({ query: `DROP DATABASE IF EXISTS ${DB} SYNC` }).catch(() => {});
  try {
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  } catch {
    /* a temporary directory the system clears */
  }
}
process.exit(0);
