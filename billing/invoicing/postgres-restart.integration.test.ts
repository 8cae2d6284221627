/**
 * Fault test: Postgres crashes (immediate shutdown) in the middle of a bill run and comes
 * back. The machine's Postgres is shared with other test files, so this file runs its own
 * private Postgres (initdb + pg_ctl as the `postgres` OS user) on a random port.
 *
 * The run is caught mid-way deterministically: a separate session holds row locks on the
 * last subscriptions, so the run's workers stop inside their storing transactions after
 * the first invoices committed; Postgres is then killed under them.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { call, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { reachable } from '../../shared/nats/connection.ts';
import { newId } from '../../shared/ids.ts';

function findPgBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const bin = path.join(root, v, 'bin');
    if (existsSync(path.join(bin, 'initdb')) && existsSync(path.join(bin, 'pg_ctl'))) return bin;
  }
  return undefined;
}

/** A throwaway Postgres cluster, run as the `postgres` OS user when we are root. */
class PrivatePostgres {
  readonly dir = mkdtempSync(path.join(os.tmpdir(), 'tally-pg-'));
  readonly data = path.join(this.dir, 'data');
  port = 0;
  constructor(readonly bin: string) {}

  #run(tool: string, args: string[]) {
    const asRoot = process.getuid?.() === 0;
    const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path.join(this.bin, tool), ...args]] : [path.join(this.bin, tool), args];
    return execFileSync(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'], timeout: 60_000 }).toString();
  }

  async init() {
    if (process.getuid?.() === 0) {
      const uid = Number(execFileSync('id', ['-u', 'postgres']).toString());
      const gid = Number(execFileSync('id', ['-g', 'postgres']).toString());
      chownSync(this.dir, uid, gid);
    }
    this.#run('initdb', ['-D', this.data, '--auth=trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
    await this.#pickPort();
  }

  /**
   * A port nothing listens on, below the kernel's ephemeral range (32768 and up here), so
   * no outgoing connection of another test can hold it as its local port meanwhile.
   */
  async #pickPort() {
    this.port = 0;
    for (let i = 0; i < 20 && !this.port; i++) {
      const p = 20_000 + Math.floor(Math.random() * 12_000);
      if (!(await reachable('127.0.0.1', p))) this.port = p;
    }
  }

  /** Starts the cluster; the first start moves to another port when its port was taken meanwhile. */
  async start(first = false) {
    // fsync off: an immediate shutdown kills the server processes, not the OS, so every
    // committed transaction's WAL is still written (in the page cache) and recovered.
    for (let attempt = 1; ; attempt++) {
      const opts = `-p ${this.port} -k ${this.dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60`;
      try {
        this.#run('pg_ctl', ['-D', this.data, '-o', opts, '-l', path.join(this.dir, 'log'), '-w', '-t', '60', 'start']);
        return;
      } catch (err) {
        const log = readFileSync(path.join(this.dir, 'log'), 'utf8');
        if (!first || attempt >= 5 || !/could not bind|Address already in use/.test(log)) throw new Error(`${(err as Error).message}\n${log.slice(-2000)}`);
        await this.#pickPort();
      }
    }
  }

  /** Immediate shutdown: no checkpoint, every backend killed; like a crash, recovered from WAL at the next start. */
  crash() {
    this.#run('pg_ctl', ['-D', this.data, '-m', 'immediate', '-w', 'stop']);
  }

  stop() {
    try {
      this.#run('pg_ctl', ['-D', this.data, '-m', 'fast', '-w', 'stop']);
    } catch {
      /* not running */
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  url(db: string) {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}`;
  }
}

const PG_BIN = findPgBin();
const SUBSCRIPTIONS = 40;
const LOCKED = 25; // the last 25 (in bill run order) are held back when Postgres dies

let server: PrivatePostgres | undefined;
let stack: TestStack | undefined;
afterAll(async () => {
  await stack?.cleanup().catch(() => {});
  server?.stop();
});

if (!PG_BIN) console.warn('postgres-restart test skipped: no Postgres binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin');

describe.skipIf(!PG_BIN)('Postgres restarted during a bill run', () => {
  it('leaves no duplicate and no missing invoice', async () => {
    server = new PrivatePostgres(PG_BIN!);
    await server.init();
    await server.start(true);
    const dbUrl = server.url(`tally_x${Date.now().toString(36)}`);
    stack = await startTestStack({ roles: ['api'], env: { DATABASE_URL: dbUrl, TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000' } });
    const s = stack;
    const admin = s.keys.development.admin;
    const post = (p: string, body: unknown) => call(s, 'POST', p, { key: admin, body });
    const db = s.tally.db!;

    // A flat 100 USD a month plan; half the subscriptions active all October (100.00), half
    // from October 16th (16 of 31 days: 51.61).
    const typeId = (await post('/api/v1/agent_type/create', { name: 'worker' })).body.id;
    const productId = (await post('/api/v1/products', { name: 'Worker', agent_type_id: typeId })).body.id;
    const planId = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'flat', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
    const flat = (await post('/api/v1/charge_models', { name: 'Fee', description: 'Fee', type: 'flat', pricing_strategy: {} })).body.id;
    expect((await post(`/api/v1/products/rateplans/${planId}/charges`, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 100 } })).status).toBe(201);
    const accounts: string[] = [];
    for (let a = 0; a < 4; a++) accounts.push((await post('/v1/accounts', { name: `Account ${a}` })).body.id);
    const expected = new Map<string, string>();
    for (let i = 0; i < SUBSCRIPTIONS; i++) {
      const res = await post('/v1/subscriptions', { account_id: accounts[i % 4], rate_plan_id: planId });
      expect(res.status).toBe(201);
      const activeFrom = new Date(i % 2 === 0 ? '2026-09-01T00:00:00Z' : '2026-10-16T00:00:00Z');
      await db.updateTable('subscription_events').set({ effective_at: activeFrom }).where('subscription_id', '=', res.body.id).execute();
      await db.updateTable('subscriptions').set({ contract_effective_date: activeFrom }).where('id', '=', res.body.id).execute();
      expected.set(res.body.id, i % 2 === 0 ? '100.00' : '51.61');
    }
    // The bill run's order (created_at, id): hold back its last LOCKED subscriptions.
    const order = (await db.selectFrom('subscriptions').select('id').where('environment_id', '=', s.keys.development.id).orderBy('created_at').orderBy('id').execute()).map((r) => r.id);
    expect(order).toHaveLength(SUBSCRIPTIONS);
    const locker = new pg.Client({ connectionString: dbUrl });
    locker.on('error', () => {}); // it dies with the server
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('SELECT id FROM subscriptions WHERE id = ANY($1) FOR UPDATE', [order.slice(-LOCKED)]);

    const first = post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-21' });
    const invoiceCount = async () => Number((await locker.query('SELECT count(*) AS n FROM invoices')).rows[0].n);
    const waiting = async () => Number((await locker.query("SELECT count(*) AS n FROM pg_locks WHERE NOT granted AND locktype = 'transactionid'")).rows[0].n);
    // Every unlocked subscription invoiced, and the run's workers blocked inside their storing transactions.
    await waitFor(async () => ({ n: await invoiceCount(), w: await waiting() }), ({ n, w }) => n === SUBSCRIPTIONS - LOCKED && w > 0, 30_000);

    server.crash();
    await new Promise((r) => setTimeout(r, 1_500));
    await server.start();

    const r1 = await first;
    // The run stops at the outage, is recorded as failed once Postgres is back, and the
    // answer is a retryable 503 with the standard error body (never a 500).
    expect(r1.status, JSON.stringify(r1.body)).toBe(503);
    expect(r1.headers.get('retry-after')).toBeTruthy();
    expect(r1.body.error).toMatchObject({ code: 'service_unavailable', request_id: expect.any(String) });
    expect((await call(s, 'GET', '/readyz')).status).toBe(200); // the process survived the outage

    // A process that died mid-run leaves a 'running' row behind: simulated here.
    const orphan = newId('br');
    await db.insertInto('bill_runs').values({ id: orphan, environment_id: s.keys.development.id, billing_date: new Date('2026-11-21'), status: 'running' }).execute();

    const second = await waitFor(() => post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-21' }), (r) => r.status !== 503, 30_000);
    expect(second.status, JSON.stringify(second.body)).toBe(201);
    expect(second.body).toMatchObject({ status: 'completed', failures: [], invoice_count: SUBSCRIPTIONS });
    expect(second.body.invoices_created).toBe(LOCKED);
    expect(second.body.invoices_existing).toBe(SUBSCRIPTIONS - LOCKED);

    // Exactly one invoice per (subscription, period), none missing, each with its total.
    const { rows } = await sql<{ subscription_id: string; n: string; total: string }>`
      SELECT subscription_id, count(*)::text AS n, max(total)::text AS total FROM invoices
      WHERE period_start = '2026-10-01T00:00:00Z' GROUP BY subscription_id`.execute(db);
    expect(rows.filter((r) => r.n !== '1')).toEqual([]);
    expect(Object.fromEntries(rows.map((r) => [r.subscription_id, Number(r.total).toFixed(2)]))).toEqual(Object.fromEntries(expected));
    const all = await sql<{ n: string }>`SELECT count(*)::text AS n FROM invoices`.execute(db);
    expect(all.rows[0]!.n).toBe(String(SUBSCRIPTIONS));
    expect(second.body.totals).toEqual({ USD: '3032.20' }); // 20 x 100.00 + 20 x 51.61, in minor units
    const lines = await sql<{ n: string }>`SELECT count(*)::text AS n FROM invoice_lines`.execute(db);
    expect(lines.rows[0]!.n).toBe(String(SUBSCRIPTIONS));

    // No bill run is left 'running': the interrupted one and the orphan are failed.
    const runs = await db.selectFrom('bill_runs').select(['id', 'status']).orderBy('created_at').execute();
    expect(runs.filter((r) => r.status === 'running')).toEqual([]);
    expect(runs.find((r) => r.id === orphan)?.status).toBe('failed');
    expect(runs[0]).toMatchObject({ status: 'failed' });
    const interrupted = await call(s, 'GET', `/api/v1/invoice/bill-runs/${runs[0]!.id}`, { key: admin });
    expect(interrupted.body).toMatchObject({ status: 'failed', invoices_created: SUBSCRIPTIONS - LOCKED });
    expect(interrupted.body.invoice_ids).toHaveLength(SUBSCRIPTIONS - LOCKED);
    expect(runs.at(-1)).toMatchObject({ id: second.body.id, status: 'completed' });
    await stack.cleanup();
    stack = undefined;
  }, 60_000);
});
