import { ACTION_TABLE, OUTCOME_TABLE, type SinkColumn } from './tables.ts';
import { ByteWriter, checkUInt53, indexWidth, putDecimal38x9, putString, stringRoom, varint } from './native-values.ts';
import { decodeBatch, WireFormatError, type WireBatch, type WireEvent } from './wire.ts';

/**
 * Wire format 4: a batch of events as the columns of the sink's two tables, in
 * ClickHouse's Native layout, so that the sink copies each column into its block as bytes
 * (ingest/sink/native.ts) instead of decoding text and writing it again.
 *
 *   u8 4 | u32 actions | u32 outcomes | for each table with rows (actions, then outcomes):
 *     for each column of its table but stream_seq (tables.ts order): u32 length | data
 *
 * (u32: little-endian.) A column's data is its Native data for the table's rows, except
 * LowCardinality(String): the batch's keys (a LEB128 count, then each as a Native String)
 * then one key index a row, 1, 2 or 4 bytes by the number of keys (`indexWidth`). The
 * sink adds stream_seq, which only JetStream knows.
 *
 * Versions 2 and 3 (msgpack, wire.ts) are still read: upgrade sinks before ingest.
 */
export const NATIVE_FORMAT_VERSION = 4;

/** How a wire column's values are laid out. */
type Kind = 'lowCardinality' | 'string' | 'enum8' | 'uint64' | 'decimal';

function kindOf([name, type]: SinkColumn): Kind {
  if (type === 'LowCardinality(String)') return 'lowCardinality';
  if (type === 'String') return 'string';
  if (type.startsWith('Enum8(')) return 'enum8';
  if (type === 'UInt64' || type.startsWith('DateTime64(3')) return 'uint64';
  if (type === 'Decimal(38, 9)') return 'decimal';
  throw new Error(`no Native wire writer for column ${name} ${type}`);
}

/** The wire columns of a table: every column but stream_seq, with how it is written. */
const wireColumns = (table: readonly SinkColumn[]) =>
  table.filter((c) => c[2] !== 'seq').map((c) => ({ name: c[0], field: c[2] as keyof WireEvent, kind: kindOf(c) }));
const TABLES = [wireColumns(ACTION_TABLE), wireColumns(OUTCOME_TABLE)] as const;
type WireColumn = (typeof TABLES)[number][number];

/** A LowCardinality(String) column of one batch: its distinct values (keys) and an index a row. */
class KeysColumn {
  readonly keys = new Map<string, number>();
  readonly keyList: string[] = [];
  index = new Uint32Array(1024);
  count = 0;
  #last: string | undefined;
  #lastKey = 0;

  add(s: string): void {
    if (s !== this.#last) {
      let k = this.keys.get(s);
      if (k === undefined) {
        k = this.keyList.length;
        this.keys.set(s, k);
        this.keyList.push(s);
      }
      this.#last = s;
      this.#lastKey = k;
    }
    if (this.count === this.index.length) {
      const next = new Uint32Array(this.count * 2);
      next.set(this.index);
      this.index = next;
    }
    this.index[this.count++] = this.#lastKey;
  }

  writeTo(out: ByteWriter): void {
    const { keyList, index, count } = this;
    let room = 5;
    for (const s of keyList) room += stringRoom(s);
    const width = indexWidth(keyList.length);
    const buf = out.room(room + width * count);
    let at = varint(buf, out.n, keyList.length);
    for (const s of keyList) at = putString(buf, at, s);
    if (width === 1) for (let j = 0; j < count; j++) buf[at++] = index[j]!;
    else if (width === 2) for (let j = 0; j < count; j++, at += 2) buf.writeUInt16LE(index[j]!, at);
    else for (let j = 0; j < count; j++, at += 4) buf.writeUInt32LE(index[j]!, at);
    out.n = at;
  }

  clear(): void {
    this.keys.clear();
    this.keyList.length = 0;
    this.count = 0;
    this.#last = undefined;
  }
}

