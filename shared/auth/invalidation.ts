import type { NatsConnection } from '@nats-io/transport-node';
import { logger } from '../log.ts';

const log = logger('invalidation');

type Invalidation = { type: 'agent'; id: string } | { type: 'key'; hash: string } | { type: 'all' };
type Listener = (msg: Invalidation) => void;

/**
 * Tells every process that a credential or agent instance changed, so caches drop it
 * at once: listeners in this process run synchronously, other processes hear it over
 * core NATS. After a reconnect every cache is flushed (messages may have been missed);
 * while NATS is down, ingest answers 503, so a stale cache cannot accept events.
 */
export class InvalidationBus {
  readonly #listeners = new Set<Listener>();
  readonly #origin = Math.random().toString(36).slice(2);

  constructor(
    private readonly nc: NatsConnection | undefined,
    private readonly subject: string,
  ) {
    if (!nc) return;
    nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) return;
        try {
          const { origin, ...body } = msg.json<Invalidation & { origin: string }>();
          if (origin !== this.#origin) this.#emit(body as Invalidation);
        } catch (e) {
          log.warn('bad invalidation message', { err: e });
        }
      },
    });
    void (async () => {
      for await (const s of nc.status()) if (s.type === 'reconnect') this.#emit({ type: 'all' });
    })();
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  publish(msg: Invalidation): void {
    this.#emit(msg);
    if (this.nc && !this.nc.isClosed()) {
      try {
        this.nc.publish(this.subject, JSON.stringify({ ...msg, origin: this.#origin }));
      } catch (err) {
        log.warn('could not broadcast invalidation', { err });
      }
    }
  }

  #emit(msg: Invalidation): void {
    for (const l of this.#listeners) l(msg);
  }
}
