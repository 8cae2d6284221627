import { createInbox, headers as natsHeaders, type Msg, type NatsConnection } from '@nats-io/transport-node';
import { performance } from 'node:perf_hooks';
import { AppError, DependencyUnavailableError } from '../../../shared/errors.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { encodeNativeBatch } from '../../../shared/events/native-batch.ts';
import { logger } from '../../../shared/log.ts';
import { inflightEvents, ingestMetrics } from '../metrics.ts';
import type { UsageDeltas } from './usage-deltas.ts';

const log = logger('publisher');

export interface PublisherOptions {
  maxBatchEvents: number;
  maxBatchBytes: number;
  lingerMs: number;
  maxInflightEvents: number;
  ackTimeoutMs: number;
}

interface AckWait {
  /** With the message's stream sequence (0: not found in the PubAck). */
  resolve: (seq: number) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

interface Batch {
  events: WireEvent[];
  approxBytes: number;
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Publishes events to JetStream in micro-batches: events of many requests share one
 * message, sent when it is full or after `lingerMs`. Each message is a plain NATS
 * publish with a `Nats-Msg-Id` header (so a retried send is stored once) and a reply
 * subject under this publisher's one inbox subscription, where JetStream's PubAck
 * arrives (cheaper per message than `nc.request`, which builds two error objects with
 * stack traces per call). `publish` resolves only when every event it was given is stored.
 *
 * Bounded: above `maxInflightEvents` waiting for acknowledgement, or while NATS is
 * disconnected, `publish` fails at once with a retryable 503 and nothing is sent.
 */
export class EventPublisher {
  #current: Batch | undefined;
  #timer: NodeJS.Timeout | NodeJS.Immediate | undefined;
  #inflight = 0;
  #connected = true;
  #seq = 0;
  readonly #inbox = createInbox();
  /** Messages awaiting their PubAck, by the reply subject's last token. */
  readonly #acks = new Map<string, AckWait>();
  readonly #msgIdPrefix = `${process.pid.toString(36)}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}-`;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly opts: PublisherOptions,
    /** Where each acknowledged message's usage delta goes (none: not published). */
    private readonly deltas?: UsageDeltas,
  ) {
    nc.subscribe(`${this.#inbox}.*`, { callback: (err, msg) => (err ? this.#failAll(err) : this.#onAck(msg)) });
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'close') {
          this.#connected = false;
          if (s.type === 'close') this.#failAll(new Error('NATS connection closed'));
        } else if (s.type === 'reconnect') this.#connected = true;
      }
    })();
  }

  get inflight(): number {
    return this.#inflight;
  }

  get connected(): boolean {
    return this.#connected && !this.nc.isClosed();
  }

  async publish(events: WireEvent[]): Promise<void> {
    if (events.length === 0) return;
    if (!this.connected) throw new DependencyUnavailableError('NATS JetStream');
    if (this.#inflight + events.length > this.opts.maxInflightEvents) {
      throw new AppError('service_unavailable', 'ingest is at capacity; retry shortly', { retryAfterSeconds: 1 });
    }
    this.#inflight += events.length;
    inflightEvents.count += events.length;
    const waits: Promise<void>[] = [];
    for (const e of events) {
      const b = (this.#current ??= this.#newBatch());
      if (waits[waits.length - 1] !== b.done) waits.push(b.done);
      b.events.push(e);
      b.approxBytes += e.meta.length + e.id.length + e.type.length + 120;
      if (b.events.length >= this.opts.maxBatchEvents || b.approxBytes >= this.opts.maxBatchBytes) this.#flush();
    }
    this.#scheduleFlush();
    try {
      await (waits.length === 1 ? waits[0] : Promise.all(waits));
    } finally {
      this.#inflight -= events.length;
      inflightEvents.count -= events.length;
    }
  }

  #newBatch(): Batch {
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A batch whose waiters all failed already must not raise an unhandled rejection.
    done.catch(() => {});
    return { events: [], approxBytes: 0, done, resolve, reject };
  }

  /**
   * A partly filled batch is sent after the linger; 0: at the end of this event-loop
   * turn, so every request that arrived in the same turn shares the message without a
   * timer's latency.
   */
  #scheduleFlush(): void {
    if (!this.#current || this.#timer) return;
    this.#timer = this.opts.lingerMs > 0 ? setTimeout(() => this.#flush(), this.opts.lingerMs) : setImmediate(() => this.#flush());
  }

