import { Unpackr } from 'msgpackr';

/**
 * One normalized event as ingest produces it. Short keys: this is the hot path.
 * On the wire a batch of them is columnar (see {@link encodeBatch}).
 */
export interface WireEvent {
  /** 1 action, 2 outcome. */
  k: 1 | 2;
  env: string;
  org: string;
  agent: string;
  /** Account of the agent instance when the event arrived; '' when none. */
  acct: string;
  id: string;
  /** 1: the client's id; 2: assigned by the server. */
  src: 1 | 2;
  /** action_type or outcome_type. */
  type: string;
  /** Event time, ms since epoch. */
  ts: number;
  /** Ingestion time: when the ingest tier received the request, ms since epoch (ClickHouse `ingested_at`). */
  ing: number;
  uid: string;
  anon: string;
  /** Metadata as JSON text ('{}' when none). */
  meta: string;
  /** Actions: model and token counts ('' and 0 when absent). */
  model: string;
  tin: number;
  tout: number;
  ttot: number;
  /** Outcomes: value as a decimal string ('' for actions). */
  val: string;
}

/**
 * A decoded batch, column by column. Low-cardinality strings (environment, agent,
 * account, type, model, users) are indexes into `dict`; numbers are typed arrays.
 * Columnar with a per-batch dictionary: half the encoding cost and size of one msgpack
 * map per event, and a tenth of the decoding cost.
 */
export interface WireBatch {
  n: number;
  dict: string[];
  k: Uint8Array;
  src: Uint8Array;
  env: Codes;
  org: Codes;
  agent: Codes;
  acct: Codes;
  type: Codes;
  model: Codes;
  uid: Codes;
  anon: Codes;
  ts: Float64Array;
  ing: Float64Array;
  tin: Counts;
  tout: Counts;
  ttot: Counts;
  id: string[];
  meta: string[];
  val: string[];
}

/** Dictionary indexes: sent in the narrowest array that holds the batch's dictionary. */
type Codes = Uint8Array | Uint16Array | Uint32Array;
/** Token counts: sent as 32-bit integers when they all fit, else as doubles. */
type Counts = Uint32Array | Float64Array;

/**
 * Version first, so the format can change without ambiguity. 3: the text columns (id,
 * meta, val) travel as one string each, joined by newlines (one msgpack string instead
 * of one per event; a column holding a newline travels as an array, as in 2), and
 * dictionary indexes and token counts in the narrowest typed array that holds them
 * (a quarter fewer bytes per event for NATS to store and the sink to read). Sinks
 * read 2 and 3: upgrade them before ingest.
 */
const FORMAT_VERSION = 3;
const READABLE_VERSIONS = new Set([2, 3]);
const TEXT_COLUMNS = ['id', 'meta', 'val'] as const;

/** A text column as one newline-joined string, or the array when a value holds a newline. */
function joinColumn(values: string[]): string | string[] {
  const joined = values.join('\n');
  let newlines = 0;
  for (let at = joined.indexOf('\n'); at !== -1; at = joined.indexOf('\n', at + 1)) newlines++;
  return newlines === values.length - 1 ? joined : values;
}
const unpackr = new Unpackr({ useRecords: false, moreTypes: true });
const COLUMNS = ['k', 'src', 'env', 'org', 'agent', 'acct', 'type', 'model', 'uid', 'anon', 'ts', 'ing', 'tin', 'tout', 'ttot', 'id', 'meta', 'val'] as const;

/** msgpackr's codes of typed arrays in its 't' extension (the order of its `typedArrays` list). */
const UINT8 = 1, UINT16 = 4, UINT32 = 6, FLOAT64 = 8;

/**
 * Columns of the batch being encoded, reused from batch to batch (encoding is
 * synchronous and copies them out): codes of the 8 dictionary columns, then the numbers.
 * Long-lived on purpose: fresh typed arrays per batch (a small one lives on V8's heap
 * until its `.buffer` is read to copy it) cost more than a small batch's events.
 */
class Scratch {
  codes = new Uint32Array(0);
  f64 = new Float64Array(0);
  u32 = new Uint32Array(0);
  u16 = new Uint16Array(0);
  bytes = new Uint8Array(0);
  /** Byte views of the arrays above. */
  codeBytes = new Uint8Array(0);
  f64Bytes = new Uint8Array(0);
  u32Bytes = new Uint8Array(0);
  u16Bytes = new Uint8Array(0);

  ensure(n: number): void {
    if (this.f64.length >= 5 * n) return;
    const size = Math.max(1024, 2 * n);
    this.codes = new Uint32Array(8 * size);
    this.f64 = new Float64Array(5 * size);
    this.u32 = new Uint32Array(3 * size);
    this.u16 = new Uint16Array(8 * size);
    this.bytes = new Uint8Array(8 * size);
    this.codeBytes = new Uint8Array(this.codes.buffer);
    this.f64Bytes = new Uint8Array(this.f64.buffer);
    this.u32Bytes = new Uint8Array(this.u32.buffer);
    this.u16Bytes = new Uint8Array(this.u16.buffer);
  }
}
const scratch = new Scratch();
const dictIndex = new Map<string, number>();

