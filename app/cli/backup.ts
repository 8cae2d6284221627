import { execFile } from 'node:child_process';
import { existsSync, lstatSync, mkdtempSync, readdirSync, realpathSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { chdbHolder } from '../../shared/clickhouse/client.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import type { Env } from '../../shared/config/parse.ts';
import { isAlive, readServerRecord } from '../../shared/server-record.ts';
import { logger } from '../../shared/log.ts';

const log = logger('cli');
const run = promisify(execFile);

export const BACKUP_USAGE = `  tally backup <file.tar[.gz]>              archive the data directory (TALLY_DATA_DIR) while Tally is stopped:
                                            chDB, the embedded Postgres, the spawned NATS store, credentials.json
  tally restore <file.tar[.gz]>             put an archive in place of the data directory (the current one is
                                            kept beside it, renamed); Tally stopped`;

/** A command line that cannot be run (exit code 2, with the usage). */
export class BackupUsageError extends Error {
  readonly usage = BACKUP_USAGE;
}

/** `tally backup <file>` and `tally restore <file>`. */
export async function runBackupCommand(cmd: 'backup' | 'restore', args: string[], env: Env): Promise<number> {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { help: { type: 'boolean', short: 'h' } } });
  if (values.help) {
    process.stdout.write(BACKUP_USAGE + '\n');
    return 0;
  }
  if (positionals.length !== 1) throw new BackupUsageError(`tally ${cmd} takes one archive file`);
  const dataDir = parseCommonConfig(env).dataDir;
  const file = path.resolve(positionals[0]!);
  if (cmd === 'backup') {
    await backup(dataDir, file);
    process.stdout.write(`Backed up ${dataDir} to ${file}\n`);
  } else {
    const aside = await restore(dataDir, file);
    process.stdout.write(`Restored ${dataDir} from ${file}${aside ? ` (the previous one is ${aside})` : ''}\n`);
  }
  return 0;
}

/**
 * Nothing runs on the data directory: no process holds its chDB, and neither server Tally
 * starts itself (its records, shared/server-record.ts) is alive. A copy taken meanwhile
 * could hold half-written files.
 */
export function assertStopped(dataDir: string): void {
  const holder = chdbHolder(path.join(dataDir, 'chdb'));
  if (holder !== undefined) throw new Error(`Tally runs on ${dataDir} (process ${holder} holds its chDB): stop it first`);
  for (const [name, file] of [
    ['the embedded Postgres', path.join(dataDir, 'postgres-server.json')],
    ['the nats-server', path.join(dataDir, 'nats', 'tally-nats-server.json')],
  ] as const) {
    const r = readServerRecord(file);
    if (r && isAlive(r.pid)) {
      throw new Error(`${name} of ${dataDir} runs (pid ${r.pid}): stop Tally first (a server a killed Tally left is stopped by the next start's SIGTERM)`);
    }
  }
}

/**
 * The data directory as one tar archive (gzip-compressed when the name ends in .gz or
 * .tgz), under the directory's own name. Links are kept as links (chDB's metadata uses
 * them), except the embedded Postgres cluster that, as root, lives outside the data
 * directory and is linked from `<dataDir>/postgres`: its files are archived in its place.
 */
export async function backup(dataDir: string, file: string): Promise<void> {
  if (!existsSync(dataDir)) throw new Error(`no data directory at ${dataDir} (TALLY_DATA_DIR)`);
  assertStopped(dataDir);
  const parent = path.dirname(dataDir);
  const name = path.basename(dataDir);
  const gz = /\.(t?gz)$/.test(file);
  const tar = gz ? `${file}.partial.tar` : file;
  const pg = path.join(dataDir, 'postgres');
  const linked = lstatSync(pg, { throwIfNoEntry: false })?.isSymbolicLink() ?? false;
  try {
    await run('tar', ['-cf', tar, '-C', parent, ...(linked ? [`--exclude=${name}/postgres`] : []), name]);
    if (linked) await run('tar', ['-rf', tar, '-C', realpathSync(pg), `--transform=s,^\\.,${name}/postgres,S`, '.']);
    if (gz) {
      await run('gzip', ['-f', tar]);
      renameSync(`${tar}.gz`, file);
    }
  } catch (err) {
    rmSync(tar, { force: true });
    throw err;
  }
  log.info('backed up the data directory', { dataDir, file, postgres_cluster: linked ? realpathSync(pg) : pg });
}

/**
 * Unpacks `file` (a {@link backup}) in place of the data directory: the current one, if
 * any, is renamed `<dataDir>.before-restore-<time>` and kept. Returns that name.
 */
export async function restore(dataDir: string, file: string): Promise<string | undefined> {
  if (!existsSync(file)) throw new Error(`no archive at ${file}`);
  if (existsSync(dataDir)) assertStopped(dataDir);
  const parent = path.dirname(dataDir);
  const scratch = mkdtempSync(path.join(parent, '.tally-restore-'));
  try {
    await run('tar', ['-xf', file, '-C', scratch]);
    const top = readdirSync(scratch);
    if (top.length !== 1) throw new Error(`${file} is not a Tally backup (one data directory at its top; found ${top.join(', ') || 'nothing'})`);
    let aside: string | undefined;
    if (existsSync(dataDir)) {
      aside = `${dataDir}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      renameSync(dataDir, aside);
    }
    renameSync(path.join(scratch, top[0]!), dataDir);
    log.info('restored the data directory', { dataDir, file, ...(aside ? { previous: aside } : {}) });
    return aside;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
