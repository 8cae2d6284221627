import { accessSync, closeSync, constants, ftruncateSync, mkdtempSync, openSync, readdirSync, rmSync, writeSync, writevSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { structureOf, type SinkColumn } from '../../shared/events/tables.ts';
import { logger } from '../../shared/log.ts';
import { isAlive } from '../../shared/server-record.ts';

const log = logger('sink');

/** Inserts a Native block of `columns` (its pieces, written one after another) into `table`. */
export type NativeInsert = (table: string, columns: readonly SinkColumn[], block: readonly Buffer[]) => Promise<void>;

/**
 * Native blocks into chDB. chDB's raw insert takes text formats only, so the block goes through a
 * file the engine reads (`INSERT ... SELECT * FROM file(path, Native, structure)`), in
 * a directory of its own under /dev/shm (memory) when there is one, else the system's
 * temporary directory. Files are kept and overwritten, one per insert in flight:
 * rewriting a file's pages in place costs a third of writing a new file (whose pages the
 * kernel must find and zero first). Settings as the TSV path's (tsv-insert.ts):
 * optimize_on_insert off. The directory is removed when the process exits; those of
 * processes that died (SIGKILL, the OOM killer) are removed by the next sink to start.
 */
export function chdbNativeInserter(ch: ClickHouseClient): NativeInsert {
  removeStaleInsertDirs();
  let dir: string | undefined;
  let counter = 0;
  const free: { file: string; fd: number }[] = [];
  const slot = () => {
    dir ??= scratchDir('/dev/shm');
    const file = path.join(dir, `${process.pid}-${counter++}.native`);
    return { file, fd: openSync(file, 'w') };
  };
  const write = (s: { file: string; fd: number }, block: readonly Buffer[]) => {
    const size = block.reduce((n, piece) => n + piece.length, 0);
    let at = writevSync(s.fd, block as Buffer[], 0);
    if (at < size) {
      // A short write (rare): the rest from one buffer.
      const all = Buffer.concat(block);
      while (at < size) at += writeSync(s.fd, all, at, size - at, at);
    }
    ftruncateSync(s.fd, size);
  };
  return async (table, columns, block) => {
    let s = free.pop() ?? slot();
    try {
      write(s, block);
    } catch (err) {
      // A small /dev/shm (containers get 64 MiB): the temporary directory from now on.
      closeSync(s.fd);
      rmSync(s.file, { force: true });
      if ((err as { code?: string }).code !== 'ENOSPC' || dir!.startsWith(os.tmpdir())) throw err;
      for (const f of free.splice(0)) closeSync(f.fd), rmSync(f.file, { force: true });
      dir = scratchDir(os.tmpdir());
      s = slot();
      write(s, block);
    }
    try {
      const names = columns.map(([name]) => name).join(', ');
      const structure = structureOf(columns).replaceAll('\\', '\\\\').replaceAll("'", "\\'");
      await ch.command({ query: `INSERT INTO ${table} (${names}) SELECT * FROM file('${s.file}', 'Native', '${structure}') SETTINGS optimize_on_insert = 0` });
    } finally {
      free.push(s);
    }
  };
}

/** A directory for the sink's files under `preferred` (else the temporary directory), removed when the process exits. */
function scratchDir(preferred: string): string {
  let base = os.tmpdir();
  try {
    accessSync(preferred, constants.W_OK);
    base = preferred;
  } catch {
    /* not there: the temporary directory */
  }
  const dir = mkdtempSync(path.join(base, `tally-sink-${process.pid}-`));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Removes the sink's insert-file directories (`tally-sink-*` under each of `bases`) of
 * processes that are gone, and logs them. Other Tally processes and tests run beside this
 * one: a directory is removed only when every process it names is dead.
 */
export function removeStaleInsertDirs(bases: readonly string[] = ['/dev/shm', os.tmpdir()], alive: (pid: number) => boolean = isAlive): string[] {
  const removed: string[] = [];
  for (const base of new Set(bases)) {
    for (const name of listDir(base).filter((n) => n.startsWith('tally-sink-'))) {
      const dir = path.join(base, name);
      const owners = insertDirOwners(name, listDir(dir));
      if (owners.length === 0 || owners.some(alive)) continue;
      rmSync(dir, { recursive: true, force: true });
      removed.push(dir);
    }
  }
  if (removed.length > 0) log.info('removed insert files of processes that ended without removing them', { dirs: removed });
  return removed;
}

/**
 * The processes a `tally-sink-*` directory belongs to: the one its name carries
 * (`tally-sink-<pid>-XXXXXX`), else those of its files (`<pid>-<n>.native`, directories
 * named by earlier versions); none when it tells none (such a directory is kept).
 */
export function insertDirOwners(name: string, files: readonly string[]): number[] {
  const named = /^tally-sink-(\d+)-/.exec(name);
  if (named) return [Number(named[1])];
  const fromFiles = files.map((f) => /^(\d+)-\d+\.native$/.exec(f)?.[1]);
  return fromFiles.every((p) => p !== undefined) ? [...new Set(fromFiles.map(Number))] : [];
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
