import { pack } from 'msgpackr';
import { describe, expect, it } from 'vitest';
import { CONTAINER_COST, jsonContainers, msgpackArrayLength, msgpackContainerBytes, parseMemory } from './encoding.ts';

describe('what parsing a body makes, bounded before parsing', () => {
  it('counts the `{` and `[` of a JSON text (inside strings too: an over-count only)', () => {
    expect(jsonContainers(Buffer.from('{"a":[1,{"b":[]}],"s":"[{"}'))).toBe(6);
    expect(jsonContainers(Buffer.from('"plain"'))).toBe(0);
    expect(parseMemory(Buffer.from('{}\n{}\n'), 'ndjson')).toBe(4 * CONTAINER_COST);
  });

  it('walks a msgpack body: each map, array and extension and its elements, strings and binaries skipped', () => {
    // A map of 2 entries holding an array of 3 elements; its strings are full of container markers.
    const body = pack({ a: [1, 2, 3], 'ÿÿ\u0080\u0090': '\u0080'.repeat(300) + 'ÿ'.repeat(70_000) });
    expect(msgpackContainerBytes(body)).toBe(CONTAINER_COST + 2 * 16 + CONTAINER_COST + 3 * 8);
    expect(msgpackContainerBytes(pack(Buffer.alloc(70_000, 0x80)))).toBe(0);
    // Every width of header.
    expect(msgpackContainerBytes(pack(new Array(20).fill([])))).toBe(CONTAINER_COST + 20 * 8 + 20 * CONTAINER_COST);
    expect(msgpackContainerBytes(pack(new Array(70_000).fill(0)))).toBe(CONTAINER_COST + 70_000 * 8);
  });

  it('bounds 4 Mi empty maps by what they take (~64 MB per Mi), and caps a header that claims more than the body holds', () => {
    const n = 4 * 1024 * 1024;
    const flood = Buffer.alloc(5 + n, 0x80);
    flood[0] = 0xdd;
    flood.writeUInt32BE(n, 1);
    expect(msgpackArrayLength(flood)).toBe(n);
    expect(msgpackContainerBytes(flood)).toBe(CONTAINER_COST + n * 8 + n * CONTAINER_COST);
    const lying = Buffer.from([0xdd, 0xff, 0xff, 0xff, 0xff, 1, 2]);
    expect(msgpackContainerBytes(lying)).toBe(CONTAINER_COST + 2 * 8);
  });

  it('reads the length of a top-level msgpack array from its header', () => {
    expect(msgpackArrayLength(pack([1, 2, 3]))).toBe(3);
    expect(msgpackArrayLength(pack(new Array(300).fill(1)))).toBe(300);
    expect(msgpackArrayLength(pack(new Array(70_000).fill(1)))).toBe(70_000);
    expect(msgpackArrayLength(pack({ events: [] }))).toBeUndefined();
    expect(msgpackArrayLength(Buffer.alloc(0))).toBeUndefined();
  });
});