/**
 * A batch as msgpack `[version, n, dict, ...columns]`, written by hand into one buffer
 * (sized for the worst case of its text): the bytes msgpackr's unpack reads (32-bit lengths throughout;
 * number columns in msgpackr's 't' typed-array extension). msgpackr's general packer,
 * given a typed array per column, cost ~13 µs a batch before its first event.
 */
export function encodeBatch(events: readonly WireEvent[]): Uint8Array {
  const n = events.length;
  const sc = scratch;
  sc.ensure(n);
  const { codes, f64 } = sc;
  const dict: string[] = [];
  dictIndex.clear();
  const code = (s: string): number => {
    let c = dictIndex.get(s);
    if (c === undefined) {
      c = dict.length;
      dict.push(s);
      dictIndex.set(s, c);
    }
    return c;
  };
  // Neighbouring events mostly share environment, agent, type…: each column's last value first.
  let env = '', org = '', agent = '', acct = '', type = '', model = '', uid = '', anon = '';
  let cEnv = -1, cOrg = -1, cAgent = -1, cAcct = -1, cType = -1, cModel = -1, cUid = -1, cAnon = -1;
  let wideCounts = false;
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    if (e.env !== env || cEnv < 0) cEnv = code((env = e.env));
    if (e.org !== org || cOrg < 0) cOrg = code((org = e.org));
    if (e.agent !== agent || cAgent < 0) cAgent = code((agent = e.agent));
    if (e.acct !== acct || cAcct < 0) cAcct = code((acct = e.acct));
    if (e.type !== type || cType < 0) cType = code((type = e.type));
    if (e.model !== model || cModel < 0) cModel = code((model = e.model));
    if (e.uid !== uid || cUid < 0) cUid = code((uid = e.uid));
    if (e.anon !== anon || cAnon < 0) cAnon = code((anon = e.anon));
    codes[i] = cEnv;
    codes[n + i] = cOrg;
    codes[2 * n + i] = cAgent;
    codes[3 * n + i] = cAcct;
    codes[4 * n + i] = cType;
    codes[5 * n + i] = cModel;
    codes[6 * n + i] = cUid;
    codes[7 * n + i] = cAnon;
    f64[i] = e.ts;
    f64[n + i] = e.ing;
    f64[2 * n + i] = e.tin;
    f64[3 * n + i] = e.tout;
    f64[4 * n + i] = e.ttot;
    if (e.tin > 0xffffffff || e.tout > 0xffffffff || e.ttot > 0xffffffff) wideCounts = true;
  }
  const codeWidth = dict.length <= 0x100 ? 1 : dict.length <= 0x10000 ? 2 : 4;
  const countWidth = wideCounts ? 8 : 4;
  const id = joinColumn(events.map((e) => e.id));
  const meta = joinColumn(events.map((e) => e.meta));
  const val = joinColumn(events.map((e) => e.val));

  const ext = (bytes: number) => 7 + bytes;
  // At most this size (text as 3 bytes a UTF-16 unit, its UTF-8 worst case): measuring
  // each string's UTF-8 length first would scan every text twice.
  const size = 5 + 1 + 5 + textSize(dict)
    + 2 * ext(n) + 8 * ext(n * codeWidth) + 2 * ext(8 * n) + 3 * ext(n * countWidth)
    + textColumnSize(id) + textColumnSize(meta) + textColumnSize(val);
  const w = new MsgpackWriter(size);
  w.u32(0xdd, 3 + COLUMNS.length); // array 32
  w.out[w.at++] = FORMAT_VERSION; // positive fixint
  w.u32(0xce, n); // uint 32
  w.strings(dict);
  for (let i = 0; i < n; i++) sc.bytes[i] = events[i]!.k;
  w.ext(UINT8, sc.bytes, n);
  for (let i = 0; i < n; i++) sc.bytes[i] = events[i]!.src;
  w.ext(UINT8, sc.bytes, n);
  // Codes in the narrowest width that holds the dictionary.
  if (codeWidth === 4) w.ext(UINT32, sc.codeBytes, 8 * n * 4, 8);
  else {
    const narrow = codeWidth === 1 ? sc.bytes : sc.u16;
    for (let i = 0; i < 8 * n; i++) narrow[i] = codes[i]!;
    w.ext(codeWidth === 1 ? UINT8 : UINT16, codeWidth === 1 ? sc.bytes : sc.u16Bytes, 8 * n * codeWidth, 8);
  }
  w.ext(FLOAT64, sc.f64Bytes, 16 * n, 2);
  if (wideCounts) w.ext(FLOAT64, sc.f64Bytes.subarray(16 * n), 24 * n, 3);
  else {
    for (let i = 0; i < 3 * n; i++) sc.u32[i] = f64[2 * n + i]!;
    w.ext(UINT32, sc.u32Bytes, 12 * n, 3);
  }
  for (const text of [id, meta, val]) {
    if (typeof text === 'string') w.str(text);
    else w.strings(text);
  }
  return w.out.subarray(0, w.at);
}

