import type { NatsConnection } from '@nats-io/transport-node';
import { aggregateEvents, encodeDeltas, type UsageEntry } from '../../../shared/events/usage-delta.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { logger } from '../../../shared/log.ts';
import { ingestMetrics } from '../metrics.ts';

const log = logger('usage-deltas');

/** Messages' deltas in one core-NATS payload at most (a payload stays far below NATS's 1 MiB). */
const MAX_MESSAGES = 256;

/**
 * Usage deltas: after JetStream acknowledged a message, its events' usage aggregated per
 * scope, type and event-time second (the live tail's own aggregation, shared/events/usage-delta.ts)
 * with the message's stream sequence, published on core NATS (`<prefix>live.deltas`) for the
 * live tail, which then need not read and decode the message again (docs/spend-limits.md).
 * Several messages share one payload, sent every `flushMs`. At most once, on purpose: a lost
 * delta only means the tail reads that message from the stream, as it did before.
 */
export class UsageDeltas {
  #pending: { seq: number; events: readonly WireEvent[] }[] = [];
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly subject: string,
    private readonly flushMs: number,
  ) {}

  /** The message of stream sequence `seq` (acknowledged) held `events`. */
  add(seq: number, events: readonly WireEvent[]): void {
    this.#pending.push({ seq, events });
    if (this.#pending.length >= MAX_MESSAGES) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), this.flushMs);
  }

  flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    if (pending.length === 0) return;
    this.#pending = [];
    try {
      const messages: { seq: number; entries: UsageEntry[] }[] = pending.map(({ seq, events }) => ({ seq, entries: aggregateEvents(seq, events) }));
      this.nc.publish(this.subject, encodeDeltas(messages));
      ingestMetrics.usageDeltas.inc(pending.length);
    } catch (err) {
      // The tail reads these messages from the stream instead.
      log.warn('usage deltas not published', { messages: pending.length, err });
    }
  }
}
