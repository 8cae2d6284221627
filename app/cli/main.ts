import { assertChdbFree } from '../../shared/clickhouse/client.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import { processEnv } from '../../shared/config/parse.ts';
import { createDb, ensureDatabase, migrate, resolveDatabaseUrl, type Db } from '../../shared/db/postgres.ts';
import { parseArgs } from 'node:util';
import { ENVIRONMENTS, initNewOrganization, initTally, mintApiKey, type InitResult } from '../../billing/catalog/bootstrap.ts';
import { parseRoleConfigs, ROLES, startTally, type Role, type TallyProcess } from '../start.ts';
import { logger, setLogLevel } from '../../shared/log.ts';
import { runSql, SQL_USAGE } from './sql.ts';
import { BACKUP_USAGE, runBackupCommand } from './backup.ts';

const log = logger('cli');

const INIT_USAGE = `  tally init [--json]                       create (or show) the organization, environments and first keys
  tally init --new-organization [--name N] [--json]
                                            create another organization (its own environments and keys)`;
const KEYS_USAGE = `  tally keys create --environment development|staging|production [--organization ID]
                  [--permission admin|read-write|read-only] [--name N] [--json]
                                            mint a new API key (a lost admin key is recoverable)`;
const START_USAGE = `  tally start [--roles ingest,sink,api,billing]
                                            run the named roles (all by default) in this process;
                                            initializes on first run and prints the keys last`;
