/**
 * Credits under kill -9 (issue 31, "nothing lost, nothing twice"): a real billing process
 * (`tally start --roles api,billing`, its scheduler ticking every 100 ms, no grace, so it
 * generates and finalizes invoices that apply credits) is killed with SIGKILL at random
 * points while it works and while on-demand generates, bill runs and finalizes race it
 * from both processes (the child's API and this test's own), then restarted, round after
 * round, with new accounts added each round; every other kill waits until the process is
 * seen inside a Postgres transaction (its sessions are named by PGAPPNAME), so it lands
 * mid-write. After every round and at the end:
 *
 * - each grant's balance (the sum of its ledger entries) is never negative;
 * - an issued invoice's burns equal its credit applications and its `credits_applied`
 *   lines, grant by grant, and sum to its `credits_applied`; a draft has no burn;
 * - every invoice's amount_due = total - credits_applied - payment_applied >= 0;
 * - an issued invoice's burns never change once seen (a finalized burn is permanent);
 * - at the end, with every period invoiced, each account burned exactly
 *   min(credit granted, total billed): nothing lost, nothing burned twice.
 *
 * The child has its own data directory (chDB: one process per directory); the plans bill
 * recurring fees only, so no usage is needed.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { call, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { rng } from '../../test/lifecycle-model.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 6);
const SEED = Number(process.env.CRASH_SEED ?? Date.now() % 1_000_000);
const ACCOUNTS_A_ROUND = 4;
const MONTHS = 5;

let stack: TestStack;
let admin: string;
let child: ChildProcess | undefined;
let childUrl = '';
let childLog: string[] = [];
const childDir = mkdtempSync(path.join(os.tmpdir(), 'tally-crash-billing-'));
const next = rng(SEED);
/** The billing process's Postgres sessions carry this name (node-postgres reads PGAPPNAME), so the test sees its open transactions. */
const CHILD_APP = `tally-crash-billing-${process.pid}`;

/** Whether the billing process has a transaction open (mid-write) right now. */
async function childInTransaction(): Promise<boolean> {
  const r = await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity where application_name = ${CHILD_APP} and xact_start is not null`.execute(stack.tally.db!);
  return Number(r.rows[0]!.n) > 0;
}

/** A port free now (the system's choice), for the process started next. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function startBilling(): Promise<void> {
  const port = await freePort();
  childUrl = `http://127.0.0.1:${port}`;
  const started = spawn(process.execPath, [path.join(repo, 'bin/tally.js'), 'start', '--roles', 'api,billing'], {
    cwd: repo,
    env: { ...process.env, ...stack.env, TALLY_HTTP_PORT: String(port), TALLY_DATA_DIR: childDir, TALLY_BILLING_SCHEDULER_INTERVAL_MS: '100', TALLY_INVOICE_GRACE_HOURS: '0', TALLY_LOG_LEVEL: 'warn', PGAPPNAME: CHILD_APP },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  started.stderr!.on('data', (d) => childLog.push(String(d)));
  child = started;
  await waitFor(() => fetch(`${childUrl}/readyz`).then((r) => r.status, () => 0), (s) => s === 200 || started.exitCode !== null, 60_000);
  expect(started.exitCode, `the billing process exited while starting: ${childLog.join('')}`).toBeNull();
}

async function killBilling(): Promise<void> {
  const c = child;
  if (!c || c.exitCode !== null || c.signalCode !== null) return;
  const exited = new Promise((r) => c.once('exit', r));
  c.kill('SIGKILL');
  await exited;
}

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: admin, ...(body !== undefined ? { body } : {}) });
/** The same request to the child's API (it may die under it: any answer or none). */
const postChild = (p: string, body?: unknown) =>
  fetch(`${childUrl}${p}`, { method: 'POST', headers: { 'api-key': admin, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }).then(
    (r) => r.status,
    () => 0,
  );

let planFee: string;
let planTwo: string;
const accounts: { id: string; subs: string[]; granted: bigint }[] = [];
/** The first month billed: MONTHS whole months before the current one. */
const now = new Date();
const from = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - MONTHS, 1));
const monthsBilled = (sub: number) => sub * MONTHS;

