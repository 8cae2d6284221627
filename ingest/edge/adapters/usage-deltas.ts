import type { NatsConnection } from '@nats-io/transport-node';
import { aggregateEvents, encodeDeltas, type UsageEntry } from '../../../shared/events/usage-delta.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { logger } from '../../../shared/log.ts';
import { ingestMetrics } from '../metrics.ts';

const log = logger('usage-deltas');

/** Messages' deltas in one core-NATS payload at most. */
const MAX_MESSAGES = 256;
/**
 * A payload's size at most, estimated (NATS refuses one over its max_payload, 1 MiB by
 * default): entries are small, but those of the client's ids carry them. A message whose
 * delta alone is larger is left out (the tail reads it from the stream).
 */
export const MAX_DELTA_PAYLOAD_BYTES = 512 * 1024;

/** An upper estimate of a message's entries once packed (an id's UTF-8 at most 3 bytes a UTF-16 unit). */
function packedBytes(entries: readonly UsageEntry[]): number {
  let bytes = 16;
  for (const e of entries) {
    bytes += 128 + e.env.length * 3 + e.acct.length * 3 + e.agent.length * 3 + e.type.length * 3 + e.value.length;
    if (e.ids) for (const id of e.ids) bytes += 2 + id.length * 3;
  }
  return bytes;
}

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
      let messages: { seq: number; entries: UsageEntry[] }[] = [];
      let bytes = 0;
      const publish = () => {
        if (messages.length === 0) return;
        this.nc.publish(this.subject, encodeDeltas(messages));
        ingestMetrics.usageDeltas.inc(messages.length);
        messages = [];
        bytes = 0;
      };
      for (const { seq, events } of pending) {
        const entries = aggregateEvents(seq, events);
        const size = packedBytes(entries);
        if (size > MAX_DELTA_PAYLOAD_BYTES) continue; // the tail reads it from the stream
        if (bytes + size > MAX_DELTA_PAYLOAD_BYTES) publish();
        messages.push({ seq, entries });
        bytes += size;
      }
      publish();
    } catch (err) {
      // The tail reads these messages from the stream instead.
      log.warn('usage deltas not published', { messages: pending.length, err });
    }
  }
}
