import { Unpackr } from 'msgpackr';
import { AppError } from '../../../shared/errors.ts';
import { MAX_EVENTS_PER_REQUEST } from '../../../shared/events/limits.ts';
import type { BodyReservation } from '../../../shared/http/body-budget.ts';
import { msgpackArrayLength, parseMemory } from '../../../shared/http/encoding.ts';
import { findUnsafeText, jsonMayHoldUnsafeText } from '../../../shared/http/safe-text.ts';
import { metadataNumberTexts, valueTexts, withBigIntValue, withExactMetadata, withExactValue } from './exact-values.ts';

/** One item of a request: a parsed value, or a line that could not be parsed. */
export type RawItem = { ok: true; value: unknown } | { ok: false; code: 'invalid_json' | 'validation_failed'; message: string; path?: string };

export interface Decoded {
  /** True when the body was one event object (answered with the spec's single response). */
  single: boolean;
  items: RawItem[];
}

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

/**
 * Decodes a request body of events by Content-Type: JSON (one event object, an array,
 * or `{"events": [...]}`), NDJSON (`application/x-ndjson`, one event per line; a bad
 * line is rejected alone) or msgpack (`application/msgpack`, the same shapes as JSON).
 * With `exactValues` (outcomes), each event's JSON `value` keeps its exact digits as a
 * decimal string (exact-values.ts), as does a msgpack integer beyond 2^53 (a BigInt).
 * Numbers in JSON metadata keep their exact digits (exact-values.ts withExactMetadata).
 * Before parsing, what the body's objects and arrays will take is taken from the request's
 * share of the body budget (`memory`: 503 or 413 when it does not fit), and a msgpack
 * array of more than {@link MAX_EVENTS_PER_REQUEST} events is refused (413) from its header.
 */
export function decodeEvents(body: Buffer, contentType: string | undefined, exactValues = false, memory?: BodyReservation): Decoded {
  if (body.length === 0) throw new AppError('invalid_body', 'request body is empty; send an event object or a batch');
  const type = contentType === undefined || contentType === 'application/json' ? 'application/json' : contentType.split(';')[0]!.trim().toLowerCase();
  let decoded: Decoded;
  switch (type) {
    case 'application/json':
    case 'text/json':
    case '': {
      memory?.takeMemory(parseMemory(body, 'json'));
      const text = body.toString('utf8');
      decoded = exactValues ? withExactValues(text) : shape(parseJson(text));
      withExactMetadataTexts(decoded, text);
      if (jsonMayHoldUnsafeText(text)) decoded.items = decoded.items.map(refuseUnsafeText);
      break;
    }
    case 'application/x-ndjson':
    case 'application/ndjson':
    case 'application/jsonl':
    case 'application/x-jsonlines':
      memory?.takeMemory(parseMemory(body, 'ndjson'));
      decoded = { single: false, items: parseNdjson(body, exactValues) };
      break;
    case 'application/msgpack':
    case 'application/x-msgpack':
    case 'application/vnd.msgpack':
      refuseBeyondLimit(msgpackArrayLength(body) ?? 0);
      memory?.takeMemory(parseMemory(body, 'msgpack'));
      // msgpack strings are not escaped: every event is checked.
      decoded = shape(parseMsgpack(body));
      decoded.items = decoded.items.map(refuseUnsafeText);
      if (exactValues) decoded.items = decoded.items.map((item) => (item.ok ? { ok: true, value: withBigIntValue(item.value) } : item));
      break;
    default:
      throw new AppError(
        'unsupported_media_type',
        `Content-Type ${type} is not supported; use application/json, application/x-ndjson or application/msgpack`,
      );
  }
  if (decoded.items.length === 0) throw new AppError('invalid_body', 'the batch holds no events');
  refuseBeyondLimit(decoded.items.length);
  return decoded;
}

/** A batch of more than {@link MAX_EVENTS_PER_REQUEST} events is a 413. */
function refuseBeyondLimit(events: number, more = ''): void {
  if (events > MAX_EVENTS_PER_REQUEST) {
    const has = more ? `more than ${MAX_EVENTS_PER_REQUEST}` : String(events);
    throw new AppError('too_many_events', `a request may carry at most ${MAX_EVENTS_PER_REQUEST} events; this one has ${has}`);
  }
}

/** Attaches the exact texts of metadata numbers a double changed to each event of a JSON body. */
function withExactMetadataTexts(decoded: Decoded, text: string): void {
  const texts = metadataNumberTexts(text);
  if (decoded.single) withExactMetadata((decoded.items[0] as { value: unknown }).value, texts.top);
  else texts.events.forEach((exact, i) => decoded.items[i]?.ok && withExactMetadata((decoded.items[i] as { value: unknown }).value, exact));
}

/** A JSON body of outcomes: parsed, each event's `value` replaced by its exact text. */
function withExactValues(text: string): Decoded {
  const decoded = shape(parseJson(text));
  const texts = valueTexts(text);
  if (decoded.single) decoded.items[0] = { ok: true, value: withExactValue((decoded.items[0] as { value: unknown }).value, texts.top) };
  else decoded.items = decoded.items.map((item, i) => (item.ok ? { ok: true, value: withExactValue(item.value, texts.events[i]) } : item));
  return decoded;
}

function parseJson(body: Buffer | string): unknown {
  try {
    return JSON.parse(typeof body === 'string' ? body : body.toString('utf8'));
  } catch (err) {
    throw new AppError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
}

function parseMsgpack(body: Buffer): unknown {
  try {
    return unpackr.unpack(body);
  } catch (err) {
    throw new AppError('invalid_body', `request body is not valid msgpack: ${(err as Error).message}`);
  }
}

function parseNdjson(body: Buffer, exactValues: boolean): RawItem[] {
  const items: RawItem[] = [];
  const lines = body.toString('utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    if (items.length === MAX_EVENTS_PER_REQUEST) refuseBeyondLimit(items.length + 1, 'more');
    try {
      const value: unknown = JSON.parse(line);
      withExactMetadata(value, metadataNumberTexts(line).top);
      const item: RawItem = { ok: true, value: exactValues ? withExactValue(value, valueTexts(line).top) : value };
      items.push(jsonMayHoldUnsafeText(line) ? refuseUnsafeText(item) : item);
    } catch (err) {
      items.push({ ok: false, code: 'invalid_json', message: `line ${i + 1} is not valid JSON: ${(err as Error).message}` });
    }
  }
  return items;
}

/** An event holding text no store accepts (a NUL, a lone surrogate) is refused alone, naming the field. */
function refuseUnsafeText(item: RawItem): RawItem {
  if (!item.ok) return item;
  const unsafe = findUnsafeText(item.value);
  return unsafe ? { ok: false, code: 'validation_failed', message: unsafe.message, ...(unsafe.path ? { path: unsafe.path } : {}) } : item;
}

/** The parsed body as items, its count checked first (no item is made for a batch refused). */
function shape(v: unknown): Decoded {
  if (Array.isArray(v)) {
    refuseBeyondLimit(v.length);
    return { single: false, items: v.map((value) => ({ ok: true, value })) };
  }
  if (v !== null && typeof v === 'object') {
    const events = (v as { events?: unknown }).events;
    if (events !== undefined) {
      if (!Array.isArray(events)) throw new AppError('invalid_body', '`events` must be an array of events');
      refuseBeyondLimit(events.length);
      return { single: false, items: events.map((value) => ({ ok: true, value })) };
    }
    return { single: true, items: [{ ok: true, value: v }] };
  }
  throw new AppError('invalid_body', 'request body must be an event object, an array of events, or {"events": [...]}');
}
