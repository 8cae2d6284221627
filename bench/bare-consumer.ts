/**
 * The sink's architectural reference (issue 34): a bare consumer that pulls a JetStream
 * stream's event batches exactly as the sink's consumer pulls them (same consumer config,
 * same pull sizes, same batch closing, same in-flight inserts, explicit acks after the
 * insert) and inserts them into chDB (in-process, a data directory on disk, as the sink
 * runs it) in the engine's cheapest format, with no Tally code in between: no checks, no
 * dead letters, no progress records, no metrics.
 *
 * Decoding is the least there is: a wire-format-4 message already holds each column's
 * Native data (shared/events/native-batch.ts), so each message becomes one Native block
 * per table by adding the block and column headers around views of its bytes (a
 * LowCardinality column gets its 24-byte prefix and row count; `stream_seq` is filled
 * with the message's sequence). A batch's blocks go to the engine as one file of many
 * blocks (`INSERT ... SELECT * FROM file(..., Native)`, what the sink and the raw-insert
 * reference use: chDB's raw insert takes text formats only); the engine squashes them.
 *
 *   node --import tsx bench/bare-consumer.ts <stream> <consumer>
 *
 * Creates the durable consumer, prints `ready` once chDB is open and migrated, then
 * consumes until SIGTERM, when it prints `{"rows": N}` (the rows it stored) and exits. The caller (bench/ingest.ts) measures: it polls the consumer
 * until nothing is pending or unacknowledged, as it does for the sink, and reads this
 * process's and nats-server's CPU.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from '@nats-io/jetstream';
import { openClickHouse } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { chdbNativeInserter } from '../ingest/sink/chdb-file-insert.ts';
import { parseSinkConfig } from '../ingest/sink/config.ts';
import { pullMaxMessages } from '../ingest/sink/sink.ts';
import { ACTION_TABLE, OUTCOME_TABLE, type SinkColumn } from '../shared/events/tables.ts';

const [stream, consumerName] = process.argv.slice(2) as [string, string];
const DB = 'bare_consumer';
// The sink's own settings (defaults unless the environment sets them, as for the sink).
const cfg = parseSinkConfig(process.env);

// --- Native blocks from wire-format-4 messages -------------------------------------

const leb = (v: number): Buffer => {
  const out: number[] = [];
  while (v >= 0x80) out.push((v & 0x7f) | 0x80), (v >>>= 7);
  out.push(v);
  return Buffer.from(out);
};
const str = (s: string) => Buffer.concat([leb(Buffer.byteLength(s)), Buffer.from(s)]);
const u64 = (v: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
};
/** Per table: each column's Native header (name, type), and whether it is LowCardinality or stream_seq. */
const layout = (table: readonly SinkColumn[]) => table.map(([name, type, field]) => ({ head: Buffer.concat([str(name), str(type)]), lc: type === 'LowCardinality(String)', seq: field === 'seq' }));
const TABLES = [
  { columns: ACTION_TABLE, layout: layout(ACTION_TABLE), name: 'actions' },
  { columns: OUTCOME_TABLE, layout: layout(OUTCOME_TABLE), name: 'outcomes' },
] as const;
/** LowCardinality prefix: key serialization version 1; index type (width bits | has additional keys | update dictionary). */
const LC_VERSION = u64(1);
const LC_TYPE = [0, 1, 2].map((bits) => u64(bits | (1 << 9) | (1 << 10)));

/** Where a LowCardinality wire column's keys start and end, and their count (a LEB128 count, then Native Strings). */
function lcKeys(d: Buffer): { count: number; from: number; to: number } {
  const varint = (at: number): [number, number] => {
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      const b = d[at++]!;
      v += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return [v, at];
    }
  };
  const [count, from] = varint(0);
  let at = from;
  for (let k = 0; k < count; k++) {
    const [len, next] = varint(at);
    at = next + len;
  }
  return { count, from, to: at };
}

