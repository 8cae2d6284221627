import { readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * vitest globalSetup: the integration tests need the real Postgres and NATS (JetStream).
 * When either does not answer, the run stops here with one line that says what is
 * missing and how to start it, instead of every integration file failing with
 * ECONNREFUSED. `npm run test:unit` (TALLY_TEST_SERVICES=none) runs the pure tests only
 * and skips this check.
 */
export default async function checkServices(): Promise<() => Promise<void>> {
  if (process.env.TALLY_TEST_SERVICES === 'none') return removeLeftovers;
  const pg = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const nats = new URL(process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
  const missing: string[] = [];
  if (!(await answers(pg.hostname, Number(pg.port || 5432)))) missing.push(`Postgres at ${pg.hostname}:${pg.port || 5432}`);
  if (!(await answers(nats.hostname, Number(nats.port || 4222)))) missing.push(`NATS at ${nats.hostname}:${nats.port || 4222}`);
  if (missing.length === 0) return removeLeftovers;
  const line =
    `The integration tests need Postgres (user postgres, trust auth) and NATS with JetStream; not answering: ${missing.join(', ')}. ` +
    'Start them (Debian: `pg_ctlcluster 15 main start`; `nats-server -js -a 127.0.0.1 -p 4222 -sd /tmp/nats &`, package nats-server), ' +
    'or set DATABASE_URL / NATS_URL, or run only the pure tests with `npm run test:unit`.';
  process.stderr.write(line + '\n');
  throw new Error(line);
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 2000 });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });
}

/**
 * After the run: what test processes leave behind when vitest ends them (their exit
 * handlers do not run): each process's chDB data directory (`tally-test-<pid>`, its
 * databases already dropped) and the sink's insert files (`tally-sink-*` under /dev/shm or
 * the temporary directory, files named `<pid>-<n>.native`). Only those of processes that
 * are gone (the test processes are given 5 s to end): a run beside this one keeps its own.
 */
async function removeLeftovers(): Promise<void> {
  const deadline = Date.now() + 5000;
  const running = () => leftovers().some((l) => l.pids.some((pid) => Number.isInteger(pid) && !gone(pid)));
  while (Date.now() < deadline && running()) await new Promise((r) => setTimeout(r, 100));
  for (const l of leftovers()) if (l.pids.every(gone)) rmSync(l.dir, { recursive: true, force: true });
}

/** Whether process `pid` has ended. */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** The directories test processes leave, each with the processes that wrote in it. */
function leftovers(): { dir: string; pids: number[] }[] {
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  const out: { dir: string; pids: number[] }[] = [];
  for (const name of list(os.tmpdir())) {
    const m = /^tally-test-(\d+)$/.exec(name);
    if (m) out.push({ dir: path.join(os.tmpdir(), name), pids: [Number(m[1])] });
  }
  for (const base of ['/dev/shm', os.tmpdir()]) {
    for (const name of list(base).filter((n) => n.startsWith('tally-sink-'))) {
      const dir = path.join(base, name);
      // A file not named by a process id is kept (NaN is never gone).
      out.push({ dir, pids: list(dir).map((f) => Number(/^(\d+)-/.exec(f)?.[1])) });
    }
  }
  return out;
}
