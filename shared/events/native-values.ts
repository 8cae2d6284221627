/**
 * Values in ClickHouse's Native format, written into a growing buffer: what ingest's
 * wire batches (native-batch.ts) and the sink's blocks (ingest/sink/native.ts) are made
 * of. String: a LEB128 length and the UTF-8 bytes; DateTime64(3): Int64 milliseconds;
 * UInt64: 8 bytes little-endian; Decimal(38, 9): the Int128 of value x 10^9,
 * little-endian; Enum8: its Int8 value.
 *
 * TRICKY: the engine checks nothing of binary input: an Enum8 value outside the enum
 * is stored, and every later read of the table fails on it. So each value is checked as
 * the text parser would (an enum value, a non-negative integer, a decimal) and a
 * RangeError thrown instead.
 */

/** A growing byte buffer: the bytes written are `buf[0, n)`. */
export class ByteWriter {
  buf: Buffer;
  n = 0;

  constructor(initialBytes = 1 << 16) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  /** The bytes written so far (a view of the writer's buffer: use it before writing more). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.n);
  }

  /** The buffer, with room for `k` more bytes from `n` (grown by doubling; kept from use to use). */
  room(k: number): Buffer {
    if (this.n + k > this.buf.length) {
      const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.n + k));
      this.buf.copy(next, 0, 0, this.n);
      this.buf = next;
    }
    return this.buf;
  }
}

// Each step writes one value at `n` of a buffer with room for it and returns where the
// next value starts.

export function varint(buf: Uint8Array, n: number, v: number): number {
  while (v >= 0x80) {
    buf[n++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  buf[n++] = v;
  return n;
}

/** Room a String of `s` may take: at most 3 bytes a UTF-16 unit, plus its length. */
export const stringRoom = (s: string): number => s.length * 3 + 5;

/** A String from JS text. */
export function putString(buf: Buffer, n: number, s: string): number {
  const len = s.length;
  if (len < 32) {
    // Short ASCII text (ids, names) byte by byte: cheaper than a native call.
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
  if (len < 128) {
    // Most text fits a one-byte length: write after it, move it on when it did not.
    const k = buf.write(s, n + 1, 'utf8');
    if (k < 128) {
      buf[n] = k;
      return n + 1 + k;
    }
    buf.copyWithin(n + 2, n + 1, n + 1 + k);
    return varint(buf, n, k) + k;
  }
  const bytes = Buffer.byteLength(s, 'utf8');
  n = varint(buf, n, bytes);
  return n + buf.write(s, n, bytes, 'utf8');
}

/** Throws a RangeError unless `v` is a non-negative integer up to 2^53 (what UInt64 and DateTime64 columns take from a number). */
export function checkUInt53(v: number): void {
  if (!(v >= 0 && v <= Number.MAX_SAFE_INTEGER && Math.floor(v) === v)) throw new RangeError(`${v} is not a non-negative integer`);
}

/** A non-negative integer up to 2^53 as UInt64 or Int64 (times, counts, sequences). */
export function putUInt64(buf: Buffer, n: number, v: number): number {
  checkUInt53(v);
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

/** A canonical non-negative decimal text (at most 9 decimals) as Decimal(38, 9): the Int128 of value x 10^9. */
export function putDecimal38x9(buf: Buffer, n: number, text: string): number {
  if (!DECIMAL_38_9.test(text)) throw new RangeError(`${JSON.stringify(text.slice(0, 50))} is not a Decimal(38, 9)`);
  const [whole = '0', fraction = ''] = text.split('.');
  const v = BigInt(whole) * 1_000_000_000n + BigInt((fraction + '000000000').slice(0, 9));
  buf.writeBigUInt64LE(v & 0xffffffffffffffffn, n);
  buf.writeBigInt64LE(v >> 64n, n + 8);
  return n + 16;
}

/** What Decimal(38, 9) holds, non-negative: at most 29 digits, then at most 9 decimals. */
const DECIMAL_38_9 = /^\d{1,29}(?:\.\d{1,9})?$/;

/** A Native String (names and types in a block's header). */
export function nativeString(s: string): Buffer {
  const w = new ByteWriter(stringRoom(s));
  w.n = putString(w.buf, 0, s);
  return Buffer.from(w.bytes());
}

/** The width of a LowCardinality column's key indexes for `keys` keys: 1, 2 or 4 bytes. */
export const indexWidth = (keys: number): 1 | 2 | 4 => (keys <= 0x100 ? 1 : keys <= 0x10000 ? 2 : 4);
