import { describe, expect, it } from 'vitest';
import { decodeAnyBatch, encodeNativeBatch, isNativeBatch, lowCardinalityLayout, readNativeBatch } from './native-batch.ts';
import { batchEvents, encodeBatch, WireFormatError, type WireEvent } from './wire.ts';

const event = (over: Partial<WireEvent> = {}): WireEvent => ({
  k: 1, env: 'env', org: 'org', agent: 'ai', acct: '', id: 'id', src: 1, type: 'llm_call', ts: 1_763_733_022_705, ing: 1_763_733_022_706,
  uid: '', anon: '', meta: '{}', model: 'gpt', tin: 1, tout: 2, ttot: 3, val: '', ...over,
});
/** An outcome as the wire carries it: no model, no tokens. */
const outcome = (over: Partial<WireEvent> = {}): WireEvent => event({ k: 2, type: 'hire', model: '', tin: 0, tout: 0, ttot: 0, val: '1', ...over });
/** Decoded events come back actions first, then outcomes, each in the order sent. */
const byKind = (events: WireEvent[]) => [...events.filter((e) => e.k === 1), ...events.filter((e) => e.k === 2)];

describe('wire format 4 (Native columns)', () => {
  it('round-trips every field: whole numbers, zeros and the largest values, 0- to 9-decimal values, text of every kind and length', () => {
    const events = [
      event({ tin: Number.MAX_SAFE_INTEGER, tout: 0, ttot: 2 ** 32, ts: 0, src: 2 }),
      outcome({ val: '1000000000000000000' }),
      outcome({ val: '0', src: 2 }),
      outcome({ val: '0.000000001' }),
      outcome({ val: '12.345' }),
      event({ id: 'é', agent: 'ü', acct: 'acct 日本', uid: '🧾', anon: 'a\tb\nc', meta: '{"x":"' + 'é'.repeat(100) + '"}', model: 'réservé' }),
      event({ meta: 'a'.repeat(127) }),
      event({ meta: 'a'.repeat(128), id: 'b'.repeat(300) }),
      event({ meta: '' }),
    ];
    const data = encodeNativeBatch(events);
    expect(isNativeBatch(data)).toBe(true);
    expect(batchEvents(decodeAnyBatch(data))).toEqual(byKind(events));
    // Only actions, only outcomes, none.
    for (const part of [events.filter((e) => e.k === 1), events.filter((e) => e.k === 2), []]) expect(batchEvents(decodeAnyBatch(encodeNativeBatch(part)))).toEqual(part);
    // One batch after another reuses the encoder's columns: nothing of the first is left in the second.
    expect(batchEvents(decodeAnyBatch(encodeNativeBatch([event({ id: 'again' })])))).toEqual([event({ id: 'again' })]);
  });

  it('numbers LowCardinality keys in 1, 2 or 4 bytes by their count, and copies repeated text', () => {
    for (const distinct of [1, 256, 257, 65_536, 65_537]) {
      const events = Array.from({ length: Math.max(distinct, 10) }, (_, i) => event({ model: `m${i % distinct}`, agent: `a${i % 3}`, id: `id${i}` }));
      const rows = readNativeBatch(encodeNativeBatch(events)).actions!;
      const model = rows.columns[11]!; // env, org, agent, acct, id, src, type, ts, ing, uid, anon, model
      const layout = lowCardinalityLayout(model)!;
      expect(layout.keys).toBe(distinct);
      expect(layout.width).toBe(distinct <= 256 ? 1 : distinct <= 65_536 ? 2 : 4);
      expect(model.length).toBe(layout.keysEnd + layout.width * events.length);
      // agent_instance_id repeats three values: copied, each row its own String.
      expect(rows.columns[2]!.length).toBe(events.reduce((n, e) => n + 1 + e.agent.length, 0));
      expect(batchEvents(decodeAnyBatch(encodeNativeBatch(events)))).toEqual(events);
    }
  });

  it('refuses, at ingest, values the tables cannot hold', () => {
    expect(() => encodeNativeBatch([event({ src: 3 as 1 })])).toThrow(/enum value 3/);
    expect(() => encodeNativeBatch([event({ ts: -1 })])).toThrow(RangeError);
    expect(() => encodeNativeBatch([event({ tin: 1.5 })])).toThrow(RangeError);
    expect(() => encodeNativeBatch([outcome({ val: '1e5' })])).toThrow(RangeError);
    expect(() => encodeNativeBatch([outcome({ val: '-1' })])).toThrow(RangeError);
  });

  it('refuses a message whose columns do not hold exactly their rows', () => {
    const good = Buffer.from(encodeNativeBatch([event({ id: 'a' }), event({ id: 'b', type: 'other' }), outcome()]));
    expect(readNativeBatch(good).n).toBe(3);
    const broken = (edit: (b: Buffer) => Buffer | void) => {
      const b = Buffer.from(good);
      return () => readNativeBatch(edit(b) ?? b);
    };
    expect(broken((b) => b.subarray(0, b.length - 1))).toThrow(/truncated/);
    expect(broken((b) => Buffer.concat([b, Buffer.from([0])]))).toThrow(/trailing bytes/);
    expect(broken((b) => void b.writeUInt32LE(3, 1))).toThrow(WireFormatError); // 3 actions announced, 2 sent
    // The first action's id "a" (length 1) announced as 2 bytes: the column no longer holds 2 strings.
    expect(broken((b) => void (b[b.indexOf(Buffer.from([1, 0x61, 1, 0x62])) ] = 2))).toThrow(/event_id is not 2 strings/);
    // id_source 3.
    expect(broken((b) => void (b[b.indexOf(Buffer.from([1, 0x62])) + 2 + 4] = 3))).toThrow(/id_source holds the enum value 3/);
    // The second action's type index past the 2 keys.
    expect(broken((b) => void (b[b.indexOf('other') + 'other'.length + 1] = 2))).toThrow(/action_type has a key index beyond its 2 keys/);
    // Versions 2 and 3 are msgpack, read by decodeBatch.
    expect(isNativeBatch(encodeBatch([event()]))).toBe(false);
    expect(batchEvents(decodeAnyBatch(encodeBatch([event()])))).toEqual([event()]);
  });
});
