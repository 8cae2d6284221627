/**
 * Pure: one rating task, as run in a piscina worker or inline. Expected failures
 * (invalid input: a bad unit, a malformed quantity) come back as values, since error
 * classes do not survive the trip across threads.
 */
import { rateSegments, type RateSegmentsInput, type RateSegmentsResult } from '../rating/index.ts';

/** Why a task's input could not be rated (RatingError, MoneyError or PeriodError). */
interface RatingRejection {
  name: string;
  /** The offending input field when known, e.g. "input.segments[0].usage.@tokens". */
  path: string;
  message: string;
}

export type RatingOutcome = { ok: true; result: RateSegmentsResult } | { ok: false; rejection: RatingRejection };

const EXPECTED = new Set(['RatingError', 'MoneyError', 'PeriodError']);

export function runRating(input: RateSegmentsInput): RatingOutcome {
  try {
    return { ok: true, result: rateSegments(input) };
  } catch (err) {
    if (err instanceof Error && EXPECTED.has(err.name)) {
      return { ok: false, rejection: { name: err.name, path: (err as { path?: string }).path ?? '', message: err.message } };
    }
    throw err;
  }
}
