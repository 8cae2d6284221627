import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** The command line as a user runs it, from another directory; nothing here needs a service. */
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tally.js');
const tally = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [bin, ...args], { cwd: os.tmpdir(), env: { ...process.env, ...env }, encoding: 'utf8', timeout: 30_000 });

describe('tally (command line)', () => {
  it('lists every bad variable of every selected role, with what it accepts, before connecting to anything', () => {
    const r = tally(['start'], {
      TALLY_HTTP_PORT: 'abc',
      TALLY_RATE_LIMITS: 'maybe',
      TALLY_SINK_BATCH_MESSAGES: '-1',
      TALLY_INVOICE_NET_DAYS: 'x',
      TALLY_INGEST_ACK_TIMEOUT_MS: '5',
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('TALLY_HTTP_PORT="abc": must be an integer from 0 to 65535');
    expect(r.stderr).toContain('TALLY_RATE_LIMITS="maybe": must be one of on, off');
    expect(r.stderr).toContain('TALLY_SINK_BATCH_MESSAGES="-1": must be an integer from 1 to 10000');
    expect(r.stderr).toContain('TALLY_INVOICE_NET_DAYS="x": must be an integer from 0 to 365');
    expect(r.stderr).toContain('TALLY_INGEST_ACK_TIMEOUT_MS="5": must be an integer of at least 100');
    // Only the selected roles' variables are checked.
    const sinkOnly = tally(['start', '--roles', 'sink'], { TALLY_INVOICE_NET_DAYS: 'x', TALLY_SINK_BATCH_MESSAGES: '0' });
    expect(sinkOnly.status).toBe(2);
    expect(sinkOnly.stderr).toContain('TALLY_SINK_BATCH_MESSAGES');
    expect(sinkOnly.stderr).not.toContain('TALLY_INVOICE_NET_DAYS');
  });

  it('refuses trusted proxies that are not addresses or CIDR ranges, and a body budget under 1 MiB', () => {
    const proxies = tally(['start'], { TALLY_TRUSTED_PROXIES: '10.0.0.0/8, proxy.internal', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(proxies.status).toBe(2);
    expect(proxies.stderr).toContain('TALLY_TRUSTED_PROXIES="10.0.0.0/8, proxy.internal": "proxy.internal" is not an IP address or CIDR range');
    const budget = tally(['start'], { TALLY_MAX_INFLIGHT_BODY_BYTES: '1000', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect(budget.status).toBe(2);
    expect(budget.stderr).toContain('TALLY_MAX_INFLIGHT_BODY_BYTES="1000"');
  });

  it('parses arguments strictly: unknown roles and flags are named, --help works on every command', () => {
    const role = tally(['start', '--roles', 'ingest,biling']);
    expect(role.status).toBe(2);
    expect(role.stderr).toMatch(/unknown role biling; roles are ingest, sink, api, billing/);
    const flag = tally(['init', '--jsn']);
    expect(flag.status).toBe(2);
    expect(flag.stderr).toMatch(/--jsn/);
    const positional = tally(['start', 'api']);
    expect(positional.status).toBe(2);
    for (const cmd of [['--help'], ['init', '--help'], ['start', '--help'], ['start', '-h']]) {
      const h = tally(cmd);
      expect(h.status, cmd.join(' ')).toBe(0);
      expect(h.stdout).toMatch(/tally (init|start)/);
    }
    const unknown = tally(['stat']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown command stat/);
  });

  it("stops at once when another process holds the data directory's embedded chDB, saying what the default allows and what to use beyond it", async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-chdb-held-'));
    const chdbPath = path.join(dataDir, 'chdb');
    // Another process with the embedded chDB of that data directory open.
    const holder = spawn(process.execPath, ['--input-type=module', '-e', `const { createChdbConnection } = await import('chdb/connection'); createChdbConnection({ path: ${JSON.stringify(chdbPath)} }); console.log('open'); setInterval(() => {}, 1000);`], {
      cwd: path.dirname(bin),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        holder.stdout!.on('data', (c) => String(c).includes('open') && resolve());
        holder.once('exit', (code) => reject(new Error(`the chDB holder exited with ${code}`)));
      });
      const started = Date.now();
      // No Postgres at that address: the check comes before anything is connected.
      const r = tally(['start'], { TALLY_DATA_DIR: dataDir, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', TALLY_HTTP_PORT: '0', TALLY_OTLP_GRPC_PORT: '0' });
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toContain(`the embedded chDB data directory ${chdbPath} is in use by process ${holder.pid} (chDB allows one process per data directory)`);
      expect(r.stderr).toContain('CLICKHOUSE_URL');
      expect(Date.now() - started).toBeLessThan(15_000);
    } finally {
      holder.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
