import type { ClickHouseClient } from '@clickhouse/client';
import { clusterOf } from './client.ts';
import { clusterStatements } from './cluster.ts';
import { TOKEN_CLASSES, tokenClassSql } from '../events/token-classes.ts';

/** The columns of an action the cost rollup keeps (billing/costs/cost-rollup.ts). */
const COUNTED_ROW = `Tuple(ts DateTime64(3, 'UTC'), account_id String, action_type String, model String, input_tokens UInt64, output_tokens UInt64, total_tokens UInt64, metadata String)`;

/**
 * Derived outcomes: one per (rule, action) whose version is in effect at the action's
 * time; `match_values` hold JSON texts compared with the metadata's raw JSON value.
 * `{stream_seq}`: the action's sequence column from migration 0003 on.
 */
const DERIVED_OUTCOMES_MV = `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.derived_outcomes_mv TO {db}.outcomes AS
 SELECT a.environment_id AS environment_id, a.organization_id AS organization_id,
   a.agent_instance_id AS agent_instance_id, a.account_id AS account_id,
   concat('drv_', r.rule_id, '_', a.event_id) AS event_id, a.id_source AS id_source,
   r.outcome_type AS outcome_type,
   if(r.value_field = '', r.value,
      ifNull(toDecimal128OrNull(trim(BOTH '"' FROM JSONExtractRaw(a.metadata, r.value_field)), 9), toDecimal128(0, 9))) AS value,
   a.ts AS ts, a.ingested_at AS ingested_at, a.user_id AS user_id, a.anonymous_id AS anonymous_id,
   concat('{"derived_from":{"rule_id":', toJSONString(r.rule_id), ',"action_event_id":', toJSONString(a.event_id), '}}') AS metadata{stream_seq}
 FROM {db}.actions AS a
 INNER JOIN (SELECT * FROM {db}.outcome_rules FINAL) AS r ON a.environment_id = r.environment_id AND a.action_type = r.action_type
 WHERE a.ts >= r.effective_from AND a.ts < r.effective_to
   AND arrayAll((k, v) -> JSONExtractRaw(a.metadata, k) = v, r.match_keys, r.match_values)`;

/**
 * Derived outcomes from the counted copy of an action only (migration 0006). Every copy of
 * an action with a client id (copies of one id may differ) that a rule version in effect
 * at its time takes by action type gives a row with the derived id and its action's
 * `ingested_at`, hence its action's rank: a copy whose metadata matches gives the outcome,
 * one that does not gives a `voided = 1` row standing for that copy. Readers keep the
 * best-ranked row of each identity (the first-ingested copy, as for actions: FINAL or
 * argMin) and only then drop voided rows, so an outcome exists exactly when the copy that
 * usage and costs count matches, whatever order copies arrive in. Server-assigned ids
 * have no other copies: only matching ones give rows.
 *
 * The value read from the metadata (`value_field`) exactly as `/v1/outcomes` takes a value:
 * a JSON number, or a string of plain decimal digits (`^[0-9]+([.][0-9]{1,9})?$`), from 0 to
 * 10^18 inclusive with at most 9 decimals. Anything else gives 0 (`"1e3"`, `"+12"`,
 * `" 12"`, more decimals, above 10^18), never a cut value. A JSON number is read from its
 * text as ClickHouse prints it (`1000000000000000000.0` as `1000000000000000000`, `1e-7`
 * as written): ingest keeps, as decimal strings, the numbers a double would change.
 */
