import { AppError } from '../../shared/errors.ts';
import { parseTimestamp } from '../../shared/time.ts';

/** Longest range a usage, report or cost query covers, in calendar years. */
const MAX_RANGE_YEARS = 5;
/** Dates a query may name: what the event store's time columns hold (1970 to 2106), with margin. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

/**
 * [start, end) of a usage, report or cost query: the given dates, else the current
 * calendar month (`required`: no default). Both between 1970 and 2100, the end after
 * the start, at most 5 years apart (see {@link latestEnd}); otherwise a 400 naming the parameter.
 */
export function range(
  q: { start_date?: string | null | undefined; end_date?: string | null | undefined },
  now = new Date(),
  opts: { required?: boolean } = {},
): { from: Date; to: Date } {
  const from = date(q.start_date, 'start_date', opts.required) ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = date(q.end_date, 'end_date', opts.required) ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  if (!(from < to)) throw new AppError('validation_failed', '`end_date` must be after `start_date`');
  const latest = latestEnd(from);
  if (to > latest) {
    const message = `the range covers at most ${MAX_RANGE_YEARS} years: \`end_date\` must not be after ${latest.toISOString()} (\`start_date\` + ${MAX_RANGE_YEARS} years)`;
    throw new AppError('validation_failed', message, { details: [{ path: 'end_date', message }] });
  }
  return { from, to };
}

/**
 * The latest end of a range from `from`: the same UTC date and time 5 calendar years later
 * (from February 29, March 1), so `end_date <= start_date + 5 years`.
 */
export function latestEnd(from: Date): Date {
  const d = new Date(from);
  d.setUTCFullYear(d.getUTCFullYear() + MAX_RANGE_YEARS);
  return d;
}

function date(v: string | null | undefined, name: string, required = false): Date | undefined {
  if (!v) {
    if (required) throw new AppError('validation_failed', `\`${name}\` is required (ISO 8601)`);
    return undefined;
  }
  const t = parseTimestamp(v);
  if (t === undefined) throw new AppError('validation_failed', `\`${name}\` must be an ISO 8601 date or date-time`);
  if (t < EARLIEST || t > LATEST) throw new AppError('validation_failed', `\`${name}\` must be between 1970-01-01 and 2100-01-01`);
  return new Date(t);
}