const USAGE = `Usage:
${INIT_USAGE}
${KEYS_USAGE}
${START_USAGE}
${SQL_USAGE}
${BACKUP_USAGE}
Environment: TALLY_HTTP_PORT, TALLY_DATA_DIR, DATABASE_URL, NATS_URL, CLICKHOUSE_URL,
CLICKHOUSE_DATABASE, TALLY_NATS_PREFIX (see docs/configuration.md).`;

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  const env = processEnv();
  switch (cmd) {
    case 'init': {
      const { values } = parseArgs({
        args: rest,
        strict: true,
        allowPositionals: false,
        options: { json: { type: 'boolean' }, 'new-organization': { type: 'boolean' }, name: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
      });
      if (values.help) return help(INIT_USAGE);
      if (values.name !== undefined && !values['new-organization']) throw new UsageError('--name is given with --new-organization only', INIT_USAGE);
      const result = await runInit(env, values['new-organization'] ? { newOrganization: values.name ?? 'New organization' } : {});
      process.stdout.write(values.json ? JSON.stringify(publicInit(result), null, 2) + '\n' : describeInit(result));
      return 0;
    }
    case 'keys': {
      const { values, positionals } = parseArgs({
        args: rest,
        strict: true,
        allowPositionals: true,
        options: {
          environment: { type: 'string' },
          organization: { type: 'string' },
          permission: { type: 'string' },
          name: { type: 'string' },
          json: { type: 'boolean' },
          help: { type: 'boolean', short: 'h' },
        },
      });
      if (values.help) return help(KEYS_USAGE);
      if (positionals.join(' ') !== 'create') throw new UsageError(`unknown keys command ${positionals.join(' ') || '(none)'}`, KEYS_USAGE);
      const environment = oneOf(values.environment, ENVIRONMENTS, '--environment');
      const permission = oneOf(values.permission ?? 'admin', ['admin', 'read-write', 'read-only'] as const, '--permission');
      const minted = await withDb(env, (db) =>
        mintApiKey(db, { environment, permission, ...(values.organization ? { organizationId: values.organization } : {}), ...(values.name ? { name: values.name } : {}) }),
      );
      process.stdout.write(values.json ? JSON.stringify(minted, null, 2) + '\n' : `New ${minted.permission} API key for ${minted.environment} (${minted.environment_id}), id ${minted.id}:\n  ${minted.key}\nKeep it: it is stored only hashed.\n`);
      return 0;
    }
    case 'start': {
      const { values } = parseArgs({ args: rest, strict: true, allowPositionals: false, options: { roles: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
      if (values.help) return help(START_USAGE);
      const roles = parseRoles(values.roles);
      // Every role's configuration is checked before anything starts.
      const { common } = parseRoleConfigs(new Set(roles), env);
      // The embedded chDB (no CLICKHOUSE_URL) is one process's: a second one stops here, with what to do instead.
      if (!common.clickhouse.url && roles.some((r) => r !== 'ingest')) assertChdbFree(common.clickhouse.chdbPath);
      // Signals are handled from here on: one arriving while Tally starts stops it once started.
      const signals = stopOnSignals();
      const result = roles.some((r) => r === 'api' || r === 'ingest' || r === 'billing') ? await runInit(env) : undefined;
      const tally = await startTally({ roles, env });
      signals.running(tally);
      process.stdout.write(`Tally is running: roles ${roles.join(', ')} on http://localhost:${tally.port} (GET /readyz)\n`);
      // The keys stand last, once, when this start created them.
      if (result?.created) process.stdout.write(describeInit(result));
      return -1; // keep running
    }
    case 'sql':
      return runSql(rest, env);
    case 'backup':
    case 'restore':
      return runBackupCommand(cmd, rest, env);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return cmd === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command ${cmd}\n${USAGE}\n`);
      return 2;
  }
}

/**
 * SIGTERM, SIGINT and SIGHUP, from the start of `tally start` on: the first stops Tally in
 * order (every role, then the servers it started), at once when it runs, else as soon as
 * its start is done. Later ones are logged and ignored: npm forwards the SIGTERM its
 * process group got, and a second signal must not fall to the default action and cut the
 * stop short.
 */
function stopOnSignals(): { running(tally: TallyProcess): void } {
  let tally: TallyProcess | undefined;
  let signal: string | undefined;
  let stopping = false;
  const stop = async () => {
    if (stopping || !tally || !signal) return;
    stopping = true;
    log.info('stopping', { signal });
    try {
      await tally.stop();
    } catch (err) {
      log.error('error while stopping', { err });
      process.exit(1);
    }
    log.info('stopped');
    process.exit(0);
  };
  for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(s, () => {
      if (signal) return log.info('already stopping', { signal: s });
      signal = s;
      if (!tally) log.info('stopping once started', { signal: s });
      void stop();
    });
  }
  return {
    running(t) {
      tally = t;
      void stop();
    },
  };
}

function parseRoles(value: string | undefined): Role[] {
  if (value === undefined) return [...ROLES];
  const roles = value.split(',').map((r) => r.trim()).filter(Boolean);
  const unknown = roles.filter((r) => !(ROLES as readonly string[]).includes(r));
  if (roles.length === 0 || unknown.length > 0) {
    throw new UsageError(`unknown role${unknown.length === 1 ? '' : 's'} ${unknown.join(', ') || '(none given)'}; roles are ${ROLES.join(', ')}`, START_USAGE);
  }
  return roles as Role[];
}

/** A command line that cannot be run: its message and the command's usage, exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

function help(usage: string): number {
  process.stdout.write(usage + '\n');
  return 0;
}

async function runInit(env: ReturnType<typeof processEnv>, opts: { newOrganization?: string } = {}): Promise<InitResult> {
  const dataDir = parseCommonConfig(env).dataDir;
  return withDb(env, (db) =>
    opts.newOrganization !== undefined ? initNewOrganization(db, { dataDir, organizationName: opts.newOrganization }) : initTally(db, { dataDir }),
  );
}

/** Runs `fn` on the configured Postgres (migrated; the embedded one when that is what runs). */
async function withDb<T>(env: ReturnType<typeof processEnv>, fn: (db: Db) => Promise<T>): Promise<T> {
  const config = parseCommonConfig(env);
  setLogLevel(config.logLevel);
  const pg = await resolveDatabaseUrl(config.databaseUrl, config.dataDir);
  await ensureDatabase(pg.url);
  const db = createDb(pg.url, { max: 2 });
  try {
    await migrate(db as never);
    return await fn(db);
  } finally {
    await db.destroy();
    await pg.stop();
  }
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flag: string): T {
  if (value !== undefined && (allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(', ')}${value === undefined ? '' : ` (got ${value})`}`, KEYS_USAGE);
}

function publicInit(r: InitResult): Omit<InitResult, 'created'> {
  return { organization_id: r.organization_id, environments: r.environments };
}

function describeInit(r: InitResult): string {
  const lines = [r.created ? 'Created organization ' + r.organization_id : 'Organization ' + r.organization_id];
  for (const [name, e] of Object.entries(r.environments)) {
    lines.push(`  ${name} (${e.id})`);
    lines.push(`    admin API key: ${e.admin_api_key ?? '(shown when created; not on this machine)'}`);
    lines.push(`    SDK key:       ${e.sdk_key ?? '(shown when created; not on this machine)'}`);
  }
  if (r.created) lines.push('Keep these keys: they are stored only hashed (a copy is in the data directory, credentials*.json).');
  return lines.join('\n') + '\n';
}
