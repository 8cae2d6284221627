import { decodeBatch, encodeBatch, type WireEvent } from '../shared/events/wire.ts';
import { newSequentialId } from '../shared/ids.ts';

/**
 * The ingest benchmark's events as the sink receives them, for the insert benches: LLM
 * calls `first` to `first + n` (ids and times assigned as ingest assigns them at about
 * 200,000 events/s from `start`), of the agent `agent(i)`, as one decoded wire batch.
 */
export function llmCallBatch(start: number, first: number, n: number, agent: (i: number) => string) {
  const events: WireEvent[] = [];
  for (let i = first; i < first + n; i++) {
    const now = start + Math.floor(i / 200);
    events.push({
      k: 1, env: 'env_01JDEVELOPMENT000000000000', org: 'org_01JORGANIZATION00000000000', agent: agent(i), acct: '',
      id: newSequentialId('evt', now), src: 2, type: 'llm_call', ts: now, ing: now, uid: '', anon: '', model: 'gpt-4o',
      tin: 1200, tout: 300, ttot: 1500, meta: '{"model":"gpt-4o","input_tokens":1200,"output_tokens":300}', val: '',
    });
  }
  return decodeBatch(encodeBatch(events));
}
