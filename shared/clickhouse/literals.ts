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
