interface Entry<V> {
  value: V | undefined;
  expiresAt: number;
}

/**
 * A bounded in-memory cache that loads misses once (concurrent misses share one load),
 * keeps found values for `ttlMs` and misses (undefined) for `negativeTtlMs`.
 * Failed loads are not cached.
 */
export class LoadingCache<V> {
  readonly #entries = new Map<string, Entry<V>>();
  readonly #loading = new Map<string, Promise<V | undefined>>();
  #generation = 0;

  constructor(
    private readonly load: (key: string) => Promise<V | undefined>,
    private readonly opts: { ttlMs: number; negativeTtlMs: number; maxEntries: number },
  ) {}

  /** The cached value when fresh, without loading (the hot path stays synchronous). */
  peek(key: string, now = Date.now()): { hit: true; value: V | undefined } | { hit: false } {
    const e = this.#entries.get(key);
    if (e && e.expiresAt > now) return { hit: true, value: e.value };
    return { hit: false };
  }

  async get(key: string): Promise<V | undefined> {
    const p = this.peek(key);
    if (p.hit) return p.value;
    let pending = this.#loading.get(key);
    if (!pending) {
      const generation = this.#generation;
      pending = this.load(key).then(
        (value) => {
          this.#loading.delete(key);
          // An invalidation while loading makes this result stale: do not keep it.
          if (generation === this.#generation) this.#set(key, value);
          return value;
        },
        (err) => {
          this.#loading.delete(key);
          throw err;
        },
      );
      this.#loading.set(key, pending);
    }
    return pending;
  }

  #set(key: string, value: V | undefined): void {
    if (this.#entries.size >= this.opts.maxEntries) {
      // Evict the oldest insertion (Map keeps insertion order).
      const first = this.#entries.keys().next();
      if (!first.done) this.#entries.delete(first.value);
    }
    const ttl = value === undefined ? this.opts.negativeTtlMs : this.opts.ttlMs;
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: Date.now() + ttl });
  }

  /** Drops entries whose value matches, and every cached miss. */
  invalidate(matches: (value: V) => boolean): void {
    this.#generation++;
    for (const [k, e] of this.#entries) {
      if (e.value === undefined || matches(e.value)) this.#entries.delete(k);
    }
  }

  clear(): void {
    this.#generation++;
    this.#entries.clear();
  }
}
