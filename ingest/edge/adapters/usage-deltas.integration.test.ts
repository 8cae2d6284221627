/**
 * Usage deltas on real NATS: entries of the client's ids carry them, so a payload is sized
 * by bytes, not only by messages; every payload stays within NATS's max_payload, and a
 * message whose delta alone is too large is left to the tail's read of the stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { decodeDeltas } from '../../../shared/events/usage-delta.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { MAX_DELTA_PAYLOAD_BYTES, UsageDeltas } from './usage-deltas.ts';

let nc: NatsConnection;
beforeAll(async () => {
  nc = await connect({ servers: process.env.NATS_URL ?? '127.0.0.1:4222' });
});
afterAll(async () => {
  await nc?.close();
});

const event = (i: number, id: string): WireEvent => ({ k: 1, env: 'env_1', org: 'org_1', agent: 'ai_1', acct: 'acct_1', id, src: 1, type: 'work', ts: 1_700_000_000_000 + i, ing: 1_700_000_000_000, uid: '', anon: '', meta: '{}', model: '', tin: 1, tout: 0, ttot: 1, val: '' });

describe('usage deltas', () => {
  it('split by size: every payload within max_payload, every message once, one too large for any payload left out', async () => {
    const subject = `test.deltas.${process.pid}.${Date.now()}`;
    const payloads: Uint8Array[] = [];
    const sub = nc.subscribe(subject, { callback: (_err, m) => void payloads.push(m.data) });
    const deltas = new UsageDeltas(nc, subject, 1000);
    // 40 messages of 500 events with 100-character ids (50 KB of ids each, estimated at 150), and one of 10,000 128-character ids.
    const id = (m: number, i: number, len: number) => `${m}-${i}-`.padEnd(len, 'x');
    for (let m = 1; m <= 40; m++) deltas.add(m, Array.from({ length: 500 }, (_, i) => event(i, id(m, i, 100))));
    deltas.add(41, Array.from({ length: 10_000 }, (_, i) => event(i, id(41, i, 128))));
    deltas.flush();
    await nc.flush();
    await new Promise((r) => setTimeout(r, 200));
    sub.unsubscribe();
    const info = nc.info!;
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(p.length).toBeLessThanOrEqual(Math.min(info.max_payload, MAX_DELTA_PAYLOAD_BYTES));
    const messages = payloads.flatMap((p) => decodeDeltas(p)!);
    expect(messages.map((m) => m.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
    for (const m of messages) {
      expect(m.entries.reduce((n, e) => n + e.n, 0)).toBe(500);
      expect(m.entries.flatMap((e) => e.ids)).toEqual(Array.from({ length: 500 }, (_, i) => id(m.seq, i, 100)));
    }
  });
});
