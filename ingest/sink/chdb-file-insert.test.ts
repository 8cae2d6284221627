import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insertDirOwners, removeStaleInsertDirs } from './chdb-file-insert.ts';

const base = mkdtempSync(path.join(os.tmpdir(), 'tally-insert-dirs-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describe("the sink's insert files of processes that are gone", () => {
  it('are removed at start; those of running processes, or naming none, are kept', () => {
    const dead = spawnSync('true').pid!; // ended and reaped
    const live = process.pid;
    const dir = (name: string, files: string[]) => {
      mkdirSync(path.join(base, name));
      for (const f of files) writeFileSync(path.join(base, name, f), 'x');
    };
    dir(`tally-sink-${dead}-aB3dEf`, [`${dead}-0.native`, `${dead}-1.native`]);
    dir(`tally-sink-${live}-GhIjKl`, [`${live}-0.native`]);
    dir('tally-sink-OldOne', [`${dead}-0.native`]); // named by an earlier version: its files tell the process
    dir('tally-sink-Shared', [`${live}-0.native`, `${dead}-3.native`]);
    dir('tally-sink-Empty', []);
    dir('unrelated', [`${dead}-0.native`]);

    const removed = removeStaleInsertDirs([base]);

    expect(removed.map((d) => path.basename(d)).sort()).toEqual([`tally-sink-${dead}-aB3dEf`, 'tally-sink-OldOne']);
    expect(readdirSync(base).sort()).toEqual([`tally-sink-${live}-GhIjKl`, 'tally-sink-Empty', 'tally-sink-Shared', 'unrelated']);
  });

  it('name their owners by directory, else by files', () => {
    expect(insertDirOwners('tally-sink-123-abcdef', [])).toEqual([123]);
    expect(insertDirOwners('tally-sink-abcdef', ['7-0.native', '7-1.native', '9-0.native'])).toEqual([7, 9]);
    expect(insertDirOwners('tally-sink-abcdef', ['7-0.native', 'notes.txt'])).toEqual([]);
    expect(insertDirOwners('tally-sink-abcdef', [])).toEqual([]);
  });
});
