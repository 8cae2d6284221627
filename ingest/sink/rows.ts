/**
 * Columns of the sink's inserts, in the order of the fields of its TabSeparated rows
 * (tsv.ts). Events carry the JetStream sequence of their message (`stream_seq`): the
 * cost rollup (billing/reports) folds in actions, and the outcome.completed poller
 * (billing/outcomes) reads outcomes, by sequence up to the sink's ack floor.
 */
const ID_SOURCE = "Enum8('client' = 1, 'server' = 2)";
const TIME = "DateTime64(3, 'UTC')";

/** The sink's columns of `actions`, with their ClickHouse types (checked against the table in sink.integration.test.ts). */
export const ACTION_TABLE = [
  ['environment_id', 'LowCardinality(String)'], ['organization_id', 'LowCardinality(String)'], ['agent_instance_id', 'String'],
  ['account_id', 'String'], ['event_id', 'String'], ['id_source', ID_SOURCE], ['action_type', 'LowCardinality(String)'],
  ['ts', TIME], ['ingested_at', TIME], ['user_id', 'String'], ['anonymous_id', 'String'], ['model', 'LowCardinality(String)'],
  ['input_tokens', 'UInt64'], ['output_tokens', 'UInt64'], ['total_tokens', 'UInt64'], ['metadata', 'String'], ['stream_seq', 'UInt64'],
] as const;
/** The sink's columns of `outcomes`, with their ClickHouse types. */
export const OUTCOME_TABLE = [
  ['environment_id', 'LowCardinality(String)'], ['organization_id', 'LowCardinality(String)'], ['agent_instance_id', 'String'],
  ['account_id', 'String'], ['event_id', 'String'], ['id_source', ID_SOURCE], ['outcome_type', 'LowCardinality(String)'],
  ['value', 'Decimal(38, 9)'], ['ts', TIME], ['ingested_at', TIME], ['user_id', 'String'], ['anonymous_id', 'String'],
  ['metadata', 'String'], ['stream_seq', 'UInt64'],
] as const;

export const ACTION_COLUMNS = ACTION_TABLE.map(([name]) => name);
export const OUTCOME_COLUMNS = OUTCOME_TABLE.map(([name]) => name);

/** A column list as the `structure` argument of a ClickHouse table function (`file(path, RowBinary, structure)`). */
export function structureOf(table: readonly (readonly [string, string])[]): string {
  return table.map(([name, type]) => `${name} ${type}`).join(', ');
}
