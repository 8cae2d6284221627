/**
 * The sink's reference: ROWS action rows like the ingest benchmark's, built as RowBinary
 * in memory before the clock starts, inserted into a fresh `actions` table (Tally's
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
import { decodeBatch, encodeBatch, type WireEvent } from '../shared/events/wire.ts';
import { chdbRowBinaryInserter } from '../ingest/sink/chdb-file-insert.ts';
import { actionsRowBinary, RowBinaryWriter } from '../ingest/sink/rowbinary.ts';
import { ACTION_TABLE } from '../ingest/sink/rows.ts';

const ROWS = Number(process.argv[2] ?? 1_000_000);
const INSERT_ROWS = Number(process.argv[3] ?? 100_000);
const DB = 'reference_insert';

/** The ingest benchmark's event (an LLM call of one agent), as the sink receives it. */
function chunk(first: number, n: number, seq: number): Buffer {
  const now = Date.now();
  const events: WireEvent[] = [];
  for (let i = first; i < first + n; i++) {
    events.push({
      k: 1, env: 'env_01JDEVELOPMENT000000000000', org: 'org_01JORGANIZATION00000000000', agent: 'ai_01JAGENT00000000000000000', acct: '',
      id: `evt_01J${i.toString(36).padStart(22, '0')}`, src: 2, type: 'llm_call', ts: now, ing: now, uid: '', anon: '', model: 'gpt-4o',
      tin: 1200, tout: 300, ttot: 1500, meta: '{"model":"gpt-4o","input_tokens":1200,"output_tokens":300}', val: '',
    });
  }
  const w = new RowBinaryWriter();
  actionsRowBinary(decodeBatch(encodeBatch(events)), seq, w);
  return Buffer.from(w.bytes());
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-reference-insert-'));
const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
try {
  await migrateClickHouse(ch, DB);
  const chunks: Buffer[] = [];
  for (let first = 0, seq = 1; first < ROWS; first += INSERT_ROWS, seq++) chunks.push(chunk(first, Math.min(INSERT_ROWS, ROWS - first), seq));
  const insert = chdbRowBinaryInserter(ch);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (const c of chunks) await insert(`${DB}.actions`, ACTION_TABLE, c);
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
