import type { WireBatch } from '../../shared/events/wire.ts';
import type { SinkColumn } from '../../shared/events/tables.ts';
import { lowCardinalityLayout, readVarint, type NativeRows } from '../../shared/events/native-batch.ts';
import { ByteWriter, indexWidth, nativeString, putDecimal38x9, putString, putUInt64, stringRoom, varint } from '../../shared/events/native-values.ts';

/**
 * Sink rows as ClickHouse's Native format: one block per table and insert, column by
 * column, in the column order of ACTION_TABLE and OUTCOME_TABLE (shared/events/tables.ts).
 * A batch in wire format 4 (shared/events/native-batch.ts) already holds each column's
 * Native data: it is copied as bytes, its LowCardinality keys merged into the block's and
 * its key indexes renumbered. A batch of the msgpack formats (2, 3: what a stream still
 * holds from before an upgrade) is written value by value. Native is the engine's own
 * block layout, the cheapest input it takes (bench/reference-insert.ts): numbers are copied as they are,
 * and a LowCardinality(String) column arrives as its dictionary and one small index a
 * row, as the wire batch already holds it, so the engine neither parses nor hashes the
 * row's text.
 *
 * A block: the number of columns and of rows (LEB128), then each column's name, type
 * and data. Data: String as a LEB128 length and the UTF-8 bytes, a value a row; Enum8 as
 * its Int8 value; DateTime64(3) as Int64 milliseconds; UInt64 as 8 bytes little-endian;
 * Decimal(38, 9) as the Int128 of value x 10^9, little-endian; LowCardinality(String) as
 * the keys' serialization version (UInt64 1: dictionaries with additional keys), the
 * index type (UInt64: the index width, with "has additional keys" and "update dictionary"
 * set), the number of keys (UInt64) and the keys as Strings, then the number of rows
 * (UInt64) and each row's key index in the width given (1, 2 or 4 bytes).
 *
 * TRICKY: the engine checks nothing of binary input: an Enum8 value outside the enum
 * is stored, and every later read of the table fails on it. So each value is checked as
 * the text parser would (an enum value, a non-negative integer, a decimal) and a
 * RangeError thrown instead; the sink sets such a message aside.
 */

/** One column of a block: values appended message by message, then its data in Native. */
interface Column {
  /** Appends the values of rows `rows[0, count)` of `b`; throws a RangeError on a value the column's type cannot hold. */
  add(b: WireBatch, rows: Int32Array, count: number, seq: number): void;
  /** Appends `count` rows' data of a wire-format-4 batch (checked by readNativeBatch). */
  append(data: Buffer | undefined, count: number, seq: number): void;
  /** Remembers where the current message starts: {@link undo} drops what was added since. */
  mark(): void;
  undo(): void;
  /** The column's data (what follows its name and type), as pieces written one after another. */
  data(): Buffer[];
  clear(): void;
}

type Codes = Uint8Array | Uint16Array | Uint32Array;
type Field = SinkColumn[2];

/** The bytes of a wire column, as they are. */
const copyBytes = (w: ByteWriter, data: Buffer | undefined): void => {
  w.room(data!.length);
  w.n += data!.copy(w.buf, w.n);
};

/** A column whose data is written value by value as the rows come, or copied from a wire-format-4 batch. */
function valueColumn(
  write: (w: ByteWriter, b: WireBatch, rows: Int32Array, count: number, seq: number) => void,
  append: (w: ByteWriter, data: Buffer | undefined, count: number, seq: number) => void = copyBytes,
): Column {
  const w = new ByteWriter();
  let marked = 0;
  return {
    add: (b, rows, count, seq) => write(w, b, rows, count, seq),
    append: (data, count, seq) => append(w, data, count, seq),
    mark: () => void (marked = w.n),
    undo: () => void (w.n = marked),
    data: () => [w.bytes()],
    clear: () => void (w.n = 0),
  };
}

