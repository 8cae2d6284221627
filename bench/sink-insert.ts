/**
 * npx tsx bench/sink-insert.ts — the sink's insert paths into chDB, compared on the same
 * rows: ROWS realistic actions (decoded wire batches of BATCH events), inserted INSERT_ROWS
 * at a time into the real `actions` table (migrations, its materialized view, plus
 * `stream_seq`). Each path is timed end to end from decoded batches (rows built in JS +
 * the insert), REPEAT times; the table shows medians and the ratio to the current path.
 * Options (env): ROWS (200000), BATCH (1000), INSERT_ROWS (50000), REPEAT (3), PATHS (a regular
 * expression: only the paths whose names match).
 */
import { chdbRawOf, openClickHouse, type ChdbRaw, type ClickHouseClient } from '../shared/clickhouse/client.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { decodeBatch, encodeBatch, type WireBatch, type WireEvent } from '../shared/events/wire.ts';
import { encodeNativeBatch, readNativeBatch } from '../shared/events/native-batch.ts';
import { ACTION_COLUMNS, ACTION_TABLE } from '../shared/events/tables.ts';
import { NativeBlock } from '../ingest/sink/native.ts';
import { chdbNativeInserter } from '../ingest/sink/chdb-file-insert.ts';
import { actionsTsv } from '../ingest/sink/tsv.ts';
import { tsvInserter } from '../ingest/sink/tsv-insert.ts';

const ROWS = Number(process.env.ROWS ?? 200_000);
const BATCH = Number(process.env.BATCH ?? 1000);
const INSERT_ROWS = Number(process.env.INSERT_ROWS ?? 50_000);
const REPEAT = Number(process.env.REPEAT ?? 3);
const DB = 'sink_bench';

/** A wire batch as the sink receives it: decoded (format 3), and as messages of format 3 (msgpack) and 4 (Native columns). */
type Group = { batch: WireBatch; seq: number; v3: Uint8Array; v4: Uint8Array }[];

/** Events like the ingest benchmark's: one environment, a few agents and users, small JSON metadata. */
function makeBatches(): Group {
  const out: Group = [];
  const now = Date.now();
  for (let start = 0, seq = 1; start < ROWS; start += BATCH, seq++) {
    const events: WireEvent[] = [];
    for (let i = start; i < Math.min(ROWS, start + BATCH); i++) {
      events.push({
        k: 1, env: 'env_01JDEVELOPMENT000000000000', org: 'org_01JORGANIZATION00000000000', agent: `ai_01JAGENT${i % 8}`.padEnd(29, '0'),
        acct: i % 3 ? 'acct_42' : '', id: `evt_01J${(i * 7919).toString(36).padStart(20, '0')}`, src: 2, type: 'llm_call',
        ts: now - (i % 1000), ing: now, uid: `user-${i % 500}`, anon: '', model: 'gpt-4o', tin: 1200, tout: 300, ttot: 1500,
        meta: JSON.stringify({ model: 'gpt-4o', input_tokens: 1200, output_tokens: 300, prompt: i % 10 ? 'hi' : 'say "hi"\n' }), val: '',
      });
    }
    const v3 = encodeBatch(events);
    out.push({ batch: decodeBatch(v3), seq, v3, v4: encodeNativeBatch(events) });
  }
  return out;
}

/** Groups decoded batches into the sink's inserts of about INSERT_ROWS rows. */
function groups(batches: Group): Group[] {
  const gs: Group[] = [[]];
  let n = 0;
  for (const b of batches) {
    if (n >= INSERT_ROWS) gs.push([]), (n = 0);
    gs.at(-1)!.push(b);
    n += b.batch.n;
  }
  return gs;
}

type Path = { name: string; build: (g: Group) => unknown; insert: (rows: unknown) => Promise<unknown> };

const ID_SOURCE = ['', 'client', 'server'] as const;

/** The previous sink's rows (JSONCompactEachRow values for `@clickhouse/client`), the baseline. */
function jsonRows(g: Group): unknown[][] {
  const actions: unknown[][] = [];
  for (const { batch: b, seq } of g) {
    const d = b.dict;
    for (let i = 0; i < b.n; i++) {
      actions.push([d[b.env[i]!], d[b.org[i]!], d[b.agent[i]!], d[b.acct[i]!], b.id[i], ID_SOURCE[b.src[i]!], d[b.type[i]!], b.ts[i], b.ing[i], d[b.uid[i]!], d[b.anon[i]!], d[b.model[i]!], b.tin[i], b.tout[i], b.ttot[i], b.meta[i], seq]);
    }
  }
  return actions;
}

/** The sink's TSV: one Buffer per wire batch, joined. */
function tsvBuffer(g: Group): Buffer {
  return Buffer.concat(g.map(({ batch, seq }) => Buffer.from(actionsTsv(batch, seq))));
}

/** The sink's Native block: every wire batch of the insert into one block. */
function nativeBlock(g: Group): Buffer[] {
  const block = new NativeBlock(ACTION_TABLE, true);
  for (const { batch, seq } of g) block.add(batch, seq);
  return block.chunks();
}

/** The sink's block from messages of wire format 3: each decoded (msgpackr, JS strings), then written value by value. */
function nativeFromV3(g: Group): Buffer[] {
  const block = new NativeBlock(ACTION_TABLE, true);
  for (const { v3, seq } of g) block.add(decodeBatch(v3), seq);
  return block.chunks();
}

/** The sink's block from messages of wire format 4: each column checked, then copied as bytes. */
function nativeFromV4(g: Group): Buffer[] {
  const block = new NativeBlock(ACTION_TABLE, true);
  for (const { v4, seq } of g) block.append(readNativeBatch(v4).actions, seq);
  return block.chunks();
}

