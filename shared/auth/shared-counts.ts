import type { NatsConnection } from '@nats-io/transport-node';
import { logger } from '../log.ts';

const log = logger('shared-counts');

export interface SharedCountsOptions {
  windowMs?: number;
  /** How often a process tells the others its counts. */
  syncIntervalMs?: number;
  now?: () => number;
}

interface KeyWindow {
  window: number;
  local: number;
  /** Counts other processes reported for this window, by process. */
  remote: Map<string, number>;
}

/** A process's counts of one window: `{o: origin, w: window, c: {key: count}}`. */
interface CountsMessage {
  o: string;
  w: number;
  c: Record<string, number>;
}
/** Everything a process knows of a window, for one that joins: `[origin, key, count]` triples. */
interface StateMessage {
  w: number;
  s: [string, string, number][];
}

/** Most triples in one answer to a joining process (NATS's max payload is 1 MiB by default). */
const STATE_CHUNK = 5000;
/** A joining process waits this long after the last answer before it admits (and at most JOIN_MAX_WAIT_MS). */
const JOIN_STALL_MS = 200;
const JOIN_MAX_WAIT_MS = 2000;

/**
 * Counts per key in fixed windows, shared by every process on the same subject: each
 * process counts its own and broadcasts its counts of the current window over core NATS
 * every `syncIntervalMs`; a key's total is this process's count plus the others' last
 * reported counts. A process that starts (or restarts) mid-window first asks the others
 * for everything they know of the window ({@link join}), its own earlier life's counts
 * included: a process at its limit admits nothing, so it never re-sends them. Without
 * NATS each process counts alone.
 */
export class SharedWindowCounts {
  readonly #keys = new Map<string, KeyWindow>();
  readonly #origin = Math.random().toString(36).slice(2);
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #dirty = new Set<string>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection | undefined,
    private readonly subject: string,
    opts: SharedCountsOptions = {},
  ) {
    this.#windowMs = opts.windowMs ?? 60_000;
    this.#now = opts.now ?? Date.now;
    if (!nc) return;
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          this.#receive(msg.json<CountsMessage>());
        } catch (e) {
          log.warn('bad counts message', { subject, err: e });
        }
      },
    });
    nc.subscribe(`${subject}.join`, {
      callback: (err, msg) => {
        if (err || !msg.reply) return;
        try {
          for (const state of this.#state()) msg.respond(JSON.stringify(state));
        } catch (e) {
          log.warn('could not answer a joining process', { subject, err: e });
        }
      },
    });
    // A plain unref'd interval, not shared/loop.ts: the broadcast is synchronous (runs cannot
    // overlap), handles its own failure, and must not keep a process alive or make stop() wait.
    this.#timer = setInterval(() => this.#broadcast(), opts.syncIntervalMs ?? 250);
    this.#timer.unref();
  }

  /** The current window's number, when it ends and the time now (ms). */
  window(): { window: number; endsAt: number; now: number } {
    const now = this.#now();
    const window = Math.floor(now / this.#windowMs);
    return { window, endsAt: (window + 1) * this.#windowMs, now };
  }

  /** The key's count in the window (the current one, from {@link window}), every process's. */
  total(key: string, window = this.window().window): number {
    const w = this.#keys.get(key);
    if (!w || w.window !== window) return 0;
    let n = w.local;
    for (const r of w.remote.values()) n += r;
    return n;
  }

  /** Counts one for the key in this process, in the window (the current one). */
  add(key: string, window = this.window().window): void {
    this.#at(key, window).local++;
    this.#dirty.add(key);
  }

  /**
   * Learns what the other processes know of the current window (their counts, and those
   * they last heard from processes now gone) before this one counts anything: resolves
   * once they have answered (or at once when none is there).
   */
  async join(): Promise<void> {
    if (!this.nc) return;
    let answers: AsyncIterable<{ json<T>(): T }>;
    try {
      answers = await this.nc.requestMany(`${this.subject}.join`, '', { strategy: 'stall', stall: JOIN_STALL_MS, maxWait: JOIN_MAX_WAIT_MS });
    } catch {
      return; // no responders: the first process of its kind
    }
    try {
      for await (const m of answers) this.#learn(m.json<StateMessage>());
    } catch (err) {
      // "no responders" arrives here too; anything else: counting alone is the fallback.
      if (!/no responders|503/i.test(String((err as Error)?.message))) log.warn('could not learn the window counts of other processes', { subject: this.subject, err });
    }
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }

  #at(key: string, window: number): KeyWindow {
    let w = this.#keys.get(key);
    if (w && w.window === window) return w;
    w = { window, local: 0, remote: new Map() };
    this.#keys.set(key, w);
    return w;
  }

  #broadcast(): void {
    if (this.#dirty.size === 0 || !this.nc || this.nc.isClosed()) return;
    const { window } = this.window();
    const c: Record<string, number> = {};
    for (const key of this.#dirty) {
      const w = this.#keys.get(key);
      if (w && w.window === window) c[key] = w.local;
    }
    this.#dirty.clear();
    // Drop windows that ended: the map stays as small as the set of active keys.
    for (const [key, w] of this.#keys) if (w.window < window) this.#keys.delete(key);
    try {
      this.nc.publish(this.subject, JSON.stringify({ o: this.#origin, w: window, c } satisfies CountsMessage));
    } catch (err) {
      log.warn('could not share counts', { subject: this.subject, err });
    }
  }

  #receive(m: CountsMessage): void {
    if (m.o === this.#origin || m.w !== this.window().window) return;
    for (const [key, n] of Object.entries(m.c)) this.#at(key, m.w).remote.set(m.o, n);
  }

  /** Everything known of the current window, in messages of at most {@link STATE_CHUNK} triples. */
  #state(): StateMessage[] {
    const { window } = this.window();
    const out: StateMessage[] = [];
    let s: StateMessage['s'] = [];
    const push = (t: [string, string, number]): void => {
      s.push(t);
      if (s.length === STATE_CHUNK) out.push({ w: window, s }), (s = []);
    };
    for (const [key, w] of this.#keys) {
      if (w.window !== window) continue;
      if (w.local > 0) push([this.#origin, key, w.local]);
      for (const [origin, n] of w.remote) push([origin, key, n]);
    }
    if (s.length > 0 || out.length === 0) out.push({ w: window, s });
    return out;
  }

  #learn(m: StateMessage): void {
    if (m.w !== this.window().window) return;
    for (const [origin, key, n] of m.s) {
      if (origin === this.#origin) continue;
      const remote = this.#at(key, m.w).remote;
      remote.set(origin, Math.max(remote.get(origin) ?? 0, n));
    }
  }
}
