import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { connectNats } from './connection.ts';
import { LargeReadTransport, READ_BYTES } from './transport.ts';
import { uniqueSuffix } from '../../test/harness.ts';

const URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
let tally: NatsConnection;
let plain: NatsConnection;
beforeAll(async () => {
  // nats.js's own transport publishes; Tally's connection (large reads) receives.
  plain = await connect({ servers: URL });
  tally = await connectNats(URL, 'transport-test');
});
afterAll(async () => {
  await tally.close();
  await plain.close();
});

const transportOf = (nc: NatsConnection) => (nc as unknown as { protocol: { transport: unknown } }).protocol.transport;

/** Sends `payloads` from the plain connection; resolves with what Tally's connection received, in order. */
async function roundTrip(payloads: Uint8Array[]): Promise<Uint8Array[]> {
  const subject = `transport.${uniqueSuffix()}`;
  const sub = tally.subscribe(subject, { max: payloads.length });
  await tally.flush();
  const received = (async () => {
    const out: Uint8Array[] = [];
    for await (const m of sub) out.push(m.data);
    return out;
  })();
  for (const p of payloads) plain.publish(subject, p);
  await plain.flush();
  return received;
}

describe('the NATS transport with large reads', () => {
  it('is the transport of connectNats', () => {
    expect(transportOf(tally)).toBeInstanceOf(LargeReadTransport);
  });

  it('delivers every byte of messages of every size, across reads, in order', async () => {
    // Sizes around Node's 64 KiB reads, the 1 MiB read and the server's 1 MiB limit; 60 MB
    // in all, so that messages straddle reads and reads fill the read buffer.
    const sizes = [0, 1, 65_535, 65_536, 65_537, 80_000, READ_BYTES - 100, 1_000_000, 3, 200_000];
    const payloads = Array.from({ length: 120 }, (_, i) => randomBytes(sizes[i % sizes.length]!));
    const got = await roundTrip(payloads);
    expect(got.length).toBe(payloads.length);
    for (let i = 0; i < payloads.length; i++) expect(Buffer.compare(Buffer.from(got[i]!), payloads[i]!), `message ${i}`).toBe(0);
    // What the sink reads with Buffer's methods.
    expect(Buffer.isBuffer(got[1])).toBe(true);
  });

  it('a message kept while many more arrive is not overwritten (each read is copied out of the read buffer)', async () => {
    const first = randomBytes(70_000);
    const rest = Array.from({ length: 100 }, () => randomBytes(300_000));
    const got = await roundTrip([first, ...rest]);
    expect(Buffer.compare(Buffer.from(got[0]!), first)).toBe(0);
    expect(Buffer.compare(Buffer.from(got[100]!), rest[99]!)).toBe(0);
  });

  it('reconnects with the same transport and goes on delivering', async () => {
    const reconnected = (async () => {
      for await (const s of tally.status()) if (s.type === 'reconnect') return;
    })();
    await tally.reconnect();
    await reconnected;
    expect(transportOf(tally)).toBeInstanceOf(LargeReadTransport);
    const payloads = [randomBytes(10), randomBytes(150_000), randomBytes(900_000)];
    const got = await roundTrip(payloads);
    for (let i = 0; i < payloads.length; i++) expect(Buffer.compare(Buffer.from(got[i]!), payloads[i]!)).toBe(0);
  });
});
