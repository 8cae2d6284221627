import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isAlive } from '../server-record.ts';
import type { CommonConfig } from '../config/common.ts';
import { ParamQueue, queryKind } from './chdb-queue.ts';

export type { ClickHouseClient };

/** The raw escape hatches of chDB's connection (`rawInsert` and others), from the chdb package. */
export type ChdbRaw = import('chdb/connection').ChdbExtension;

let chdbClient: { path: string; client: ClickHouseClient; raw: ChdbRaw } | undefined;

/** The cluster (CLICKHOUSE_CLUSTER) of each server client that has one. */
const clusters = new WeakMap<ClickHouseClient, string>();

/**
 * Settings of every query to a server.
 * - date_time_input_format: ISO 8601 timestamps in inserted rows (`basic` is the
 *   default before ClickHouse 26.5).
 * - async_insert off: ClickHouse 26.2 turned it on by default, which makes every insert
 *   wait for a server-side buffer flush (async_insert_busy_timeout_ms); the sink
 *   batches on its own, and the other inserts are single rows read right after.
 */
const SERVER_SETTINGS = { date_time_input_format: 'best_effort', async_insert: 0 } as const;

/**
 * Output settings Tally's readers rely on, set on every query (server and chDB alike)
 * instead of taken from the server's defaults, which change between releases.
 * - output_format_json_quote_64bit_integers = 1: (U)Int64 and wider in JSON formats are
 *   strings, so a count, sum or sequence above 2^53 reaches JavaScript exactly. ClickHouse
 *   25.8 turned its default to 0 (JSON numbers), and the compose file pins 26.3.
 * - output_format_json_quote_decimals = 0 and output_format_json_quote_64bit_floats = 0:
 *   the defaults, stated; readers print decimals with toString() and read them with
 *   decimalFromClickHouse (decimal.ts), which takes both shapes.
 * Analysts' queries (billing/reports/sql-access.ts) set their own shape.
 */
export const JSON_OUTPUT_SETTINGS = {
  output_format_json_quote_64bit_integers: 1,
  output_format_json_quote_decimals: 0,
  output_format_json_quote_64bit_floats: 0,
} as const;

/**
 * Settings of every query on a cluster (schema.ts `clusterStatements`: events sharded
 * by agent instance behind Distributed tables).
 * - distributed_foreground_insert: an insert into a Distributed table returns once
 *   every shard has its rows (not queued on the receiving node), so the sink
 *   acknowledges only what readers can see.
 * - distributed_product_mode = 'local': a subquery on a Distributed table inside a
 *   query on another reads each shard's local table; Tally's event tables are sharded
 *   by the same key (environment, agent instance), so every join and IN on an
 *   event's identity finds its rows on the same shard.
 */
const CLUSTER_SETTINGS = { distributed_foreground_insert: 1, distributed_product_mode: 'local' } as const;

/**
 * The ClickHouse client: a server at CLICKHOUSE_URL, or else chDB (the same engine
 * in-process) under the data directory. chDB allows one data directory per process,
 * so the chDB client is one per process and shared by every role in it; isolation is
 * by ClickHouse database. Closing is the process's job ({@link closeClickHouse}).
 */
export async function openClickHouse(cfg: CommonConfig['clickhouse']): Promise<ClickHouseClient> {
  if (cfg.url) {
    const client = createClient({
      url: cfg.url,
      username: cfg.user,
      password: cfg.password,
      clickhouse_settings: { ...SERVER_SETTINGS, ...JSON_OUTPUT_SETTINGS, ...(cfg.cluster ? CLUSTER_SETTINGS : {}) },
    });
    await checkServer(client, cfg);
    if (cfg.cluster) clusters.set(client, cfg.cluster);
    return client;
  }
  if (chdbClient) {
    if (chdbClient.path !== cfg.chdbPath) {
      throw new Error(`chDB is already open at ${chdbClient.path}; one data directory per process (asked for ${cfg.chdbPath})`);
    }
    return chdbClient.client;
  }
  mkdirSync(cfg.chdbPath, { recursive: true });
  assertChdbFree(cfg.chdbPath);
  const { createChdbConnection } = await import('chdb/connection');
  let connection: ReturnType<typeof createChdbConnection>;
  try {
    connection = createChdbConnection({ path: cfg.chdbPath });
  } catch (err) {
    assertChdbFree(cfg.chdbPath); // taken meanwhile: said plainly
    throw err;
  }
  queueParameterized(connection);
  const client = createClient({ connection, clickhouse_settings: JSON_OUTPUT_SETTINGS } as Parameters<typeof createClient>[0]);
  chdbClient = { path: cfg.chdbPath, client, raw: connection.chdb };
  return client;
}

