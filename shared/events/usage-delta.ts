/**
 * A message's usage, aggregated per scope, type and event-time second: what the live tail
 * (billing/live/tail.ts) holds of each events-stream message the sink has not stored yet,
 * and what the ingest edge publishes after JetStream acknowledged a message (a usage
 * delta, docs/spend-limits.md), so the tail need not read and decode the message again.
 * One aggregation for both: {@link aggregateMessage} over a message's bytes (the tail's
 * direct gets), {@link aggregateEvents} over the events the edge just published.
 */
import { Dec } from '../decimal.ts';
import { pack, unpack } from 'msgpackr';
import { decodeAnyBatch } from './native-batch.ts';
import { TOKEN_CLASSES } from './token-classes.ts';
import type { WireBatch, WireEvent } from './wire.ts';

/** One message's usage of one scope, type and event-time second. */
export interface UsageEntry {
  seq: number;
  env: string;
  acct: string;
  agent: string;
  /** 1 action, 2 outcome. */
  k: number;
  type: string;
  /** Earliest and latest event time (ms) of the entry's events, within one second. */
  min: number;
  max: number;
  n: number;
  tin: number;
  tout: number;
  ttot: number;
  /** Token classes, in TOKEN_CLASSES order. */
  classes: number[];
  /** Outcomes: the sum of their values (decimal text). */
  value: string;
  /**
   * 1: the entry's events carry ids the client chose, so one may be a copy of an event sent
   * before (ClickHouse keeps one of each; the tail counts every copy until stored); 0: ids
   * ingest made, none a copy. An entry of a delta without it (an older ingest) counts as 1.
   * Lower bounds count a 1 only once its ids are proven counted nowhere else
   * (billing/live/tail.ts lowerBound).
   */
  cid: number;
  /** The events' ids, in order, when `cid` is 1 (a delta may leave them out: the entry is then never in a lower bound). */
  ids?: string[];
}

const NO_CLASSES: readonly number[] = TOKEN_CLASSES.map(() => 0);

/** An action's token classes from its metadata, as ClickHouse computes them (token-classes.ts: the top-level field, else under `usage`, else 0). */
function tokenClasses(meta: string): readonly number[] {
  // Parsed only when a class's name is in the text (most metadata has none).
  if (!TOKEN_CLASSES.some((c) => meta.includes(c.field))) return NO_CLASSES;
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(meta) as Record<string, unknown>;
  } catch {
    return NO_CLASSES;
  }
  const usage = (m.usage && typeof m.usage === 'object' ? m.usage : {}) as Record<string, unknown>;
  return TOKEN_CLASSES.map((c) => {
    const v = m[c.field] ?? usage[c.field];
    return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
  });
}

/** One event as the aggregation reads it (filled in place, row after row). */
interface Row {
  env: string;
  acct: string;
  agent: string;
  k: number;
  type: string;
  ts: number;
  tin: number;
  tout: number;
  ttot: number;
  meta: string;
  val: string;
  /** id_source: 1 the client's, 2 ingest's. */
  src: number;
  id: string;
}

/** The aggregation itself: `n` rows, each read into `row` by `read(i, row)`. */
function aggregateRows(seq: number, n: number, read: (i: number, row: Row) => void): UsageEntry[] {
  const byKey = new Map<string, UsageEntry & { dec?: Dec }>();
  const row: Row = { env: '', acct: '', agent: '', k: 0, type: '', ts: 0, tin: 0, tout: 0, ttot: 0, meta: '', val: '', src: 1, id: '' };
  // The previous row's entry: consecutive events of one request share their scope, type and second.
  let last: (UsageEntry & { dec?: Dec }) | undefined;
  let lastSec = NaN;
  for (let i = 0; i < n; i++) {
    read(i, row);
    const { env, acct, agent, k, type, ts } = row;
    const cid = row.src === 2 ? 0 : 1;
    const sec = Math.floor(ts / 1000);
    let e = last;
    if (!e || sec !== lastSec || e.k !== k || e.type !== type || e.agent !== agent || e.acct !== acct || e.env !== env || e.cid !== cid) {
      const key = `${env}\u0000${acct}\u0000${agent}\u0000${k}\u0000${type}\u0000${sec}\u0000${cid}`;
      e = byKey.get(key);
      if (!e) byKey.set(key, (e = { seq, env, acct, agent, k, type, min: ts, max: ts, n: 0, tin: 0, tout: 0, ttot: 0, classes: TOKEN_CLASSES.map(() => 0), value: '0', cid, ...(cid === 1 ? { ids: [] } : {}) }));
      last = e;
      lastSec = sec;
    }
    e.n++;
    if (e.ids) e.ids.push(row.id);
    if (ts < e.min) e.min = ts;
    if (ts > e.max) e.max = ts;
    if (k === 1) {
      e.tin += row.tin;
      e.tout += row.tout;
      e.ttot += row.ttot;
      const c = tokenClasses(row.meta);
      if (c !== NO_CLASSES) for (let j = 0; j < c.length; j++) e.classes[j]! += c[j]!;
    } else {
      // As the usage query sums them: toDecimal256(value, 9).
      e.dec = (e.dec ?? new Dec(0)).plus(new Dec(row.val || '0').toDecimalPlaces(9, Dec.ROUND_DOWN));
    }
  }
  return [...byKey.values()].map(({ dec, ...e }) => (dec ? { ...e, value: dec.toFixed() } : e));
}

