import { randomUUID } from 'node:crypto';
import { retryDelay, parseRetryAfter } from './backoff.ts';
import { BoundedBuffer } from './buffer.ts';
import { TallyCredits } from './credits.ts';
import { TallySpendLimits, type LimitState } from './spend-limits.ts';

export type { LimitState };
import { TallyBufferOverflowError, TallyDeliveryError, TallyRejectedError, TallySpendLimitError, type SpendLimitRef, type TallyError } from './errors.ts';

/** Options of {@link Tally}. Defaults follow the interface spec (client defaults). */
export interface TallyOptions {
  /** SDK key (`sk_test_…`/`sk_live_…`), sent as `Authorization: Bearer`. Optional when `agentKey` is given. */
  apiKey?: string;
  /** The agent instance's secret (or id), sent as `agent_key` on every event that has none. Without `apiKey` it authenticates the client (`X-Agent-Secret`). */
  agentKey?: string;
  /** Service address, e.g. `http://localhost:8080` or `https://tally.example.com/v1`. */
  baseUrl: string;
  /** Events per request; a full buffer of this many is sent at once. Default 100. */
  bufferSize?: number;
  /** Buffered events are sent at least this often. Default 5000. */
  flushIntervalMs?: number;
  /** Per request. Default 30000. */
  timeoutMs?: number;
  /** Retries of one request after the first attempt (network errors, 5xx, 429). Default 3. */
  maxRetries?: number;
  /** First retry delay before jitter; doubles per retry. Default 500. */
  retryBaseMs?: number;
  /** Largest delay between retries, Retry-After included. Default 30000. */
  retryMaxMs?: number;
  /** Request encoding. Default 'json'; 'msgpack' needs the `msgpackr` package. */
  transport?: 'json' | 'msgpack';
  /**
   * Most events held while the service is unreachable (buffered plus waiting for the next
   * attempt). When full, the oldest events are dropped and reported to `onError` as a
   * {@link TallyBufferOverflowError}. Default 10000.
   */
  maxBufferedEvents?: number;
  /** Requests in flight at once. Default 1. */
  maxConcurrentRequests?: number;
  /** Events that could not be delivered: rejected by the service, dropped, or undeliverable. Default: a warning on stderr. */
  onError?: (err: TallyError) => void;
  /** Flush and close when the Node process is about to exit normally (`beforeExit`). Default true. */
  flushOnExit?: boolean;
}

/** An action (spec: Action event) plus attribution fields; `agent_key` defaults to the client's. */
export interface ActionInput {
  action_type: string;
  agent_key?: string;
  metadata?: Record<string, unknown>;
  user_id?: string;
  anonymous_id?: string;
  /** Defaults to the time of the call. */
  timestamp?: string | Date;
  /** Defaults to a random UUID. Re-sending an id counts the event once. */
  id?: string;
}

/** An outcome (spec: Outcome event). */
export interface OutcomeInput {
  outcome_type: string;
  /** A number, or a decimal string to keep every digit (e.g. "123456789.123456789"). */
  value: number | string;
  agent_key?: string;
  metadata?: Record<string, unknown>;
  user_id?: string;
  anonymous_id?: string;
  timestamp?: string | Date;
  id?: string;
}

export type EventKind = 'action' | 'outcome';

/** The spend limits of the client's agent instance. */
export interface AgentLimits {
  agent_instance_id: string;
  account_id: string | null;
  /** Whether any `block` limit that applies is reached: events are refused (402). */
  blocked: boolean;
  limits: LimitState[];
}

/** One event as sent: its body (with `id` and `timestamp` fixed at `send*` time). */
export interface PendingEvent {
  kind: EventKind;
  body: Record<string, unknown> & { id: string; timestamp: string };
}

export interface TallyStats {
  /** Events the service acknowledged. */
  delivered: number;
  rejected: number;
  dropped: number;
  /** Requests retried (each retry counts). */
  retries: number;
  /** Events buffered now. */
  buffered: number;
}

type Resolved = Required<Omit<TallyOptions, 'apiKey' | 'agentKey' | 'onError'>> & Pick<TallyOptions, 'apiKey' | 'agentKey'> & { onError: (err: TallyError) => void };

const USER_AGENT = 'tally-sdk-js/0.1.0';

/**
 * Sends metering events to Tally with at-least-once delivery: events are buffered and sent
 * in batches; each event gets its id and timestamp when it is sent to the client, and keeps
 * them across retries, so the service counts a retried event once.
 *
 * Failure handling: network errors, timeouts, 5xx and 429 are retried (exponential backoff
 * with jitter, or the server's Retry-After) up to `maxRetries` times; then the batch goes
 * back to the buffer and is tried again at the next flush. Other 4xx are not retried: a
 * batch answer's per-event rejections reach `onError` as {@link TallyRejectedError} (the
 * good events of the batch are stored), a whole-request error (e.g. 401) as
 * {@link TallyDeliveryError}. The buffer is bounded (`maxBufferedEvents`): when the service
 * stays unreachable and it fills, the oldest events are dropped and reported.
 */
