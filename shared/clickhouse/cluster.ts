/**
 * The cluster layout (CLICKHOUSE_CLUSTER): Tally's one-server DDL (schema.ts) rewritten
 * statement by statement, so the two layouts cannot drift apart.
 *
 * - Event tables (`actions`, `outcomes`, `cost_events`) are sharded: a
 *   `Replicated*MergeTree` table `<name>_local` on every node, and `<name>` a
 *   Distributed table over them, sharded by {@link SHARDING_KEY}. Every copy of an
 *   event (same environment, agent instance, event id) lands on one shard, so
 *   ReplacingMergeTree merges and the per-identity deduplication of every reader work
 *   within a shard. Tally reads and writes `<name>` as before.
 * - Every other MergeTree table (rules, `costs_daily`, `sink_inserted`,
 *   `sink_dead_letters`, `schema_migrations`) is small and is replicated whole to
 *   every node of the cluster, under the same name: the derived-outcomes view joins
 *   the outcome rules on each shard, and mutations (the cost rollup's
 *   `ALTER TABLE costs_daily DELETE`) work on a replicated table, not on a
 *   Distributed one.
 * - `Memory` tables and views are created on every node (`ON CLUSTER`); the view reads
 *   and writes the shard's local tables, as its rows share their action's shard.
 *
 * Replication paths: sharded tables use the engine's parameterless form, i.e. the
 * server's `default_replica_path` and `default_replica_name` (by default
 * `/clickhouse/tables/{uuid}/{shard}` and `{replica}`), so an operator's own
 * convention applies, and `{uuid}` keeps a re-created database off a dropped one's
 * Keeper path. Whole-cluster tables need one replication group across shards:
 * `/clickhouse/tables/{uuid}/all`, replica `{shard}-{replica}` (a `{replica}` macro is
 * often only unique within its shard).
 *
 * Checked by the ClickHouse parser only (cluster.integration.test.ts); no multi-node
 * cluster runs in this repository's tests.
 */

/** Tables sharded across the cluster behind a Distributed table of the same name. */
const SHARDED_TABLES = ['actions', 'outcomes', 'cost_events'] as const;

/** The Distributed tables' sharding key: an event's identity minus its id, so all copies meet. */
export const SHARDING_KEY = 'cityHash64(environment_id, agent_instance_id)';

/** Replication path and replica name of tables every node holds whole. */
const WHOLE_CLUSTER_REPLICA = `'/clickhouse/tables/{uuid}/all', '{shard}-{replica}'`;

const SHARDED = new Set<string>(SHARDED_TABLES);
const local = (table: string) => `${table}_local`;

/**
 * One statement of the one-server schema as statements for cluster `cluster`. `{db}`
 * stays a placeholder (schema.ts replaces it). Throws on a statement it does not know,
 * so a new kind of migration cannot silently skip the cluster.
 */
