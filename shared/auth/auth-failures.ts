import type { NatsConnection } from '@nats-io/transport-node';
import { SharedWindowCounts, type SharedCountsOptions } from './shared-counts.ts';

/**
 * Failed authentications (401 answers) per client address, in fixed one-minute windows,
 * counted across every process on the same NATS subject ({@link SharedWindowCounts}, as
 * the key rate limits are). Only failures are limited: once an address is over the limit,
 * its further failures are answered 429 (with Retry-After) instead of 401 until the
 * window ends, while a valid credential from it is served as usual, so that one client
 * guessing keys behind a shared address (a NAT, a load balancer) locks out no one else.
 * The address is the client's as `clientAddress` finds it (trusted proxies' forwarding
 * headers, else the TCP peer).
 */
export class AuthFailureLimiter {
  readonly #counts: SharedWindowCounts;

  constructor(
    readonly perMinute: number,
    opts: SharedCountsOptions & { nc?: NatsConnection | undefined; subject?: string } = {},
  ) {
    this.#counts = new SharedWindowCounts(opts.nc, opts.subject ?? '', opts);
  }

  /** Learns the current minute's failures from the other processes. */
  join(): Promise<void> {
    return this.#counts.join();
  }

  stop(): void {
    this.#counts.stop();
  }

  /**
   * Counts one failed authentication of `address`; returns the seconds to wait when the
   * address was already over the limit (the failure is then answered 429), else undefined.
   */
  failed(address: string): number | undefined {
    const { window, endsAt, now } = this.#counts.window();
    const over = this.#counts.total(address, window) >= this.perMinute;
    this.#counts.add(address, window);
    return over ? Math.max(1, Math.ceil((endsAt - now) / 1000)) : undefined;
  }
}