/** String from JS text a row (ids, metadata). */
const textColumn = (field: Field): Column =>
  valueColumn((w, b, rows, count) => {
    const texts = b[field as 'id'];
    for (let j = 0; j < count; j++) {
      const s = texts[rows[j]!]!;
      w.n = putString(w.room(stringRoom(s)), w.n, s);
    }
  });

/**
 * String from the batch's dictionary (agents, accounts, users): an entry is encoded the
 * first time a batch's row uses it, and copied from there when the next rows repeat it.
 */
function dictTextColumn(field: Field): Column {
  // Where this batch's entry was written in the column, and its length (-1: not yet).
  let at = new Int32Array(256);
  let len = new Int32Array(256);
  return valueColumn((w, b, rows, count) => {
    const codes = b[field as 'env'];
    const dict = b.dict;
    if (at.length < dict.length) (at = new Int32Array(dict.length)), (len = new Int32Array(dict.length));
    at.fill(-1, 0, dict.length);
    for (let j = 0; j < count; j++) {
      const c = codes[rows[j]!]!;
      const from = at[c]!;
      if (from < 0) {
        const s = dict[c]!;
        const start = w.n;
        w.n = putString(w.room(stringRoom(s)), start, s);
        at[c] = start;
        len[c] = w.n - start;
      } else {
        const k = len[c]!;
        const buf = w.room(k);
        const n = w.n;
        if (k < 48) for (let i = 0; i < k; i++) buf[n + i] = buf[from + i]!;
        else buf.copyWithin(n, from, from + k);
        w.n = n + k;
      }
    }
  });
}

/**
 * UInt64 or DateTime64(3) from numbers: 32-bit counts as they are, doubles checked. (Two
 * loops: one array type each, so that each reads its array at full speed.)
 */
const integerColumn = (field: Field): Column =>
  valueColumn((w, b, rows, count) => {
    const values = b[field as 'ts' | 'tin'];
    const buf = w.room(8 * count);
    let n = w.n;
    if (values instanceof Uint32Array) {
      for (let j = 0; j < count; j++, n += 8) {
        const v = values[rows[j]!]!;
        buf[n] = v;
        buf[n + 1] = v >>> 8;
        buf[n + 2] = v >>> 16;
        buf[n + 3] = v >>> 24;
        buf[n + 4] = buf[n + 5] = buf[n + 6] = buf[n + 7] = 0;
      }
    } else {
      for (let j = 0; j < count; j++) n = putUInt64(buf, n, values[rows[j]!]!);
    }
    w.n = n;
  });

/** stream_seq: the message's JetStream sequence on each of its rows. */
function fillSeq(w: ByteWriter, count: number, seq: number): void {
  const buf = w.room(8 * count);
  const first = w.n;
  const end = first + 8 * count;
  putUInt64(buf, first, seq);
  for (let n = first + 8; n < end; n++) buf[n] = buf[n - 8]!;
  w.n = end;
}
const seqColumn = (): Column =>
  valueColumn(
    (w, _b, _rows, count, seq) => fillSeq(w, count, seq),
    (w, _data, count, seq) => fillSeq(w, count, seq),
  );

/** id_source as its Enum8 value: 1 client, 2 server. */
const idSourceColumn = (field: Field): Column =>
  valueColumn((w, b, rows, count) => {
    const values = b[field as 'src'];
    const buf = w.room(count);
    for (let j = 0; j < count; j++) {
      const v = values[rows[j]!]!;
      if (v !== 1 && v !== 2) throw new RangeError(`enum value ${v} is not one of 1, 2`);
      buf[w.n + j] = v;
    }
    w.n += count;
  });

/** Decimal(38, 9) from canonical decimal text (an outcome's value; empty is 0). */
const decimalColumn = (field: Field): Column =>
  valueColumn((w, b, rows, count) => {
    const texts = b[field as 'val'];
    const buf = w.room(16 * count);
    let n = w.n;
    for (let j = 0; j < count; j++) n = putDecimal38x9(buf, n, texts[rows[j]!]! || '0');
    w.n = n;
  });

const ASCII = /^[\x00-\x7f]*$/;