/** A decoded batch's events aggregated. */
function aggregateBatch(seq: number, b: WireBatch): UsageEntry[] {
  const d = b.dict;
  return aggregateRows(seq, b.n, (i, r) => {
    r.env = d[b.env[i]!]!;
    r.acct = d[b.acct[i]!]!;
    r.agent = d[b.agent[i]!]!;
    r.type = d[b.type[i]!]!;
    r.k = b.k[i]!;
    r.ts = b.ts[i]!;
    r.tin = b.tin[i]!;
    r.tout = b.tout[i]!;
    r.ttot = b.ttot[i]!;
    r.meta = b.meta[i]!;
    r.val = b.val[i]!;
    r.src = b.src[i]!;
    r.id = b.id[i]!;
  });
}

/** A message's events aggregated (see {@link UsageEntry}). Throws a WireFormatError on bytes no sink reads. */
export function aggregateMessage(seq: number, data: Uint8Array): UsageEntry[] {
  return aggregateBatch(seq, decodeAnyBatch(data));
}

/** The events of one published message aggregated, as {@link aggregateMessage} aggregates the message. */
export function aggregateEvents(seq: number, events: readonly WireEvent[]): UsageEntry[] {
  return aggregateRows(seq, events.length, (i, r) => {
    const e = events[i]!;
    r.env = e.env;
    r.acct = e.acct;
    r.agent = e.agent;
    r.type = e.type;
    r.k = e.k;
    r.ts = e.ts;
    r.tin = e.tin;
    r.tout = e.tout;
    r.ttot = e.ttot;
    r.meta = e.meta;
    r.val = e.val;
    r.src = e.src;
    r.id = e.id;
  });
}

/** Version first, so the delta's layout can change without ambiguity. */
const DELTA_VERSION = 1;

/**
 * Usage deltas of several messages as one core-NATS payload: msgpack of
 * `[version, seq, entries, seq, entries, …]`, each entry an array in {@link UsageEntry}'s
 * field order (seq left out: its message's; `cid` and then `ids`, added within version 1: a
 * reader without them ignores them, and one reading a delta without `cid` takes 1, without
 * `ids` none).
 */
export function encodeDeltas(messages: readonly { seq: number; entries: readonly UsageEntry[] }[]): Uint8Array {
  const out: unknown[] = [DELTA_VERSION];
  for (const { seq, entries } of messages) {
    out.push(seq, entries.map((e) => [e.env, e.acct, e.agent, e.k, e.type, e.min, e.max, e.n, e.tin, e.tout, e.ttot, e.classes, e.value, e.cid, ...(e.ids ? [e.ids] : [])]));
  }
  return pack(out);
}

/** The messages of a payload of {@link encodeDeltas}; undefined when it is not one (another version, garbage). */
export function decodeDeltas(data: Uint8Array): { seq: number; entries: UsageEntry[] }[] | undefined {
  let a: unknown;
  try {
    a = unpack(data);
  } catch {
    return undefined;
  }
  if (!Array.isArray(a) || a[0] !== DELTA_VERSION || a.length % 2 !== 1) return undefined;
  const out: { seq: number; entries: UsageEntry[] }[] = [];
  for (let i = 1; i < a.length; i += 2) {
    const seq = a[i] as number;
    const rows = a[i + 1] as unknown[][];
    if (!Number.isSafeInteger(seq) || seq <= 0 || !Array.isArray(rows)) return undefined;
    out.push({
      seq,
      entries: rows.map(([env, acct, agent, k, type, min, max, n, tin, tout, ttot, classes, value, cid, ids]) => ({
        seq, env, acct, agent, k, type, min, max, n, tin, tout, ttot, classes, value, cid: cid === 0 ? 0 : 1,
        ...(cid !== 0 && Array.isArray(ids) && ids.length === n && ids.every((i) => typeof i === 'string') ? { ids } : {}),
      }) as UsageEntry),
    });
  }
  return out;
}
