import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { mkdirSync } from 'node:fs';
import type { CommonConfig } from '../config/common.ts';

export type { ClickHouseClient };

/** The raw escape hatches of chDB's connection (`rawInsert` and others), from the chdb package. */
export type ChdbRaw = import('chdb/connection').ChdbExtension;

let chdbClient: { path: string; client: ClickHouseClient; raw: ChdbRaw } | undefined;

/**
 * The ClickHouse client: a server at CLICKHOUSE_URL, or else chDB (the same engine
 * in-process) under the data directory. chDB allows one data directory per process,
 * so the chDB client is one per process and shared by every role in it; isolation is
 * by ClickHouse database. Closing is the process's job ({@link closeClickHouse}).
 */
export async function openClickHouse(cfg: CommonConfig['clickhouse']): Promise<ClickHouseClient> {
  if (cfg.url) {
    return createClient({
      url: cfg.url,
      username: cfg.user,
      password: cfg.password,
      clickhouse_settings: { date_time_input_format: 'best_effort' },
    });
  }
  if (chdbClient) {
    if (chdbClient.path !== cfg.chdbPath) {
      throw new Error(`chDB is already open at ${chdbClient.path}; one data directory per process (asked for ${cfg.chdbPath})`);
    }
    return chdbClient.client;
  }
  mkdirSync(cfg.chdbPath, { recursive: true });
  const { createChdbConnection } = await import('chdb/connection');
  const connection = createChdbConnection({ path: cfg.chdbPath });
  const client = createClient({ connection } as Parameters<typeof createClient>[0]);
  chdbClient = { path: cfg.chdbPath, client, raw: connection.chdb };
  return client;
}

/**
 * chDB's raw API behind a client from {@link openClickHouse}, or undefined for a
 * ClickHouse server. Its `rawInsert` hands a Buffer to the engine as is, where
 * `@clickhouse/client` over chDB copies the payload into the SQL text.
 */
export function chdbRawOf(client: ClickHouseClient): ChdbRaw | undefined {
  return chdbClient?.client === client ? chdbClient.raw : undefined;
}

/** Closes a ClickHouse client; the process-wide chDB client is kept until process exit. */
export async function closeClickHouse(client: ClickHouseClient): Promise<void> {
  if (chdbClient?.client === client) return;
  await client.close();
}
