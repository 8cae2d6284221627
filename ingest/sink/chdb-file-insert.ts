import { accessSync, closeSync, constants, ftruncateSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { structureOf } from './rows.ts';

/** Inserts RowBinary rows of `columns` (name and type, in row order) into `table`. */
export type RowBinaryInsert = (table: string, columns: readonly (readonly [string, string])[], rows: Buffer) => Promise<void>;

/**
 * RowBinary into chDB. chDB's raw insert takes text formats only, so the rows go through a
 * file the engine reads (`INSERT ... SELECT * FROM file(path, RowBinary, structure)`), in
 * a directory of its own under /dev/shm (memory) when there is one, else the system's
 * temporary directory. Files are kept and overwritten, one per insert in flight:
 * rewriting a file's pages in place costs a third of writing a new file (whose pages the
 * kernel must find and zero first). Settings as the TSV path's (tsv-insert.ts):
 * optimize_on_insert off.
 */
export function chdbRowBinaryInserter(ch: ClickHouseClient): RowBinaryInsert {
  let dir: string | undefined;
  let counter = 0;
  const free: { file: string; fd: number }[] = [];
  const slot = () => {
    dir ??= scratchDir('/dev/shm');
    const file = path.join(dir, `${process.pid}-${counter++}.rowbinary`);
    return { file, fd: openSync(file, 'w') };
  };
  const write = (s: { file: string; fd: number }, rows: Buffer) => {
    for (let at = 0; at < rows.length; ) at += writeSync(s.fd, rows, at, rows.length - at, at);
    ftruncateSync(s.fd, rows.length);
  };
  return async (table, columns, rows) => {
    let s = free.pop() ?? slot();
    try {
      write(s, rows);
    } catch (err) {
      // A small /dev/shm (containers get 64 MiB): the temporary directory from now on.
      closeSync(s.fd);
      rmSync(s.file, { force: true });
      if ((err as { code?: string }).code !== 'ENOSPC' || dir!.startsWith(os.tmpdir())) throw err;
      for (const f of free.splice(0)) closeSync(f.fd), rmSync(f.file, { force: true });
      dir = scratchDir(os.tmpdir());
      s = slot();
      write(s, rows);
    }
    try {
      const names = columns.map(([name]) => name).join(', ');
      const structure = structureOf(columns).replaceAll('\\', '\\\\').replaceAll("'", "\\'");
      await ch.command({ query: `INSERT INTO ${table} (${names}) SELECT * FROM file('${s.file}', 'RowBinary', '${structure}') SETTINGS optimize_on_insert = 0` });
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
  const dir = mkdtempSync(path.join(base, 'tally-sink-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
