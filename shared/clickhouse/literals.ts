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
 * Items in chunks whose `size` adds up to at most `maxChars` each (one statement each, with
 * their literals): a statement's text stays within ClickHouse's `max_query_size` (256 KiB
 * by default). An item larger than `maxChars` is a chunk of its own.
 */
export function chunksOf<T>(items: readonly T[], size: (item: T) => number, maxChars: number): T[][] {
  const chunks: T[][] = [];
  let cur: T[] = [];
  let len = 0;
  for (const item of items) {
    const n = size(item);
    if (cur.length > 0 && len + n > maxChars) {
      chunks.push(cur);
      cur = [];
      len = 0;
    }
    cur.push(item);
    len += n;
  }
  if (cur.length > 0) chunks.push(cur);
  return chunks;
}
