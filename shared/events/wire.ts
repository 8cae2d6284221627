import { Packr, Unpackr } from 'msgpackr';

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
  /** Acknowledgement time, ms since epoch. */
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
const CODE_COLUMNS = ['env', 'org', 'agent', 'acct', 'type', 'model', 'uid', 'anon'] as const;
const COUNT_COLUMNS = ['tin', 'tout', 'ttot'] as const;

function narrowCodes(codes: Uint32Array, dictSize: number): Codes {
  if (dictSize <= 0x100) return new Uint8Array(codes);
  if (dictSize <= 0x10000) return new Uint16Array(codes);
  return codes;
}

function narrowCounts(counts: Float64Array): Counts {
  for (let i = 0; i < counts.length; i++) if (counts[i]! > 0xffffffff) return counts;
  return new Uint32Array(counts);
}

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
const packr = new Packr({ useRecords: false, moreTypes: true });
const unpackr = new Unpackr({ useRecords: false, moreTypes: true });
const COLUMNS = ['k', 'src', 'env', 'org', 'agent', 'acct', 'type', 'model', 'uid', 'anon', 'ts', 'ing', 'tin', 'tout', 'ttot', 'id', 'meta', 'val'] as const;

export function encodeBatch(events: readonly WireEvent[]): Uint8Array {
  const n = events.length;
  const dict: string[] = [];
  const index = new Map<string, number>();
  const code = (s: string): number => {
    let c = index.get(s);
    if (c === undefined) {
      c = dict.length;
      dict.push(s);
      index.set(s, c);
    }
    return c;
  };
  // Neighbouring events mostly share environment, agent, type…: the last value's code first.
  const column = (): ((s: string) => number) => {
    let last: string | undefined;
    let lastCode = 0;
    return (s) => (s === last ? lastCode : ((last = s), (lastCode = code(s))));
  };
  const env = column(), org = column(), agent = column(), acct = column(), type = column(), model = column(), uid = column(), anon = column();
  const b = {
    n,
    dict,
    k: new Uint8Array(n),
    src: new Uint8Array(n),
    env: new Uint32Array(n),
    org: new Uint32Array(n),
    agent: new Uint32Array(n),
    acct: new Uint32Array(n),
    type: new Uint32Array(n),
    model: new Uint32Array(n),
    uid: new Uint32Array(n),
    anon: new Uint32Array(n),
    ts: new Float64Array(n),
    ing: new Float64Array(n),
    tin: new Float64Array(n),
    tout: new Float64Array(n),
    ttot: new Float64Array(n),
    id: new Array<string>(n),
    meta: new Array<string>(n),
    val: new Array<string>(n),
  };
  for (let i = 0; i < n; i++) {
    const e = events[i]!;
    b.k[i] = e.k;
    b.src[i] = e.src;
    b.env[i] = env(e.env);
    b.org[i] = org(e.org);
    b.agent[i] = agent(e.agent);
    b.acct[i] = acct(e.acct);
    b.type[i] = type(e.type);
    b.model[i] = model(e.model);
    b.uid[i] = uid(e.uid);
    b.anon[i] = anon(e.anon);
    b.ts[i] = e.ts;
    b.ing[i] = e.ing;
    b.tin[i] = e.tin;
    b.tout[i] = e.tout;
    b.ttot[i] = e.ttot;
    b.id[i] = e.id;
    b.meta[i] = e.meta;
    b.val[i] = e.val;
  }
  const columns = COLUMNS.map((c) => {
    if (c === 'id' || c === 'meta' || c === 'val') return joinColumn(b[c]);
    if ((CODE_COLUMNS as readonly string[]).includes(c)) return narrowCodes(b[c as (typeof CODE_COLUMNS)[number]], dict.length);
    if ((COUNT_COLUMNS as readonly string[]).includes(c)) return narrowCounts(b[c as (typeof COUNT_COLUMNS)[number]]);
    return b[c];
  });
  return packr.pack([FORMAT_VERSION, n, dict, ...columns]);
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
  return b;
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
