import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findingsInNamespace } from './namespace.ts';

/**
 * Crashes and stops as an operator meets them, with the one-process default on a machine
 * where nothing listens on 5432 or 4222 (a network namespace): `npm start` runs its own
 * nats-server and embedded Postgres; its node process is killed with SIGKILL under load
 * (the OOM killer); a second `npm start` on the same data directory; then SIGTERM to that
 * one's process group (a shell's Ctrl-C, `kill -- -PGID`) while events arrive
 * (crash.mjs), in a network and mount namespace of its own (/dev/shm private).
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(path.join(os.tmpdir(), 'tally-crash-'));
chmodSync(work, 0o755); // as root, the embedded Postgres runs as the postgres user
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('SIGKILL of the node process, a restart, then SIGTERM to the process group', () => {
  it('adopts the servers the dead process left, removes its insert files, loses and doubles nothing, and stops everything in order', () => {
    // A private /dev/shm (a mount namespace): the test runs of other checkouts on this machine
    // remove insert files of dead processes too, and would race the start under test.
    const found = findingsInNamespace(path.join(repo, 'test/fresh-machine/crash.mjs'), [repo, path.join(work, 'data')], { timeoutMs: 280_000, privateShm: true });
    const all = JSON.stringify(found, null, 1);
    expect(found.readyA, all).toBe(true);
    expect(found.insertDirsA, all).toBeGreaterThan(0);
    // SIGKILL of node alone leaves its servers running...
    expect(found.serversAfterKill.sort(), all).toEqual(['nats-server', 'postgres']);
    // ...which the next start adopts (one nats-server, not a second on the taken port), saying so.
    expect(found.readyB, all).toBe(true);
    expect(found.natsServers, all).toBe(1);
    expect(found.adoptedNats, all).toBe(true);
    expect(found.adoptedPostgres, all).toBe(true);
    // The dead process's insert files are removed, and said so.
    expect(found.insertDirsALeft, all).toEqual([]);
    expect(found.removedInsertFiles, all).toBe(true);
    // Every acknowledged event counted once; of those the kill left unanswered, none twice.
    expect(found.acked, all).toBeGreaterThan(0);
    expect(found.usage, all).toBeGreaterThanOrEqual(found.acked);
    expect(found.usage, all).toBeLessThanOrEqual(found.acked + found.unanswered);
    // Only true errors in the log: no warning but the adoptions.
    expect(found.wentBack, all).toBe(false);
    expect(found.logB.filter((l: string) => /"level":"(error|warn)"/.test(l) && !/"msg":"adopting /.test(l)), all).toEqual([]);
    // SIGTERM to the group: the orderly stop, every server stopped, no insert file left.
    expect(found.exitB, all).toEqual({ code: 0, signal: null });
    expect(found.stoppingLogged, all).toBe(true);
    expect(found.stoppedLogged, all).toBe(true);
    expect(found.insertDirsBLeft, all).toEqual([]);
    expect(found.leftovers, all).toEqual([]);
  }, 300_000);
});
