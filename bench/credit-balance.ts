/**
 * npm run bench:credit-balance — the live credit balance (docs/credits.md "Credits", `pending`)
 * of `npm start`'s one process: BENCH_ACCOUNTS (10,000) accounts, each with an agent
 * instance, an active monthly subscription (0.01 per @action, Platform 5.00) and a free
 * grant; BENCH_EVENTS_PER_ACCOUNT (10) actions each of the open month sent through
 * /v1/actions first; then, under a sustained load of BENCH_RATE (1,000) events/s to random
 * agents:
 *   - the balance endpoint (GET /v1/accounts/{id}/credits/balance) for BENCH_READS (500)
 *     random accounts, one at a time, each read twice in a row: p50 and p95 (ms) of the
 *     first read (cold: the account's open-period usage is not cached, one ClickHouse
 *     query) and of the second (warm: cached, unless an event of the account was stored
 *     in between);
 *   - BENCH_PROBES (50) freshness probes: one action for a random account, then its
 *     balance polled every 20 ms until `pending` has grown by 0.01: the time from the
 *     event's acknowledgement (the 200 of POST /v1/actions) to that read, p50 and p99 (ms).
 * While the reads and probes run, chDB's queue of parameterized queries (one at a time,
 * process-wide: shared/clickhouse/chdb-queue.ts) is read from /metrics before and after:
 * per kind of query and the loop that sent it (`-`: a request), how many ran, their mean
 * wait for their turn and mean run, and the share of the time the queue was busy.
 * Each measurement runs once per BENCH_PHASES (default `off`; the TALLY_LIVE_USAGE_WINDOWS
 * option it compared, `on`, was removed: measured worse, docs/performance.md "Credits", so
 * both phases now run the same code); the table gives each phase's cold/warm p50/p95/p99
 * and event→pending p50/p99.
 * BENCH_SCOPE: `agents` (default; each subscription lists its agent instance, as
 * bench:billing's do) or `account` (account-wide subscriptions: every event of the account,
 * a usage query filtered on the account after the environment's period is read).
 * Runs on databases, a data directory (/tmp) and NATS names of its own; BENCH_PORT (44010)
 * for HTTP. Rate limits are off.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { removeBenchState } from './cleanup.ts';
import { createDb } from '../shared/db/postgres.ts';
import { newId } from '../shared/ids.ts';
import { Dec } from '../billing/rating/money.ts';
import { periodContaining } from '../billing/rating/index.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 10_000);
const EVENTS_PER_ACCOUNT = Number(process.env.BENCH_EVENTS_PER_ACCOUNT ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 1_000);
const READS = Number(process.env.BENCH_READS ?? 500);
const PROBES = Number(process.env.BENCH_PROBES ?? 50);
const PORT = Number(process.env.BENCH_PORT ?? 44010);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const BATCH = 100;
const SCOPE = process.env.BENCH_SCOPE === 'account' ? 'account' : 'agents';
const PHASES = (process.env.BENCH_PHASES ?? 'off').split(',').map((p) => (p.trim() === 'off' ? 'off' : 'on'));

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const ms = (x: number) => x.toFixed(1);
const sleep = (t: number) => new Promise((r) => setTimeout(r, t));

/** chDB's queue of parameterized queries as /metrics counts it (shared/clickhouse/chdb-queue.ts): per `kind loop`, [queries, wait s, run s]. */
async function paramQueue(base: string): Promise<Map<string, number[]>> {
  const text = await fetch(`${base}/metrics`).then((r) => r.text());
  const out = new Map<string, number[]>();
  const field = { queries_total: 0, wait_seconds_total: 1, run_seconds_total: 2 } as const;
  for (const m of text.matchAll(/^tally_chdb_param_(queries_total|wait_seconds_total|run_seconds_total)\{kind="([^"]*)",loop="([^"]*)"\} (\S+)$/gm)) {
    const key = `${m[2]} ${m[3]}`;
    const v = out.get(key) ?? [0, 0, 0];
    v[field[m[1] as keyof typeof field]] = Number(m[4]);
    out.set(key, v);
  }
  return out;
}

