import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { performance } from 'node:perf_hooks';
import { AppError, DependencyUnavailableError } from '../../shared/errors.ts';
import { encodeBatch, type WireEvent } from '../../shared/events/wire.ts';
import { logger } from '../../shared/log.ts';
import { ingestMetrics } from '../metrics.ts';

const log = logger('publisher');

export interface PublisherOptions {
  maxBatchEvents: number;
  maxBatchBytes: number;
  lingerMs: number;
  maxInflightEvents: number;
  ackTimeoutMs: number;
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
 * request with a `Nats-Msg-Id` header (so a retried send is stored once) whose reply is
 * JetStream's PubAck. `publish` resolves only when every event it was given is stored.
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
  readonly #msgIdPrefix = `${process.pid.toString(36)}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}-`;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly opts: PublisherOptions,
  ) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'close') this.#connected = false;
        else if (s.type === 'reconnect') this.#connected = true;
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
    ingestMetrics.inflight.set(this.#inflight);
    const waits: Promise<void>[] = [];
    for (const e of events) {
      const b = (this.#current ??= this.#newBatch());
      if (waits[waits.length - 1] !== b.done) waits.push(b.done);
      b.events.push(e);
      b.approxBytes += e.meta.length + e.id.length + e.type.length + 120;
      if (b.events.length >= this.opts.maxBatchEvents || b.approxBytes >= this.opts.maxBatchBytes) this.#flush();
    }
    // Linger 0: send at the end of this event-loop turn, so every request that arrived in
    // the same turn shares the message without adding a timer's latency.
    if (this.#current && !this.#timer) {
      this.#timer = this.opts.lingerMs > 0 ? setTimeout(() => this.#flush(), this.opts.lingerMs) : setImmediate(() => this.#flush());
    }
    try {
      await Promise.all(waits);
    } finally {
      this.#inflight -= events.length;
      ingestMetrics.inflight.set(this.#inflight);
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
    const data = encodeBatch(events);
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
        await this.#request(data, msgId);
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

  async #request(data: Uint8Array, msgId: string): Promise<void> {
    const h = natsHeaders();
    h.set('Nats-Msg-Id', msgId);
    const reply = await this.nc.request(this.subject, data, { timeout: this.opts.ackTimeoutMs, headers: h });
    const ack = reply.json<{ error?: { code: number; description: string }; stream?: string; seq?: number }>();
    if (ack.error) {
      throw new DependencyUnavailableError(`JetStream (${ack.error.description})`, new Error(ack.error.description), 2);
    }
  }
}