/** Appends to `out[t]` one Native block per table of a wire-format-4 message; returns its rows. */
function addMessage(data: Uint8Array, seq: number, out: Buffer[][]): number {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf[0] !== 4) throw new Error(`wire format ${buf[0]}: the bare consumer reads format 4 only`);
  const counts = [buf.readUInt32LE(1), buf.readUInt32LE(5)];
  let at = 9;
  for (let t = 0; t < 2; t++) {
    const rows = counts[t]!;
    if (rows === 0) continue;
    const table = TABLES[t]!;
    const pieces = out[t]!;
    pieces.push(leb(table.layout.length), leb(rows));
    for (const c of table.layout) {
      pieces.push(c.head);
      if (c.seq) {
        const s = Buffer.allocUnsafe(8 * rows);
        for (let j = 0; j < rows; j++) s.writeUInt32LE(seq % 2 ** 32, 8 * j), s.writeUInt32LE(Math.floor(seq / 2 ** 32), 8 * j + 4);
        pieces.push(s);
        continue;
      }
      const len = buf.readUInt32LE(at);
      const col = buf.subarray(at + 4, at + 4 + len);
      at += 4 + len;
      if (!c.lc) {
        pieces.push(col);
        continue;
      }
      const k = lcKeys(col);
      const bits = k.count <= 0x100 ? 0 : k.count <= 0x10000 ? 1 : 2;
      pieces.push(LC_VERSION, LC_TYPE[bits]!, u64(k.count), col.subarray(k.from, k.to), u64(rows), col.subarray(k.to));
    }
  }
  return counts[0]! + counts[1]!;
}

// --- The consumer, as the sink's (ingest/sink/sink.ts) -------------------------------

const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-bare-consumer-'));
const ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: DB, chdbPath: dir });
await migrateClickHouse(ch, DB);
const insert = chdbNativeInserter(ch);
const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
const jsm = await jetstreamManager(nc);
await jsm.consumers.add(stream, {
  durable_name: consumerName,
  ack_policy: AckPolicy.Explicit,
  deliver_policy: DeliverPolicy.All,
  ack_wait: cfg.ackWaitMs * 1_000_000,
  max_ack_pending: 100_000,
  max_waiting: 512,
});

let running = true;
process.once('SIGTERM', () => {
  running = false;
  void (async () => {
    // The rows it stored, for the caller to check against the stream's events.
    const rs = await ch.query({ query: `SELECT (SELECT count() FROM ${DB}.actions) + (SELECT count() FROM ${DB}.outcomes) AS n`, format: 'JSONEachRow' });
    process.stdout.write(JSON.stringify({ rows: Number((await rs.json<{ n: string }>())[0]!.n) }) + '\n');
    await ch.command({ query: `DROP DATABASE IF EXISTS ${DB} SYNC` }).catch(() => {});
    rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    process.exit(0);
  })();
});
process.stdout.write('ready\n');

const sleep = (ms: number) => new Promise<undefined>((r) => setTimeout(() => r(undefined), ms));
const consumer = await jetstream(nc).consumers.get(stream, consumerName);
const maxMessages = pullMaxMessages(cfg.pullMaxBytes, nc.info?.max_payload);
const messages = await consumer.consume({ max_messages: maxMessages, threshold_messages: Math.max(1, Math.floor(maxMessages / 4)), expires: 30_000, idle_heartbeat: 15_000 });
const it = messages[Symbol.asyncIterator]();
let next = it.next();
const inflight = new Set<Promise<void>>();

async function process1(batch: JsMsg[]): Promise<void> {
  const out: Buffer[][] = [[], []];
  for (const m of batch) addMessage(m.data, m.seq, out);
  await Promise.all(TABLES.map((t, i) => out[i]!.length > 0 && insert(`${DB}.${t.name}`, t.columns, out[i]!)));
  for (const m of batch) m.ack();
}

while (running) {
  // A batch closes at the sink's message count, bytes, or linger (its first message's wait).
  const batch: JsMsg[] = [];
  let bytes = 0;
  let linger: Promise<undefined> | undefined;
  for (;;) {
    const r = await Promise.race([next, linger ?? sleep(500)]);
    if (r === undefined) {
      if (batch.length > 0 || !running) break;
      continue;
    }
    if (r.done) throw new Error('consumer iterator ended');
    next = it.next();
    linger ??= sleep(cfg.batchLingerMs);
    batch.push(r.value);
    bytes += r.value.data.length;
    if (batch.length >= cfg.fetchMessages || bytes >= cfg.batchMaxBytes) break;
  }
  if (batch.length === 0) continue;
  if (inflight.size >= cfg.maxInflightBatches) await Promise.race(inflight);
  const p: Promise<void> = process1(batch).finally(() => inflight.delete(p));
  inflight.add(p);
}
