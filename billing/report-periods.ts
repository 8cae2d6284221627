/**
 * Report periods (UTC, calendar aligned): a granularity's bucket of an instant, its
 * label and bounds. Pure; the ClickHouse side computes the same bucket start with
 * {@link bucketSql} so both stores agree on every boundary.
 */
export type Granularity = 'day' | 'week' | 'month' | 'quarter';

const DAY_MS = 86_400_000;

/** Start (inclusive) of the bucket holding `t`: midnight, Monday, 1st of month, 1st of quarter. */
export function bucketStart(t: Date, g: Granularity): Date {
  const y = t.getUTCFullYear();
  const m = t.getUTCMonth();
  const d = t.getUTCDate();
  switch (g) {
    case 'day':
      return new Date(Date.UTC(y, m, d));
    case 'week': {
      const dow = (t.getUTCDay() + 6) % 7; // Monday 0
      return new Date(Date.UTC(y, m, d - dow));
    }
    case 'month':
      return new Date(Date.UTC(y, m, 1));
    case 'quarter':
      return new Date(Date.UTC(y, m - (m % 3), 1));
  }
}

/** End (exclusive) of the bucket starting at `start`. */
export function bucketEnd(start: Date, g: Granularity): Date {
  const y = start.getUTCFullYear();
  const m = start.getUTCMonth();
  switch (g) {
    case 'day':
      return new Date(start.getTime() + DAY_MS);
    case 'week':
      return new Date(start.getTime() + 7 * DAY_MS);
    case 'month':
      return new Date(Date.UTC(y, m + 1, 1));
    case 'quarter':
      return new Date(Date.UTC(y, m + 3, 1));
  }
}

/** Label of a bucket: 2026-11-21 (day), 2026-W47 (ISO week), 2026-11 (month), 2026-Q4 (quarter). */
export function bucketLabel(start: Date, g: Granularity): string {
  const iso = start.toISOString();
  switch (g) {
    case 'day':
      return iso.slice(0, 10);
    case 'month':
      return iso.slice(0, 7);
    case 'quarter':
      return `${start.getUTCFullYear()}-Q${Math.floor(start.getUTCMonth() / 3) + 1}`;
    case 'week': {
      // ISO week: the week belongs to the year of its Thursday.
      const thursday = new Date(start.getTime() + 3 * DAY_MS);
      const year = thursday.getUTCFullYear();
      const week = Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS)) + 1;
      return `${year}-W${String(week).padStart(2, '0')}`;
    }
  }
}

/** {@link periodOf}, remembering each bucket's answer (reports repeat a few buckets over many rows). */
export function periodsOf(g: Granularity): (start: Date) => ReturnType<typeof periodOf> {
  const seen = new Map<number, ReturnType<typeof periodOf>>();
  return (start) => {
    let p = seen.get(start.getTime());
    if (!p) seen.set(start.getTime(), (p = periodOf(start, g)));
    return p;
  };
}

/** The period object reports show: `{period, period_start, period_end}`. */
function periodOf(start: Date, g: Granularity): { period: string; period_start: string; period_end: string } {
  return { period: bucketLabel(start, g), period_start: start.toISOString(), period_end: bucketEnd(start, g).toISOString() };
}

/** ClickHouse expression of the bucket start date (YYYY-MM-DD) of a UTC DateTime64 column. */
export function bucketSql(column: string, g: Granularity): string {
  switch (g) {
    case 'day':
      return `toString(toDate(${column}))`;
    case 'week':
      return `toString(toMonday(${column}))`;
    case 'month':
      return `toString(toStartOfMonth(${column}))`;
    case 'quarter':
      return `toString(toStartOfQuarter(${column}))`;
  }
}

/** Parses a bucket start date printed by {@link bucketSql}. */
export function parseBucketDate(s: string): Date {
  return new Date(`${s}T00:00:00Z`);
}

/** Orders report rows by code point (ids, ISO dates, currency codes): fast, locale-free. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
