import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { decodeAnyBatch } from '../../../shared/events/native-batch.ts';
import { deleteEventsStream, ensureEventsStream } from '../../../shared/nats/connection.ts';
import { natsNames } from '../../../shared/nats/names.ts';
import { uniqueSuffix } from '../../../test/harness.ts';
import { EventPublisher, type PublisherOptions } from './publisher.ts';

// The publisher against the real NATS server: PubAcks on its own inbox, JetStream's
// errors, no stream, and a silent responder.
const names = natsNames(`PUB${uniqueSuffix()}_`);
let nc: NatsConnection;
const opts: PublisherOptions = { maxBatchEvents: 2000, maxBatchBytes: 600_000, lingerMs: 0, maxInflightEvents: 10_000, ackTimeoutMs: 300 };
const event = (id: string): WireEvent => ({
  k: 1, env: 'env', org: 'org', agent: 'ai', acct: '', id, src: 1, type: 't', ts: 1, ing: 2, uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '',
});

beforeAll(async () => {
  nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
});
afterAll(async () => {
  await deleteEventsStream(nc, names);
  await nc.close();
});

describe('EventPublisher', () => {
  it('answers 503 when no stream takes the subject, and publishes once there is one', async () => {
    const p = new EventPublisher(nc, names.eventsSubject, opts);
    await expect(p.publish([event('a')])).rejects.toMatchObject({ status: 503, retryAfterSeconds: 2 });
    await ensureEventsStream(nc, names, { maxBytes: 64 * 1024 * 1024, duplicateWindowMs: 60_000 });
    await p.publish([event('b')]);
    const jsm = await jetstreamManager(nc);
    const m = await jsm.streams.getMessage(names.stream, { last_by_subj: names.eventsSubject });
    expect(decodeAnyBatch(m!.data).id).toEqual(['b']);
    expect(p.inflight).toBe(0);
  });

  it('answers 503 with JetStream error when the stream refuses the message', async () => {
    const small = natsNames(`PUBS${uniqueSuffix()}_`);
    await ensureEventsStream(nc, small, { maxBytes: 1024 * 1024, duplicateWindowMs: 60_000 });
    try {
      const p = new EventPublisher(nc, small.eventsSubject, opts);
      const big = Array.from({ length: 5 }, (_, i) => ({ ...event(`x${i}`), meta: JSON.stringify({ pad: 'p'.repeat(300_000) }) }));
      const results = await Promise.allSettled(big.map((e) => p.publish([e])));
      // The stream holds 1 MiB and discards new messages: some are refused, by JetStream's own error.
      const refused = results.filter((r) => r.status === 'rejected');
      expect(refused.length).toBeGreaterThan(0);
      expect((refused[0] as PromiseRejectedResult).reason).toMatchObject({ status: 503 });
      expect(String((refused[0] as PromiseRejectedResult).reason.message)).toMatch(/JetStream/);
    } finally {
      await deleteEventsStream(nc, small);
    }
  });

  it('times out on a responder that never acknowledges, retries once, then answers 503', async () => {
    const subject = `PUBSILENT${uniqueSuffix()}.batch`;
    let received = 0;
    const sub = nc.subscribe(subject, {
      callback: () => {
        received++;
      },
    });
    try {
      const p = new EventPublisher(nc, subject, opts);
      const started = Date.now();
      await expect(p.publish([event('s')])).rejects.toMatchObject({ status: 503 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(2 * opts.ackTimeoutMs - 20);
      expect(received).toBe(2);
    } finally {
      sub.unsubscribe();
    }
  });

});
