/**
 * The cluster schema (CLICKHOUSE_CLUSTER) checked by the real ClickHouse parser and
 * catalog in chDB: every generated statement parses (`formatQuery` parses without
 * running), and every engine and setting it relies on exists in the engine. No
 * multi-node cluster runs here: Replicated and Distributed tables need Keeper and a
 * configured cluster, so nothing is created.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { openClickHouse, type ClickHouseClient } from './client.ts';
import { clickhouseMigrations, deployedStatements } from './schema.ts';
import { parseCommonConfig } from '../config/common.ts';

let ch: ClickHouseClient;
beforeAll(async () => {
  const cfg = parseCommonConfig({ TALLY_DATA_DIR: path.join(os.tmpdir(), `tally-test-${process.pid}`) });
  ch = await openClickHouse(cfg.clickhouse);
});

const statements = [
  ...deployedStatements('CREATE DATABASE IF NOT EXISTS {db}', 'tally', 'main'),
  ...deployedStatements('CREATE TABLE IF NOT EXISTS {db}.schema_migrations (id String, applied_at DateTime DEFAULT now()) ENGINE = ReplacingMergeTree ORDER BY id', 'tally', 'main'),
  ...clickhouseMigrations.flatMap((m) => m.statements.flatMap((s) => deployedStatements(s, 'tally', 'main'))),
];

async function formatted(sql: string): Promise<string> {
  const rs = await ch.query({ query: 'SELECT formatQuery({q:String}) AS f', query_params: { q: sql }, format: 'JSONEachRow' });
  return (await rs.json<{ f: string }>())[0]!.f;
}

describe('cluster statements, through the ClickHouse parser', () => {
  it('parse, every one (and the parser does refuse a broken one)', async () => {
    expect(statements.length).toBeGreaterThan(clickhouseMigrations.flatMap((m) => m.statements).length + 2); // sharded tables add statements
    for (const s of statements) {
      const f = await formatted(s);
      expect(f, s).toContain('ON CLUSTER main');
    }
    await expect(formatted(statements[2]!.replace('ON CLUSTER main', 'ON CLUSTER'))).rejects.toThrow(/Syntax error/);
  });

  it('parse as Replicated and Distributed engines that exist, with settings that exist', async () => {
    const engines = new Set(statements.flatMap((s) => [...s.matchAll(/ENGINE = (\w+)/g)].map((m) => m[1]!)));
    expect([...engines].sort()).toEqual(['Distributed', 'EmbeddedRocksDB', 'Memory', 'ReplicatedMergeTree', 'ReplicatedReplacingMergeTree', 'ReplicatedSummingMergeTree']);
    const rs = await ch.query({ query: 'SELECT name FROM system.table_engines WHERE name IN {n:Array(String)}', query_params: { n: [...engines] }, format: 'JSONEachRow' });
    expect((await rs.json<{ name: string }>()).map((r) => r.name).sort()).toEqual([...engines].sort());
    const settings = await ch.query({ query: "SELECT name FROM system.settings WHERE name IN ('distributed_foreground_insert', 'distributed_product_mode', 'async_insert') ORDER BY name", format: 'JSONEachRow' });
    expect((await settings.json<{ name: string }>()).map((r) => r.name)).toEqual(['async_insert', 'distributed_foreground_insert', 'distributed_product_mode']);
  });
});
