/**
 * What the sink's inserts cost chDB once its merges are counted, by `merge_selector_base`
 * of the `actions` table: inserts of INSERT_ROWS (48,000) rows paced at RATE (240,000)
 * rows/s for SECONDS (20), as a sink that keeps up inserts during the ingest benchmark's
 * sustained run (a batch each 200 ms linger), each followed by its `sink_inserted`
 * record. The rows are the ingest benchmark's (one agent, ids and times as ingest assigns
 * them), built as Native blocks before the clock starts. ROUNDS (2) rounds alternate the
 * bases in BASES ("5,20": ClickHouse's default, then Tally's from migration 0005), each in
 * a process of its own (chDB takes one data directory a process). Prints CPU µs a row by
 * thread group (chDB's merge threads; its insert pipeline and other threads; Node's threads:
 * JavaScript, V8's helpers and the libuv thread each chDB query is called from) and the
 * parts left at the end.
 *   node --import tsx bench/sink-merges.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { openClickHouse } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { recordInserted } from '../shared/clickhouse/sink-progress.ts';
import { ACTION_TABLE } from '../shared/events/tables.ts';
import { chdbNativeInserter } from '../ingest/sink/chdb-file-insert.ts';
import { NativeBlock } from '../ingest/sink/native.ts';
import { llmCallBatch } from './llm-call-events.ts';

const RATE = Number(process.env.RATE ?? 240_000);
const INSERT_ROWS = Number(process.env.INSERT_ROWS ?? 48_000);
const SECONDS = Number(process.env.SECONDS ?? 20);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const BASES = (process.env.BASES ?? '5,20').split(',').map(Number);
const DB = 'sink_merges';

interface Result {
  base: number;
  rows: number;
  late: number;
  cpuUsPerRow: number;
  byThread: Record<string, number>;
  parts: number;
}

/** CPU ticks of this process's threads, summed by thread name without its trailing digits. */
function threadTicks(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/self/task/${t}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/\d+$/, '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    out.set(name, (out.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
  }
  return out;
}

/** Which part of the work a chDB or Node thread name belongs to. */
function group(name: string): string {
  if (name === 'MergeMutate') return 'merges';
  if (name === 'node') return 'Node threads';
  return 'inserts and the rest';
}

async function one(base: number): Promise<Result> {
  const start = Date.now();
  const batch = (first: number, n: number) => llmCallBatch(start, first, n, () => 'ai_01JAGENT00000000000000000');
  const chunk = (first: number, seq: number): Buffer => {
    const block = new NativeBlock(ACTION_TABLE, true);
    for (let at = first; at < first + INSERT_ROWS; at += 100) block.add(batch(at, Math.min(100, first + INSERT_ROWS - at)), seq);
    return Buffer.concat(block.chunks());
  };
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-sink-merges-'));
  const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
  try {
    await migrateClickHouse(ch, DB);
    await ch.command({ query: `ALTER TABLE ${DB}.actions MODIFY SETTING merge_selector_base = ${base}` });
    const inserts = Math.round((RATE * SECONDS) / INSERT_ROWS);
    const chunks = Array.from({ length: inserts }, (_, i) => chunk(i * INSERT_ROWS, i + 1));
    const insert = chdbNativeInserter(ch);
    const ticks0 = threadTicks();
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const every = (INSERT_ROWS / RATE) * 1000;
    let late = 0;
    for (const [i, c] of chunks.entries()) {
      const wait = t0 + i * every - performance.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      else if (i > 0) late++;
      await insert(`${DB}.actions`, ACTION_TABLE, [c]);
      await recordInserted(ch, DB, 'bench', Array.from({ length: INSERT_ROWS / 100 }, (_, k) => i * INSERT_ROWS + k + 1));
    }
    const cpu = process.cpuUsage(cpu0);
    const ticks = threadTicks();
    const rows = inserts * INSERT_ROWS;
    // Ticks are 1/100 s (USER_HZ): µs a row = ticks × 10,000 / rows.
    const byThread: Record<string, number> = {};
    for (const [name, t] of ticks) byThread[group(name)] = (byThread[group(name)] ?? 0) + ((t - (ticks0.get(name) ?? 0)) * 10_000) / rows;
    const rs = await ch.query({ query: `SELECT count() AS parts FROM system.parts WHERE database = '${DB}' AND table = 'actions' AND active`, format: 'JSONEachRow' });
    const parts = Number((await rs.json<{ parts: string }>())[0]!.parts);
    return { base, rows, late, cpuUsPerRow: (cpu.user + cpu.system) / rows, byThread, parts };
  } finally {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB} SYNC` }).catch(() => {});
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

if (process.argv[2] === '--one') {
  process.stdout.write(JSON.stringify(await one(Number(process.argv[3]))) + '\n');
  process.exit(0);
}

const self = fileURLToPath(import.meta.url);
const results: Result[] = [];
console.log(`Paced inserts of ${INSERT_ROWS.toLocaleString('en-US')} rows at ${RATE.toLocaleString('en-US')} rows/s for ${SECONDS} s, ${ROUNDS} rounds alternating merge_selector_base ${BASES.join(' / ')}`);
console.log('\n| round | base | CPU µs a row | merges | inserts and the rest | Node threads | parts at the end | late inserts |\n|---|---|---|---|---|---|---|---|');
for (let round = 1; round <= ROUNDS; round++) {
  for (const base of BASES) {
    const child = spawnSync(process.execPath, ['--import', 'tsx', self, '--one', String(base)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`round ${round}, base ${base}: exit ${child.status}`);
    const r = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Result;
    results.push(r);
    const t = (g: string) => (r.byThread[g] ?? 0).toFixed(2);
    console.log(`| ${round} | ${base} | ${r.cpuUsPerRow.toFixed(2)} | ${t('merges')} | ${t('inserts and the rest')} | ${t('Node threads')} | ${r.parts} | ${r.late} |`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]!;
console.log('\nMedians:');
for (const base of BASES) {
  const rs = results.filter((r) => r.base === base);
  console.log(`- base ${base}: ${median(rs.map((r) => r.cpuUsPerRow)).toFixed(2)} µs a row, of which merges ${median(rs.map((r) => r.byThread['merges'] ?? 0)).toFixed(2)}; ${median(rs.map((r) => r.parts))} parts at the end`);
}
