/**
 * Outcome values keep the exact digits the client wrote. JSON.parse turns a number into
 * a double (123456789.123456789 becomes 123456789.12345679, 999999999999999999 becomes
 * 1e18), and Node 20's JSON.parse cannot show a number's source text. So, for outcome
 * bodies only, {@link valueTexts} scans the JSON text once for the number text of each
 * event's top-level `value` (not values nested in metadata), and {@link withExactValue}
 * puts that text, as a plain decimal string, in place of the parsed double.
 *
 * Numbers in metadata (what cost rules' `units`/`unit_field` and outcome rules'
 * `value_field` read) keep their digits too: {@link metadataNumberTexts} finds, in the
 * metadata objects of a body that may hold one, the numbers a double would change, and
 * {@link withExactMetadata} attaches them to the parsed metadata, which normalize.ts
 * serializes with those digits as decimal text in a JSON string ({@link exactMetadataJson}):
 * ClickHouse's JSON functions read every JSON number with a fraction as a double too
 * (JSONExtractRaw prints 123456789.123456789 as 123456789.12345679), and every reader of
 * a metadata quantity takes a number or a decimal string.
 */

/** The `value` number texts of a JSON body: of the top-level object, and of each event of a batch by index. */
export interface ValueTexts {
  top: string | undefined;
  events: (string | undefined)[];
}

/**
 * Number texts of `value` in an event object (a top-level object, an element of a
 * top-level array, or of the top-level object's `events` array). Assumes valid JSON
 * (it runs after JSON.parse succeeded).
 */
export function valueTexts(text: string): ValueTexts {
  const out: ValueTexts = { top: undefined, events: [] };
  scanNumberTexts<EventRole>(text, 'value', eventRole, (frame, number) => {
    if (frame.role === 'top') out.top = number;
    else if (frame.role === 'event') out.events[frame.index] = number;
  });
  return out;
}

type EventRole = 'top' | 'events' | 'event' | 'other';

/** Tally's bodies: a top-level object, its `events` array, or a top-level array, of event objects. */
function eventRole(object: boolean, parent: JsonFrame<EventRole> | undefined): EventRole {
  if (object) return !parent ? 'top' : parent.role === 'events' ? 'event' : 'other';
  return !parent || (parent.role === 'top' && parent.key === 'events') ? 'events' : 'other';
}

/** An object or array open at a point of a JSON text, and what it is to the reader ({@link scanNumberTexts}). */
export interface JsonFrame<R> {
  object: boolean;
  role: R;
  /** Objects: the last key read, and whether the next string is a key. */
  key: string | undefined;
  expectKey: boolean;
  /** Arrays: the index of the current element. Objects: the index of the element they are (their parent's, inside an object). */
  index: number;
}

/**
 * Reads a JSON text (assumed valid: it runs after JSON.parse succeeded) once and hands
 * `found` the source text of every number that is the value of `key` in an object, with
 * that object's frame. `roleOf` names each object or array as it opens, from its parent
 * (undefined at the top): what `found` reads to tell event objects from metadata. Strings
 * are skipped whole, so a key or a number inside a string is never read. `key` undefined:
 * the numbers of every key.
 */