const DERIVED_OUTCOMES_FIRST_COPY_MV = `CREATE MATERIALIZED VIEW IF NOT EXISTS {db}.derived_outcomes_mv TO {db}.outcomes AS
 SELECT environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, outcome_type,
   multiIf(NOT matched, toDecimal128(0, 9), value_field = '', rule_value,
      value_9 >= 0 AND value_9 <= toDecimal128('1000000000000000000', 9) AND toDecimal256OrNull(value_text, 50) = toDecimal256(value_9, 50), value_9,
      toDecimal128(0, 9)) AS value,
   ts, ingested_at, user_id, anonymous_id, metadata, stream_seq, toUInt8(NOT matched) AS voided
 FROM (
   SELECT a.environment_id AS environment_id, a.organization_id AS organization_id,
     a.agent_instance_id AS agent_instance_id, a.account_id AS account_id,
     concat('drv_', r.rule_id, '_', a.event_id) AS event_id, a.id_source AS id_source,
     r.outcome_type AS outcome_type, r.value AS rule_value, r.value_field AS value_field,
     arrayAll((k, v) -> JSONExtractRaw(a.metadata, k) = v, r.match_keys, r.match_values) AS matched,
     JSONType(a.metadata, r.value_field) IN ('Int64', 'UInt64', 'Double') AS value_is_number,
     if(value_is_number, JSONExtractRaw(a.metadata, r.value_field), extract(JSONExtractString(a.metadata, r.value_field), '^[0-9]+(?:[.][0-9]{1,9})?$')) AS value_text,
     toDecimal128OrNull(value_text, 9) AS value_9,
     a.ts AS ts, a.ingested_at AS ingested_at, a.user_id AS user_id, a.anonymous_id AS anonymous_id,
     concat('{"derived_from":{"rule_id":', toJSONString(r.rule_id), ',"action_event_id":', toJSONString(a.event_id), '}}') AS metadata,
     a.stream_seq AS stream_seq
   FROM {db}.actions AS a
   INNER JOIN (SELECT * FROM {db}.outcome_rules FINAL) AS r ON a.environment_id = r.environment_id AND a.action_type = r.action_type
   WHERE a.ts >= r.effective_from AND a.ts < r.effective_to
 )
 WHERE matched OR id_source = 'client'`;