/** What the queue did between two readings: per kind and loop, the queries, their mean wait and run, and the share of the time the queue ran them. */
function printParamQueue(before: Map<string, number[]>, after: Map<string, number[]>, seconds: number): void {
  const rows = [...after].map(([k, v]) => {
    const b = before.get(k) ?? [0, 0, 0];
    return { k, n: v[0]! - b[0]!, wait: v[1]! - b[1]!, run: v[2]! - b[2]! };
  }).filter((r) => r.n > 0).sort((a, b) => b.run - a.run);
  const busy = rows.reduce((s, r) => s + r.run, 0);
  console.log(`chDB parameterized-query queue over ${ms(seconds)} s: busy ${((100 * busy) / seconds).toFixed(0)}% of the time\n| kind | loop | queries | per s | mean wait ms | mean run ms | busy % |\n|---|---|---|---|---|---|---|`);
  for (const r of rows) {
    const [kind, loop] = r.k.split(' ');
    console.log(`| ${kind} | ${loop} | ${r.n} | ${(r.n / seconds).toFixed(1)} | ${ms((1000 * r.wait) / r.n)} | ${ms((1000 * r.run) / r.n)} | ${((100 * r.run) / seconds).toFixed(1)} |`);
  }
}

/** Starts `npm start`'s process and resolves once it has printed the first start's keys (or, on a restart, once it is ready). */
function startTally(env: NodeJS.ProcessEnv, restart = false): Promise<{ child: ChildProcess; admin: string; sdk: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--max-semi-space-size=32', 'bin/tally.js', 'start'], { cwd: ROOT, env: { MALLOC_ARENA_MAX: '2', ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (restart || !out.includes('Keep these keys')) return;
      resolve({ child, admin: /admin API key:\s+(\S+)/.exec(out)![1]!, sdk: /SDK key:\s+(\S+)/.exec(out)![1]! });
    });
    child.once('exit', (code) => reject(new Error(`tally start exited with ${code}`)));
    if (restart) {
      void (async () => {
        for (let i = 0; i < 600; i++) {
          const ready = await fetch(`http://127.0.0.1:${env.TALLY_HTTP_PORT}/readyz`).then((r) => r.status === 200, () => false);
          if (ready) return resolve({ child, admin: '', sdk: '' });
          await sleep(100);
        }
        reject(new Error('tally did not become ready in 60 s'));
      })();
    }
  });
}
async function stopTally(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
}

