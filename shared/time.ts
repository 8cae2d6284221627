const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * Parses an ISO 8601 date or date-time; one without a zone is UTC. Impossible dates
 * (2026-02-30, 25:00) are refused rather than rolled over.
 */
export function parseTimestamp(s: string): number | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((x) => (x === undefined ? undefined : Number(x))) as number[];
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysInMonth(year!, month!)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const withZone = m[7] ? s : m[4] ? `${s}Z` : `${s}T00:00:00Z`;
  const t = Date.parse(withZone.replace(' ', 'T'));
  return Number.isFinite(t) ? t : undefined;
}
