import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeBatch, type WireEvent } from '../../shared/events/wire.ts';
import { actionsRowBinary, outcomesRowBinary, RowBinaryWriter } from './rowbinary.ts';

const event = (over: Partial<WireEvent> = {}): WireEvent => ({
  k: 1, env: 'e', org: 'o', agent: 'a', acct: '', id: 'id', src: 1, type: 't', ts: 1_700_000_000_000, ing: 1_700_000_000_001,
  uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '', ...over,
});
const batch = (...events: WireEvent[]) => decodeBatch(encodeBatch(events));

describe('RowBinary rows', () => {
  it('writes strings as length and UTF-8, numbers little-endian, an outcome value as Int128 of value x 10^9', () => {
    const w = new RowBinaryWriter(4);
    outcomesRowBinary(batch(event({ k: 2, id: 'é', val: '1.5', src: 2 })), 7, w);
    const b = w.bytes();
    // env "e", org "o", agent "a", acct "", id "é" (2 bytes), id_source 2, type "t"
    expect([...b.subarray(0, 13)]).toEqual([1, 0x65, 1, 0x6f, 1, 0x61, 0, 2, 0xc3, 0xa9, 2, 1, 0x74]);
    const value = b.readBigUInt64LE(13) + (b.readBigInt64LE(21) << 64n);
    expect(value).toBe(1_500_000_000n);
    expect(b.readUInt32LE(29) + b.readUInt32LE(33) * 2 ** 32).toBe(1_700_000_000_000);
    expect(b.readBigUInt64LE(b.length - 8)).toBe(7n);
  });

  it('refuses, before anything reaches the engine, what the engine would store but not read back', () => {
    const w = new RowBinaryWriter();
    expect(() => actionsRowBinary(batch(event({ src: 3 as 1 })), 1, w)).toThrow(/enum value 3/);
    expect(() => outcomesRowBinary(batch(event({ k: 2, val: '-1' })), 1, w)).toThrow(RangeError);
    expect(() => outcomesRowBinary(batch(event({ k: 2, val: '1e5' })), 1, w)).toThrow(RangeError);
    expect(() => outcomesRowBinary(batch(event({ k: 2, val: '1'.repeat(30) })), 1, w)).toThrow(RangeError);
    expect(() => actionsRowBinary(batch(event({ ts: -5 })), 1, w)).toThrow(/non-negative integer/);
  });

  it('writes the same rows whether leading columns repeat, change or come back, whatever the dictionary size', () => {
    // Rows of one batch share their leading columns (environment, organization, agent,
    // account) and the writer copies them from the row before: compare with each event
    // written alone.
    const agents = ['a', 'b', 'a', 'a', 'ü', 'b'].map((agent, i) => event({ agent, acct: i % 2 ? 'x' : '', id: `id${i}`, k: i === 3 ? 2 : 1, val: '1' }));
    const wide = Array.from({ length: 9000 }, (_, i) => event({ agent: `a${i % 8500}`, id: `w${i}`, uid: `u${i}` }));
    for (const events of [agents, wide]) {
      const together = new RowBinaryWriter(16);
      const alone = new RowBinaryWriter(16);
      for (const write of [actionsRowBinary, outcomesRowBinary]) {
        write(batch(...events), 9, together);
        for (const e of events) write(batch(e), 9, alone);
      }
      expect(together.bytes().equals(alone.bytes())).toBe(true);
      // A writer rewound to 0 (reused for the next insert) writes the same bytes again.
      const first = Buffer.from(together.bytes());
      together.rewind(0);
      actionsRowBinary(batch(...events), 9, together);
      outcomesRowBinary(batch(...events), 9, together);
      expect(together.bytes().equals(first)).toBe(true);
    }
  });

  it('rewinds to a mark, dropping a message that failed half-way', () => {
    const w = new RowBinaryWriter();
    actionsRowBinary(batch(event()), 1, w);
    const mark = w.mark;
    const good = Buffer.from(w.bytes());
    expect(() => actionsRowBinary(batch(event(), event({ src: 3 as 1 })), 2, w)).toThrow();
    w.rewind(mark);
    expect(w.bytes()).toEqual(good);
  });
});
