import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { copyOfRepository, findingsInNamespace } from './namespace.ts';

/**
 * The README's backup and restore (one-process default), end to end, in a network
 * namespace where nothing listens on 5432 or 4222: `npm start` in a clone, events
 * metered, Tally stopped, its data directory archived; the archive unpacked in another
 * clone (another machine: nothing of the first is used) and started there (restore.mjs).
 * As root, both clones sit in 0700 homes, as on a fresh VM: the restored cluster is moved
 * where the postgres user reaches it.
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(path.join(os.tmpdir(), 'tally-restore-'));
chmodSync(work, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A copy of the repository (tracked and new files, this checkout's node_modules) in a 0700 home. */
function cloneIn(home: string): string {
  mkdirSync(home);
  chmodSync(home, 0o700);
  return copyOfRepository(repo, path.join(home, 'tally'));
}

describe('backup and restore (README)', () => {
  it('restores onto another machine: the same keys (`tally init --json`), every event counted once, new events counted', () => {
    const first = cloneIn(path.join(work, 'home-a'));
    const second = cloneIn(path.join(work, 'home-b'));
    const found = findingsInNamespace(path.join(repo, 'test/fresh-machine/restore.mjs'), [first, second, path.join(work, 'tally-backup.tgz')], { timeoutMs: 280_000 });
    try {
      const all = JSON.stringify(found, null, 1);
      expect(found.readyA, all).toBe(true);
      expect(found.keysA, all).toBe(true);
      expect(found.acceptedA, all).toBe(20);
      expect(found.usageA, all).toBe('20');
      expect(found.backupWhileRunning.status, all).toBe(1);
      expect(found.backupWhileRunning.stderr, all).toMatch(/Tally runs on .*: stop it first/);
      expect(found.exitA, all).toEqual({ code: 0, signal: null });
      expect(found.backup, all).toBe('ok');
      expect(found.restore, all).toBe('ok');
      expect(found.readyB, all).toBe(true);
      // The keys shown after the restore are the first machine's (credentials.json is in the backup).
      expect(found.sameAdminKey, all).toBe(true);
      expect(found.sameSdkKey, all).toBe(true);
      expect(found.adminWorks, all).toBe(200);
      // Every event once; a resent one (b-0) not again; a new one counted.
      expect(found.usageB, all).toBe('20');
      expect(found.acceptedB, all).toBe(2);
      expect(found.usageAfter, all).toBe('21');
      expect(found.logB.filter((l: string) => /"level":"error"|went back/.test(l)), all).toEqual([]);
      expect(found.exitB, all).toEqual({ code: 0, signal: null });
      expect(found.leftovers, all).toEqual([]);
      if (process.getuid?.() === 0) {
        // As root in a 0700 home: the restored cluster moved where the postgres user reaches it, and said so.
        expect(found.clusterB, all).toMatch(/^\/var\/lib\/tally\/postgres-/);
        expect(found.logB.some((l: string) => l.includes('its Postgres cluster is moved to')), all).toBe(true);
      }
    } finally {
      for (const c of [found.clusterA, found.clusterB]) if (typeof c === 'string' && c.startsWith('/var/lib/tally/')) rmSync(c, { recursive: true, force: true });
      spawnSync('rmdir', ['--ignore-fail-on-non-empty', '/var/lib/tally']);
    }
  }, 300_000);
});
