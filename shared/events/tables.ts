import type { WireBatch } from './wire.ts';

/**
 * Columns of the sink's inserts, in the order of the fields of its TabSeparated rows
 * (ingest/sink/tsv.ts), of its Native blocks (ingest/sink/native.ts) and of ingest's wire batches (native-batch.ts), with the wire batch's field each comes from. Events carry the JetStream sequence of their message (`stream_seq`): the
 * cost rollup (billing/reports) folds in actions, and the outcome.completed poller
 * (billing/outcomes) reads outcomes, by sequence up to the sink's ack floor.
 */
const ID_SOURCE = "Enum8('client' = 1, 'server' = 2)";
const TIME = "DateTime64(3, 'UTC')";

/** The sink's columns of `actions`, with their ClickHouse types (checked against the table in sink.integration.test.ts) and wire fields. */
export const ACTION_TABLE = [
  ['environment_id', 'LowCardinality(String)', 'env'], ['organization_id', 'LowCardinality(String)', 'org'], ['agent_instance_id', 'String', 'agent'],
  ['account_id', 'String', 'acct'], ['event_id', 'String', 'id'], ['id_source', ID_SOURCE, 'src'], ['action_type', 'LowCardinality(String)', 'type'],
  ['ts', TIME, 'ts'], ['ingested_at', TIME, 'ing'], ['user_id', 'String', 'uid'], ['anonymous_id', 'String', 'anon'], ['model', 'LowCardinality(String)', 'model'],
  ['input_tokens', 'UInt64', 'tin'], ['output_tokens', 'UInt64', 'tout'], ['total_tokens', 'UInt64', 'ttot'], ['metadata', 'String', 'meta'], ['stream_seq', 'UInt64', 'seq'],
] as const;
/** The sink's columns of `outcomes`, with their ClickHouse types and wire fields. */
export const OUTCOME_TABLE = [
  ['environment_id', 'LowCardinality(String)', 'env'], ['organization_id', 'LowCardinality(String)', 'org'], ['agent_instance_id', 'String', 'agent'],
  ['account_id', 'String', 'acct'], ['event_id', 'String', 'id'], ['id_source', ID_SOURCE, 'src'], ['outcome_type', 'LowCardinality(String)', 'type'],
  ['value', 'Decimal(38, 9)', 'val'], ['ts', TIME, 'ts'], ['ingested_at', TIME, 'ing'], ['user_id', 'String', 'uid'], ['anonymous_id', 'String', 'anon'],
  ['metadata', 'String', 'meta'], ['stream_seq', 'UInt64', 'seq'],
] as const;

/** A sink column: its name, ClickHouse type and the wire batch's field it comes from (`seq`: the message's JetStream sequence). */
export type SinkColumn = readonly [name: string, type: string, field: keyof WireBatch | 'seq'];

export const ACTION_COLUMNS = ACTION_TABLE.map(([name]) => name);
export const OUTCOME_COLUMNS = OUTCOME_TABLE.map(([name]) => name);

/** A column list as the `structure` argument of a ClickHouse table function (`file(path, Native, structure)`). */
export function structureOf(table: readonly SinkColumn[]): string {
  return table.map(([name, type]) => `${name} ${type}`).join(', ');
}