  #flush(): void {
    if (this.#timer) {
      clearTimeout(this.#timer as NodeJS.Timeout);
      clearImmediate(this.#timer as NodeJS.Immediate);
      this.#timer = undefined;
    }
    const b = this.#current;
    this.#current = undefined;
    if (!b || b.events.length === 0) return;
    this.#send(b.events).then(b.resolve, b.reject);
  }

  async #send(events: WireEvent[]): Promise<void> {
    const data = encodeNativeBatch(events);
    const maxPayload = this.nc.info?.max_payload ?? 1024 * 1024;
    if (data.byteLength > maxPayload - 1024 && events.length > 1) {
      const mid = events.length >> 1;
      await Promise.all([this.#send(events.slice(0, mid)), this.#send(events.slice(mid))]);
      return;
    }
    const msgId = this.#msgIdPrefix + (this.#seq++).toString(36);
    const started = performance.now();
    for (let attempt = 1; ; attempt++) {
      try {
        const seq = await this.#request(data, msgId);
        if (seq > 0) this.deltas?.add(seq, events);
        ingestMetrics.batches.inc();
        ingestMetrics.batchSize.observe(events.length);
        ingestMetrics.publishSeconds.observe((performance.now() - started) / 1000);
        return;
      } catch (err) {
        const reason = (err as Error).name ?? 'error';
        ingestMetrics.publishFailures.inc({ reason });
        // A timed-out request may have been stored: resend with the same Nats-Msg-Id
        // (JetStream drops the duplicate) while still connected, once.
        if (attempt < 2 && this.connected && reason === 'TimeoutError') continue;
        log.warn('JetStream did not acknowledge a batch', { events: events.length, err });
        throw err instanceof AppError ? err : new DependencyUnavailableError('NATS JetStream', err);
      }
    }
  }

  /** Resolves with the message's stream sequence. */
  #request(data: Uint8Array, msgId: string): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const token = msgId.slice(this.#msgIdPrefix.length);
      const timer = setTimeout(() => {
        this.#acks.delete(token);
        reject(Object.assign(new Error(`no PubAck within ${this.opts.ackTimeoutMs} ms`), { name: 'TimeoutError' }));
      }, this.opts.ackTimeoutMs);
      this.#acks.set(token, { resolve, reject, timer });
      const h = natsHeaders();
      h.set('Nats-Msg-Id', msgId);
      try {
        this.nc.publish(this.subject, data, { reply: `${this.#inbox}.${token}`, headers: h });
      } catch (err) {
        clearTimeout(timer);
        this.#acks.delete(token);
        reject(err as Error);
      }
    });
  }

  /** A PubAck (or JetStream's error, or the server's no-responders status) for one message. */
  #onAck(msg: Msg): void {
    const token = msg.subject.slice(this.#inbox.length + 1);
    const w = this.#acks.get(token);
    if (!w) return; // timed out already
    this.#acks.delete(token);
    clearTimeout(w.timer);
    if (msg.data.length === 0 && msg.headers?.code === 503) {
      return w.reject(new DependencyUnavailableError('JetStream (no stream answers on the events subject)', undefined, 2));
    }
    // A PubAck is `{"stream":…,"seq":…}`; only an answer that mentions an error is parsed.
    if (!mentionsError(msg.data)) return w.resolve(ackSeq(msg.data));
    let ack: { error?: { code: number; description: string } };
    try {
      ack = msg.json();
    } catch (err) {
      return w.reject(err as Error);
    }
    if (ack.error) {
      return w.reject(new DependencyUnavailableError(`JetStream (${ack.error.description})`, new Error(ack.error.description), 2));
    }
    w.resolve(ackSeq(msg.data));
  }

  #failAll(err: Error): void {
    for (const w of this.#acks.values()) {
      clearTimeout(w.timer);
      w.reject(err);
    }
    this.#acks.clear();
  }
}

const ERROR_KEY = Buffer.from('"error"');
const SEQ_KEY = Buffer.from('"seq":');

/** A PubAck's stream sequence (`"seq":123`, read without parsing the JSON); 0 when absent. */
export function ackSeq(data: Uint8Array): number {
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  let i = b.indexOf(SEQ_KEY);
  if (i === -1) return 0;
  i += SEQ_KEY.length;
  while (b[i] === 0x20) i++;
  let n = 0;
  for (; i < b.length && b[i]! >= 0x30 && b[i]! <= 0x39; i++) n = n * 10 + (b[i]! - 0x30);
  return Number.isSafeInteger(n) ? n : 0;
}

/** Whether a JetStream answer holds an `"error"` key (a PubAck never does). */
function mentionsError(data: Uint8Array): boolean {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).indexOf(ERROR_KEY) !== -1;
}
