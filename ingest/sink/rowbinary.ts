import type { WireBatch } from '../../shared/events/wire.ts';

/**
 * Sink rows in ClickHouse's RowBinary format, in the column order of ACTION_COLUMNS and
 * OUTCOME_COLUMNS (rows.ts), built straight from a decoded wire batch. With chDB the
 * engine parses what the sink hands it in the sink's own process: RowBinary costs it
 * about half of what TabSeparated text does (bench/sink-insert.ts), and needs no escaping.
 *
 * Encodings (RowBinary): String and LowCardinality(String) as a LEB128 length and the
 * UTF-8 bytes; Enum8 as its Int8 value; DateTime64(3) as Int64 milliseconds; UInt64 as
 * 8 bytes little-endian; Decimal(38, 9) as the Int128 of value x 10^9, little-endian.
 *
 * TRICKY: the engine checks nothing of RowBinary on insert: an Enum8 value outside the
 * enum is stored, and every later read of the table fails on it. So the writer checks
 * each value as the text parser would (an enum value, a non-negative integer, a decimal)
 * and throws a RangeError instead; the sink sets such a message aside.
 */
export class RowBinaryWriter {
  /** The rows written so far are `buf[0, n)`. */
  buf: Buffer;
  n = 0;

  constructor(initialBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** The rows written so far (a view of the writer's buffer: use it before writing more). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.n);
  }

  /** Where the next row starts: {@link rewind} to it drops what was written since (a message that failed to encode). */
  get mark(): number {
    return this.n;
  }

  rewind(mark: number): void {
    this.n = mark;
  }

  /** The buffer, with room for `k` more bytes from `n` (grown by doubling). */
  room(k: number): Buffer {
    if (this.n + k > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
      this.buf.copy(next, 0, 0, this.n);
      this.buf = next;
    }
    return this.buf;
  }
}

// Row writing: each step writes one value at `n` of a buffer with room for the whole row
// (reserved once per row) and returns where the next value starts.

function varint(buf: Uint8Array, n: number, v: number): number {
  while (v >= 0x80) {
    buf[n++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[n++] = v;
  return n;
}

/** Bytes already in RowBinary (a String with its length, from {@link stringsOf}). */
function putBytes(buf: Buffer, n: number, b: Uint8Array): number {
  const k = b.length;
  if (k < 48) for (let i = 0; i < k; i++) buf[n + i] = b[i]!;
  else buf.set(b, n);
  return n + k;
}

/** Room a String of `s` may take: at most 3 bytes a UTF-16 unit, plus its length. */
const stringRoom = (s: string): number => s.length * 3 + 5;

/** A String from JS text. */
function putString(buf: Buffer, n: number, s: string): number {
  const len = s.length;
  if (len < 128) {
    // Short ASCII text (ids, most metadata) byte by byte: cheaper than a native call.
    let i = 0;
    for (; i < len; i++) {
      const c = s.charCodeAt(i);
      if (c > 0x7f) break;
      buf[n + 1 + i] = c;
    }
    if (i === len) {
      buf[n] = len;
      return n + 1 + len;
    }
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  n = varint(buf, n, bytes);
  return n + buf.write(s, n, bytes, 'utf8');
}

/** A non-negative integer up to 2^53 as UInt64 or Int64 (times, counts, sequences). */
function putUInt64(buf: Buffer, n: number, v: number): number {
  if (!(v >= 0 && v <= Number.MAX_SAFE_INTEGER && Math.floor(v) === v)) throw new RangeError(`${v} is not a non-negative integer`);
  const lo = v >>> 0;
  const hi = (v - lo) / 4294967296;
  buf[n] = lo;
  buf[n + 1] = lo >>> 8;
  buf[n + 2] = lo >>> 16;
  buf[n + 3] = lo >>> 24;
  buf[n + 4] = hi;
  buf[n + 5] = hi >>> 8;
  buf[n + 6] = hi >>> 16;
  buf[n + 7] = hi >>> 24;
  return n + 8;
}

/** id_source as its Enum8 value: 1 client, 2 server. */
function putIdSource(buf: Buffer, n: number, v: number): number {
  if (v !== 1 && v !== 2) throw new RangeError(`enum value ${v} is not one of 1, 2`);
  buf[n] = v;
  return n + 1;
}

/** A canonical non-negative decimal text (at most 9 decimals) as Decimal(38, 9): the Int128 of value x 10^9. */
function putDecimal38x9(buf: Buffer, n: number, text: string): number {
  if (!DECIMAL_38_9.test(text)) throw new RangeError(`${JSON.stringify(text.slice(0, 50))} is not a Decimal(38, 9)`);
  const [whole = '0', fraction = ''] = text.split('.');
  const v = BigInt(whole) * 1_000_000_000n + BigInt((fraction + '000000000').slice(0, 9));
  buf.writeBigUInt64LE(v & 0xffffffffffffffffn, n);
  buf.writeBigInt64LE(v >> 64n, n + 8);
  return n + 16;
}

/** What Decimal(38, 9) holds, non-negative: at most 29 digits, then at most 9 decimals. */
const DECIMAL_38_9 = /^\d{1,29}(?:\.\d{1,9})?$/;
/**
 * A batch's dictionary entries as RowBinary Strings, each encoded once (entries repeat
 * across rows), and the longest. Kept for the last batch: the sink writes its actions,
 * then its outcomes.
 */
function stringsOf(b: WireBatch): { strings: Buffer[]; longest: number } {
  if (lastStrings.batch === b) return lastStrings;
  let longest = 0;
  const strings = b.dict.map((s) => {
    const text = Buffer.from(s, 'utf8');
    const out = Buffer.allocUnsafe(text.length + 5);
    const at = varint(out, 0, text.length);
    text.copy(out, at);
    longest = Math.max(longest, at + text.length);
    return out.subarray(0, at + text.length);
  });
  lastStrings = { batch: b, strings, longest };
  return lastStrings;
}
let lastStrings: { batch: WireBatch | undefined; strings: Buffer[]; longest: number } = { batch: undefined, strings: [], longest: 0 };

/**
 * The four leading columns (environment, organization, agent, account) of a row, which
 * repeat from row to row within a batch: the key of their dictionary codes (each below
 * 2^13, else -1: written each time).
 */
function leadKey(b: WireBatch, i: number): number {
  const e = b.env[i]!, o = b.org[i]!, ag = b.agent[i]!, ac = b.acct[i]!;
  return e < 8192 && o < 8192 && ag < 8192 && ac < 8192 ? ((e * 8192 + o) * 8192 + ag) * 8192 + ac : -1;
}

/** The actions of a batch as RowBinary rows into `w`; `seq` is its JetStream sequence (stream_seq). Returns the rows written. */
export function actionsRowBinary(b: WireBatch, seq: number, w: RowBinaryWriter): number {
  const { strings: d, longest } = stringsOf(b);
  const { k, env, org, agent, acct, id, src, type, ts, ing, uid, anon, model, tin, tout, ttot, meta } = b;
  let rows = 0;
  // Where the previous row's leading columns are in the buffer, to copy when they repeat.
  let leadAt = 0, leadEnd = 0, lead = -1;
  for (let i = 0; i < b.n; i++) {
    if (k[i] !== 1) continue;
    const eventId = id[i]!, metadata = meta[i]!;
    const buf = w.room(8 * longest + stringRoom(eventId) + stringRoom(metadata) + 1 + 6 * 8);
    let n = w.n;
    const key = leadKey(b, i);
    if (key !== -1 && key === lead) {
      buf.copyWithin(n, leadAt, leadEnd);
      n += leadEnd - leadAt;
    } else {
      leadAt = n;
      n = putBytes(buf, n, d[env[i]!]!);
      n = putBytes(buf, n, d[org[i]!]!);
      n = putBytes(buf, n, d[agent[i]!]!);
      n = putBytes(buf, n, d[acct[i]!]!);
      leadEnd = n;
      lead = key;
    }
    n = putString(buf, n, eventId);
    n = putIdSource(buf, n, src[i]!);
    n = putBytes(buf, n, d[type[i]!]!);
    n = putUInt64(buf, n, ts[i]!);
    n = putUInt64(buf, n, ing[i]!);
    n = putBytes(buf, n, d[uid[i]!]!);
    n = putBytes(buf, n, d[anon[i]!]!);
    n = putBytes(buf, n, d[model[i]!]!);
    n = putUInt64(buf, n, tin[i]!);
    n = putUInt64(buf, n, tout[i]!);
    n = putUInt64(buf, n, ttot[i]!);
    n = putString(buf, n, metadata);
    w.n = putUInt64(buf, n, seq);
    rows++;
  }
  return rows;
}

/** The outcomes of a batch (every event that is not an action) as RowBinary rows into `w`. Returns the rows written. */
export function outcomesRowBinary(b: WireBatch, seq: number, w: RowBinaryWriter): number {
  const { strings: d, longest } = stringsOf(b);
  const { k, env, org, agent, acct, id, src, type, val, ts, ing, uid, anon, meta } = b;
  let rows = 0;
  for (let i = 0; i < b.n; i++) {
    if (k[i] === 1) continue;
    const eventId = id[i]!, metadata = meta[i]!;
    const buf = w.room(7 * longest + stringRoom(eventId) + stringRoom(metadata) + 1 + 16 + 3 * 8);
    let n = w.n;
    n = putBytes(buf, n, d[env[i]!]!);
    n = putBytes(buf, n, d[org[i]!]!);
    n = putBytes(buf, n, d[agent[i]!]!);
    n = putBytes(buf, n, d[acct[i]!]!);
    n = putString(buf, n, eventId);
    n = putIdSource(buf, n, src[i]!);
    n = putBytes(buf, n, d[type[i]!]!);
    n = putDecimal38x9(buf, n, val[i] || '0');
    n = putUInt64(buf, n, ts[i]!);
    n = putUInt64(buf, n, ing[i]!);
    n = putBytes(buf, n, d[uid[i]!]!);
    n = putBytes(buf, n, d[anon[i]!]!);
    n = putString(buf, n, metadata);
    w.n = putUInt64(buf, n, seq);
    rows++;
  }
  return rows;
}
