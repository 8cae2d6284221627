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

/**
 * The first string (value or key) of a parsed value that cannot be stored, walking
 * without recursion (a hostile value may be nested deeper than the stack).
 */
export function findUnsafeText(value: unknown, prefix = ''): UnsafeTextProblem | undefined {
  const stack: [unknown, string][] = [[value, prefix]];
  while (stack.length > 0) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      const why = unsafeText(v);
      if (why) return { path, message: `${path ? `\`${path}\`` : 'the value'} ${why}` };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        const at = path ? `${path}.${k}` : k;
        const why = unsafeText(k);
        if (why) return { path: at, message: `the key \`${at}\` ${why}` };
        stack.push([x, at]);
      }
    }
  }
  return undefined;
}
