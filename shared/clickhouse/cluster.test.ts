import { describe, expect, it } from 'vitest';
import { clusterStatements, mutationTarget, SHARDING_KEY } from './cluster.ts';
import { clickhouseMigrations, deployedStatements } from './schema.ts';
import { parseCommonConfig } from '../config/common.ts';
import { ConfigError } from '../config/parse.ts';

const flat = (s: string) => s.replace(/\s+/g, ' ');
const all = clickhouseMigrations.flatMap((m) => m.statements);

describe('clusterStatements', () => {
  it('shards event tables: a Replicated local table and a Distributed table by environment and agent instance', () => {
    const [local, dist] = clusterStatements(all[0]!, 'main');
    expect(flat(local!)).toMatch(/^CREATE TABLE IF NOT EXISTS \{db\}\.actions_local ON CLUSTER main \( environment_id .* ENGINE = ReplicatedReplacingMergeTree\(first_seen_rank\) PARTITION BY toYYYYMM\(ts\) ORDER BY \(environment_id, agent_instance_id, event_id\)$/);
    expect(dist).toBe(`CREATE TABLE IF NOT EXISTS {db}.actions ON CLUSTER main AS {db}.actions_local ENGINE = Distributed(main, {db}, actions_local, ${SHARDING_KEY})`);
    expect(SHARDING_KEY).toBe('cityHash64(environment_id, agent_instance_id)');
  });

  it.each([
    ['sink_dead_letters', "ENGINE = ReplicatedMergeTree('/clickhouse/tables/{uuid}/all', '{shard}-{replica}') ORDER BY received_at"],
    ['costs_daily', "ENGINE = ReplicatedSummingMergeTree('/clickhouse/tables/{uuid}/all', '{shard}-{replica}', (amount, actions)) PARTITION BY"],
    ['outcome_rules', "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{uuid}/all', '{shard}-{replica}', revision) ORDER BY"],
    ['sink_inserted', "ENGINE = ReplicatedReplacingMergeTree('/clickhouse/tables/{uuid}/all', '{shard}-{replica}') ORDER BY"],
  ])('replicates %s whole to every node, under its own name', (table, engine) => {
    const create = all.find((s) => s.startsWith(`CREATE TABLE IF NOT EXISTS {db}.${table} (`))!;
    const out = clusterStatements(create, 'main');
    expect(out).toHaveLength(1);
    expect(flat(out[0]!)).toContain(`CREATE TABLE IF NOT EXISTS {db}.${table} ON CLUSTER main (`);
    expect(flat(out[0]!)).toContain(engine);
  });

  it('creates Memory tables on every node, unchanged', () => {
    const stage = all.find((s) => s.includes('{db}.cost_fold_stage'))!;
    expect(clusterStatements(stage, 'main')).toEqual([stage.replace('{db}.cost_fold_stage (', '{db}.cost_fold_stage ON CLUSTER main (')]);
  });

  it('alters the local tables, and the Distributed table too when a column is added', () => {
    expect(clusterStatements('ALTER TABLE {db}.actions ADD COLUMN IF NOT EXISTS stream_seq UInt64 DEFAULT 0', 'c')).toEqual([
      'ALTER TABLE {db}.actions_local ON CLUSTER c ADD COLUMN IF NOT EXISTS stream_seq UInt64 DEFAULT 0',
      'ALTER TABLE {db}.actions ON CLUSTER c ADD COLUMN IF NOT EXISTS stream_seq UInt64 DEFAULT 0',
    ]);
    expect(clusterStatements('ALTER TABLE {db}.actions ADD INDEX IF NOT EXISTS i stream_seq TYPE minmax GRANULARITY 1', 'c')).toEqual([
      'ALTER TABLE {db}.actions_local ON CLUSTER c ADD INDEX IF NOT EXISTS i stream_seq TYPE minmax GRANULARITY 1',
    ]);
  });

  it('points the derived-outcomes view at the shard-local tables, keeping the whole-cluster rules', () => {
    const view = all.filter((s) => s.startsWith('CREATE MATERIALIZED VIEW')).at(-1)!;
    const [out] = clusterStatements(view, 'main');
    expect(out).toMatch(/^CREATE MATERIALIZED VIEW IF NOT EXISTS \{db\}\.derived_outcomes_mv ON CLUSTER main TO \{db\}\.outcomes_local AS/);
    expect(out).toContain('FROM {db}.actions_local AS a');
    expect(out).toContain('FROM {db}.outcome_rules FINAL');
    expect(out).not.toMatch(/\{db\}\.(actions|outcomes)\b(?!_local)/);
    expect(clusterStatements('DROP VIEW IF EXISTS {db}.derived_outcomes_mv', 'main')).toEqual(['DROP VIEW IF EXISTS {db}.derived_outcomes_mv ON CLUSTER main']);
  });

  it('covers every statement of every migration, and refuses one it does not know', () => {
    for (const s of all) expect(clusterStatements(s, 'main').length).toBeGreaterThan(0);
    expect(() => clusterStatements('RENAME TABLE {db}.a TO {db}.b', 'main')).toThrow(/no cluster form/);
    expect(() => clusterStatements('CREATE TABLE IF NOT EXISTS {db}.x (a UInt8) ENGINE = Log', 'main')).toThrow(/no cluster form for engine Log/);
  });

  it('leaves the one-server statements exactly as written', () => {
    for (const s of all) expect(deployedStatements(s, 'tally', undefined)).toEqual([s.replaceAll('{db}', 'tally')]);
  });
});

describe('CLICKHOUSE_CLUSTER', () => {
  it('is a cluster name for a ClickHouse server; refused without CLICKHOUSE_URL or when not an identifier', () => {
    expect(parseCommonConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'main' }).clickhouse.cluster).toBe('main');
    expect(parseCommonConfig({}).clickhouse.cluster).toBeUndefined();
    expect(() => parseCommonConfig({ CLICKHOUSE_CLUSTER: 'main' })).toThrow(ConfigError);
    expect(() => parseCommonConfig({ CLICKHOUSE_CLUSTER: 'main' })).toThrow(/CLICKHOUSE_CLUSTER="main": needs CLICKHOUSE_URL/);
    expect(() => parseCommonConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'main; DROP' })).toThrow(/CLICKHOUSE_CLUSTER=/);
  });
});

describe('mutationTarget', () => {
  it('names the local tables on every node for a sharded table on a cluster, else the table', () => {
    expect(mutationTarget('tally', 'actions', 'main')).toBe('tally.actions_local ON CLUSTER main');
    expect(mutationTarget('tally', 'costs_daily', 'main')).toBe('tally.costs_daily');
    expect(mutationTarget('tally', 'actions', undefined)).toBe('tally.actions');
  });
});
