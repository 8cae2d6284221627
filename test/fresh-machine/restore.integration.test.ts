import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

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
  const dir = path.join(home, 'tally');
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .stdout.split('\0')
    .filter((f) => f && f !== 'node_modules');
  for (const f of files) {
    mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    try {
      cpSync(path.join(repo, f), path.join(dir, f));
    } catch {
      /* listed but deleted in the working tree */
    }
  }
  symlinkSync(path.join(repo, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

describe('backup and restore (README)', () => {
  it('restores onto another machine: the same keys (`tally init --json`), every event counted once, new events counted', () => {
    const first = cloneIn(path.join(work, 'home-a'));
    const second = cloneIn(path.join(work, 'home-b'));
    const res = spawnSync('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec node ${JSON.stringify(path.join(repo, 'test/fresh-machine/restore.mjs'))} ${[first, second, path.join(work, 'tally-backup.tgz')].map((a) => JSON.stringify(a)).join(' ')}`], {
      encoding: 'utf8',
      timeout: 280_000,
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    });
    expect(res.error, 'unshare -n (a network namespace) must be available: run the tests as root').toBeUndefined();
    let found: Record<string, any>;
    try {
      found = JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '');
    } catch {
      throw new Error(`no findings (exit ${res.status}):\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-3000)}`);
    }
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
