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

/** An instant as `YYYY-MM-DD HH:MM:SS UTC` ('' for none). */
export function timeText(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
