const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Parses an ISO 8601 timestamp; one without a zone is UTC. */
export function parseTimestamp(s: string): number | undefined {
  const m = ISO.exec(s);
  if (!m) return undefined;
  const withZone = m[7] ? s : m[4] ? `${s}Z` : `${s}T00:00:00Z`;
  const t = Date.parse(withZone.replace(' ', 'T'));
  return Number.isFinite(t) ? t : undefined;
}