/** New accounts with two subscriptions each (back-dated MONTHS months) and three grants; cents as bigint. */
async function addAccounts(round: number): Promise<void> {
  for (let i = 0; i < ACCOUNTS_A_ROUND; i++) {
    const acct = (await post('/v1/accounts', { name: `crash ${round}-${i}` })).body.id as string;
    const subs: string[] = [];
    for (const p of [planFee, planTwo]) {
      const res = await post('/v1/subscriptions', { account_id: acct, rate_plan_id: p });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      await stack.tally.db!.updateTable('subscription_events').set({ effective_at: from }).where('subscription_id', '=', res.body.id).execute();
      await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: from }).where('id', '=', res.body.id).execute();
      subs.push(res.body.id);
    }
    let granted = 0n;
    for (let g = 0; g < 3; g++) {
      const cents = BigInt(1 + Math.floor(next() * 60_000));
      granted += cents;
      const body = { account_id: acct, currency: 'USD', kind: g === 2 ? 'paid' : 'free', usable: g === 2 ? 'immediately' : undefined, amount: (Number(cents) / 100).toFixed(2), priority: 1 + Math.floor(next() * 3), effective_at: from.toISOString() };
      const res = await post('/v1/credits/grants', body);
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
    accounts.push({ id: acct, subs, granted });
  }
}

/** Invoices of subscriptions that left draft. */
const issuedCount = async () =>
  Number((await stack.tally.db!.selectFrom('invoices').select((e) => e.fn.countAll<string>().as('n')).where('subscription_id', 'is not', null).where('status', '!=', 'draft').executeTakeFirstOrThrow()).n);
const cents = (v: string) => BigInt(Math.round(Number(v) * 100));
/** Burns of issued invoices seen so far: invoice -> "grant:amount,..." (must never change). */
const seenBurns = new Map<string, string>();

