/**
 * Wire encoding at ingest, micro-benchmark: 200 messages of EVENTS (100) LLM-call events (50
 * agents), encoded 20 times a round, 5 rounds, as msgpack (wire format 3, wire.ts) and as
 * Native columns (format 4, native-batch.ts). Prints ns and bytes an event per round.
 *   node --import tsx bench/wire-encode.ts        (ONLY=native: format 4 alone, for a profile)
 */
import { encodeBatch, type WireEvent } from '../shared/events/wire.ts';
import { encodeNativeBatch } from '../shared/events/native-batch.ts';
import { newSequentialId } from '../shared/ids.ts';
const PER = Number(process.env.EVENTS ?? 100);
const start = Date.now();
const batches: WireEvent[][] = [];
for (let b = 0; b < 200; b++) {
  const events: WireEvent[] = [];
  for (let i = 0; i < PER; i++) {
    const now = start + b;
    events.push({ k: 1, env: 'env_01JDEVELOPMENT000000000000', org: 'org_01JORGANIZATION00000000000', agent: 'ai_01JAGENT00000000000000000' + (b % 50), acct: '',
      id: newSequentialId('evt', now), src: 2, type: 'llm_call', ts: now, ing: now, uid: '', anon: '', model: 'gpt-4o',
      tin: 1200, tout: 300, ttot: 1500, meta: '{"model":"gpt-4o","input_tokens":1200,"output_tokens":300}', val: '' });
  }
  batches.push(events);
}
for (let r = 0; r < 5; r++) {
  for (const [name, f] of (process.env.ONLY === 'native' ? [['native v4', encodeNativeBatch]] : [['msgpack v3', encodeBatch], ['native v4', encodeNativeBatch]]) as [string, (e: WireEvent[]) => Uint8Array][]) {
    let bytes = 0;
    const t0 = process.hrtime.bigint();
    for (let k = 0; k < 20; k++) for (const b of batches) bytes += f(b).length;
    const ns = Number(process.hrtime.bigint() - t0);
    console.log(name, (ns / (20 * 200 * PER)).toFixed(1), 'ns/event', (bytes / (20 * 200 * PER)).toFixed(1), 'B/event');
  }
}
