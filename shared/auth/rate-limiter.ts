import type { NatsConnection } from '@nats-io/transport-node';
import { AppError } from '../errors.ts';
import { logger } from '../log.ts';
import type { Principal } from './keys.ts';

const log = logger('rate-limit');

/** The spec's defaults: requests per minute. */
export const DEFAULT_SDK_LIMIT_PER_MINUTE = 10_000;
export const DEFAULT_API_LIMIT_PER_MINUTE = 1_000;

interface RateDecision {
  limit: number;
  remaining: number;
  /** Unix time (seconds) when the window resets. */
  resetAt: number;
}

interface RateLimiterOptions {
  windowMs?: number;
  /** How often a process tells the others its counts. */
  syncIntervalMs?: number;
  now?: () => number;
}

/** Where a request's decision is kept on its carrier (a symbol: never a header name, cheaper than a WeakMap). */
const DECISION = Symbol('rate-decision');
type Carrier = { [DECISION]?: RateDecision };

interface KeyWindow {
  window: number;
  local: number;
  /** Counts other processes reported for this window, by process. */
  remote: Map<string, number>;
}

/**
 * Requests per minute per credential, shared by every ingest and api process: fixed
 * one-minute windows; each process counts its own requests and broadcasts its counts
 * of the current window over core NATS every `syncIntervalMs`; a request is admitted
 * when this process's count plus the others' last reported counts is under the limit.
 *
 * Tolerance: the limit can be exceeded by what the other processes admitted since
 * their last report (at most one sync interval, 250 ms, of their traffic). Without
 * NATS each process limits alone.
 */
export class RateLimiter {
  readonly #keys = new Map<string, KeyWindow>();
  readonly #origin = Math.random().toString(36).slice(2);
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #dirty = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection | undefined,
    private readonly subject: string,
    opts: RateLimiterOptions = {},
  ) {
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
    if (!nc) return;
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          this.#receive(msg.json<{ o: string; w: number; c: Record<string, number> }>());
        } catch (e) {
          log.warn('bad rate-limit message', { err: e });
        }
      },
    });
    // A plain unref'd interval, not shared/loop.ts: the broadcast is synchronous (runs cannot
    // overlap), handles its own failure, and must not keep a process alive or make stop() wait.
    this.#timer = setInterval(() => this.#broadcast(), opts.syncIntervalMs ?? 250);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  /**
   * Counts one request of this principal. Throws a 429 `rate_limited` (with Retry-After)
   * when over the limit. `carrier` (the request's headers object) remembers the decision
   * for the response headers.
   */
  hit(p: Principal, carrier: object): RateDecision {
    const limit = p.rateLimitPerMinute ?? (p.kind === 'api' ? DEFAULT_API_LIMIT_PER_MINUTE : DEFAULT_SDK_LIMIT_PER_MINUTE);
    const now = this.#now();
    const window = Math.floor(now / this.#windowMs);
    const resetAtMs = (window + 1) * this.#windowMs;
    const key = p.credentialId;
    let w = this.#keys.get(key);
    if (!w || w.window !== window) {
      w = { window, local: 0, remote: w?.window === window ? w.remote : new Map() };
      this.#keys.set(key, w);
    }
    let used = w.local;
    for (const n of w.remote.values()) used += n;
    const resetAt = Math.ceil(resetAtMs / 1000);
    if (used >= limit) {
      const d = { limit, remaining: 0, resetAt };
      (carrier as Carrier)[DECISION] = d;
      throw new AppError('rate_limited', `rate limit of ${limit} requests per minute exceeded; retry after the window resets`, {
        retryAfterSeconds: Math.max(1, Math.ceil((resetAtMs - now) / 1000)),
      });
    }
    w.local++;
    this.#dirty.add(key);
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

  #broadcast(): void {
    if (this.#dirty.size === 0 || !this.nc || this.nc.isClosed()) return;
    const window = Math.floor(this.#now() / this.#windowMs);
    const c: Record<string, number> = {};
    for (const key of this.#dirty) {
      const w = this.#keys.get(key);
      if (w && w.window === window) c[key] = w.local;
    }
    this.#dirty.clear();
    // Drop windows that ended: the map stays as small as the set of active keys.
    for (const [key, w] of this.#keys) if (w.window < window) this.#keys.delete(key);
    try {
      this.nc.publish(this.subject, JSON.stringify({ o: this.#origin, w: window, c }));
    } catch (err) {
      log.warn('could not share rate-limit counts', { err });
    }
  }

  #receive(m: { o: string; w: number; c: Record<string, number> }): void {
    if (m.o === this.#origin) return;
    const window = Math.floor(this.#now() / this.#windowMs);
    if (m.w !== window) return;
    for (const [key, n] of Object.entries(m.c)) {
      let w = this.#keys.get(key);
      if (!w || w.window !== window) {
        w = { window, local: 0, remote: new Map() };
        this.#keys.set(key, w);
      }
      w.remote.set(m.o, n);
    }
  }
}
