import { AppError } from '../../shared/errors.ts';
import { parseTimestamp } from '../../shared/time.ts';

/** Longest range a usage, report or cost query covers. */
const MAX_RANGE_MS = 5 * 366 * 86_400_000;
/** Dates a query may name: what the event store's time columns hold (1970 to 2106), with margin. */
const EARLIEST = Date.UTC(1970, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

/**
 * [start, end) of a usage, report or cost query: the given dates, else the current
 * calendar month (`required`: no default). Both between 1970 and 2100, the end after
 * the start, at most 5 years apart; otherwise a 400 naming the parameter.
 */
export function range(
  q: { start_date?: string | null | undefined; end_date?: string | null | undefined },
  now = new Date(),
  opts: { required?: boolean } = {},
): { from: Date; to: Date } {
  const from = date(q.start_date, 'start_date', opts.required) ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const to = date(q.end_date, 'end_date', opts.required) ?? new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  if (!(from < to)) throw new AppError('validation_failed', '`end_date` must be after `start_date`');
  if (to.getTime() - from.getTime() > MAX_RANGE_MS) throw new AppError('validation_failed', 'the range covers at most 5 years');
  return { from, to };
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
