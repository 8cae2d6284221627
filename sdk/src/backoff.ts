/** Options of the retry delay. */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. */
  baseMs: number;
  /** Upper bound of any delay, Retry-After included. */
  maxMs: number;
}

/**
 * Delay before retry number `attempt` (0 for the first retry): exponential
 * (`baseMs * 2^attempt`, capped at `maxMs`) with "equal jitter": a uniformly random
 * value in [half, full] of it, so retries of many clients spread out but still grow.
 */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number = Math.random): number {
  const ceiling = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date; undefined when absent or
 * unreadable. Never negative.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const v = value.trim();
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The delay before the next attempt: the server's Retry-After when given, else backoff. */
export function retryDelay(attempt: number, retryAfterMs: number | undefined, opts: BackoffOptions, random?: () => number): number {
  if (retryAfterMs !== undefined) return Math.min(opts.maxMs, retryAfterMs);
  return backoffDelay(attempt, opts, random);
}