/**
 * A String column. Short ASCII text (ids, names, small metadata: nearly all of it) is
 * joined with each value's one-byte length before it into one JS string, written with one
 * native call: writing value by value costs about three times more. When the write shows
 * a value that is not ASCII (more bytes than characters), or a value is 128 characters or
 * longer, the column is written value by value instead.
 */
class TextColumn {
  readonly values: string[] = [];
  count = 0;

  add(s: string): void {
    this.values[this.count++] = s;
  }

  writeTo(out: ByteWriter): void {
    const { values, count } = this;
    let joined = '';
    let short = true;
    for (let j = 0; j < count; j++) {
      const s = values[j]!;
      if (s.length >= 128) {
        short = false;
        break;
      }
      joined += LENGTH_CHARS[s.length]! + s;
    }
    if (short) {
      const at = out.n;
      const written = out.room(joined.length).write(joined, at, 'utf8');
      if (written === joined.length) {
        out.n = at + written;
        return;
      }
    }
    for (let j = 0; j < count; j++) {
      const s = values[j]!;
      out.n = putString(out.room(stringRoom(s)), out.n, s);
    }
  }

  clear(): void {
    this.count = 0;
  }
}
const LENGTH_CHARS = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));

/** A UInt64 or DateTime64(3) column (counts, times): checked when written. */
class IntegerColumn {
  values = new Float64Array(1024);
  count = 0;

  add(v: number): void {
    if (this.count === this.values.length) {
      const next = new Float64Array(this.count * 2);
      next.set(this.values);
      this.values = next;
    }
    this.values[this.count++] = v;
  }

  /** Each value as its two 32-bit halves into a typed array, then its bytes at once (little-endian: swapped on a big-endian machine). */
  writeTo(out: ByteWriter): void {
    const { values, count } = this;
    if (halves.length < 2 * count) (halves = new Uint32Array(2 * count)), (halfBytes = new Uint8Array(halves.buffer));
    for (let j = 0; j < count; j++) {
      const v = values[j]!;
      checkUInt53(v);
      const lo = v >>> 0;
      halves[2 * j] = lo;
      halves[2 * j + 1] = (v - lo) / 4294967296;
    }
    if (!LITTLE_ENDIAN) for (let j = 0; j < 2 * count; j++) halves[j] = ((halves[j]! & 0xff) << 24 | (halves[j]! & 0xff00) << 8 | (halves[j]! >>> 8) & 0xff00 | halves[j]! >>> 24) >>> 0;
    out.room(8 * count).set(halfBytes.subarray(0, 8 * count), out.n);
    out.n += 8 * count;
  }

  clear(): void {
    this.count = 0;
  }
}
let halves = new Uint32Array(2048);
let halfBytes = new Uint8Array(halves.buffer);
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** id_source (Enum8: 1 client, 2 server) and an outcome's value (Decimal(38, 9)): few values, written from the events. */
class ValueColumn<T> {
  readonly values: T[] = [];
  count = 0;

  add(v: T): void {
    this.values[this.count++] = v;
  }

  constructor(private readonly put: (buf: Buffer, at: number, v: T) => number, private readonly size: number) {}

  writeTo(out: ByteWriter): void {
    const buf = out.room(this.size * this.count);
    let at = out.n;
    for (let j = 0; j < this.count; j++) at = this.put(buf, at, this.values[j]!);
    out.n = at;
  }

  clear(): void {
    this.count = 0;
  }
}

function putEnum8(buf: Buffer, at: number, v: number): number {
  if (v !== 1 && v !== 2) throw new RangeError(`enum value ${v} is not one of 1, 2`);
  buf[at] = v;
  return at + 1;
}

/**
 * The columns of one table for one batch, filled event by event (each field read by its
 * name: one pass, no per-column walk over the events), then written in its table's order.
 */
