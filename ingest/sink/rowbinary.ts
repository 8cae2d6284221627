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
  #buf: Buffer;
  #n = 0;

  constructor(initialBytes = 1 << 20) {
    this.#buf = Buffer.allocUnsafe(initialBytes);
  }

  /** The rows written so far (a view of the writer's buffer: use it before writing more). */
  bytes(): Buffer {
    return this.#buf.subarray(0, this.#n);
  }

  /** Where the next row starts: {@link rewind} to it drops what was written since (a message that failed to encode). */
  get mark(): number {
    return this.#n;
  }

  rewind(mark: number): void {
    this.#n = mark;
  }

  #room(k: number): void {
    if (this.#n + k <= this.#buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.#buf.length * 2, this.#n + k));
    this.#buf.copy(next, 0, 0, this.#n);
    this.#buf = next;
  }

  #varint(v: number): void {
    while (v >= 0x80) {
      this.#buf[this.#n++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.#buf[this.#n++] = v;
  }

  /** A String from JS text. */
  string(s: string): void {
    // At most 3 bytes a UTF-16 unit, plus the length: room first, then the exact length.
    this.#room(s.length * 3 + 5);
    const buf = this.#buf;
    if (s.length < 128) {
      // Short ASCII text (ids, most metadata) byte by byte: cheaper than a native call.
      let i = 0;
      const at = this.#n + 1;
      for (; i < s.length; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        buf[at + i] = c;
      }
      if (i === s.length) {
        buf[this.#n] = i;
        this.#n = at + i;
        return;
      }
    }
    const len = Buffer.byteLength(s, 'utf8');
    this.#varint(len);
    this.#n += buf.write(s, this.#n, len, 'utf8');
  }

  /** A String already encoded (dictionary entries, encoded once per batch). */
  encoded(b: Uint8Array): void {
    this.#room(b.length + 5);
    this.#varint(b.length);
    const buf = this.#buf;
    if (b.length < 64) for (let i = 0; i < b.length; i++) buf[this.#n + i] = b[i]!;
    else buf.set(b, this.#n);
    this.#n += b.length;
  }

  /** An Enum8 value, one of `allowed`. */
  enum8(v: number, allowed: ReadonlySet<number>): void {
    if (!allowed.has(v)) throw new RangeError(`enum value ${v} is not one of ${[...allowed].join(', ')}`);
    this.#room(1);
    this.#buf[this.#n++] = v & 0xff;
  }

  /** A non-negative integer up to 2^53 as UInt64 or Int64 (times, counts, sequences). */
  uint64(v: number): void {
    if (!Number.isSafeInteger(v) || v < 0) throw new RangeError(`${v} is not a non-negative integer`);
    this.#room(8);
    const buf = this.#buf;
    const n = this.#n;
    const lo = v % 4294967296;
    const hi = (v - lo) / 4294967296;
    buf[n] = lo & 0xff;
    buf[n + 1] = (lo >>> 8) & 0xff;
    buf[n + 2] = (lo >>> 16) & 0xff;
    buf[n + 3] = lo >>> 24;
    buf[n + 4] = hi & 0xff;
    buf[n + 5] = (hi >>> 8) & 0xff;
    buf[n + 6] = (hi >>> 16) & 0xff;
    buf[n + 7] = hi >>> 24;
    this.#n = n + 8;
  }

  /** A canonical non-negative decimal text (at most 9 decimals) as Decimal(38, 9). */
  decimal38x9(text: string): void {
    if (!DECIMAL_38_9.test(text)) throw new RangeError(`${JSON.stringify(text.slice(0, 50))} is not a Decimal(38, 9)`);
    const [whole = '0', fraction = ''] = text.split('.');
    const v = BigInt(whole) * 1_000_000_000n + BigInt((fraction + '000000000').slice(0, 9));
    this.#room(16);
    this.#buf.writeBigUInt64LE(v & 0xffffffffffffffffn, this.#n);
    this.#buf.writeBigInt64LE(v >> 64n, this.#n + 8);
    this.#n += 16;
  }
}

/** What Decimal(38, 9) holds, non-negative: at most 29 digits, then at most 9 decimals. */
const DECIMAL_38_9 = /^\d{1,29}(?:\.\d{1,9})?$/;
/** id_source: 1 client, 2 server. */
const ID_SOURCES: ReadonlySet<number> = new Set([1, 2]);


/** A batch's dictionary, each entry encoded once (entries repeat across rows). */
function encodedDict(b: WireBatch): Buffer[] {
  return b.dict.map((s) => Buffer.from(s, 'utf8'));
}

/** The actions of a batch as RowBinary rows into `w`; `seq` is its JetStream sequence (stream_seq). Returns the rows written. */
export function actionsRowBinary(b: WireBatch, seq: number, w: RowBinaryWriter): number {
  const d = encodedDict(b);
  let rows = 0;
  for (let i = 0; i < b.n; i++) {
    if (b.k[i] !== 1) continue;
    w.encoded(d[b.env[i]!]!);
    w.encoded(d[b.org[i]!]!);
    w.encoded(d[b.agent[i]!]!);
    w.encoded(d[b.acct[i]!]!);
    w.string(b.id[i]!);
    w.enum8(b.src[i]!, ID_SOURCES);
    w.encoded(d[b.type[i]!]!);
    w.uint64(b.ts[i]!);
    w.uint64(b.ing[i]!);
    w.encoded(d[b.uid[i]!]!);
    w.encoded(d[b.anon[i]!]!);
    w.encoded(d[b.model[i]!]!);
    w.uint64(b.tin[i]!);
    w.uint64(b.tout[i]!);
    w.uint64(b.ttot[i]!);
    w.string(b.meta[i]!);
    w.uint64(seq);
    rows++;
  }
  return rows;
}

/** The outcomes of a batch (every event that is not an action) as RowBinary rows into `w`. Returns the rows written. */
export function outcomesRowBinary(b: WireBatch, seq: number, w: RowBinaryWriter): number {
  const d = encodedDict(b);
  let rows = 0;
  for (let i = 0; i < b.n; i++) {
    if (b.k[i] === 1) continue;
    w.encoded(d[b.env[i]!]!);
    w.encoded(d[b.org[i]!]!);
    w.encoded(d[b.agent[i]!]!);
    w.encoded(d[b.acct[i]!]!);
    w.string(b.id[i]!);
    w.enum8(b.src[i]!, ID_SOURCES);
    w.encoded(d[b.type[i]!]!);
    w.decimal38x9(b.val[i] || '0');
    w.uint64(b.ts[i]!);
    w.uint64(b.ing[i]!);
    w.encoded(d[b.uid[i]!]!);
    w.encoded(d[b.anon[i]!]!);
    w.string(b.meta[i]!);
    w.uint64(seq);
    rows++;
  }
  return rows;
}