function jsonBuffer(g: Group): Buffer {
  return Buffer.from(jsonRows(g).map((r) => JSON.stringify(r) + '\n').join(''));
}

function paths(ch: ClickHouseClient, chdb: ChdbRaw): Path[] {
  const table = `${DB}.actions`;
  const columns = [...ACTION_COLUMNS] as [string, ...string[]];
  const native = chdbNativeInserter(ch);
  const raw = (format: 'TabSeparated' | 'JSONCompactEachRow', settings: Record<string, number>) => (v: unknown) =>
    chdb.rawInsert({ table, values: v as Buffer, format, columns, settings });
  const sinkInsert = tsvInserter(ch);
  const all: Path[] = [
    { name: 'previous: JSONCompactEachRow rows via @clickhouse/client', build: jsonRows, insert: (v) => ch.insert({ table, values: v as unknown[][], format: 'JSONCompactEachRow', columns }) },
    { name: 'TSV via @clickhouse/client (stream; the server path)', build: tsvBuffer, insert: (v) => ch.insert({ table, values: Readable.from([v as Buffer], { objectMode: false }), format: 'TabSeparated', columns }) },
    { name: 'JSONCompactEachRow Buffer, chdb rawInsert', build: jsonBuffer, insert: raw('JSONCompactEachRow', {}) },
    { name: 'TSV Buffer, chdb rawInsert, parallel parsing', build: tsvBuffer, insert: raw('TabSeparated', {}) },
    { name: 'TSV Buffer, chdb rawInsert, no parallel parsing (the sink with TALLY_SINK_INSERT_FORMAT=tsv)', build: tsvBuffer, insert: (v) => sinkInsert(table, columns, v as Buffer) },
    { name: 'Native through a file, from decoded batches', build: nativeBlock, insert: (v) => native(table, ACTION_TABLE, v as Buffer[]) },
    { name: 'Native through a file, from wire format 3 messages (decoded, then written value by value)', build: nativeFromV3, insert: (v) => native(table, ACTION_TABLE, v as Buffer[]) },
    { name: 'Native through a file, from wire format 4 messages (columns copied; the sink now, with chDB)', build: nativeFromV4, insert: (v) => native(table, ACTION_TABLE, v as Buffer[]) },
  ];
  return all.filter((p) => !process.env.PATHS || new RegExp(process.env.PATHS).test(p.name));
}

async function main() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-sink-bench-'));
  const ch = await openClickHouse({ chdbPath: dir } as Parameters<typeof openClickHouse>[0]);
  try {
    await migrateClickHouse(ch, DB);
    // The column the sink now writes (added by a concurrent schema change; added here if missing).
    await ch.command({ query: `ALTER TABLE ${DB}.actions ADD COLUMN IF NOT EXISTS stream_seq UInt64` });
    const gs = groups(makeBatches());
    console.log(`# sink insert paths — ${ROWS} action rows, ${BATCH}-event batches, ${gs.length} inserts of ~${INSERT_ROWS} rows, median of ${REPEAT}, ${os.cpus().length} cores\n`);
    const results: { name: string; buildUs: number; totalUs: number; cpuUs: number }[] = [];
    const ps = paths(ch, chdbRawOf(ch)!);
    const times = new Map<string, { build: number[]; total: number[]; cpu: number[] }>(ps.map((p) => [p.name, { build: [], total: [], cpu: [] }]));
    // Interleaved repeats: each path sees the same machine conditions.
    for (let r = 0; r < REPEAT; r++) {
      for (const p of ps) {
        await ch.command({ query: `TRUNCATE TABLE ${DB}.actions` });
        let build = 0;
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        for (const g of gs) {
          const b0 = performance.now();
          const v = p.build(g);
          build += performance.now() - b0;
          await p.insert(v);
        }
        const total = performance.now() - t0;
        const cpu = process.cpuUsage(cpu0);
        const rs = await ch.query({ query: `SELECT count() AS n, sum(stream_seq) AS s FROM ${DB}.actions`, format: 'JSONEachRow' });
        const n = (await rs.json<{ n: string }>())[0]?.n;
        if (Number(n) !== ROWS) throw new Error(`${p.name}: ${n} rows, expected ${ROWS}`);
        times.get(p.name)!.build.push(build);
        times.get(p.name)!.total.push(total);
        times.get(p.name)!.cpu.push((cpu.user + cpu.system) / 1000);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    for (const p of ps) results.push({ name: p.name, buildUs: (med(times.get(p.name)!.build) * 1000) / ROWS, totalUs: (med(times.get(p.name)!.total) * 1000) / ROWS, cpuUs: (med(times.get(p.name)!.cpu) * 1000) / ROWS });
    const base = results[0]!.totalUs;
    console.log('| path | JS build µs/row | total µs/row | CPU µs/row (engine threads too) | rows/s | speed vs the first |');
    console.log('|---|---|---|---|---|---|');
    for (const r of results) {
      console.log(`| ${r.name} | ${r.buildUs.toFixed(2)} | ${r.totalUs.toFixed(2)} | ${r.cpuUs.toFixed(2)} | ${Math.round(1e6 / r.totalUs).toLocaleString('en-US')} | ${(base / r.totalUs).toFixed(2)}x |`);
    }
    console.log('\nJS build: rows, text or blocks made from the batches or messages (the JSON path serializes inside client.insert, counted in total).');
    console.log('The sink now also inserts with optimize_on_insert=0 (ingest/sink/tsv-insert.ts); the other paths use defaults.');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
process.exit(0);