class TableColumns {
  count = 0;
  readonly env = new KeysColumn();
  readonly org = new KeysColumn();
  readonly type = new KeysColumn();
  readonly model = new KeysColumn();
  readonly agent = new TextColumn();
  readonly acct = new TextColumn();
  readonly id = new TextColumn();
  readonly uid = new TextColumn();
  readonly anon = new TextColumn();
  readonly meta = new TextColumn();
  readonly ts = new IntegerColumn();
  readonly ing = new IntegerColumn();
  readonly tin = new IntegerColumn();
  readonly tout = new IntegerColumn();
  readonly ttot = new IntegerColumn();
  readonly src = new ValueColumn<number>(putEnum8, 1);
  readonly val = new ValueColumn<string>((buf, at, v) => putDecimal38x9(buf, at, v || '0'), 16);

  constructor(private readonly columns: readonly WireColumn[]) {}

  /** The fields every event has. */
  addCommon(e: WireEvent): void {
    this.count++;
    this.env.add(e.env);
    this.org.add(e.org);
    this.agent.add(e.agent);
    this.acct.add(e.acct);
    this.id.add(e.id);
    this.src.add(e.src);
    this.type.add(e.type);
    this.ts.add(e.ts);
    this.ing.add(e.ing);
    this.uid.add(e.uid);
    this.anon.add(e.anon);
    this.meta.add(e.meta);
  }

  writeTo(out: ByteWriter): void {
    for (const { field } of this.columns) {
      const lengthAt = out.n;
      out.room(4);
      out.n += 4;
      this[field as 'env'].writeTo(out);
      out.buf.writeUInt32LE(out.n - lengthAt - 4, lengthAt);
    }
  }

  clear(): void {
    this.count = 0;
    for (const { field } of this.columns) this[field as 'env'].clear();
  }
}

// Reused from batch to batch (encoding is synchronous; the result is copied out).
const out = new ByteWriter(1 << 16);
const actions = new TableColumns(TABLES[0]);
const outcomes = new TableColumns(TABLES[1]);

/** A batch of events (validated by ingest) in wire format 4. Throws a RangeError on a value a column cannot hold. */
export function encodeNativeBatch(events: readonly WireEvent[]): Uint8Array {
  actions.clear();
  outcomes.clear();
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    if (e.k === 1) {
      actions.addCommon(e);
      actions.model.add(e.model);
      actions.tin.add(e.tin);
      actions.tout.add(e.tout);
      actions.ttot.add(e.ttot);
    } else {
      outcomes.addCommon(e);
      outcomes.val.add(e.val);
    }
  }
  out.n = 0;
  const head = out.room(9);
  head[0] = NATIVE_FORMAT_VERSION;
  head.writeUInt32LE(actions.count, 1);
  head.writeUInt32LE(outcomes.count, 5);
  out.n = 9;
  if (actions.count > 0) actions.writeTo(out);
  if (outcomes.count > 0) outcomes.writeTo(out);
  return Buffer.from(out.bytes());
}

/** A table's rows of a wire-format-4 batch: their number and each wire column's data (views of the message). */
export interface NativeRows {
  count: number;
  columns: Buffer[];
}

/** A wire-format-4 batch, checked: its actions and its outcomes (undefined: none). */
export interface NativeBatch {
  n: number;
  actions: NativeRows | undefined;
  outcomes: NativeRows | undefined;
}

/** Whether a message is in wire format 4 (else msgpack, versions 2 and 3: `decodeBatch`). */
export const isNativeBatch = (data: Uint8Array): boolean => data.length > 0 && data[0] === NATIVE_FORMAT_VERSION;

/**
 * Splits a wire-format-4 message into its tables' columns, checking that each holds
 * exactly its rows' values (lengths, string counts, key indexes within the keys, enum
 * values), so that a block built from them is never misaligned. Throws a WireFormatError.
 */