export function clusterStatements(sql: string, cluster: string): string[] {
  const on = `ON CLUSTER ${cluster}`;
  let m: RegExpExecArray | null;
  if ((m = /^CREATE DATABASE IF NOT EXISTS (\S+)$/.exec(sql))) return [`CREATE DATABASE IF NOT EXISTS ${m[1]} ${on}`];
  if ((m = /^CREATE TABLE IF NOT EXISTS (\{db\}|\w+)\.(\w+) \(/.exec(sql))) return createTable(sql, m[1]!, m[2]!, cluster);
  if ((m = /^ALTER TABLE (\{db\}|\w+)\.(\w+) ([\s\S]*)$/.exec(sql))) {
    const [, db, table, rest] = m as unknown as [string, string, string, string];
    if (!SHARDED.has(table)) return [`ALTER TABLE ${db}.${table} ${on} ${rest}`];
    // The Distributed table mirrors the columns (not the indexes) of its local tables.
    const alters = [`ALTER TABLE ${db}.${local(table)} ${on} ${rest}`];
    if (/^ADD COLUMN /.test(rest)) alters.push(`ALTER TABLE ${db}.${table} ${on} ${rest}`);
    return alters;
  }
  if ((m = /^DROP VIEW IF EXISTS (\S+)$/.exec(sql))) return [`DROP VIEW IF EXISTS ${m[1]} ${on}`];
  if ((m = /^CREATE MATERIALIZED VIEW IF NOT EXISTS (\S+) TO /.exec(sql))) {
    const body = sql.slice(`CREATE MATERIALIZED VIEW IF NOT EXISTS ${m[1]} `.length);
    return [`CREATE MATERIALIZED VIEW IF NOT EXISTS ${m[1]} ${on} ${toLocalTables(body)}`];
  }
  throw new Error(`no cluster form for ClickHouse statement: ${sql.slice(0, 80)}`);
}

function createTable(sql: string, db: string, table: string, cluster: string): string[] {
  const on = `ON CLUSTER ${cluster}`;
  const engine = engineOf(sql);
  const head = `CREATE TABLE IF NOT EXISTS ${db}.${table} (`;
  // Local to each node: Memory stages, and the cost rollup's key-value table (which a
  // cluster does not use: its rollup looks counted copies up in `cost_events`).
  if (engine.name === 'Memory' || engine.name === 'EmbeddedRocksDB') return [`CREATE TABLE IF NOT EXISTS ${db}.${table} ${on} (${sql.slice(head.length)}`];
  if (!engine.name.endsWith('MergeTree')) throw new Error(`no cluster form for engine ${engine.name} (table ${table})`);
  const sharded = SHARDED.has(table);
  const args = sharded ? engine.args : [WHOLE_CLUSTER_REPLICA, ...engine.args];
  const replicated = `ENGINE = Replicated${engine.name}${args.length > 0 ? `(${args.join(', ')})` : ''}`;
  const name = sharded ? local(table) : table;
  const create = `CREATE TABLE IF NOT EXISTS ${db}.${name} ${on} (${sql.slice(head.length, engine.start)}${replicated}${sql.slice(engine.end)}`;
  if (!sharded) return [create];
  return [create, `CREATE TABLE IF NOT EXISTS ${db}.${table} ${on} AS ${db}.${name} ENGINE = Distributed(${cluster}, ${db}, ${name}, ${SHARDING_KEY})`];
}

/** The `ENGINE = Name(args)` clause of a CREATE TABLE: its name, top-level arguments and span. */
function engineOf(sql: string): { name: string; args: string[]; start: number; end: number } {
  const m = /ENGINE = (\w+)/.exec(sql);
  if (!m) throw new Error(`no ENGINE clause in: ${sql.slice(0, 80)}`);
  let end = m.index + m[0].length;
  const args: string[] = [];
  if (sql[end] === '(') {
    let depth = 0;
    let arg = '';
    for (end += 1; ; end++) {
      const c = sql[end];
      if (c === undefined) throw new Error(`unbalanced ENGINE arguments in: ${sql.slice(0, 80)}`);
      if (depth === 0 && (c === ',' || c === ')')) {
        if (arg.trim()) args.push(arg.trim());
        arg = '';
        if (c === ')') break;
        continue;
      }
      if (c === '(') depth++;
      if (c === ')') depth--;
      arg += c;
    }
    end += 1;
  }
  return { name: m[1]!, args, start: m.index, end };
}

/** A view's references to sharded tables, as the shard's local tables. */
function toLocalTables(sql: string): string {
  return sql.replace(new RegExp(`\\{db\\}\\.(${SHARDED_TABLES.join('|')})\\b`, 'g'), (_, table: string) => `{db}.${local(table)}`);
}

/**
 * The table a mutation (`ALTER TABLE ... UPDATE/DELETE`) of `table` must name: with a
 * cluster, a sharded table's local tables on every node (ClickHouse refuses mutations of
 * a Distributed table); otherwise the table itself.
 */
export function mutationTarget(database: string, table: string, cluster: string | undefined): string {
  return cluster !== undefined && (SHARDED_TABLES as readonly string[]).includes(table) ? `${database}.${local(table)} ON CLUSTER ${cluster}` : `${database}.${table}`;
}