function textColumnSize(c: string | string[]): number {
  return typeof c === 'string' ? 5 + 3 * c.length : textSize(c);
}

class MsgpackWriter {
  readonly out: Buffer;
  at = 0;

  constructor(size: number) {
    this.out = Buffer.allocUnsafe(size);
  }

  /** A marker byte and a 32-bit big-endian value. */
  u32(marker: number, v: number): void {
    this.out[this.at] = marker;
    this.out.writeUInt32BE(v, this.at + 1);
    this.at += 5;
  }

  /** str 32 */
  str(s: string): void {
    const bytes = this.out.write(s, this.at + 5, 'utf8');
    this.u32(0xdb, bytes);
    this.at += bytes;
  }

  /** array 32 of str 32 */
  strings(xs: string[]): void {
    this.u32(0xdd, xs.length);
    for (const x of xs) this.str(x);
  }

  /**
   * `count` typed arrays of msgpackr's type `arrayCode`, each ext 32 of type 't', whose
   * bytes are the first `bytes` of `from`, split in `count` equal parts.
   */
  ext(arrayCode: number, from: Uint8Array, bytes: number, count = 1): void {
    const each = bytes / count;
    for (let i = 0; i < count; i++) {
      this.u32(0xc9, each + 1);
      this.out[this.at++] = 0x74;
      this.out[this.at++] = arrayCode;
      this.out.set(from.subarray(i * each, (i + 1) * each), this.at);
      this.at += each;
    }
  }
}

/** Bytes, at most, of strings as a msgpack array of str 32. */
function textSize(xs: string[]): number {
  let size = 5;
  for (const x of xs) size += 5 + 3 * x.length;
  return size;
}

export class WireFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WireFormatError';
  }
}

export function decodeBatch(data: Uint8Array): WireBatch {
  let v: unknown;
  try {
    v = unpackr.unpack(data);
  } catch (err) {
    throw new WireFormatError(`undecodable batch: ${(err as Error).message}`);
  }
  if (!Array.isArray(v) || !READABLE_VERSIONS.has(v[0]) || v.length !== COLUMNS.length + 3) throw new WireFormatError('unknown batch format');
  const b = { n: v[1], dict: v[2] } as WireBatch;
  COLUMNS.forEach((c, i) => ((b as unknown as Record<string, unknown>)[c] = v[i + 3]));
  for (const c of TEXT_COLUMNS) {
    const col: unknown = b[c];
    if (typeof col === 'string') b[c] = b.n === 0 ? [] : col.split('\n');
  }
  if (typeof b.n !== 'number' || !Array.isArray(b.dict) || !(b.ts instanceof Float64Array) || b.ts.length !== b.n || TEXT_COLUMNS.some((c) => !Array.isArray(b[c]) || b[c].length !== b.n)) {
    throw new WireFormatError('inconsistent batch columns');
  }
  for (const c of CODE_COLUMNS) if (!codesIn(b[c], b.n, b.dict.length)) throw new WireFormatError(`inconsistent batch columns: ${c} is not ${b.n} codes within the dictionary`);
  return b;
}

const CODE_COLUMNS = ['env', 'org', 'agent', 'acct', 'type', 'model', 'uid', 'anon'] as const;

/** Whether `codes` is a typed array of `n` dictionary codes below `size`. */
function codesIn(codes: unknown, n: number, size: number): boolean {
  if (!(codes instanceof Uint8Array || codes instanceof Uint16Array || codes instanceof Uint32Array) || codes.length !== n) return false;
  for (let i = 0; i < n; i++) if (codes[i]! >= size) return false;
  return true;
}

/** The events of a batch as objects (tests and tools; the sink reads columns). */
export function batchEvents(b: WireBatch): WireEvent[] {
  const d = b.dict;
  const out: WireEvent[] = [];
  for (let i = 0; i < b.n; i++) {
    out.push({
      k: b.k[i] as 1 | 2,
      src: b.src[i] as 1 | 2,
      env: d[b.env[i]!]!,
      org: d[b.org[i]!]!,
      agent: d[b.agent[i]!]!,
      acct: d[b.acct[i]!]!,
      type: d[b.type[i]!]!,
      model: d[b.model[i]!]!,
      uid: d[b.uid[i]!]!,
      anon: d[b.anon[i]!]!,
      ts: b.ts[i]!,
      ing: b.ing[i]!,
      tin: b.tin[i]!,
      tout: b.tout[i]!,
      ttot: b.ttot[i]!,
      id: b.id[i]!,
      meta: b.meta[i]!,
      val: b.val[i]!,
    });
  }
  return out;
}