export function readNativeBatch(data: Uint8Array): NativeBatch {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  if (buf.length < 9 || buf[0] !== NATIVE_FORMAT_VERSION) throw new WireFormatError('unknown batch format');
  const counts = [buf.readUInt32LE(1), buf.readUInt32LE(5)];
  let at = 9;
  const tables: (NativeRows | undefined)[] = [undefined, undefined];
  for (let t = 0; t < 2; t++) {
    const count = counts[t]!;
    if (count === 0) continue;
    const columns: Buffer[] = [];
    for (const column of TABLES[t]!) {
      if (at + 4 > buf.length) throw new WireFormatError('truncated batch');
      const length = buf.readUInt32LE(at);
      at += 4;
      if (at + length > buf.length) throw new WireFormatError('truncated batch');
      const data = buf.subarray(at, at + length);
      at += length;
      const problem = checkColumn(column.kind, data, count);
      if (problem) throw new WireFormatError(`inconsistent batch columns: ${column.name} ${problem}`);
      columns.push(data);
    }
    tables[t] = { count, columns };
  }
  if (at !== buf.length) throw new WireFormatError('trailing bytes after the batch');
  return { n: counts[0]! + counts[1]!, actions: tables[0], outcomes: tables[1] };
}

/** Reads a LEB128 value at `at`: [value, next] (-1: past the end or longer than 32 bits). */
export function readVarint(buf: Buffer, at: number): [number, number] {
  let v = 0;
  for (let shift = 0; shift < 35; shift += 7) {
    if (at >= buf.length) return [-1, at];
    const b = buf[at++]!;
    v += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return [v, at];
  }
  return [-1, at];
}

/** Skips `count` Native Strings from `at`: where they end, or -1 when they do not fit. */
function skipStrings(buf: Buffer, at: number, count: number): number {
  const end = buf.length;
  for (let j = 0; j < count && at < end; j++) {
    const b = buf[at]!;
    if (b < 0x80) at += 1 + b;
    else {
      const [len, next] = readVarint(buf, at);
      if (len < 0) return -1;
      at = next + len;
    }
    if (j === count - 1) return at <= end ? at : -1;
  }
  return count === 0 ? at : -1;
}

/** Where a LowCardinality column's key indexes start, with its keys' count and the index width. */
export function lowCardinalityLayout(data: Buffer): { keys: number; keysEnd: number; width: 1 | 2 | 4 } | undefined {
  const [keyCount, keysAt] = readVarint(data, 0);
  if (keyCount < 0) return undefined;
  const keysEnd = skipStrings(data, keysAt, keyCount);
  return keysEnd < 0 ? undefined : { keys: keyCount, keysEnd, width: indexWidth(keyCount) };
}

function checkColumn(kind: Kind, data: Buffer, count: number): string | undefined {
  switch (kind) {
    case 'string':
      return skipStrings(data, 0, count) === data.length ? undefined : `is not ${count} strings`;
    case 'enum8':
      if (data.length !== count) return `is not ${count} enum values`;
      for (let j = 0; j < count; j++) if (data[j] !== 1 && data[j] !== 2) return `holds the enum value ${data[j]}`;
      return undefined;
    case 'uint64':
      return data.length === 8 * count ? undefined : `is not ${count} 8-byte values`;
    case 'decimal':
      return data.length === 16 * count ? undefined : `is not ${count} 16-byte decimals`;
    case 'lowCardinality': {
      const layout = lowCardinalityLayout(data);
      if (!layout || data.length !== layout.keysEnd + layout.width * count) return `is not keys and ${count} key indexes`;
      const { keys, keysEnd, width } = layout;
      for (let j = 0, at = keysEnd; j < count; j++, at += width) {
        const k = width === 1 ? data[at]! : width === 2 ? data.readUInt16LE(at) : data.readUInt32LE(at);
        if (k >= keys) return `has a key index beyond its ${keys} keys`;
      }
      return undefined;
    }
  }
}