export class Tally {
  readonly #o: Resolved;
  readonly #urls: Record<EventKind, string>;
  readonly #headers: Record<string, string>;
  readonly #buffer: BoundedBuffer<PendingEvent>;
  readonly #inflight = new Set<Promise<void>>();
  readonly #timer: NodeJS.Timeout;
  readonly #onBeforeExit = () => {
    if (this.#buffer.length > 0 || this.#inflight.size > 0) void this.close();
  };
  #flushing: Promise<void> | undefined;
  #closed: Promise<void> | undefined;
  #requeuedInFlush = false;
  /** No request before this time (a 429/503 Retry-After applies to the whole client). */
  #notBefore = 0;
  #pack: ((v: unknown) => Uint8Array) | undefined;
  readonly #stats = { delivered: 0, rejected: 0, dropped: 0, retries: 0 };
  /** Prepaid credits (grants, balance, ledger, top-ups); see {@link TallyCredits}. */
  readonly credits: TallyCredits;
  /** Spend limits (create, change, states, alerts) with an API key; see {@link TallySpendLimits}. An agent reads its own with {@link Tally.limits}. */
  readonly spendLimits: TallySpendLimits;

  constructor(options: TallyOptions) {
    this.#o = resolve(options);
    const base = this.#o.baseUrl.replace(/\/+$/, '');
    const v1 = /\/v1$/.test(base) ? base : `${base}/v1`;
    this.#urls = { action: `${v1}/actions`, outcome: `${v1}/outcomes` };
    this.#headers = {
      'content-type': this.#o.transport === 'msgpack' ? 'application/msgpack' : 'application/json',
      'user-agent': USER_AGENT,
      ...(this.#o.apiKey ? { authorization: `Bearer ${this.#o.apiKey}` } : { 'x-agent-secret': this.#o.agentKey! }),
    };
    this.#buffer = new BoundedBuffer(this.#o.maxBufferedEvents);
    const { apiKey, agentKey, timeoutMs, maxRetries, retryBaseMs, retryMaxMs } = this.#o;
    const api = { v1, apiKey, agentKey, userAgent: USER_AGENT, timeoutMs, maxRetries, retryBaseMs, retryMaxMs };
    this.credits = new TallyCredits(api);
    this.spendLimits = new TallySpendLimits(api);
    this.#timer = setInterval(() => void this.flush().catch(() => {}), this.#o.flushIntervalMs);
    this.#timer.unref();
    if (this.#o.flushOnExit) process.on('beforeExit', this.#onBeforeExit);
  }

  /** Buffers an action; returns its event id. */
  sendAction(action: ActionInput): string {
    if (typeof action?.action_type !== 'string') throw new TypeError('sendAction: `action_type` must be a string');
    const { timestamp, id, agent_key, ...rest } = action;
    return this.#enqueue('action', rest, timestamp, id, agent_key);
  }

  /** Buffers an outcome; returns its event id. */
  sendOutcome(outcome: OutcomeInput): string {
    if (typeof outcome?.outcome_type !== 'string') throw new TypeError('sendOutcome: `outcome_type` must be a string');
    if (typeof outcome.value !== 'number' && typeof outcome.value !== 'string') throw new TypeError('sendOutcome: `value` must be a number or a decimal string');
    const { timestamp, id, agent_key, ...rest } = outcome;
    return this.#enqueue('outcome', rest, timestamp, id, agent_key);
  }

  get stats(): TallyStats {
    return { ...this.#stats, buffered: this.#buffer.length };
  }

  /**
   * Sends everything buffered. Resolves when each of those events is delivered, reported,
   * or, if the service stayed unreachable through every retry, back in the buffer.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#flushAll().finally(() => (this.#flushing = undefined));
    return this.#flushing;
  }

  /**
   * Flushes, stops the timer and the exit hook. Events still undeliverable after that are
   * reported to `onError` as a {@link TallyDeliveryError} with code `undelivered`. Idempotent.
   */
  close(): Promise<void> {
    this.#closed ??= (async () => {
      clearInterval(this.#timer);
      process.off('beforeExit', this.#onBeforeExit);
      await this.flush();
      const left = this.#buffer.take(this.#buffer.length);
      if (left.length) this.#report(new TallyDeliveryError('undelivered', `${left.length} events could not be delivered before close`, left, undefined, true));
    })();
    return this.#closed;
  }

  #enqueue(kind: EventKind, rest: Record<string, unknown>, timestamp: string | Date | undefined, id: string | undefined, agentKey: string | undefined): string {
    if (this.#closed) throw new Error('Tally client is closed');
    const key = agentKey ?? this.#o.agentKey;
    const body = {
      ...rest,
      ...(key !== undefined ? { agent_key: key } : {}),
      id: id ?? randomUUID(),
      timestamp: timestamp instanceof Date ? timestamp.toISOString() : (timestamp ?? new Date().toISOString()),
    };
    const dropped = this.#buffer.push({ kind, body });
    if (dropped.length) this.#drop(dropped);
    if (this.#buffer.length >= this.#o.bufferSize) this.#pump(false);
    return body.id;
  }

  #drop(events: PendingEvent[]): void {
    this.#stats.dropped += events.length;
    this.#report(new TallyBufferOverflowError(events));
  }

  #report(err: TallyError): void {
    try {
      this.#o.onError(err);
    } catch {
      /* a throwing callback must not break delivery */
    }
  }

  /** Starts requests while slots are free: full batches, or any remainder when `all`. */
  #pump(all: boolean): void {
    while (this.#inflight.size < this.#o.maxConcurrentRequests && this.#buffer.length > 0 && (all || this.#buffer.length >= this.#o.bufferSize)) {
      const batch = this.#buffer.take(this.#o.bufferSize);
      const p: Promise<void> = this.#deliver(batch).finally(() => {
        this.#inflight.delete(p);
        if (this.#buffer.length >= this.#o.bufferSize && !this.#requeuedInFlush) this.#pump(false);
      });
      this.#inflight.add(p);
    }
  }

  async #flushAll(): Promise<void> {
    this.#requeuedInFlush = false;
    // TRICKY: stop taking new batches once one went back to the buffer (the service is
    // unreachable); otherwise a flush during an outage would never end.
    for (;;) {
      if (!this.#requeuedInFlush) this.#pump(true);
      if (this.#inflight.size === 0) return;
      await Promise.race(this.#inflight);
    }
  }

  async #deliver(batch: PendingEvent[]): Promise<void> {
    const back: PendingEvent[] = [];
    for (const kind of ['action', 'outcome'] as const) {
      const events = batch.filter((e) => e.kind === kind);
      if (events.length) back.push(...(await this.#send(kind, events)));
    }
    if (back.length) {
      this.#requeuedInFlush = true;
      const dropped = this.#buffer.unshift(back);
      if (dropped.length) this.#drop(dropped);
    }
  }

  /** One batch of one kind, with retries; returns the events to try again later. */
  async #send(kind: EventKind, events: PendingEvent[]): Promise<PendingEvent[]> {
    const body = await this.#encode(events.map((e) => e.body));
    for (let attempt = 0; ; attempt++) {
      const wait = this.#notBefore - Date.now();
      if (wait > 0) await sleep(wait);
      let retryAfterMs: number | undefined;
      let failure: string;
      try {
        const res = await this.#post(this.#urls[kind], body);
        const answer = parseJson(res.text);
        const results = Array.isArray(answer?.results) ? (answer.results as BatchResult[]) : undefined;
        if (res.status === 200 || res.status === 207 || (res.status >= 400 && res.status < 500 && res.status !== 429 && results)) {
          this.#settle(events, results, res.status);
          return [];
        }
        if (res.status === 413 && events.length > 1) {
          const mid = events.length >> 1;
          return [...(await this.#send(kind, events.slice(0, mid))), ...(await this.#send(kind, events.slice(mid)))];
        }
        const err = answer?.error as { code?: string; message?: string } | undefined;
        if (res.status !== 429 && res.status < 500) {
          this.#stats.rejected += events.length;
          this.#report(new TallyDeliveryError(err?.code ?? `http_${res.status}`, err?.message ?? `HTTP ${res.status}`, events, res.status, false));
          return [];
        }
        retryAfterMs = parseRetryAfter(res.retryAfter);
        if (retryAfterMs !== undefined) this.#notBefore = Math.max(this.#notBefore, Date.now() + Math.min(retryAfterMs, this.#o.retryMaxMs));
        failure = `HTTP ${res.status}`;
      } catch (err) {
        failure = (err as Error).name === 'AbortError' ? 'timeout' : String((err as Error).message);
      }
      if (attempt >= this.#o.maxRetries) return events;
      void failure;
      this.#stats.retries++;
      await sleep(retryDelay(attempt, retryAfterMs, { baseMs: this.#o.retryBaseMs, maxMs: this.#o.retryMaxMs }));
    }
  }

  /** A batch answer: count the processed, report the rejected with their events. */
  #settle(events: PendingEvent[], results: BatchResult[] | undefined, status: number): void {
    if (!results) {
      this.#stats.delivered += events.length;
      return;
    }
    for (const r of results) {
      const e = events[r.index];
      if (!e) continue;
      if (r.status === 'rejected') {
        this.#stats.rejected++;
        const message = r.error?.message ?? 'rejected by the service';
        this.#report(r.error?.code === 'spend_limit_reached' ? new TallySpendLimitError(message, e, status, r.error.limit ?? null) : new TallyRejectedError(r.error?.code ?? 'rejected', message, e, status));
      } else this.#stats.delivered++;
    }
  }

  async #encode(bodies: unknown[]): Promise<string | Uint8Array> {
    if (this.#o.transport === 'json') return JSON.stringify(bodies);
    if (!this.#pack) {
      const { Packr } = await import('msgpackr');
      const packr = new Packr({ useRecords: false });
      this.#pack = (v) => packr.pack(v);
    }
    return this.#pack(bodies);
  }

  /**
   * The spend limits that apply to this client's agent instance (its own, its account's,
   * its environment's): current value, remaining, and whether it is blocked
   * (`GET /v1/agents/me/limits` with the agent's secret). Needs `agentKey` (the secret).
   * A well-behaved agent slows down as `remaining` shrinks, before it is blocked.
   */
  async limits(): Promise<AgentLimits> {
    if (!this.#o.agentKey) throw new TypeError('limits(): `agentKey` (the agent instance secret) is required');
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.#o.timeoutMs);
    try {
      const res = await fetch(this.#urls.action.replace(/\/actions$/, '/agents/me/limits'), { headers: { 'x-agent-secret': this.#o.agentKey, 'user-agent': USER_AGENT }, signal: ctl.signal });
      const answer = parseJson(await res.text());
      if (res.status !== 200) {
        const err = answer?.error as { code?: string; message?: string } | undefined;
        throw new TallyDeliveryError(err?.code ?? `http_${res.status}`, err?.message ?? `HTTP ${res.status}`, [], res.status, res.status === 429 || res.status >= 500);
      }
      return answer as unknown as AgentLimits;
    } finally {
      clearTimeout(timer);
    }
  }

  async #post(url: string, body: string | Uint8Array): Promise<{ status: number; text: string; retryAfter: string | null }> {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), this.#o.timeoutMs);
    try {
      const res = await fetch(url, { method: 'POST', headers: this.#headers, body, signal: ctl.signal });
      return { status: res.status, text: await res.text(), retryAfter: res.headers.get('retry-after') };
    } finally {
      clearTimeout(timer);
    }
  }
}

interface BatchResult {
  index: number;
  status: string;
  id?: string;
  error?: { code?: string; message?: string; limit?: SpendLimitRef };
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v !== null && typeof v === 'object' ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

function resolve(o: TallyOptions): Resolved {
  const problems: string[] = [];
  if (!o || typeof o !== 'object') throw new TypeError('Tally: options are required');
  if (!o.apiKey && !o.agentKey) problems.push('`apiKey` (SDK key) or `agentKey` (agent instance secret) is required');
  try {
    const u = new URL(o.baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') problems.push('`baseUrl` must be http(s)');
  } catch {
    problems.push('`baseUrl` must be an absolute URL, e.g. http://localhost:8080');
  }
  const int = (name: keyof TallyOptions, def: number, min: number, max = Number.MAX_SAFE_INTEGER): number => {
    const v = o[name] ?? def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max) problems.push(`\`${name}\` must be an integer from ${min} to ${max}`);
    return v as number;
  };
  const r: Resolved = {
    apiKey: o.apiKey,
    agentKey: o.agentKey,
    baseUrl: o.baseUrl,
    bufferSize: int('bufferSize', 100, 1, 10_000),
    flushIntervalMs: int('flushIntervalMs', 5000, 1),
    timeoutMs: int('timeoutMs', 30_000, 1),
    maxRetries: int('maxRetries', 3, 0, 100),
    retryBaseMs: int('retryBaseMs', 500, 0),
    retryMaxMs: int('retryMaxMs', 30_000, 0),
    maxBufferedEvents: int('maxBufferedEvents', 10_000, 1),
    maxConcurrentRequests: int('maxConcurrentRequests', 1, 1, 64),
    transport: o.transport ?? 'json',
    flushOnExit: o.flushOnExit ?? true,
    onError: o.onError ?? ((err) => process.emitWarning(err.message, { code: `TALLY_${err.code.toUpperCase()}` })),
  };
  if (r.transport !== 'json' && r.transport !== 'msgpack') problems.push("`transport` must be 'json' or 'msgpack'");
  if (Number.isInteger(r.maxBufferedEvents) && r.maxBufferedEvents < r.bufferSize) problems.push('`maxBufferedEvents` must be at least `bufferSize`');
  if (problems.length) throw new RangeError(`Tally: invalid options: ${problems.join('; ')}`);
  return Object.freeze(r);
}
