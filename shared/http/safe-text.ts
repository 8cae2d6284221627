/**
 * Text that no store accepts: a NUL character (Postgres refuses it in text) or a lone
 * UTF-16 surrogate (not Unicode: Postgres and ClickHouse refuse or mangle it). Both are
 * refused at the edge, with the field that holds them named, for every route: path
 * parameters, query parameters, JSON bodies and events.
 */

/** ES2024's String.prototype.isWellFormed (Node 20 has it; the project's lib is ES2023). */
type WellFormed = string & { isWellFormed(): boolean };

/** Why `s` cannot be stored, or undefined when it can. */
export function unsafeText(s: string): string | undefined {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (!(s as WellFormed).isWellFormed()) return 'contains a lone UTF-16 surrogate (not valid Unicode)';
  return undefined;
}

/**
 * Whether a JSON text may decode to a string holding either: only a `\u0000` escape or
 * a surrogate escape can produce one (raw NUL is not valid JSON, and invalid UTF-8 bytes
 * decode to U+FFFD). One native scan, so clean bodies pay nothing more.
 */
export function jsonMayHoldUnsafeText(json: string): boolean {
  return json.includes('\\u') && /\\u(?:0000|[dD][89a-fA-F])/.test(json);
}

interface UnsafeTextProblem {
  /** `metadata.notes[2]`, or '' for the value itself. */
  path: string;
  message: string;
}

/** An object or array the walk has entered: its keys (objects) and the next one to visit. */
interface Open {
  readonly value: Record<string, unknown> | unknown[];
  readonly keys: string[] | undefined;
  readonly length: number;
  next: number;
  /** The key or index its parent holds it under (undefined for the value walked). */
  readonly under: string | number | undefined;
}

function open(value: object, under: string | number | undefined): Open {
  if (Array.isArray(value)) return { value, keys: undefined, length: value.length, next: 0, under };
  const keys = Object.keys(value);
  return { value: value as Record<string, unknown>, keys, length: keys.length, next: 0, under };
}

/** A value at `path` that cannot be stored. */
function valueProblem(path: string, why: string): UnsafeTextProblem {
  return { path, message: `${path ? `\`${path}\`` : 'the value'} ${why}` };
}

/** `metadata.notes[2]`: a key or index appended to a path. */
function step(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/** The path of `key` inside the innermost open value (spelled only for a problem found). */
function pathTo(prefix: string, opened: readonly Open[], key: string | number): string {
  let path = prefix;
  for (let i = 1; i < opened.length; i++) path = step(path, opened[i]!.under!);
  return step(path, key);
}

/**
 * The first string (value or key) of a parsed value that cannot be stored, in document
 * order, walking without recursion (a hostile value may be nested deeper than the stack)
 * and spelling the path only of what it finds: events are checked on every request.
 */
export function findUnsafeText(value: unknown, prefix = ''): UnsafeTextProblem | undefined {
  if (typeof value === 'string') {
    const why = unsafeText(value);
    return why ? valueProblem(prefix, why) : undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const opened: Open[] = [open(value, undefined)];
  while (opened.length > 0) {
    const o = opened[opened.length - 1]!;
    if (o.next === o.length) {
      opened.pop();
      continue;
    }
    const index = o.next++;
    let v: unknown;
    let key: string | number = index;
    if (o.keys) {
      key = o.keys[index]!;
      const why = unsafeText(key);
      if (why) {
        const at = pathTo(prefix, opened, key);
        return { path: at, message: `the key \`${at}\` ${why}` };
      }
      v = (o.value as Record<string, unknown>)[key];
    } else {
      v = (o.value as unknown[])[index];
    }
    if (typeof v === 'string') {
      const why = unsafeText(v);
      if (why) return valueProblem(pathTo(prefix, opened, key), why);
    } else if (v !== null && typeof v === 'object') {
      opened.push(open(v, key));
    }
  }
  return undefined;
}
