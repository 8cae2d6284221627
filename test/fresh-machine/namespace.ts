import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';

/**
 * What the fresh-machine tests share: a copy of the repository as a clean clone has it,
 * and a script run in network (and optionally mount) namespaces whose last stdout line
 * is its findings as JSON.
 */

/** A copy of `repo` (tracked and new files, with its node_modules linked) at `dir`. */
export function copyOfRepository(repo: string, dir: string): string {
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .stdout.split('\0')
    .filter((f) => f && f !== 'node_modules'); // a worktree's node_modules may be an untracked link
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

/**
 * Runs `node script args…` in a new network namespace where only loopback is up (nothing
 * listens on 5432 or 4222), and with `privateShm` a private /dev/shm too; returns the
 * findings the script prints last.
 */
export function findingsInNamespace(script: string, args: string[], opts: { timeoutMs: number; privateShm?: boolean }): Record<string, any> {
  const shm = opts.privateShm ? ' && mount -t tmpfs -o size=512m tmpfs /dev/shm' : '';
  const command = `ip link set lo up${shm} && exec node ${[script, ...args].map((a) => JSON.stringify(a)).join(' ')}`;
  const res = spawnSync('unshare', [...(opts.privateShm ? ['-n', '-m'] : ['-n']), 'sh', '-c', command], {
    encoding: 'utf8',
    timeout: opts.timeoutMs,
    env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
  });
  expect(res.error, 'unshare -n (a network namespace) must be available: run the tests as root').toBeUndefined();
  try {
    return JSON.parse(res.stdout.trim().split('\n').at(-1) ?? '');
  } catch {
    throw new Error(`no findings (exit ${res.status}):\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-3000)}`);
  }
}
