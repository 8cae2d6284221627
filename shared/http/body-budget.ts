import os from 'node:os';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import { AppError } from '../errors.ts';

/** A request holding no more than this may use the whole budget; a larger one stops short of it by {@link SMALL_REQUEST_SHARE}. */
export const SMALL_REQUEST_BYTES = 4 * 1024 * 1024;
/** At the latest, answered large requests' bytes are collected (a full collection asked for) and given back this long after they were answered. */
export const GARBAGE_FALLBACK_MS = 2000;
/** The share of the budget kept for small requests: a flood of large bodies never shuts them out. */
export const SMALL_REQUEST_SHARE = 1 / 8;

/**
 * The memory of the process's request bodies in flight, in bytes: bodies as they arrive,
 * what they inflate to (gzip) and what parsing them takes, counted by every listener
 * (HTTP, OTLP/gRPC) against one limit. A request that would go over it is answered 503
 * with Retry-After (gRPC: RESOURCE_EXHAUSTED with a RetryInfo) instead of being buffered.
 */
export class BodyBudget {
  #used = 0;
  /** Bytes of answered large requests: garbage until V8's second full collection from now frees it. */
  #garbage = 0;
  /** Garbage that has seen one full collection: the next one frees it. */
  #aging = 0;
  #observer: PerformanceObserver | undefined;
  #fallback: NodeJS.Timeout | undefined;
  /** The part of the budget requests over {@link SMALL_REQUEST_BYTES} may use. */
  readonly #largeLimit: number;

  constructor(readonly limitBytes: number) {
    if (!Number.isSafeInteger(limitBytes) || limitBytes <= 0) throw new Error(`a body budget must be a positive integer of bytes, not ${limitBytes}`);
    this.#largeLimit = Math.floor(limitBytes * (1 - SMALL_REQUEST_SHARE));
  }

  /** Bytes held now. */
  get used(): number {
    return this.#used;
  }

  /** No room left for a request over {@link SMALL_REQUEST_BYTES}. */
  get full(): boolean {
    return this.#used >= this.#largeLimit;
  }

  /** A new request's share, empty until it takes bytes; each byte of its body counts `perByte` (what parsing it takes). */
  reserve(perByte = 1): BodyReservation {
    return new BodyReservation(this, perByte);
  }

  /** @internal Takes `n` bytes for a request already holding `held`; false when they do not fit. */
  tryTake(n: number, held: number): boolean {
    const limit = held + n <= SMALL_REQUEST_BYTES ? this.limitBytes : this.#largeLimit;
    if (this.#used + n > limit) return false;
    this.#used += n;
    return true;
  }

  /**
   * @internal TRICKY: a large request's bytes are still in memory once it is answered:
   * its body, text and tree are garbage that only a full collection (mark-compact) frees,
   * and until then (the second one from now: `#majorCollection`) they stay counted.
   * Without that, answered requests' garbage and new requests' bodies add up to several
   * times the budget. A collection comes
   * soon under allocation (bodies that are read, refused bodies drained); when none has
   * come {@link GARBAGE_FALLBACK_MS} after, the process asks V8 for one ({@link fullCollection})
   * and gives the bytes back. (Giving them back uncollected let a flood on a loaded machine,
   * where V8's concurrent marking lags, reach 1.7 times the budget.)
   */
  give(n: number, allocated = true): void {
    if (!allocated || n <= SMALL_REQUEST_BYTES) {
      this.#used -= n;
      return;
    }
    this.#garbage += n;
    this.#watchCollections();
  }

  #watchCollections(): void {
    if (!this.#observer) {
      this.#observer = new PerformanceObserver((list) => {
        for (const e of list.getEntries()) {
          const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind;
          if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) return this.#majorCollection();
        }
      });
      this.#observer.observe({ entryTypes: ['gc'] });
    }
    if (!this.#fallback) {
      this.#fallback = setTimeout(() => {
        fullCollection();
        this.#collected();
      }, GARBAGE_FALLBACK_MS);
      this.#fallback.unref();
    }
  }

  /**
   * TRICKY: a full collection whose marking began while a request ran (V8 marks
   * incrementally, alongside JavaScript) finds its objects live and does not free them,
   * though it ends after the request is answered: garbage is given back at the second
   * full collection after it was answered, whose marking began after the first ended.
   */
  #majorCollection(): void {
    this.#used -= this.#aging;
    this.#aging = this.#garbage;
    this.#garbage = 0;
    if (this.#aging === 0) this.#collected();
  }

  #collected(): void {
    this.#used -= this.#garbage + this.#aging;
    this.#garbage = 0;
    this.#aging = 0;
    this.#observer?.disconnect();
    this.#observer = undefined;
    clearTimeout(this.#fallback);
    this.#fallback = undefined;
  }

  /** The most a request over {@link SMALL_REQUEST_BYTES} may take. */
  get largeLimit(): number {
    return this.#largeLimit;
  }

  /** Whether a request needing `total` bytes could ever fit (else it is refused 413, never worth retrying). */
  fits(total: number): boolean {
    return total <= (total <= SMALL_REQUEST_BYTES ? this.limitBytes : this.#largeLimit);
  }
}

