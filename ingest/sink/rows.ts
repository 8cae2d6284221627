import type { WireBatch } from '../../shared/events/wire.ts';

/** Column order of the compact inserts (JSONCompactEachRow). */
export const ACTION_COLUMNS = [
  'environment_id', 'organization_id', 'agent_instance_id', 'account_id', 'event_id', 'id_source', 'action_type',
  'ts', 'ingested_at', 'user_id', 'anonymous_id', 'model', 'input_tokens', 'output_tokens', 'total_tokens', 'metadata',
] as const;
export const OUTCOME_COLUMNS = [
  'environment_id', 'organization_id', 'agent_instance_id', 'account_id', 'event_id', 'id_source', 'outcome_type',
  'value', 'ts', 'ingested_at', 'user_id', 'anonymous_id', 'metadata',
] as const;

const ID_SOURCE = ['', 'client', 'server'] as const;

/**
 * Splits a decoded batch into ClickHouse rows of the actions and outcomes tables.
 * Times stay integers: ClickHouse reads an integer for DateTime64(3) as milliseconds.
 */
export function toRows(b: WireBatch, actions: unknown[][], outcomes: unknown[][]): void {
  const d = b.dict;
  for (let i = 0; i < b.n; i++) {
    const env = d[b.env[i]!], org = d[b.org[i]!], agent = d[b.agent[i]!], acct = d[b.acct[i]!], src = ID_SOURCE[b.src[i]!], type = d[b.type[i]!];
    if (b.k[i] === 1) {
      actions.push([env, org, agent, acct, b.id[i], src, type, b.ts[i], b.ing[i], d[b.uid[i]!], d[b.anon[i]!], d[b.model[i]!], b.tin[i], b.tout[i], b.ttot[i], b.meta[i]]);
    } else {
      outcomes.push([env, org, agent, acct, b.id[i], src, type, b.val[i] || '0', b.ts[i], b.ing[i], d[b.uid[i]!], d[b.anon[i]!], b.meta[i]]);
    }
  }
}
