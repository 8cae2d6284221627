import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readlinkSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestStack, waitFor } from '../harness.ts';
import { copyOfRepository, findingsInNamespace } from './namespace.ts';

/**
 * The README's first command on a fresh machine: a copy of the repository (its tracked
 * and new files, as a clean clone has them, with this checkout's node_modules) started
 * with `npm start` inside a network namespace where nothing listens on 5432 or 4222, so
 * Tally falls back to its embedded Postgres and a nats-server it starts itself. The run
 * (run.mjs) sends an event and reads it back, runs `tally init --json` beside it, and
 * stops it with SIGTERM.
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = mkdtempSync(path.join(os.tmpdir(), 'tally-fresh-'));
// As root, the embedded Postgres runs as the postgres user, which must reach the data directory.
chmodSync(work, 0o755);
afterAll(() => rmSync(work, { recursive: true, force: true }));

function copyOfRepositoryAt(dir = path.join(work, 'tally')): string {
  return copyOfRepository(repo, dir);
}

/** run.mjs in a network namespace where nothing listens: its findings. */
function freshRun(dir: string): Record<string, any> {
  return findingsInNamespace(path.join(dir, 'test/fresh-machine/run.mjs'), [dir], { timeoutMs: 240_000 });
}

/** What a newcomer sees: ready, keys last, an event metered, `tally init --json` beside it, every child stopped. */
function expectFirstRun(found: Record<string, any>): void {
  expect(found.ready, JSON.stringify(found)).toBe(true);
  expect(found.stdoutFirst).toMatch(/^Tally is running/);
  expect(found.keysLast).toBe(true);
  expect(found.postgresOnStdout).toBe(false);
  expect(found.initStatus, found.initStderr).toBe(0);
  expect(found.initJson, found.initStdout).toBe(true);
  expect(found.keys).toBe(true);
  expect(found.sendStatus).toBe(200);
  expect(found.batchAccepted).toBe(3);
  expect(found.console).toEqual({ page: 200, csp: true, script: 200, scriptBytes: true });
  expect(found.usage?.[0]?.actions).toBe('4');
  expect(found.exit).toEqual({ code: 0, signal: null });
  expect(found.leftovers).toEqual([]);
}

describe('a fresh machine (no Postgres, no NATS reachable)', () => {
  it('starts with `npm start`, meters an event, answers `tally init --json` beside it, and stops every child on SIGTERM', () => {
    const found = freshRun(copyOfRepositoryAt());
    expectFirstRun(found);
    // On the Node.js line the suite runs on (CI: 20 and 26), with the default server.
    expect(found.node).toBe(process.version);
    expect(found.httpServer).toBe("Node's HTTP stack");
    console.log(`fresh machine (Node.js ${found.node}, ${found.httpServer}): ready in ${found.startSeconds} s`);
  }, 300_000);

  // Root on a fresh VM or container: the clone in /root, mode 0700, which the postgres
  // user (the embedded server's) cannot enter.
  it.skipIf(process.getuid?.() !== 0)('as root with the clone in a 0700 home: the embedded Postgres cluster goes where the postgres user reaches it, said in the log', () => {
    const home = path.join(work, 'root-home');
    mkdirSync(home);
    chmodSync(home, 0o700);
    const dir = copyOfRepositoryAt(path.join(home, 'tally'));
    let cluster: string | undefined;
    try {
      const found = freshRun(dir);
      cluster = found.postgresCluster;
      expectFirstRun(found);
      // .data/postgres links to the cluster, owned by postgres, and the log says where it went.
      expect(cluster?.startsWith('/var/lib/tally/postgres-'), String(cluster)).toBe(true);
      expect(readlinkSync(path.join(dir, '.data/postgres'))).toBe(cluster);
      expect(statSync(cluster!).uid).toBe(Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout));
      expect(found.clusterLogged, found.stderrTail).toBe(true);
      console.log(`root in a 0700 home: ready in ${found.startSeconds} s, cluster in ${cluster}`);
    } finally {
      if (cluster?.startsWith('/var/lib/tally/')) rmSync(cluster, { recursive: true, force: true });
      spawnSync('rmdir', ['--ignore-fail-on-non-empty', '/var/lib/tally']);
    }
  }, 300_000);
});

describe('started from another directory', () => {
  it('runs every role, rating workers included, and rates an invoice preview', async () => {
    const stack = await startTestStack({ roles: ['api'] });
    try {
      const port = 18000 + Math.floor(Math.random() * 1000);
      const child = spawn(process.execPath, [path.join(repo, 'bin/tally.js'), 'start'], {
        cwd: os.tmpdir(),
        env: { ...process.env, ...stack.env, TALLY_HTTP_PORT: String(port), TALLY_RATING_THREADS: '2', TALLY_DATA_DIR: path.join(work, 'elsewhere') },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c) => (stderr += c));
      try {
        await waitFor(() => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0), (s) => s === 200 || child.exitCode !== null, 60_000);
        expect(child.exitCode, stderr.slice(-2000)).toBeNull();
        // A rate plan and a simulation: rated on the worker threads.
        const key = stack.keys.development.admin;
        const post = (p: string, body: unknown) =>
          fetch(`http://127.0.0.1:${port}${p}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
        const type = await post('/api/v1/agent_type/create', { name: 'T', description: 'x' });
        const product = await post('/api/v1/products', { name: 'P', agent_type_id: type.body.id });
        expect(product.status, JSON.stringify(product.body)).toBe(201);
        const plan = await post(`/api/v1/products/${product.body.id}/rateplans`, { name: 'Plan', billing_cycle_code: 'monthly', currency: 'USD' });
        const model = await post('/api/v1/charge_models', { name: 'Per action', description: 'x', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
        await post(`/api/v1/products/rateplans/${plan.body.id}/charges`, { name: 'Actions', charge_model_id: model.body.id, charge_type_code: 'usage', pricing: { unit_price: '0.5' } });
        const sim = await post('/v1/pricing/simulate', { rate_plan_id: plan.body.id, usage: { '@action': 10 } });
        expect(sim.status, JSON.stringify(sim.body)).toBe(200);
        expect(sim.body.total).toBe('5.00');
        // The console, built from the clone however the process was started.
        expect((await fetch(`http://127.0.0.1:${port}/console/app.js`)).status).toBe(200);
        expect(child.exitCode, stderr.slice(-2000)).toBeNull();
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      }
    } finally {
      await stack.cleanup();
    }
  }, 120_000);
});
