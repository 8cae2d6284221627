import { execFile, spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { call, createAgent, startTestStack, uniqueSuffix, type TestStack } from './harness.ts';

/**
 * Tenancy and credentials: an agent secret reads its own agent only; a second
 * organization is created through the command line and sees nothing of the first; an
 * address guessing credentials is slowed to 429s.
 */
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest', 'api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('an agent secret', () => {
  it("reads its own agent's usage, never another agent's", async () => {
    const a = await createAgent(stack);
    const b = await createAgent(stack);
    const sdk = stack.keys.development.sdk;
    for (const agent of [a, b]) expect((await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.id, action_type: 'x' } })).status).toBe(200);
    const q = 'start_date=2026-01-01&end_date=2030-01-01';
    const other = await call(stack, 'GET', `/v1/usage?${q}&agent_id=${b.id}`, { headers: { 'x-agent-secret': a.secret } });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('forbidden');
    const own = await call(stack, 'GET', `/v1/usage?${q}&agent_id=${a.id}`, { headers: { 'x-agent-secret': a.secret } });
    expect(own.status).toBe(200);
    const all = await call(stack, 'GET', `/v1/usage?${q}&group_by=agent`, { headers: { 'x-agent-secret': a.secret } });
    expect(all.status).toBe(200);
    expect(all.body.usage.every((r: { agent_id: string }) => r.agent_id === a.id)).toBe(true);
    // An API key of the environment still reads every agent.
    expect((await call(stack, 'GET', `/v1/usage?${q}&agent_id=${b.id}`, { key: stack.keys.development.admin })).status).toBe(200);
  });
});

describe('a second organization', () => {
  it('is created by `tally init --new-organization` and sees nothing of the first', async () => {
    const dataDir = path.join(os.tmpdir(), `tally-neworg-${uniqueSuffix()}`);
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(repo, 'bin/tally.js'), 'init', ...args], {
        cwd: os.tmpdir(),
        env: { ...process.env, DATABASE_URL: stack.env.DATABASE_URL, TALLY_DATA_DIR: dataDir, TALLY_LOG_LEVEL: 'warn' },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const res = run('--new-organization', '--name', 'Beta Corp', '--json');
    expect(res.status, res.stderr).toBe(0);
    const beta = JSON.parse(res.stdout) as { organization_id: string; environments: Record<string, { admin_api_key: string; sdk_key: string }> };
    expect(beta.organization_id).not.toBe(stack.init.organization_id);
    const betaAdmin = beta.environments.development!.admin_api_key;

    const alpha = await call(stack, 'POST', '/api/v1/account/create', { key: stack.keys.development.admin, body: { name: 'Alpha only' } });
    expect((await call(stack, 'GET', `/api/v1/account/${alpha.body.id}`, { key: betaAdmin })).status).toBe(404);
    const list = await call(stack, 'GET', '/api/v1/account/all', { key: betaAdmin });
    expect(list.status).toBe(200);
    expect(JSON.stringify(list.body)).not.toContain(alpha.body.id);
    const mine = await call(stack, 'POST', '/api/v1/account/create', { key: betaAdmin, body: { name: 'Beta only' } });
    expect(mine.status).toBe(201);
    expect((await call(stack, 'GET', `/api/v1/account/${mine.body.id}`, { key: stack.keys.development.admin })).status).toBe(404);

    // A plain `init` still reports the first organization; unknown flags are errors.
    const again = run('--json');
    expect(JSON.parse(again.stdout).organization_id).toBe(stack.init.organization_id);
    const bad = run('--new-organisation');
    expect(bad.status).not.toBe(0);
    expect(bad.stderr).toMatch(/new-organisation/);
  }, 120_000);
});

describe('a lost admin key', () => {
  it('is recoverable: `tally keys create` mints a working key for an environment (naming the organization when there are several)', async () => {
    // Run asynchronously: Tally serves from this process, and an event loop blocked for
    // seconds lets its idle keep-alive connections be closed under the next request (ECONNRESET).
    const run = (...args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        execFile(
          process.execPath,
          [path.join(repo, 'bin/tally.js'), 'keys', 'create', ...args],
          { cwd: os.tmpdir(), env: { ...process.env, DATABASE_URL: stack.env.DATABASE_URL, TALLY_LOG_LEVEL: 'warn' }, encoding: 'utf8', timeout: 60_000 },
          (err, stdout, stderr) => {
            if (err && typeof err.code !== 'number') reject(err);
            else resolve({ status: err ? (err.code as number) : 0, stdout, stderr });
          },
        );
      });
    // The previous test made a second organization: the first must be named.
    const ambiguous = await run('--environment', 'production', '--json');
    expect(ambiguous.status).toBe(1);
    expect(ambiguous.stderr).toMatch(/--organization/);
    const bad = await run('--environment', 'prod');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--environment must be one of development, staging, production/);
    const res = await run('--environment', 'production', '--organization', stack.init.organization_id, '--json');
    expect(res.status, res.stderr).toBe(0);
    const minted = JSON.parse(res.stdout) as { key: string; environment_id: string; permission: string };
    expect(minted).toMatchObject({ environment_id: stack.keys.production.id, permission: 'admin' });
    expect((await call(stack, 'GET', '/api/v1/account/all', { key: minted.key })).status).toBe(200);
  }, 120_000);
});

describe('failed authentications', () => {
  it('are limited per address: over the limit, its failures get 429 until the window ends, and a valid key still gets in', async () => {
    const api = await stack.startAnother(['api'], { env: { TALLY_HTTP_PORT: '0', TALLY_AUTH_FAILURES_PER_MINUTE: '5' } });
    const url = `http://127.0.0.1:${api.port}/api/v1/account/all`;
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await fetch(url, { headers: { authorization: `Bearer sk_test_guess${i}` } })).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    const blocked = await fetch(url, { headers: { authorization: `Bearer sk_test_guess_again` } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(((await blocked.json()) as { error: { code: string } }).error.code).toBe('rate_limited');
    // Only failures are limited: a client with a valid key behind the same address is served.
    expect((await fetch(url, { headers: { authorization: `Bearer ${stack.keys.development.admin}` } })).status).toBe(200);
  });
});
