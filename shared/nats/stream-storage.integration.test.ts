import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectNats, deleteEventsStream, ensureEventsStream, streamBytesForDisk } from './connection.ts';
import { natsNames } from './names.ts';
import { uniqueSuffix } from '../../test/harness.ts';

let nc: NatsConnection;
const names = natsNames(`T${uniqueSuffix()}_`);
beforeAll(async () => {
  nc = await connectNats(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'stream-storage-test');
});
afterAll(async () => {
  await deleteEventsStream(nc, names);
  await nc.close();
});

describe('the events stream and the disk', () => {
  it('a stream larger than the server can reserve fails with the variable to change', async () => {
    const err = await ensureEventsStream(nc, names, { maxBytes: 2 ** 52, duplicateWindowMs: 120_000 }).then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(/TALLY_STREAM_MAX_BYTES/);
  });

  it('a self-started server sizes the default to half the free disk of its store, never below 16 MiB', () => {
    const dir = os.tmpdir();
    expect(streamBytesForDisk(dir, 1024 ** 5)).toBeLessThan(1024 ** 5);
    expect(streamBytesForDisk(dir, 64 * 1024 * 1024)).toBe(64 * 1024 * 1024);
    expect(streamBytesForDisk(dir, 1)).toBe(16 * 1024 * 1024);
  });
});
