import type { NatsConnection } from '@nats-io/transport-node';
import { AppError } from '../errors.ts';
import type { Principal } from './keys.ts';
import { SharedWindowCounts, type SharedCountsOptions } from './shared-counts.ts';

/** The spec's defaults: requests per minute. */
export const DEFAULT_SDK_LIMIT_PER_MINUTE = 10_000;
export const DEFAULT_API_LIMIT_PER_MINUTE = 1_000;

interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window resets. */
  resetAt: number;
}

type RateLimiterOptions = SharedCountsOptions;

/** Where a request's decision is kept on its carrier (a symbol: never a header name, cheaper than a WeakMap). */
const DECISION = Symbol('rate-decision');
type Carrier = { [DECISION]?: RateDecision };

/**
 * Requests per minute per credential, shared by every ingest and api process
 * ({@link SharedWindowCounts}): fixed one-minute windows; each process counts its own
 * requests and broadcasts its counts of the current window over core NATS every
 * `syncIntervalMs`; a request is admitted when this process's count plus the others' last
 * reported counts is under the limit. A process that starts or restarts mid-minute learns
 * the minute's counts from the others ({@link join}) before it admits anything.
 *
 * Tolerance: the limit can be exceeded by what the other processes admitted since
 * their last report (at most one sync interval, 250 ms, of their traffic). Without
 * NATS each process limits alone.
 */
export class RateLimiter {
  readonly #counts: SharedWindowCounts;

  constructor(nc: NatsConnection | undefined, subject: string, opts: RateLimiterOptions = {}) {
    this.#counts = new SharedWindowCounts(nc, subject, opts);
  }

  /** Learns the current minute's counts from the other processes; call before admitting requests. */
  join(): Promise<void> {
    return this.#counts.join();
  }

  stop(): void {
    this.#counts.stop();
  }

  /**
   * Counts one request of this principal. Throws a 429 `rate_limited` (with Retry-After)
   * when over the limit. `carrier` (the request's headers object) remembers the decision
   * for the response headers.
   */
  hit(p: Principal, carrier: object): RateDecision {
    const limit = p.rateLimitPerMinute ?? (p.kind === 'api' ? DEFAULT_API_LIMIT_PER_MINUTE : DEFAULT_SDK_LIMIT_PER_MINUTE);
    const key = p.credentialId;
    const { window, endsAt, now } = this.#counts.window();
    const used = this.#counts.total(key, window);
    const resetAt = Math.ceil(endsAt / 1000);
    if (used >= limit) {
      const d = { limit, remaining: 0, resetAt };
      (carrier as Carrier)[DECISION] = d;
      throw new AppError('rate_limited', `rate limit of ${limit} requests per minute exceeded; retry after the window resets`, {
        retryAfterSeconds: Math.max(1, Math.ceil((endsAt - now) / 1000)),
      });
    }
    this.#counts.add(key, window);
    const d = { limit, remaining: Math.max(0, limit - used - 1), resetAt };
    (carrier as Carrier)[DECISION] = d;
    return d;
  }

  /** The X-RateLimit-* headers for a request whose principal was counted. */
  headersFor(carrier: object): Record<string, string> | undefined {
    const d = (carrier as Carrier)[DECISION];
    if (!d) return undefined;
    return { 'x-ratelimit-limit': String(d.limit), 'x-ratelimit-remaining': String(d.remaining), 'x-ratelimit-reset': String(d.resetAt) };
  }
}
