import type { ClickHouseClient } from '@clickhouse/client';

/**
 * ClickHouse schema, as ordered migrations of their own. `{db}` is replaced by the
 * configured database name (validated as an identifier by the config schema).
 *
 * Events: `actions` and `outcomes`, partitioned by month of event time, sorted by the
 * event's identity (environment, agent instance, event id). ReplacingMergeTree keeps
 * the first-ingested copy of an identity when parts merge (`first_seen_rank` is larger
 * for earlier ingestion); every query that counts usage also deduplicates explicitly
 * (see usage.ts), so correctness never waits for a merge.
 */
export const clickhouseMigrations: { id: string; statements: string[] }[] = [
  {
    id: '0001_events',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.actions (
        environment_id LowCardinality(String),
        organization_id LowCardinality(String),
        agent_instance_id String,
        account_id String,
        event_id String,
        id_source Enum8('client' = 1, 'server' = 2),
        action_type LowCardinality(String),
        ts DateTime64(3, 'UTC'),
        ingested_at DateTime64(3, 'UTC'),
        user_id String,
        anonymous_id String,
        model LowCardinality(String),
        input_tokens UInt64,
        output_tokens UInt64,
        total_tokens UInt64,
        metadata String,
        first_seen_rank UInt64 DEFAULT 4102444800000 - toUnixTimestamp64Milli(ingested_at)
      ) ENGINE = ReplacingMergeTree(first_seen_rank)
      PARTITION BY toYYYYMM(ts)
      ORDER BY (environment_id, agent_instance_id, event_id)`,
      `CREATE TABLE IF NOT EXISTS {db}.outcomes (
        environment_id LowCardinality(String),
        organization_id LowCardinality(String),
        agent_instance_id String,
        account_id String,
        event_id String,
        id_source Enum8('client' = 1, 'server' = 2),
        outcome_type LowCardinality(String),
        value Decimal(38, 9),
        ts DateTime64(3, 'UTC'),
        ingested_at DateTime64(3, 'UTC'),
        user_id String,
        anonymous_id String,
        metadata String,
        first_seen_rank UInt64 DEFAULT 4102444800000 - toUnixTimestamp64Milli(ingested_at)
      ) ENGINE = ReplacingMergeTree(first_seen_rank)
      PARTITION BY toYYYYMM(ts)
      ORDER BY (environment_id, agent_instance_id, event_id)`,
      `CREATE TABLE IF NOT EXISTS {db}.sink_dead_letters (
        received_at DateTime64(3, 'UTC'),
        stream_sequence UInt64,
        reason String,
        payload_base64 String
      ) ENGINE = MergeTree ORDER BY received_at`,
    ],
  },
];

/** Creates the database and applies pending ClickHouse migrations (idempotent). */
export async function migrateClickHouse(ch: ClickHouseClient, database: string): Promise<void> {
  await ch.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
  await ch.command({
    query: `CREATE TABLE IF NOT EXISTS ${database}.schema_migrations (id String, applied_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY id`,
  });
  const rs = await ch.query({ query: `SELECT DISTINCT id FROM ${database}.schema_migrations`, format: 'JSONEachRow' });
  const applied = new Set((await rs.json<{ id: string }>()).map((r) => r.id));
  for (const m of clickhouseMigrations) {
    if (applied.has(m.id)) continue;
    for (const s of m.statements) await ch.command({ query: s.replaceAll('{db}', database) });
    await ch.insert({ table: `${database}.schema_migrations`, values: [{ id: m.id }], format: 'JSONEachRow' });
  }
}
