import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestStack, waitFor } from '../harness.ts';

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

function copyOfRepository(): string {
  const dir = path.join(work, 'tally');
  const files = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' }).stdout.split('\0').filter(Boolean);
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

describe('a fresh machine (no Postgres, no NATS reachable)', () => {
  it('starts with `npm start`, meters an event, answers `tally init --json` beside it, and stops every child on SIGTERM', () => {
    const dir = copyOfRepository();
    const res = spawnSync('unshare', ['-n', 'sh', '-c', `ip link set lo up && exec node ${JSON.stringify(path.join(dir, 'test/fresh-machine/run.mjs'))} ${JSON.stringify(dir)}`], {
      encoding: 'utf8',
      timeout: 240_000,
      env: { ...process.env, PATH: `${process.env.PATH}:/usr/sbin:/sbin` },
    });
    expect(res.error, 'unshare -n (a network namespace) must be available: run the tests as root').toBeUndefined();
    const line = res.stdout.trim().split('\n').at(-1) ?? '';
    let found: Record<string, any>;
    try {
      found = JSON.parse(line);
    } catch {
      throw new Error(`no findings (exit ${res.status}):\n${res.stdout.slice(-2000)}\n${res.stderr.slice(-3000)}`);
    }
    expect(found.ready, JSON.stringify(found)).toBe(true);
    expect(found.stdoutFirst).toMatch(/^Tally is running/);
    expect(found.keysLast).toBe(true);
    expect(found.postgresOnStdout).toBe(false);
    expect(found.initStatus, found.initStderr).toBe(0);
    expect(found.initJson, found.initStdout).toBe(true);
    expect(found.keys).toBe(true);
    expect(found.sendStatus).toBe(200);
    expect(found.batchAccepted).toBe(3);
    expect(found.usage?.[0]?.actions).toBe('4');
    // On the Node.js line the suite runs on (CI: 20 and 26), with the default server.
    expect(found.node).toBe(process.version);
    expect(found.httpServer).toBe("Node's HTTP stack");
    expect(found.exit).toEqual({ code: 0, signal: null });
    expect(found.leftovers).toEqual([]);
    console.log(`fresh machine (Node.js ${found.node}, ${found.httpServer}): ready in ${found.startSeconds} s`);
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
