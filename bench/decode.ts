/**
 * What ingest's first step (decodeEvents: parse, shape, refuse text no store accepts)
 * costs a request of the ingest benchmark's 100-event batch, as JSON and as msgpack, and
 * the check for such text alone (findUnsafeText: every event of a msgpack body, whose
 * strings are not escaped). Medians of ROUNDS (5) rounds of N (20,000) calls, µs a call.
 *   node --import tsx bench/decode.ts
 */
import { pack } from 'msgpackr';
import { decodeEvents } from '../ingest/edge/pipeline/decode.ts';
import { findUnsafeText } from '../shared/http/safe-text.ts';

const N = Number(process.env.N ?? 20_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const event = { agent_key: 'as_9QX934Dcbcxt30PXE9K8AVePdtf5MC4PDhZXCwAZ', action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } };
const batch = Array.from({ length: 100 }, () => event);
const json = Buffer.from(JSON.stringify(batch));
const msgpack = pack(batch);
const parsed = JSON.parse(json.toString('utf8')) as unknown[];

const cases: [string, () => unknown][] = [
  ['decodeEvents, JSON', () => decodeEvents(json, 'application/json')],
  ['decodeEvents, msgpack', () => decodeEvents(msgpack, 'application/msgpack')],
  ['findUnsafeText, each of the 100 events', () => parsed.forEach((e) => findUnsafeText(e))],
];
const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, f] of cases) {
    for (let i = 0; i < N / 10; i++) f();
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i++) f();
    times.get(name)!.push(Number(process.hrtime.bigint() - t0) / N / 1000);
  }
}
console.log(`| a 100-event request | µs, median of ${ROUNDS} rounds |\n|---|---|`);
for (const [name, ts] of times) console.log(`| ${name} | ${[...ts].sort((a, b) => a - b)[Math.floor(ts.length / 2)]!.toFixed(1)} |`);
