/**
 * ClickHouse literals, for statements that must not wait in chDB's queue of parameterized
 * queries (docs/performance.md): text and numbers written into the SQL itself, escaped.
 */

/** A non-negative integer as a ClickHouse literal (refuses anything else). */
export function uint(n: number): string {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a non-negative integer: ${n}`);
  return String(n);
}

/** A ClickHouse string literal. */
export function sqlString(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/**
 * Literals joined into comma-separated lists of at most `maxChars` each (one statement
 * each): a statement's text stays within ClickHouse's `max_query_size` (256 KiB by default).
 */
export function literalLists(literals: readonly string[], maxChars = 100_000): string[] {
  const lists: string[] = [];
  let cur: string[] = [];
  let len = 0;
  for (const l of literals) {
    if (cur.length > 0 && len + l.length + 2 > maxChars) {
      lists.push(cur.join(', '));
      cur = [];
      len = 0;
    }
    cur.push(l);
    len += l.length + 2;
  }
  if (cur.length > 0) lists.push(cur.join(', '));
  return lists;
}