export function scanNumberTexts<R>(
  text: string,
  key: string | undefined,
  roleOf: (object: boolean, parent: JsonFrame<R> | undefined) => R,
  found: (frame: JsonFrame<R>, number: string) => void,
): void {
  const stack: JsonFrame<R>[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const frame = stack[stack.length - 1];
    if (c === 0x22 /* " */) {
      let j = i + 1;
      for (;;) {
        j = text.indexOf('"', j);
        let backslashes = 0;
        while (text.charCodeAt(j - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes % 2 === 0) break;
        j++;
      }
      if (frame?.object && frame.expectKey) frame.key = text.slice(i + 1, j);
      i = j + 1;
    } else if (c === 0x3a /* : */) {
      if (frame) frame.expectKey = false;
      i++;
    } else if (c === 0x2c /* , */) {
      if (frame?.object) frame.expectKey = true;
      else if (frame) frame.index++;
      i++;
    } else if (c === 0x7b /* { */) {
      stack.push({ object: true, role: roleOf(true, frame), key: undefined, expectKey: true, index: frame?.index ?? 0 });
      i++;
    } else if (c === 0x5b /* [ */) {
      stack.push({ object: false, role: roleOf(false, frame), key: undefined, expectKey: false, index: 0 });
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      i++;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      let j = i + 1;
      while (j < n && /[0-9eE+\-.]/.test(text[j]!)) j++;
      if (frame?.object && (key === undefined || frame.key === key)) found(frame, text.slice(i, j));
      i = j;
    } else i++;
  }
}

/** The event with its `value` replaced by the exact decimal text, when the parsed value is a number. */
export function withExactValue(event: unknown, text: string | undefined): unknown {
  if (text === undefined || event === null || typeof event !== 'object' || typeof (event as { value?: unknown }).value !== 'number') return event;
  return { ...(event as object), value: plainDecimal(text) };
}

/** The event with its `value` as decimal text when msgpack gave an integer beyond 2^53 (a BigInt). */
export function withBigIntValue(event: unknown): unknown {
  if (event === null || typeof event !== 'object' || typeof (event as { value?: unknown }).value !== 'bigint') return event;
  return { ...(event as object), value: String((event as { value: bigint }).value) };
}

/** A JSON number's text in plain decimal notation ("1.5e3" -> "1500", "1E-7" -> "0.0000001", "-0" -> "-0"). */
export function plainDecimal(text: string): string {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  // A huge exponent is returned as is (and refused by validation), never expanded.
  if (!m || Math.abs(Number(m[4] ?? 0)) > 40) return text;
  const [, sign, int, frac = '', exp = '0'] = m;
  let digits = int! + frac;
  let point = int!.length + Number(exp);
  if (point <= 0) {
    digits = '0'.repeat(1 - point) + digits;
    point = 1;
  } else if (point > digits.length) digits += '0'.repeat(point - digits.length);
  const whole = digits.slice(0, point).replace(/^0+(?=\d)/, '');
  const fraction = digits.slice(point).replace(/0+$/, '');
  return sign + whole + (fraction ? '.' + fraction : '');
}

/**
 * Exact texts of a metadata's numbers that a double would change, by path (the JSON text
 * of the array of keys from the metadata object), in plain decimal notation.
 */
export type ExactNumbers = Map<string, string>;

/** Where the exact texts of a parsed metadata object are kept (a symbol: never serialized, never validated). */
export const EXACT_NUMBERS = Symbol('exactNumbers');

/** Metadata objects of a body: of the top-level event, of each event of a batch, and objects nested in them (arrays are not followed). */
type MetadataRole = 'top' | 'events' | 'event' | 'other' | { under: 'top' | 'event'; path: string[] };

function metadataRole(object: boolean, parent: JsonFrame<MetadataRole> | undefined): MetadataRole {
  if (!parent) return object ? 'top' : 'events';
  const p = parent.role;
  if (!object) return p === 'top' && parent.key === 'events' ? 'events' : 'other';
  if (p === 'events') return 'event';
  if ((p === 'top' || p === 'event') && parent.key === 'metadata') return { under: p, path: [] };
  if (typeof p === 'object' && parent.object) return { under: p.under, path: [...p.path, parent.key ?? ''] };
  return 'other';
}

/** A number text of 16 significant digits or more: the only ones a double may change (15 always survive). */
const MAY_BE_INEXACT = /\d[\d.]{15}/;

/**
 * The numbers of each event's metadata (at any depth of objects) whose text a double
 * would change (`123456789.123456789` becomes 123456789.12345679), as plain decimal text.
 * Bodies without a number text that long are not scanned (the common case costs one
 * regular-expression test).
 */
export function metadataNumberTexts(text: string): { top: ExactNumbers | undefined; events: (ExactNumbers | undefined)[] } {
  const out: { top: ExactNumbers | undefined; events: (ExactNumbers | undefined)[] } = { top: undefined, events: [] };
  if (!MAY_BE_INEXACT.test(text)) return out;
  scanNumberTexts<MetadataRole>(text, undefined, metadataRole, (frame, number) => {
    const role = frame.role;
    if (typeof role !== 'object' || frame.key === undefined) return;
    const parsed = Number(number);
    const exact = plainDecimal(number);
    if (!Number.isFinite(parsed) || exact === plainDecimal(String(parsed))) return;
    const map = role.under === 'top' ? (out.top ??= new Map()) : (out.events[frame.index] ??= new Map());
    map.set(JSON.stringify([...role.path, frame.key]), exact);
  });
  return out;
}

/** The event with the exact texts of its metadata's numbers attached to its metadata object (see {@link EXACT_NUMBERS}). */
export function withExactMetadata(event: unknown, exact: ExactNumbers | undefined): unknown {
  if (!exact || event === null || typeof event !== 'object') return event;
  const m = (event as { metadata?: unknown }).metadata;
  if (m !== null && typeof m === 'object' && !Array.isArray(m)) Object.defineProperty(m, EXACT_NUMBERS, { value: exact, enumerable: false });
  return event;
}

/** The exact texts attached to a parsed metadata object, if any. */
export function exactNumbersOf(m: object): ExactNumbers | undefined {
  return (m as { [EXACT_NUMBERS]?: ExactNumbers })[EXACT_NUMBERS];
}

/**
 * Metadata as JSON text (what JSON.stringify prints), the numbers in `exact` as their
 * exact decimal text in a JSON string (pure). Throws RangeError when too deep, as
 * JSON.stringify does.
 */
export function exactMetadataJson(v: unknown, exact: ExactNumbers, path: string[] = []): string {
  if (typeof v === 'number') return JSON.stringify(exact.get(JSON.stringify(path)) ?? v);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return JSON.stringify(v);
  return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${exactMetadataJson(x, exact, [...path, k])}`).join(',')}}`;
}

/** The metadata with each number of `exact` replaced by its exact decimal text (a string), for checks that take decimal strings (pure). */
export function withExactTexts(v: unknown, exact: ExactNumbers, path: string[] = []): unknown {
  if (typeof v === 'number') return exact.get(JSON.stringify(path)) ?? v;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withExactTexts(x, exact, [...path, k])]));
}
