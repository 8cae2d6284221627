/**
 * Columns of the sink's inserts, in the order of the fields of its TabSeparated rows
 * (tsv.ts). Events carry the JetStream sequence of their message (`stream_seq`): the
 * cost rollup (billing/reports) folds in actions, and the outcome.completed poller
 * (billing/outcomes) reads outcomes, by sequence up to the sink's ack floor.
 */
export const ACTION_COLUMNS = [
  'environment_id', 'organization_id', 'agent_instance_id', 'account_id', 'event_id', 'id_source', 'action_type',
  'ts', 'ingested_at', 'user_id', 'anonymous_id', 'model', 'input_tokens', 'output_tokens', 'total_tokens', 'metadata', 'stream_seq',
] as const;
export const OUTCOME_COLUMNS = [
  'environment_id', 'organization_id', 'agent_instance_id', 'account_id', 'event_id', 'id_source', 'outcome_type',
  'value', 'ts', 'ingested_at', 'user_id', 'anonymous_id', 'metadata', 'stream_seq',
] as const;