/**
 * ClickHouse schema, as ordered migrations of their own. `{db}` is replaced by the
 * configured database name (validated as an identifier by the config schema).
 *
 * Events: `actions` and `outcomes`, partitioned by month of event time, sorted by the
 * event's identity (environment, agent instance, event id). ReplacingMergeTree keeps
 * the first-ingested copy of an identity when parts merge (`first_seen_rank` is larger
 * for earlier ingestion); every query that counts usage also deduplicates explicitly
 * (see billing/usage/usage-query.ts), so correctness never waits for a merge.
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
  {
    // Adds cost rules and outcome rules (versioned by effective time, written by the api
    // role), derived outcomes (a materialized view from actions into outcomes, with a
    // deterministic event id so the usual dedup counts each once), and the insertion time
    // of outcome rows (the outcome.completed poller's cursor). See docs/analytics.md.
    id: '0002_costs_outcome_rules',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.cost_rules (
        environment_id LowCardinality(String),
        rule_id String,
        effective_from DateTime64(3, 'UTC'),
        effective_to DateTime64(3, 'UTC'),
        revision UInt64,
        name String,
        category LowCardinality(String),
        currency LowCardinality(String),
        basis LowCardinality(String),
        action_type String,
        rate Nullable(Decimal(38, 12)),
        models Array(String),
        model_rates Array(Decimal(38, 12)),
        unit_field String,
        created_at DateTime64(3, 'UTC')
      ) ENGINE = ReplacingMergeTree(revision)
      ORDER BY (environment_id, rule_id, effective_from)`,
      `CREATE TABLE IF NOT EXISTS {db}.outcome_rules (
        environment_id LowCardinality(String),
        rule_id String,
        effective_from DateTime64(3, 'UTC'),
        effective_to DateTime64(3, 'UTC'),
        revision UInt64,
        name String,
        action_type String,
        match_keys Array(String),
        match_values Array(String),
        outcome_type String,
        value Decimal(38, 9),
        value_field String,
        created_at DateTime64(3, 'UTC')
      ) ENGINE = ReplacingMergeTree(revision)
      ORDER BY (environment_id, rule_id, effective_from)`,
      `ALTER TABLE {db}.outcomes ADD COLUMN IF NOT EXISTS inserted_at DateTime64(3, 'UTC') DEFAULT now64(3)`,
      DERIVED_OUTCOMES_MV.replace('{stream_seq}', ''),
    ],
  },
  {
    // Adds the daily cost rollup (billing/costs/cost-rollup.ts). Actions carry the
    // JetStream sequence of their message (0 for rows written before this migration), so
    // the rollup folds in each action once, in sequence order, up to the sink's ack floor.
    // `cost_events` keeps the copy of each event the rollup counts (the raw table's merges
    // may drop it once a better-ranked copy arrives, which the rollup must then subtract);
    // `costs_daily` holds signed contributions, summed on merge; readers always sum().
    // `cost_fold_stage` holds one step's comparison while the step writes both tables.
    // Inserts carry a deduplication token per step, kept for the last 1000 inserts, so a
    // step redone after a crash lands once.
    id: '0003_costs_daily',
    statements: [
      `ALTER TABLE {db}.actions ADD COLUMN IF NOT EXISTS stream_seq UInt64 DEFAULT 0`,
      `ALTER TABLE {db}.actions ADD INDEX IF NOT EXISTS stream_seq_minmax stream_seq TYPE minmax GRANULARITY 1`,
      // Outcomes too (the outcome.completed poller reads them by sequence); derived ones
      // carry their action's.
      `ALTER TABLE {db}.outcomes ADD COLUMN IF NOT EXISTS stream_seq UInt64 DEFAULT 0`,
      `ALTER TABLE {db}.outcomes ADD INDEX IF NOT EXISTS stream_seq_minmax stream_seq TYPE minmax GRANULARITY 1`,
      `DROP VIEW IF EXISTS {db}.derived_outcomes_mv`,
      DERIVED_OUTCOMES_MV.replace('{stream_seq}', ', a.stream_seq AS stream_seq'),
      `CREATE TABLE IF NOT EXISTS {db}.cost_events (
        environment_id LowCardinality(String),
        agent_instance_id String,
        event_id String,
        rank UInt64,
        folded_seq Int64,
        ts DateTime64(3, 'UTC'),
        account_id String,
        action_type LowCardinality(String),
        model LowCardinality(String),
        input_tokens UInt64,
        output_tokens UInt64,
        total_tokens UInt64,
        metadata String,
        key_hash UInt64 MATERIALIZED cityHash64(environment_id, agent_instance_id, event_id)
      ) ENGINE = ReplacingMergeTree(rank)
      PARTITION BY toYYYYMM(ts)
      ORDER BY (environment_id, agent_instance_id, event_id)
      SETTINGS non_replicated_deduplication_window = 1000`,
      `CREATE TABLE IF NOT EXISTS {db}.costs_daily (
        environment_id LowCardinality(String),
        day Date,
        agent_instance_id String,
        account_id String,
        category LowCardinality(String),
        currency LowCardinality(String),
        amount Decimal(38, 12),
        actions Int64
      ) ENGINE = SummingMergeTree((amount, actions))
      PARTITION BY toYYYYMM(day)
      ORDER BY (environment_id, day, agent_instance_id, account_id, category, currency)
      SETTINGS non_replicated_deduplication_window = 1000`,
      `CREATE TABLE IF NOT EXISTS {db}.cost_fold_stage (
        environment_id LowCardinality(String),
        agent_instance_id String,
        event_id String,
        nrank UInt64,
        nrow ${COUNTED_ROW},
        orank UInt64,
        orow ${COUNTED_ROW}
      ) ENGINE = Memory`,
    ],
  },
  {
    // What the sink has inserted, per JetStream message (sink-progress.ts): the cost rollup
    // and the outcome poller read up to the contiguous end of it, so an acknowledgement
    // lost in a NATS crash does not hold them back until the message is redelivered.
    id: '0004_sink_inserted',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.sink_inserted (
        stream_created String,
        stream_seq UInt64,
        inserted_at DateTime DEFAULT now()
      ) ENGINE = ReplacingMergeTree
      ORDER BY (stream_created, stream_seq)
      TTL inserted_at + INTERVAL 2 DAY`,
    ],
  },
  {
    // The event tables merge their parts in fewer, wider steps. A sink that keeps up
    // inserts a part every few hundred ms; with the default base (5) each row was
    // rewritten by merges about log5(parts) times, and those merges cost the engine more
    // CPU than the inserts themselves (bench/sink-merges.ts). Base 20 halves the merges'
    // CPU and leaves more parts at rest (22 instead of 6 after 100 inserts of 48,000 rows);
    // ageing parts lower the base, so an idle table still merges down. Readers
    // deduplicate explicitly, so no count waits for a merge.
    id: '0005_event_merges',
    statements: [
      `ALTER TABLE {db}.actions MODIFY SETTING merge_selector_base = 20`,
      `ALTER TABLE {db}.outcomes MODIFY SETTING merge_selector_base = 20`,
    ],
  },
  {
    // Derived outcomes follow the counted copy of their action (DERIVED_OUTCOMES_FIRST_COPY_MV):
    // `voided` marks the row of a copy a rule does not match; readers drop such rows after
    // keeping the first-ingested row of each identity.
    id: '0006_derived_outcomes_first_copy',
    statements: [
      `ALTER TABLE {db}.outcomes ADD COLUMN IF NOT EXISTS voided UInt8 DEFAULT 0`,
      `DROP VIEW IF EXISTS {db}.derived_outcomes_mv`,
      DERIVED_OUTCOMES_FIRST_COPY_MV,
    ],
  },
  {
    // Costs are exact: a 12-decimal rate times a 6-decimal quantity has 18 decimals, which
    // the rollup now keeps (billing/costs/cost-query.ts COST_SCALE) instead of cutting at 12.
    id: '0007_costs_exact',
    statements: [`ALTER TABLE {db}.costs_daily MODIFY COLUMN amount Decimal(76, 18)`],
  },
  {
    // Token classes priced apart (shared/events/token-classes.ts): cache reads, cache
    // writes, reasoning. Columns whose default is computed from the metadata at insert:
    // the sink's inserts and the wire format stay as they are (the counts travel in the
    // metadata text), rows stored before read theirs from their metadata too, and a
    // writer may one day send them as columns of their own.
    id: '0008_token_classes',
    statements: TOKEN_CLASSES.map(
      (c) => `ALTER TABLE {db}.actions ADD COLUMN IF NOT EXISTS ${c.field} UInt64 DEFAULT ${tokenClassSql(c.field)}`,
    ),
  },
  {
    // The cost rollup's counted ranks by event identity in a key-value store (one server;
    // billing/costs/cost-rollup.ts): a step looks up its own keys, whatever the history,
    // where it scanned `cost_events`' key hashes whole. `cost_fold_new`: a step's new
    // copies, staged once and read by its lookups.
    id: '0009_cost_counted',
    statements: [
      `CREATE TABLE IF NOT EXISTS {db}.cost_counted (
        key String,
        rank UInt64
      ) ENGINE = EmbeddedRocksDB PRIMARY KEY key`,
      `CREATE TABLE IF NOT EXISTS {db}.cost_fold_new (
        environment_id LowCardinality(String),
        agent_instance_id String,
        event_id String,
        nrank UInt64,
        nrow ${COUNTED_ROW}
      ) ENGINE = Memory`,
    ],
  },
];

/**
 * The statements that create the database and the migrations' ledger; `{db}` as in
 * the migrations.
 */
