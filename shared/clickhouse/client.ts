import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { mkdirSync } from 'node:fs';
import type { CommonConfig } from '../config/common.ts';

export type { ClickHouseClient };

let chdbClient: { path: string; client: ClickHouseClient } | undefined;

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
  const client = createClient({ connection: createChdbConnection({ path: cfg.chdbPath }) } as Parameters<typeof createClient>[0]);
  chdbClient = { path: cfg.chdbPath, client };
  return client;
}

/** Closes a ClickHouse client; the process-wide chDB client is kept until process exit. */
export async function closeClickHouse(client: ClickHouseClient): Promise<void> {
  if (chdbClient?.client === client) return;
  await client.close();
}