/**
 * One request's share of a {@link BodyBudget}: it grows as the request takes bytes (each
 * byte of body counting `perByte`: the body and what parsing it takes) and is given back
 * once, when the request is answered.
 */
export class BodyReservation {
  #held = 0;
  #released = false;
  constructor(
    private readonly budget: BodyBudget,
    readonly perByte = 1,
  ) {}

  /** Budget held, in bytes of memory. */
  get held(): number {
    return this.#held;
  }

  /** Takes `n` more bytes of body; false when the budget has no room for them. */
  tryTake(n: number): boolean {
    const cost = n * this.perByte;
    if (this.#released) return false;
    if (!this.budget.tryTake(cost, this.#held)) return false;
    this.#held += cost;
    return true;
  }

  /** Takes `n` more bytes of body or throws the answer: 503 with Retry-After, or 413 when the request could never fit. */
  take(n: number): void {
    if (!this.tryTake(n)) throw this.refusal(n);
  }

  /**
   * Takes `bytes` of memory as they are (not bytes of body: what parsing will make beyond
   * `perByte`'s share, e.g. `parseMemory`), or throws the answer as {@link take} does.
   */
  takeMemory(bytes: number): void {
    if (bytes <= 0) return;
    if (!this.#released && this.budget.tryTake(bytes, this.#held)) {
      this.#held += bytes;
      return;
    }
    throw this.#refusalOf(this.#held + bytes);
  }

  /** The error for a request whose `n` more bytes of body do not fit. */
  refusal(n: number): AppError {
    return this.#refusalOf(this.#held + n * this.perByte);
  }

  #refusalOf(total: number): AppError {
    if (!this.budget.fits(total)) {
      return new AppError('payload_too_large', `the request needs about ${total} bytes of memory (its body and what parsing it takes), more than this process's budget for request bodies allows (TALLY_MAX_INFLIGHT_BODY_BYTES=${this.budget.limitBytes})`);
    }
    return new BodyBudgetExhausted(this.budget.limitBytes);
  }

  /** Gives every byte back (idempotent); a large request's once V8 has collected its garbage. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.budget.give(this.#held);
    this.#held = 0;
  }

  /** Gives every byte back at once: for a share taken ahead of memory that was never allocated (idempotent). */
  cancel(): void {
    if (this.#released) return;
    this.#released = true;
    this.budget.give(this.#held, false);
    this.#held = 0;
  }
}

let gc: (() => void) | undefined;
/**
 * A full, synchronous garbage collection (a few ms when what it frees is garbage: marking
 * visits live objects only). V8 exposes it to a context created after `--expose-gc` is
 * set, as jest's leak detector gets it; nothing else in the process changes.
 */
export function fullCollection(): void {
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as () => void;
  }
  gc();
}

/** The 503 of a request whose body does not fit in the budget now (expected under load: not logged as a fault). */
export class BodyBudgetExhausted extends AppError {
  constructor(limitBytes: number) {
    super('service_unavailable', `this process is holding as many request bodies as its memory allows (TALLY_MAX_INFLIGHT_BODY_BYTES=${limitBytes}); retry shortly`, {
      retryAfterSeconds: 1,
    });
    this.name = 'BodyBudgetExhausted';
  }
}

/** What the default budget is computed from. */
export interface ProcessMemory {
  /** Physical memory (os.totalmem()). */
  totalBytes: number;
  /** The cgroup's limit (process.constrainedMemory()); 0, undefined or huge when there is none. */
  constrainedBytes: number | undefined;
  /** V8's heap limit: parsed bodies live on the heap. */
  heapLimitBytes: number;
}

export function processMemory(): ProcessMemory {
  const constrained = (process as { constrainedMemory?: () => number | undefined }).constrainedMemory?.();
  return { totalBytes: os.totalmem(), constrainedBytes: constrained, heapLimitBytes: v8.getHeapStatistics().heap_size_limit };
}

/**
 * The default budget: a quarter of the memory the process may use (the smaller of
 * physical memory and its cgroup's memory.max) or of V8's heap limit, whichever is
 * smaller, and at least 64 MiB.
 */
export function defaultBodyBudgetBytes(m: ProcessMemory = processMemory()): number {
  const c = m.constrainedBytes;
  const memory = c !== undefined && c > 0 && c < m.totalBytes ? c : m.totalBytes;
  return Math.max(64 * 1024 * 1024, Math.floor(Math.min(memory, m.heapLimitBytes) / 4));
}