/** The process's queue of chDB's parameterized queries (chdb-queue.ts). */
const chdbParamQueue = new ParamQueue();

/**
 * Hands the connection's parameterized queries (query, command, exec with `query_params`)
 * to chDB one at a time through {@link chdbParamQueue}, as chDB's own process-wide chain
 * would run them, but with a request's query before the background loops' and each
 * measured per kind of query and loop (chdb-queue.ts). Other queries (inserts, queries
 * without parameters) go to chDB directly, as before: chDB runs them in parallel.
 */
function queueParameterized(connection: object): void {
  const c = connection as Record<'query' | 'command' | 'exec', (params: { query: string; query_params?: Record<string, unknown> }) => Promise<unknown>>;
  for (const method of ['query', 'command', 'exec'] as const) {
    const direct = c[method].bind(connection);
    c[method] = (params) => (params.query_params && Object.keys(params.query_params).length > 0 ? chdbParamQueue.run(queryKind(params.query), () => direct(params)) : direct(params));
  }
}

/**
 * Fails when another running process holds the chDB data directory `chdbPath` (chDB, like
 * a ClickHouse server, locks `<path>/status`, which names its process): the embedded
 * default allows one process per data directory. Called before the directory is opened,
 * so a second process stops at once with what to do instead of chDB's own error.
 */
export function assertChdbFree(chdbPath: string): void {
  const holder = chdbHolder(chdbPath);
  if (holder === undefined) return;
  throw new Error(
    `the embedded chDB data directory ${chdbPath} is in use by process ${holder} (chDB allows one process per data directory): stop that process, give this one its own TALLY_DATA_DIR, or run ClickHouse as a server and point every process at it with CLICKHOUSE_URL`,
  );
}

/**
 * The process, other than this one, holding `<chdbPath>/status`: on Linux the one whose
 * lock /proc/locks lists on that file (a status file a killed process left names a pid
 * that may be reused); elsewhere the live process the file names. Undefined when none.
 */
export function chdbHolder(chdbPath: string): number | undefined {
  const status = path.join(chdbPath, 'status');
  let text: string;
  let inode: number;
  try {
    text = readFileSync(status, 'utf8');
    inode = statSync(status).ino;
  } catch {
    return undefined;
  }
  const named = Number(/^PID:\s*(\d+)/m.exec(text)?.[1]);
  let locks: string;
  try {
    locks = readFileSync('/proc/locks', 'utf8');
  } catch {
    return named !== process.pid && isAlive(named) ? named : undefined;
  }
  // "1: FLOCK  ADVISORY  WRITE 31813 08:01:123456 0 EOF": the holder's pid, then major:minor:inode.
  for (const line of locks.split('\n')) {
    const m = /\s(\d+)\s+[0-9a-f]+:[0-9a-f]+:(\d+)\s/.exec(line);
    if (m && Number(m[2]) === inode && Number(m[1]) !== process.pid) return Number(m[1]);
  }
  return undefined;
}

/** What a server at `cfg.url` is called in errors: its address without credentials, and the user. */
function describeServer(cfg: CommonConfig['clickhouse']): string {
  let where = cfg.url!;
  try {
    const u = new URL(cfg.url!);
    u.username = '';
    u.password = '';
    where = u.origin + u.pathname.replace(/\/$/, '');
  } catch {
    /* not a URL: the client's own error says so */
  }
  return `ClickHouse at ${where} (user ${cfg.user})`;
}

/**
 * One query before anything else: an unreachable server or refused credentials stop
 * the start with an error that names ClickHouse, instead of the client's bare message
 * from whichever migration ran first.
 */
async function checkServer(client: ClickHouseClient, cfg: CommonConfig['clickhouse']): Promise<void> {
  try {
    await client.command({ query: 'SELECT 1' });
  } catch (err) {
    await client.close().catch(() => {});
    throw new Error(`${describeServer(cfg)}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
}

/** The ClickHouse cluster of a client from {@link openClickHouse} (CLICKHOUSE_CLUSTER), if any. */
export function clusterOf(client: ClickHouseClient): string | undefined {
  return clusters.get(client);
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