/** LowCardinality(String)'s index type bits: the block carries its own keys, which replace the dictionary. */
const HAS_ADDITIONAL_KEYS = 1 << 9;
const NEED_UPDATE_DICTIONARY = 1 << 10;

/**
 * LowCardinality(String) from the batch's dictionary codes: the block's keys (the
 * distinct values seen, in order of first sight) and a key index a row. Each batch's codes
 * are mapped to the block's keys once per code, not once per row.
 */
function lowCardinalityColumn(field: Field): Column {
  const keys = new Map<string, number>();
  const keyList: string[] = [];
  const keyBytes = new ByteWriter(1 << 12);
  const head = new ByteWriter(64);
  const tail = new ByteWriter();
  let index = new Uint32Array(1 << 12);
  let count = 0;
  let remap = new Int32Array(256);
  let markedCount = 0, markedKeys = 0, markedKeyBytes = 0;
  // Keys are known by their UTF-8 bytes read as Latin-1 (one character a byte: what a
  // wire-format-4 batch gives without decoding), the same text for ASCII.
  const keyOf = (s: string): number => {
    const key = ASCII.test(s) ? s : Buffer.from(s, 'utf8').toString('latin1');
    let k = keys.get(key);
    if (k === undefined) {
      k = keyList.length;
      keys.set(key, k);
      keyList.push(key);
      keyBytes.n = putString(keyBytes.room(stringRoom(s)), keyBytes.n, s);
    }
    return k;
  };
  const growIndex = (rowCount: number) => {
    if (index.length < count + rowCount) {
      const next = new Uint32Array(Math.max(index.length * 2, count + rowCount));
      next.set(index.subarray(0, count));
      index = next;
    }
  };
  return {
    add(b, rows, rowCount) {
      const codes = b[field as 'env'] as Codes;
      const dict = b.dict;
      if (remap.length < dict.length) remap = new Int32Array(dict.length);
      remap.fill(-1, 0, dict.length);
      growIndex(rowCount);
      for (let j = 0; j < rowCount; j++) {
        const c = codes[rows[j]!]!;
        let k = remap[c]!;
        if (k < 0) k = remap[c] = keyOf(dict[c]!);
        index[count++] = k;
      }
    },
    append(data, rowCount) {
      // The batch's keys as the block's, then its indexes renumbered.
      const { keys: batchKeys, keysEnd, width } = lowCardinalityLayout(data!)!;
      if (remap.length < batchKeys) remap = new Int32Array(batchKeys);
      let at = readVarint(data!, 0)[1];
      for (let c = 0; c < batchKeys; c++) {
        let len = data![at]!;
        let from = at + 1;
        if (len >= 0x80) [len, from] = readVarint(data!, at);
        const key = data!.toString('latin1', from, from + len);
        let k = keys.get(key);
        if (k === undefined) {
          k = keyList.length;
          keys.set(key, k);
          keyList.push(key);
          copyBytes(keyBytes, data!.subarray(at, from + len));
        }
        remap[c] = k;
        at = from + len;
      }
      growIndex(rowCount);
      if (width === 1) for (let j = 0, p = keysEnd; j < rowCount; j++) index[count++] = remap[data![p++]!]!;
      else if (width === 2) for (let j = 0, p = keysEnd; j < rowCount; j++, p += 2) index[count++] = remap[data!.readUInt16LE(p)]!;
      else for (let j = 0, p = keysEnd; j < rowCount; j++, p += 4) index[count++] = remap[data!.readUInt32LE(p)]!;
    },
    mark() {
      markedCount = count;
      markedKeys = keyList.length;
      markedKeyBytes = keyBytes.n;
    },
    undo() {
      count = markedCount;
      for (const s of keyList.splice(markedKeys)) keys.delete(s);
      keyBytes.n = markedKeyBytes;
    },
    data() {
      const width = indexWidth(keyList.length);
      head.n = 0;
      const hb = head.room(24);
      head.n = putUInt64(hb, putUInt64(hb, putUInt64(hb, 0, 1), (width >> 1) | HAS_ADDITIONAL_KEYS | NEED_UPDATE_DICTIONARY), keyList.length);
      tail.n = 0;
      const tb = tail.room(8 + width * count);
      let n = putUInt64(tb, 0, count);
      if (width === 1) for (let j = 0; j < count; j++) tb[n++] = index[j]!;
      else if (width === 2) for (let j = 0; j < count; j++, n += 2) tb.writeUInt16LE(index[j]!, n);
      else for (let j = 0; j < count; j++, n += 4) tb.writeUInt32LE(index[j]!, n);
      tail.n = n;
      return [head.bytes(), keyBytes.bytes(), tail.bytes()];
    },
    clear() {
      count = 0;
      keys.clear();
      keyList.length = 0;
      keyBytes.n = 0;
    },
  };
}