/** The invariants of the module comment, read from Postgres. */
async function checkInvariants(label: string): Promise<{ invoices: number; issued: number }> {
  const db = stack.tally.db!;
  const negative = await sql<{ grant_id: string; sum: string }>`select grant_id, sum(amount)::text as sum from credit_entries group by grant_id having sum(amount) < 0`.execute(db);
  expect(negative.rows, `${label}: a grant below zero`).toEqual([]);
  const invoices = await db.selectFrom('invoices').select(['id', 'status', 'total', 'credits_applied', 'amount_due', 'payment_applied']).where('subscription_id', 'is not', null).execute();
  const burns = await db.selectFrom('credit_entries').select(['invoice_id', 'grant_id', 'amount', 'type']).where('type', 'in', ['burn', 'release']).execute();
  const apps = await db.selectFrom('credit_applications').select(['invoice_id', 'grant_id', 'amount']).execute();
  const lines = await db.selectFrom('invoice_lines').select(['invoice_id', 'charge_id', 'amount']).where('charge_type', '=', 'credits_applied').execute();
  const key = (rows: { grant_id: string; amount: string }[], sign: bigint) =>
    rows
      .map((r) => `${r.grant_id}:${cents(r.amount) * sign}`)
      .sort()
      .join(',');
  let issued = 0;
  for (const inv of invoices) {
    const ctx = `${label}: invoice ${inv.id} ${JSON.stringify(inv)}`;
    const mine = burns.filter((b) => b.invoice_id === inv.id);
    expect(mine.filter((b) => b.type === 'release'), ctx).toEqual([]); // nothing voids here
    const b = key(mine, -1n);
    const a = key(apps.filter((x) => x.invoice_id === inv.id), 1n);
    const l = key(
      lines.filter((x) => x.invoice_id === inv.id).map((x) => ({ grant_id: x.charge_id, amount: x.amount })),
      -1n,
    );
    expect(a, ctx).toBe(l);
    const applied = apps.filter((x) => x.invoice_id === inv.id).reduce((s, x) => s + cents(x.amount), 0n);
    expect(cents(inv.credits_applied), ctx).toBe(applied);
    expect(cents(inv.amount_due), ctx).toBe(cents(inv.total) - cents(inv.credits_applied) - cents(inv.payment_applied));
    expect(cents(inv.amount_due) >= 0n, ctx).toBe(true);
    if (inv.status === 'draft') {
      expect(b, `${ctx}: a draft burned`).toBe('');
      continue;
    }
    issued++;
    expect(b, `${ctx}: burns differ from the applications`).toBe(a);
    const before = seenBurns.get(inv.id);
    if (before !== undefined) expect(b, `${ctx}: an issued invoice's burn changed`).toBe(before);
    seenBurns.set(inv.id, b);
  }
  return { invoices: invoices.length, issued };
}

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
  admin = stack.keys.development.admin;
  const typeId = (await post('/api/v1/agent_type/create', { name: 'worker' })).body.id;
  const product = (await post('/api/v1/products', { name: 'P', agent_type_id: typeId })).body.id;
  const flat = (await post('/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} })).body.id;
  const plan = async (name: string, fee: string) => {
    const id = (await post(`/api/v1/products/${product}/rateplans`, { name, billing_cycle_code: 'monthly', currency: 'USD' })).body.id as string;
    expect((await post(`/api/v1/products/rateplans/${id}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: fee } })).status).toBe(201);
    return id;
  };
  planFee = await plan('fee', '123.45');
  planTwo = await plan('two', '67.89');
}, 120_000);

afterAll(async () => {
  await killBilling();
  await stack?.cleanup();
  rmSync(childDir, { recursive: true, force: true });
});

describe(`SIGKILL of the billing process during finalization (seed ${SEED}, ${ROUNDS} rounds)`, () => {
  it('leaves the ledger and the invoices consistent: burns = applications = lines, never negative, permanent, each credit burned once', async () => {
    const kills: { round: number; afterMs: number; midTransaction: boolean; issuedBefore: number; issuedAtKill: number }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await addAccounts(round);
      await startBilling();
      const before = await checkInvariants(`round ${round} start`);
      // Racing it: bill runs and generates on both processes, and finalizes of what exists.
      // Of the first month billed (a bill run of a later one would leave the months before it to nobody: the scheduler bills after the latest invoice).
      const billingDate = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1)).toISOString().slice(0, 10);
      const period = from.toISOString().slice(0, 7);
      const acct = accounts[Math.floor(next() * accounts.length)]!.id;
      const drafts = await stack.tally.db!.selectFrom('invoices').select('id').where('status', '=', 'draft').limit(5).execute();
      const racing = Promise.all([
        postChild('/api/v1/invoice/bill-runs/create', { billing_date: billingDate }),
        post('/api/v1/invoice/bill-runs/create', { billing_date: billingDate }).then((r) => r.status),
        postChild('/v1/invoices/generate', { billing_period: period, account_id: acct }),
        post('/v1/invoices/generate', { billing_period: period, account_id: acct }).then((r) => r.status),
        ...drafts.map((d) => postChild(`/api/v1/invoice/invoices/${d.id}/finalize`)),
      ]);
      // Killed once it is at work (more invoices than at its start), a random moment later,
      // on even rounds the moment it is seen inside a transaction (mid-write).
      const t0 = Date.now();
      await waitFor(issuedCount, (n) => n > before.issued || child!.exitCode !== null, 60_000);
      let afterMs = Date.now() - t0 + Math.floor(next() * 400);
      await new Promise((r) => setTimeout(r, afterMs - (Date.now() - t0)));
      if (round % 2 === 0) {
        await waitFor(childInTransaction, (open) => open, 30_000).catch(() => false);
        afterMs = Date.now() - t0;
      }
      const midTransaction = await childInTransaction();
      await killBilling();
      kills.push({ round, afterMs, midTransaction, issuedBefore: before.issued, issuedAtKill: await issuedCount() });
      await racing;
      await checkInvariants(`round ${round} after the kill at ${afterMs} ms`);
    }
    // Restarted for good: every period of every subscription gets invoiced and finalized.
    await startBilling();
    const expected = accounts.reduce((s, a) => s + monthsBilled(a.subs.length), 0);
    await waitFor(issuedCount, (n) => n >= expected, 180_000).catch((err) => {
      throw new Error(`${String(err)}; the billing process's log: ${childLog.join('').slice(-4000)}`);
    });
    const end = await checkInvariants('the end');
    expect(end.issued).toBe(expected);
    // Each account burned exactly min(granted, billed): unscoped grants usable on every period, nothing lost or twice.
    for (const a of accounts) {
      const billed = await stack.tally.db!.selectFrom('invoices').select(['total']).where('account_id', '=', a.id).where('subscription_id', 'is not', null).execute();
      const total = billed.reduce((s, i) => s + cents(i.total), 0n);
      const burned = await stack.tally.db!.selectFrom('credit_entries').select(['amount']).where('account_id', '=', a.id).where('type', '=', 'burn').execute();
      const sum = -burned.reduce((s, e) => s + cents(e.amount), 0n);
      expect(sum, `account ${a.id}: granted ${a.granted}, billed ${total}`).toBe(a.granted < total ? a.granted : total);
    }
    // The kills landed while the process worked: each with periods still to invoice.
    console.log(JSON.stringify({ seed: SEED, kills, invoices: end.invoices }));
    for (const k of kills) expect(k.issuedAtKill, JSON.stringify(k)).toBeLessThan(expected);
    // And some inside one of its transactions (a write in flight, rolled back by the kill).
    expect(kills.filter((k) => k.midTransaction).length, JSON.stringify(kills)).toBeGreaterThan(0);
  }, 600_000);
});