async function main() {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'wt-pending-bench-'));
  const dbUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  dbUrl.pathname = `/tally_bench_credits_${suffix}`;
  const prefix = `BENCHCR${suffix}_`;
  let child: ChildProcess | undefined;
  const db = createDb(dbUrl.toString(), { max: 4 });
  console.log(`# Live credit balance — ${new Date().toISOString()}, ${os.cpus().length} cores, load average ${os.loadavg()[0]!.toFixed(1)}, ${ACCOUNTS} accounts (${SCOPE}-scoped subscriptions), load ${RATE} events/s\n`);
  const tallyEnv = (windows: 'on' | 'off') => ({
    ...process.env,
    DATABASE_URL: dbUrl.toString(),
    TALLY_NATS_PREFIX: prefix,
    TALLY_DATA_DIR: dataDir,
    TALLY_HTTP_PORT: String(PORT),
    TALLY_OTLP_GRPC_PORT: 'off',
    TALLY_RATE_LIMITS: 'off',
    TALLY_LOG_LEVEL: 'warn',
    TALLY_LIVE_USAGE_WINDOWS: windows,
  });
  try {
    const started = await startTally(tallyEnv(PHASES[0]!));
    child = started.child;
    const base = `http://127.0.0.1:${PORT}`;
    const admin = { authorization: `Bearer ${started.admin}`, 'content-type': 'application/json' };
    const sdk = { authorization: `Bearer ${started.sdk}`, 'content-type': 'application/json' };
    const api = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(base + p, { method, headers: admin, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
      const json = (await res.json()) as any;
      if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    };

    // Catalog through the API; accounts, agents, subscriptions and grants straight into Postgres.
    let t = performance.now();
    const type = await api('POST', '/api/v1/agent_type/create', { name: 'bench' });
    const product = await api('POST', '/api/v1/products', { name: 'bench', agent_type_id: type.id });
    const flat = await api('POST', '/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} });
    const perAction = await api('POST', '/api/v1/charge_models', { name: 'per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
    const plan = await api('POST', `/api/v1/products/${product.id}/rateplans`, { name: 'bench', billing_cycle_code: 'monthly', currency: 'USD' });
    await api('POST', `/api/v1/products/rateplans/${plan.id}/charges`, { name: 'Platform', charge_model_id: flat.id, charge_type_code: 'recurring', pricing: { unit_price: '5' } });
    await api('POST', `/api/v1/products/rateplans/${plan.id}/charges`, { name: 'Actions', charge_model_id: perAction.id, charge_type_code: 'usage', pricing: { unit_price: '0.01' } });
    const envId = (await db.selectFrom('rate_plans').select('environment_id').where('id', '=', plan.id).executeTakeFirstOrThrow()).environment_id;
    const since = new Date(periodContaining(new Date(), 'monthly').start);
    const accounts: string[] = [];
    const agents: string[] = [];
    for (let i = 0; i < ACCOUNTS; i += 1000) {
      const n = Math.min(1000, ACCOUNTS - i);
      const acc = Array.from({ length: n }, () => newId('acct'));
      const ags = Array.from({ length: n }, () => newId('ai'));
      const subs = Array.from({ length: n }, () => newId('sub'));
      const grants = Array.from({ length: n }, () => newId('cgr'));
      accounts.push(...acc);
      agents.push(...ags);
      await db.insertInto('accounts').values(acc.map((id, k) => ({ id, environment_id: envId, name: `acct ${i + k}` }))).execute();
      await db.insertInto('agent_instances').values(ags.map((id, k) => ({ id, environment_id: envId, name: `agent ${i + k}`, account_id: acc[k]!, secret_hash: newId('h') }))).execute();
      await db.insertInto('subscriptions').values(subs.map((id, k) => ({ id, environment_id: envId, account_id: acc[k]!, rate_plan_id: plan.id, status: 'active' as const, contract_effective_date: since, activated_at: since }))).execute();
      if (SCOPE === 'agents') await db.insertInto('subscription_agent_instances').values(subs.map((id, k) => ({ subscription_id: id, agent_instance_id: ags[k]! }))).execute();
      await db.insertInto('subscription_events').values(subs.flatMap((id) => [
        { id: newId('sev'), environment_id: envId, subscription_id: id, type: 'created', from_status: null, to_status: 'draft' as const, rate_plan_id: plan.id, effective_at: since, data: '{}' },
        { id: newId('sev'), environment_id: envId, subscription_id: id, type: 'activated', from_status: 'draft' as const, to_status: 'active' as const, rate_plan_id: plan.id, effective_at: since, data: '{}' },
      ])).execute();
      await db.insertInto('credit_grants').values(grants.map((id, k) => ({
        id, environment_id: envId, account_id: acc[k]!, currency: 'USD', kind: 'free' as const, amount: '1000.00', price: null, priority: 50, effective_at: since, expires_at: null,
        scope: null, metadata: '{}', usable: 'immediately' as const, usable_at: since, invoice_id: null, voided_at: null, void_reason: null, idempotency_key: null, request_hash: null, created_by: null,
      }))).execute();
      await db.insertInto('credit_entries').values(grants.map((id, k) => ({
        id: newId('cle'), environment_id: envId, account_id: acc[k]!, currency: 'USD', grant_id: id, type: 'grant' as const, amount: '1000.00', invoice_id: null, reason: null, created_by: null, occurred_at: since,
      }))).execute();
    }
    console.log(`catalog: ${ACCOUNTS} accounts with a subscription and a grant in ${ms((performance.now() - t) / 1000)} s`);

    const send = async (agentIds: string[]) => {
      const body = JSON.stringify(agentIds.map((a) => ({ agent_key: a, action_type: 'llm_call' })));
      const res = await fetch(`${base}/v1/actions`, { method: 'POST', headers: sdk, body });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`POST /v1/actions: ${res.status}`);
    };
    t = performance.now();
    const background = agents.flatMap((a) => Array.from({ length: EVENTS_PER_ACCOUNT }, () => a));
    for (let i = 0; i < background.length; i += BATCH * 8) {
      await Promise.all(Array.from({ length: 8 }, (_, k) => background.slice(i + k * BATCH, i + (k + 1) * BATCH)).filter((b) => b.length).map(send));
    }
    console.log(`usage: ${background.length} actions acknowledged in ${ms((performance.now() - t) / 1000)} s`);

    interface Figures {
      windows: string;
      cold: number[];
      warm: number[];
      fresh: number[];
      loadSent: number;
    }
    /** One phase: the sustained load, the reads and the freshness probes against the running process. */
    const measure = async (windows: string): Promise<Figures> => {
      // The sustained load: RATE events/s in batches of BATCH, to random agents, until stopped.
      let loading = true;
      let loadSent = 0;
      const load = (async () => {
        const every = (1000 * BATCH) / RATE;
        let next = performance.now();
        while (loading) {
          await send(Array.from({ length: BATCH }, () => agents[Math.floor(Math.random() * agents.length)]!));
          loadSent += BATCH;
          next += every;
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
        }
      })();
      await sleep(2000);
      const queueBefore = await paramQueue(base);
      const queueFrom = performance.now();
      const balanceOf = async (acct: string) => {
        const res = await fetch(`${base}/v1/accounts/${acct}/credits/balance`, { headers: admin });
        const json = (await res.json()) as { balances: { pending: string; available: string }[] };
        if (res.status !== 200) throw new Error(`balance: ${res.status} ${JSON.stringify(json)}`);
        return json.balances[0]!;
      };
      const cold: number[] = [];
      const warm: number[] = [];
      const timed = async (acct: string, into: number[]) => {
        const s = performance.now();
        await balanceOf(acct);
        into.push(performance.now() - s);
      };
      const seen = new Set<string>();
      for (let i = 0; i < READS; i++) {
        let acct: string;
        do acct = accounts[Math.floor(Math.random() * accounts.length)]!;
        while (seen.has(acct) && seen.size < accounts.length);
        seen.add(acct);
        await timed(acct, cold);
        await timed(acct, warm);
      }
      console.log(`[windows ${windows}] balance endpoint under load, first read of an account (cold): p50 ${ms(pct(cold, 50))} ms, p95 ${ms(pct(cold, 95))} ms, p99 ${ms(pct(cold, 99))} ms, max ${ms(pct(cold, 100))} ms`);
      console.log(`[windows ${windows}] balance endpoint under load, read again (warm): p50 ${ms(pct(warm, 50))} ms, p95 ${ms(pct(warm, 95))} ms, p99 ${ms(pct(warm, 99))} ms, max ${ms(pct(warm, 100))} ms`);
      const fresh: number[] = [];
      for (let i = 0; i < PROBES; i++) {
        const k = Math.floor(Math.random() * accounts.length);
        const before = new Dec((await balanceOf(accounts[k]!)).pending);
        await send([agents[k]!]);
        const acked = performance.now();
        for (;;) {
          if (new Dec((await balanceOf(accounts[k]!)).pending).gte(before.plus('0.01'))) break;
          if (performance.now() - acked > 30_000) throw new Error(`probe ${i}: pending of ${accounts[k]} did not change in 30 s`);
          await sleep(20);
        }
        fresh.push(performance.now() - acked);
      }
      console.log(`[windows ${windows}] event -> pending, ${PROBES} probes under load: p50 ${ms(pct(fresh, 50))} ms, p99 ${ms(pct(fresh, 99))} ms, max ${ms(pct(fresh, 100))} ms`);
      printParamQueue(queueBefore, await paramQueue(base), (performance.now() - queueFrom) / 1000);
      loading = false;
      await load;
      console.log(`[windows ${windows}] load: ${loadSent} events sent during the measurements, load average ${os.loadavg()[0]!.toFixed(1)}`);
      return { windows, cold, warm, fresh, loadSent };
    };

    const results: Figures[] = [];
    for (const [i, windows] of PHASES.entries()) {
      if (i > 0) {
        await stopTally(child);
        child = (await startTally(tallyEnv(windows), true)).child;
      }
      results.push(await measure(windows));
    }
    const trio = (xs: number[]) => `${ms(pct(xs, 50))} / ${ms(pct(xs, 95))} / ${ms(pct(xs, 99))}`;
    console.log(`\n| accounts | scope | load events/s | TALLY_LIVE_USAGE_WINDOWS | cold p50 / p95 / p99 ms | warm p50 / p95 / p99 ms | all reads p95 ms | event→pending p50 / p99 ms |\n|---|---|---|---|---|---|---|---|`);
    for (const r of results) {
      console.log(`| ${ACCOUNTS} | ${SCOPE} | ${RATE} | ${r.windows} | ${trio(r.cold)} | ${trio(r.warm)} | ${ms(pct([...r.cold, ...r.warm], 95))} | ${ms(pct(r.fresh, 50))} / ${ms(pct(r.fresh, 99))} |`);
    }
    const off = results.find((r) => r.windows === 'off');
    const on = results.find((r) => r.windows === 'on');
    if (off && on) {
      const ratio = (a: number[], b: number[], p: number) => (pct(a, p) / pct(b, p)).toFixed(2);
      console.log(`\nratios on/off (same run, same data): cold p95 ${ratio(on.cold, off.cold, 95)}, cold p99 ${ratio(on.cold, off.cold, 99)}, warm p95 ${ratio(on.warm, off.warm, 95)}, event→pending p99 ${ratio(on.fresh, off.fresh, 99)}`);
    }
  } finally {
    await stopTally(child);
    await db.destroy();
    await removeBenchState({ natsUrl: NATS_URL, prefix, dbUrl: dbUrl.toString(), dataDir });
  }
}

await main();
