/** The first instant of the UTC month `offset` months from the one holding `d`. */
export function monthStart(d: Date, offset = 0): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + offset, 1));
}

/** YYYY-MM of a date (UTC). */
export function yearMonth(d: Date): string {
  return d.toISOString().slice(0, 7);
}

export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}