/** The writer of a sink column, by its type and wire field. */
function columnFor([name, type, field]: SinkColumn): Column {
  if (field === 'seq') return seqColumn();
  if (type === 'LowCardinality(String)') return lowCardinalityColumn(field);
  if (type === 'String') return field === 'id' || field === 'meta' ? textColumn(field) : dictTextColumn(field);
  if (type === 'UInt64' || type.startsWith('DateTime64(3')) return integerColumn(field);
  if (type.startsWith('Enum8(')) return idSourceColumn(field);
  if (type === 'Decimal(38, 9)') return decimalColumn(field);
  throw new Error(`no Native writer for column ${name} ${type}`);
}

/**
 * The rows of one table for one insert, as one Native block built message by message:
 * the actions of the batches added (`actions`), or their outcomes. Kept and cleared
 * from insert to insert (its buffers stay grown).
 */
export class NativeBlock {
  rows = 0;
  readonly #columns: { header: Buffer; column: Column; onWire: boolean }[];
  readonly #head = new ByteWriter(16);
  #at = new Int32Array(256);
  #marked = 0;

  constructor(
    table: readonly SinkColumn[],
    private readonly actions: boolean,
  ) {
    this.#columns = table.map((c) => ({ header: Buffer.concat([nativeString(c[0]), nativeString(c[1])]), column: columnFor(c), onWire: c[2] !== 'seq' }));
  }

  /** Adds a wire-format-4 batch's rows of this table (checked by readNativeBatch); `seq` is its JetStream sequence. */
  append(rows: NativeRows | undefined, seq: number): number {
    if (!rows) return 0;
    let wire = 0;
    for (const { column, onWire } of this.#columns) column.append(onWire ? rows.columns[wire++] : undefined, rows.count, seq);
    this.rows += rows.count;
    return rows.count;
  }

  /** Adds the batch's rows of this table; `seq` is its JetStream sequence. Throws a RangeError (after which {@link undo}) on a value the table cannot hold. */
  add(b: WireBatch, seq: number): number {
    if (this.#at.length < b.n) this.#at = new Int32Array(b.n);
    const at = this.#at;
    let count = 0;
    for (let i = 0; i < b.n; i++) if ((b.k[i] === 1) === this.actions) at[count++] = i;
    if (count === 0) return 0;
    for (const { column } of this.#columns) column.add(b, at, count, seq);
    this.rows += count;
    return count;
  }

  /** Remembers where the current message starts: {@link undo} drops what was added since. */
  mark(): void {
    this.#marked = this.rows;
    for (const { column } of this.#columns) column.mark();
  }

  undo(): void {
    this.rows = this.#marked;
    for (const { column } of this.#columns) column.undo();
  }

  /** The block in Native, as pieces written one after another (views of the block's buffers: use them before adding more). */
  chunks(): Buffer[] {
    this.#head.n = 0;
    const hb = this.#head.room(20);
    this.#head.n = varint(hb, varint(hb, 0, this.#columns.length), this.rows);
    const out = [this.#head.bytes()];
    for (const { header, column } of this.#columns) out.push(header, ...column.data());
    return out;
  }

  clear(): void {
    this.rows = 0;
    for (const { column } of this.#columns) column.clear();
  }
}
