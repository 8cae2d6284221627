import { accessSync, constants, mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
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
 * temporary directory; each file is removed once its insert is done. Settings as the
 * TSV path's (tsv-insert.ts): optimize_on_insert off.
 */
export function chdbRowBinaryInserter(ch: ClickHouseClient): RowBinaryInsert {
  let dir: string | undefined;
  let counter = 0;
  return async (table, columns, rows) => {
    dir ??= scratchDir('/dev/shm');
    let file = path.join(dir, `${process.pid}-${counter++}.rowbinary`);
    try {
      writeFileSync(file, rows);
    } catch (err) {
      // A small /dev/shm (containers get 64 MiB): the temporary directory from now on.
      if ((err as { code?: string }).code !== 'ENOSPC' || dir.startsWith(os.tmpdir())) throw err;
      rmSync(file, { force: true });
      dir = scratchDir(os.tmpdir());
      file = path.join(dir, `${process.pid}-${counter++}.rowbinary`);
      writeFileSync(file, rows);
    }
    try {
      const names = columns.map(([name]) => name).join(', ');
      const structure = structureOf(columns).replaceAll('\\', '\\\\').replaceAll("'", "\\'");
      await ch.command({ query: `INSERT INTO ${table} (${names}) SELECT * FROM file('${file}', 'RowBinary', '${structure}') SETTINGS optimize_on_insert = 0` });
    } finally {
      unlinkSync(file);
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