/**
 * A wire-format-4 batch as a {@link WireBatch} (the TabSeparated path, tests and tools;
 * the Native sink copies columns instead): its actions, then its outcomes.
 */
export function nativeToWireBatch(b: NativeBatch): WireBatch {
  const n = b.n;
  const dict: string[] = [];
  const codeOf = new Map<string, number>();
  const code = (s: string) => {
    let c = codeOf.get(s);
    if (c === undefined) codeOf.set(s, (c = dict.push(s) - 1));
    return c;
  };
  const w = {
    n, dict, k: new Uint8Array(n), src: new Uint8Array(n),
    ts: new Float64Array(n), ing: new Float64Array(n), tin: new Float64Array(n), tout: new Float64Array(n), ttot: new Float64Array(n),
    id: new Array<string>(n).fill(''), meta: new Array<string>(n).fill(''), val: new Array<string>(n).fill(''),
  } as Record<string, unknown> & WireBatch;
  const codes: Record<string, Uint32Array> = {};
  for (const f of ['env', 'org', 'agent', 'acct', 'type', 'model', 'uid', 'anon']) codes[f] = new Uint32Array(n).fill(code(''));
  let first = 0;
  for (const [t, rows] of [b.actions, b.outcomes].entries()) {
    if (!rows) continue;
    w.k.fill(t === 0 ? 1 : 2, first, first + rows.count);
    TABLES[t]!.forEach(({ field, kind }, c) => {
      const data = rows.columns[c]!;
      const f = field as string;
      if (kind === 'string' || kind === 'lowCardinality') {
        let texts: string[];
        let at = 0;
        const readStrings = (count: number) => {
          const xs: string[] = [];
          for (let j = 0; j < count; j++) {
            const [len, from] = readVarint(data, at);
            xs.push(data.toString('utf8', from, from + len));
            at = from + len;
          }
          return xs;
        };
        if (kind === 'string') texts = readStrings(rows.count);
        else {
          const { keys, keysEnd, width } = lowCardinalityLayout(data)!;
          at = readVarint(data, 0)[1];
          const keyTexts = readStrings(keys);
          texts = [];
          for (let j = 0, p = keysEnd; j < rows.count; j++, p += width) texts.push(keyTexts[width === 1 ? data[p]! : width === 2 ? data.readUInt16LE(p) : data.readUInt32LE(p)]!);
        }
        if (f === 'id' || f === 'meta') texts.forEach((s, j) => ((w[f] as string[])[first + j] = s));
        else texts.forEach((s, j) => (codes[f]![first + j] = code(s)));
      } else if (kind === 'enum8') for (let j = 0; j < rows.count; j++) w.src[first + j] = data[j]!;
      else if (kind === 'uint64') for (let j = 0; j < rows.count; j++) (w[f] as Float64Array)[first + j] = Number(data.readBigUInt64LE(8 * j));
      else if (kind === 'decimal') for (let j = 0; j < rows.count; j++) w.val[first + j] = decimalText(data.readBigUInt64LE(16 * j) + (data.readBigInt64LE(16 * j + 8) << 64n));
    });
    first += rows.count;
  }
  Object.assign(w, codes);
  return w;
}

/** Decimal(38, 9)'s Int128 as canonical text ("7.5", "0"); actions' '' stays ''. */
function decimalText(v: bigint): string {
  const s = (v < 0n ? -v : v).toString().padStart(10, '0');
  const whole = s.slice(0, -9);
  const fraction = s.slice(-9).replace(/0+$/, '');
  return (v < 0n ? '-' : '') + whole + (fraction ? `.${fraction}` : '');
}

/** A message of any readable wire format (2, 3, 4) as a {@link WireBatch}. Throws a WireFormatError. */
export function decodeAnyBatch(data: Uint8Array): WireBatch {
  return isNativeBatch(data) ? nativeToWireBatch(readNativeBatch(data)) : decodeBatch(data);
}
