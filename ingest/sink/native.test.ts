import { describe, expect, it } from 'vitest';
import { decodeBatch, encodeBatch, type WireEvent } from '../../shared/events/wire.ts';
import { encodeNativeBatch, readNativeBatch } from '../../shared/events/native-batch.ts';
import { NativeBlock } from './native.ts';
import { ACTION_TABLE, OUTCOME_TABLE } from '../../shared/events/tables.ts';

const event = (over: Partial<WireEvent> = {}): WireEvent => ({
  k: 1, env: 'e', org: 'o', agent: 'a', acct: '', id: 'id', src: 1, type: 't', ts: 1_700_000_000_000, ing: 1_700_000_000_001,
  uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '', ...over,
});
const batch = (...events: WireEvent[]) => decodeBatch(encodeBatch(events));
const bytes = (block: NativeBlock) => Buffer.concat(block.chunks());
const u64 = (v: number) => [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24, 0, 0, 0, 0];
const str = (s: string) => [Buffer.byteLength(s), ...Buffer.from(s)];

describe('Native blocks', () => {
  it('lay out a block as ClickHouse does: columns and rows, then each column\'s name, type and data', () => {
    const block = new NativeBlock(OUTCOME_TABLE, false);
    block.add(batch(event({ k: 2, id: 'é', val: '1.5', src: 2 }), event({ k: 1 })), 7);
    const b = bytes(block);
    let at = 0;
    const expectNext = (xs: number[]) => {
      expect([...b.subarray(at, at + xs.length)]).toEqual(xs);
      at += xs.length;
    };
    expectNext([14, 1]); // 14 columns, 1 row (the action is not an outcome)
    // environment_id: LowCardinality(String), as chDB writes it (SELECT ... FORMAT Native): keys version 1, index type
    // UInt8 with "additional keys" and "update dictionary", 1 key "e", 1 row of index 0.
    expectNext([...str('environment_id'), ...str('LowCardinality(String)'), ...u64(1), ...u64(0x600), ...u64(1), ...str('e'), ...u64(1), 0]);
    expectNext([...str('organization_id'), ...str('LowCardinality(String)'), ...u64(1), ...u64(0x600), ...u64(1), ...str('o'), ...u64(1), 0]);
    expectNext([...str('agent_instance_id'), ...str('String'), ...str('a')]);
    expectNext([...str('account_id'), ...str('String'), 0]);
    expectNext([...str('event_id'), ...str('String'), 2, 0xc3, 0xa9]);
    const enumType = OUTCOME_TABLE[5][1];
    expectNext([...str('id_source'), ...str(enumType), 2]);
    expectNext([...str('outcome_type'), ...str('LowCardinality(String)'), ...u64(1), ...u64(0x600), ...u64(1), ...str('t'), ...u64(1), 0]);
    expectNext([...str('value'), ...str('Decimal(38, 9)')]);
    expect(b.readBigUInt64LE(at) + (b.readBigInt64LE(at + 8) << 64n)).toBe(1_500_000_000n);
    at += 16;
    expectNext([...str('ts'), ...str("DateTime64(3, 'UTC')")]);
    expect(b.readUInt32LE(at) + b.readUInt32LE(at + 4) * 2 ** 32).toBe(1_700_000_000_000);
    expect(b.readBigUInt64LE(b.length - 8)).toBe(7n);
  });

  it('writes text of every length as its UTF-8 bytes after a LEB128 length (one byte below 128 bytes, two above)', () => {
    const texts = ['', 'x', 'a'.repeat(31), 'a'.repeat(32), 'é', 'é'.repeat(63), 'é'.repeat(64), 'é'.repeat(127), '日'.repeat(100), 'a'.repeat(127), 'a'.repeat(128), '🧾'.repeat(300)];
    for (const meta of texts) {
      const block = new NativeBlock(ACTION_TABLE, true);
      block.add(batch(event({ meta })), 3);
      const b = bytes(block);
      const utf8 = Buffer.from(meta, 'utf8');
      const length = utf8.length < 128 ? [utf8.length] : [(utf8.length & 0x7f) | 0x80, utf8.length >> 7];
      // metadata's data ends where the last column, stream_seq, starts: its name, type and one UInt64.
      const end = b.length - str('stream_seq').length - str('UInt64').length - 8;
      expect([...b.subarray(end - utf8.length - length.length, end)]).toEqual([...length, ...utf8]);
    }
  });

  it('refuses, before anything reaches the engine, what the engine would store but not read back', () => {
    const actions = new NativeBlock(ACTION_TABLE, true);
    const outcomes = new NativeBlock(OUTCOME_TABLE, false);
    expect(() => actions.add(batch(event({ src: 3 as 1 })), 1)).toThrow(/enum value 3/);
    expect(() => outcomes.add(batch(event({ k: 2, val: '-1' })), 1)).toThrow(RangeError);
    expect(() => outcomes.add(batch(event({ k: 2, val: '1e5' })), 1)).toThrow(RangeError);
    expect(() => outcomes.add(batch(event({ k: 2, val: '1'.repeat(30) })), 1)).toThrow(RangeError);
    expect(() => actions.add(batch(event({ ts: -5 })), 1)).toThrow(/non-negative integer/);
  });

  it('writes the same block whether the rows come in one batch or many, whatever the dictionary size, and again once cleared', () => {
    const mixed = ['a', 'b', 'a', 'a', 'ü', 'b'].map((agent, i) => event({ agent, acct: i % 2 ? 'x' : '', id: `id${i}`, k: i === 3 ? 2 : 1, val: '1', type: `t${i % 2}` }));
    const wide = Array.from({ length: 9000 }, (_, i) => event({ agent: `a${i % 8500}`, id: `w${i}`, uid: `u${i}`, model: `m${i % 300}`, meta: 'ä'.repeat(i % 200) }));
    for (const events of [mixed, wide]) {
      for (const [table, actions] of [[ACTION_TABLE, true], [OUTCOME_TABLE, false]] as const) {
        const together = new NativeBlock(table, actions);
        const alone = new NativeBlock(table, actions);
        together.add(batch(...events), 9);
        for (const e of events) alone.add(batch(e), 9);
        expect(together.rows).toBe(events.filter((e) => (e.k === 1) === actions).length);
        const first = bytes(together);
        expect(first.equals(bytes(alone))).toBe(true);
        together.clear();
        together.add(batch(...events), 9);
        expect(bytes(together).equals(first)).toBe(true);
      }
    }
  });

  it('undoes a message that failed half-way, its new dictionary keys included', () => {
    const good = new NativeBlock(ACTION_TABLE, true);
    good.add(batch(event()), 1);
    const block = new NativeBlock(ACTION_TABLE, true);
    block.add(batch(event()), 1);
    block.mark();
    expect(() => block.add(batch(event({ type: 'new type', model: 'new model' }), event({ ts: -1 })), 2)).toThrow(RangeError);
    block.undo();
    expect(block.rows).toBe(1);
    expect(bytes(block).equals(bytes(good))).toBe(true);
  });

  it('builds from wire format 4 (columns copied, keys merged) the same block as from format 3, message by message and mixed', () => {
    const mixed = ['a', 'b', 'a', 'a', 'ü', 'b'].map((agent, i) => event({ agent, acct: i % 2 ? 'x' : '', id: `id${i}`, k: i === 3 ? 2 : 1, val: '1.25', type: `t${i % 2} é`, model: i % 2 ? 'ü' : 'u' }));
    const wide = Array.from({ length: 9000 }, (_, i) => event({ agent: `a${i % 8500}`, id: `w${i}`, uid: `u${i}`, model: `m${i % 300}`, type: `t${i % 70}`, meta: 'ä'.repeat(i % 200), tin: i * 1000 }));
    const huge = Array.from({ length: 70_000 }, (_, i) => event({ id: `h${i}`, model: `m${i}` }));
    for (const events of [mixed, wide, huge]) {
      for (const [table, actions] of [[ACTION_TABLE, true], [OUTCOME_TABLE, false]] as const) {
        const v3 = new NativeBlock(table, actions);
        v3.add(batch(...events), 9);
        const rowsOf = (data: Uint8Array) => (actions ? readNativeBatch(data).actions : readNativeBatch(data).outcomes);
        const v4 = new NativeBlock(table, actions);
        v4.append(rowsOf(encodeNativeBatch(events)), 9);
        expect(v4.rows).toBe(v3.rows);
        expect(bytes(v4).equals(bytes(v3))).toBe(true);
        // Small messages, formats alternating: the block's keys are each value's once, whichever format brought it.
        const alternating = new NativeBlock(table, actions);
        for (let i = 0; i < events.length; i += 1000) {
          const part = events.slice(i, i + 1000);
          if ((i / 1000) % 2) alternating.add(batch(...part), 9);
          else alternating.append(rowsOf(encodeNativeBatch(part)), 9);
        }
        expect(bytes(alternating).equals(bytes(v3))).toBe(true);
      }
    }
  });
});
