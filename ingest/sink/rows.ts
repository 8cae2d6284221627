import type { WireEvent } from '../../shared/events/wire.ts';

/** Column order of the compact inserts (JSONCompactEachRow). */
export const ACTION_COLUMNS = [
  'environment_id', 'organization_id', 'agent_instance_id', 'account_id', 'event_id', 'id_source', 'action_type',
  'ts', 'ingested_at', 'user_id', 'anonymous_id', 'model', 'input_tokens', 'output_tokens', 'total_tokens', 'metadata',
] as const;
export const OUTCOME_COLUMNS = [
  'environment_id', 'organization_id', 'agent_instance_id', 'account_id', 'event_id', 'id_source', 'outcome_type',
  'value', 'ts', 'ingested_at', 'user_id', 'anonymous_id', 'metadata',
] as const;

const ID_SOURCE = { 1: 'client', 2: 'server' } as const;

/** Splits decoded events into ClickHouse rows of the actions and outcomes tables. */
export function toRows(events: WireEvent[], actions: unknown[][], outcomes: unknown[][]): void {
  for (const e of events) {
    // An integer for a DateTime64(3) column is read as milliseconds since the epoch.
    const ts = e.ts;
    const ing = e.ing;
    if (e.k === 1) {
      actions.push([e.env, e.org, e.agent, e.acct, e.id, ID_SOURCE[e.src], e.type, ts, ing, e.uid, e.anon, e.model ?? '', e.tin ?? 0, e.tout ?? 0, e.ttot ?? 0, e.meta]);
    } else {
      outcomes.push([e.env, e.org, e.agent, e.acct, e.id, ID_SOURCE[e.src], e.type, e.val ?? '0', ts, ing, e.uid, e.anon, e.meta]);
    }
  }
}
