/**
 * Failed authentications (401 answers) per client address, in fixed one-minute windows,
 * per process: an address over the limit is answered 429 on every request until its
 * window ends, before any credential lookup (guessing keys costs a Postgres query each).
 * The address is the TCP peer's: behind a proxy, limit there.
 */
export class AuthFailureLimiter {
  #window = -1;
  readonly #counts = new Map<string, number>();
  readonly #windowMs: number;

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
    windowMs = 60_000,
  ) {
    this.#windowMs = windowMs;
  }

  /** Whether any address has failed in the current window (else there is nothing to check). */
  get active(): boolean {
    this.#roll();
    return this.#counts.size > 0;
  }

  /** Seconds until `address` may try again, or undefined when it may now. */
  retryAfter(address: string): number | undefined {
    this.#roll();
    if ((this.#counts.get(address) ?? 0) < this.perMinute) return undefined;
    return Math.max(1, Math.ceil(((this.#window + 1) * this.#windowMs - this.now()) / 1000));
  }

  failed(address: string): void {
    this.#roll();
    this.#counts.set(address, (this.#counts.get(address) ?? 0) + 1);
  }

  #roll(): void {
    const w = Math.floor(this.now() / this.#windowMs);
    if (w === this.#window) return;
    this.#window = w;
    this.#counts.clear();
  }
}
