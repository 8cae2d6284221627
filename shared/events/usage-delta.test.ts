import { describe, expect, it } from 'vitest';
import { pack } from 'msgpackr';
import { ackSeq } from '../../ingest/edge/adapters/publisher.ts';
import { encodeNativeBatch } from './native-batch.ts';
import { aggregateEvents, aggregateMessage, decodeDeltas, encodeDeltas } from './usage-delta.ts';
import type { WireEvent } from './wire.ts';

const base: WireEvent = { k: 1, env: 'env_1', org: 'org_1', agent: 'ai_1', acct: 'acct_1', id: 'e', src: 1, type: 'work', ts: 1_700_000_000_250, ing: 1_700_000_000_300, uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '' };
const ev = (over: Partial<WireEvent>, i: number): WireEvent => ({ ...base, id: `e${i}`, ...over });

const cases: [string, Partial<WireEvent>[]][] = [
  ['one run of actions', [{}, {}, { tin: 10, tout: 5, ttot: 15, meta: '{"cache_read_input_tokens":2}' }]],
  ['interleaved scopes, types and seconds', [{}, { agent: 'ai_2' }, {}, { type: 'other' }, { ts: base.ts + 1000 }, { acct: '' }, {}, { ts: base.ts + 10 }]],
  ['outcomes with decimal values', [{ k: 2, val: '0.25' }, { k: 2, val: '1.000000001' }, { k: 2, val: '0' }, { k: 2, type: 'x', val: '7' }]],
  ['token classes under usage, and metadata that is not JSON', [{ meta: '{"usage":{"reasoning_tokens":4}}' }, { meta: '{reasoning_tokens' }]],
];

describe('usage deltas', () => {
  it.each(cases)('the edge\'s aggregation of the events equals the tail\'s of the message: %s', (_name, overs) => {
    const events = overs.map(ev);
    const fromEvents = aggregateEvents(7, events);
    expect(fromEvents).toEqual(aggregateMessage(7, encodeNativeBatch(events)));
    expect(fromEvents.reduce((n, e) => n + e.n, 0)).toBe(events.length);
  });

  it('travel several messages to a payload and back unchanged; anything else is refused', () => {
    const a = aggregateEvents(3, cases[2]![1].map(ev));
    const b = aggregateEvents(4, cases[1]![1].map(ev));
    expect(decodeDeltas(encodeDeltas([{ seq: 3, entries: a }, { seq: 4, entries: b }]))).toEqual([{ seq: 3, entries: a }, { seq: 4, entries: b }]);
    expect(a.every((e) => e.cid === 1 && e.ids?.length === e.n)).toBe(true);
    expect(decodeDeltas(new Uint8Array([1, 2, 3]))).toBeUndefined();
    expect(decodeDeltas(Buffer.from('garbage'))).toBeUndefined();
  });

  it('entries of the client\'s ids carry them, in order; ingest-made ids carry none; a delta without ids (an older ingest) reads none', () => {
    const entries = aggregateEvents(5, [ev({}, 1), ev({ src: 2 }, 2), ev({}, 3), ev({ agent: 'ai_2' }, 4)]);
    expect(entries.map((e) => [e.agent, e.cid, e.ids])).toEqual([['ai_1', 1, ['e1', 'e3']], ['ai_1', 0, undefined], ['ai_2', 1, ['e4']]]);
    const older = pack([1, 5, entries.map((e) => [e.env, e.acct, e.agent, e.k, e.type, e.min, e.max, e.n, e.tin, e.tout, e.ttot, e.classes, e.value, e.cid])]);
    expect(decodeDeltas(older)![0]!.entries.map((e) => e.ids)).toEqual([undefined, undefined, undefined]);
    // Ids that do not match the entry's events are dropped, never trusted.
    const wrong = pack([1, 5, [[base.env, base.acct, base.agent, 1, 'work', 0, 0, 2, 0, 0, 0, [0, 0, 0], '0', 1, ['only-one']]]]);
    expect(decodeDeltas(wrong)![0]!.entries[0]!.ids).toBeUndefined();
  });

  it.each([
    ['{"stream":"EVENTS","seq":123}', 123],
    ['{"stream":"EVENTS","seq":9007199254740991,"duplicate":true}', 9007199254740991],
    ['{"stream":"EVENTS", "seq": 42}', 42],
    ['{"stream":"EVENTS"}', 0],
  ])('a PubAck\'s sequence: %s', (json, seq) => {
    expect(ackSeq(Buffer.from(json))).toBe(seq);
  });
});