const BOOTSTRAP = [
  'CREATE DATABASE IF NOT EXISTS {db}',
  'CREATE TABLE IF NOT EXISTS {db}.schema_migrations (id String, applied_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY id',
];

/**
 * A statement as run on this deployment: as written for one server (or chDB), or its
 * cluster form (cluster.ts) on CLICKHOUSE_CLUSTER; `{db}` replaced by the database.
 */
export function deployedStatements(sql: string, database: string, cluster: string | undefined): string[] {
  return (cluster ? clusterStatements(sql, cluster) : [sql]).map((s) => s.replaceAll('{db}', database));
}

/**
 * Creates the database and applies pending ClickHouse migrations (idempotent). On a
 * cluster (CLICKHOUSE_CLUSTER, recorded on the client by openClickHouse) every
 * statement runs `ON CLUSTER` in its cluster form.
 */
export async function migrateClickHouse(ch: ClickHouseClient, database: string, cluster: string | undefined = clusterOf(ch)): Promise<void> {
  const run = async (sql: string) => {
    for (const s of deployedStatements(sql, database, cluster)) await ch.command({ query: s });
  };
  for (const s of BOOTSTRAP) await run(s);
  const rs = await ch.query({ query: `SELECT DISTINCT id FROM ${database}.schema_migrations`, format: 'JSONEachRow' });
  const applied = new Set((await rs.json<{ id: string }>()).map((r) => r.id));
  for (const m of clickhouseMigrations) {
    if (applied.has(m.id)) continue;
    for (const s of m.statements) await run(s);
    await ch.insert({ table: `${database}.schema_migrations`, values: [{ id: m.id }], format: 'JSONEachRow' });
  }
}
