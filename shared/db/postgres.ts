import pg from 'pg';
import { canConnect, startEmbeddedPostgres } from './embedded-postgres.ts';
import { Kysely, Migrator, PostgresDialect, type MigrationProvider, type Migration } from 'kysely';
import type { Database } from './schema.ts';
import { migrations as coreMigrations } from './migrations/index.ts';
import { DEFAULT_DATABASE_URL } from '../config/common.ts';
import { logger } from '../log.ts';

const log = logger('postgres');

// Postgres `numeric` and `bigint` stay strings (money is never a float).
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => v);
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => v);

export type Db = Kysely<Database>;

/** Creates the database named in `url` if it does not exist (connecting to `postgres`). */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1)) || 'postgres';
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) {
      await client.query(`CREATE DATABASE "${name.replaceAll('"', '""')}"`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}

/** Drops a database (tests clean up after themselves). */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`DROP DATABASE IF EXISTS "${name.replaceAll('"', '""')}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

export function createDb(url: string, opts: { max?: number } = {}): Db {
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 10, idleTimeoutMillis: 30_000 });
  pool.on('error', (err) => {
    // Closing (stop): the pool's last clients may still be saying goodbye when Tally stops
    // the embedded server, which then terminates them (57P01): expected, not worth a warning.
    if (pool.ending && (err as { code?: string }).code === '57P01') return log.debug('Postgres client terminated while the pool closes', { err });
    log.warn('idle Postgres client error', { err });
  });
  // A client checked out of the pool (a transaction, a session lock) whose server goes
  // away emits 'error' with no pool listener attached: without this one, a Postgres
  // restart would crash the process. Its queries fail on their own; the pool drops it on release.
  pool.on('connect', (client) => client.on('error', (err) => log.debug('Postgres client error', { err })));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Runs every pending migration; safe when several processes start at once (kysely locks). */
export async function migrate(db: Kysely<unknown>, extra: Record<string, Migration> = {}): Promise<void> {
  const all = { ...coreMigrations, ...extra };
  const provider: MigrationProvider = { getMigrations: async () => all };
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  for (const r of results ?? []) {
    if (r.status === 'Error') log.error('migration failed', { migration: r.migrationName });
    else log.debug('migration applied', { migration: r.migrationName });
  }
  if (error) throw error;
}

/**
 * Resolves the Postgres URL: DATABASE_URL when set; else the default local server when
 * it answers; else an embedded Postgres (embedded-postgres.ts) under the
 * data directory. Returns the URL and a stop function for the embedded server.
 */
export async function resolveDatabaseUrl(
  configured: string | undefined,
  dataDir: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const noop = async () => {};
  if (configured) return { url: configured, stop: noop };
  if (await canConnect(DEFAULT_DATABASE_URL, 2000)) return { url: DEFAULT_DATABASE_URL, stop: noop };
  log.info('no Postgres at the default address; starting embedded Postgres', { dataDir });
  return startEmbeddedPostgres(dataDir);
}


/** Parameters Postgres takes in one statement (its wire protocol counts them in 16 bits). */
export const MAX_STATEMENT_PARAMETERS = 65_535;

/**
 * `rows` in slices of at most `perStatement` rows, so that a multi-row INSERT of
 * `columns` parameters a row stays under {@link MAX_STATEMENT_PARAMETERS} (a bill run of
 * 100,000 invoices records 300,000 values).
 */
export function insertSlices<T>(rows: readonly T[], columns: number, perStatement = Math.floor(MAX_STATEMENT_PARAMETERS / columns)): T[][] {
  if (!(columns >= 1 && perStatement >= 1)) throw new RangeError(`insertSlices: ${columns} columns, ${perStatement} rows a statement`);
  const n = Math.min(perStatement, Math.floor(MAX_STATEMENT_PARAMETERS / columns));
  const out: T[][] = [];
  for (let i = 0; i < rows.length; i += n) out.push(rows.slice(i, i + n));
  return out;
}
