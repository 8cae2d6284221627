/**
 * npm run bench:billing — bill runs at growing sizes: for each size of BENCH_SIZES
 * (default `1000x1000000,10000x10000000,100000x100000000`: subscriptions x events), that
 * many active monthly subscriptions, one agent instance each, with that many actions of
 * the last ended month in ClickHouse (generated server-side with `numbers()`), rated on
 * piscina workers. Prints one table: bill run time, invoices/s, usage query time, rating
 * time, and the growth factor of the time per 10x of work (1.0 would be constant, 10
 * linear). BENCH_SUBSCRIPTIONS and BENCH_EVENTS run one size. Each size uses its own
 * Postgres and ClickHouse databases (dropped afterwards).
 *
 * Then the cost of applying credits (BENCH_CREDITS, default `10000x1000000`; `off` skips
 * it): BENCH_CREDITS_ROUNDS (3) rounds of the same bill run without credits and with a
 * free grant of BENCH_CREDIT_AMOUNT (30.00: less than every invoice, so each burns its
 * grant out; 1000 leaves credit that pays toward the open period, which the balance watch
 * after each invoice then rates live) on every account (each invoice gets a credits_applied
 * line and an amount_due), alternated, each on fresh databases; prints the medians and
 * their ratio.
 * After each run with credits, the live balance of BENCH_BALANCE_READS (500) random
 * accounts is computed in-process as `GET /v1/accounts/{id}/credits/balance` computes it
 * (ledger, holds, the open period rated inline with the live usage cache): p50/p95 (the
 * endpoint's work without HTTP; bench:credit-balance measures it over HTTP under load).
 * BENCH_SIZES= (empty) runs the credits part alone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { initTally } from '../billing/catalog/bootstrap.ts';
import { closeClickHouse, openClickHouse } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { UsageStore, type FirstSeenUsersQuery, type UsageQuery } from '../billing/usage/usage-query.ts';
import { parseCommonConfig } from '../shared/config/common.ts';
import { createDb, dropDatabase, ensureDatabase, migrate } from '../shared/db/postgres.ts';
import { newId } from '../shared/ids.ts';
import { createAgentType } from '../billing/catalog/agent-types.ts';
import { createChargeModel } from '../billing/catalog/charge-models.ts';
import { createCharge } from '../billing/catalog/charges.ts';
import { createProduct, createRatePlan } from '../billing/catalog/products.ts';
import { runBillRun } from '../billing/invoicing/bill-runs.ts';
import { parseInvoicingConfig } from '../billing/invoicing/config.ts';
import type { Invoicing } from '../billing/invoicing/context.ts';
import { poolRater } from '../billing/invoicing/rater.ts';
import { periodContaining, previousPeriod } from '../billing/rating/index.ts';
import { accountBalances } from '../billing/credits/ledger.ts';
import { liveInvoicing, openPeriodCharges } from '../billing/live/open-period.ts';
import { LiveUsageCache } from '../billing/live/usage-cache.ts';

const SIZES: { subs: number; events: number }[] =
  process.env.BENCH_SUBSCRIPTIONS || process.env.BENCH_EVENTS
    ? [{ subs: Number(process.env.BENCH_SUBSCRIPTIONS ?? 10_000), events: Number(process.env.BENCH_EVENTS ?? 10_000_000) }]
    : parseSizes(process.env.BENCH_SIZES ?? '1000x1000000,10000x10000000,100000x100000000');
function parseSizes(text: string): { subs: number; events: number }[] {
  return text
    .split(',')
    .filter((x) => x.trim() !== '')
    .map((x) => {
      const [subs, events] = x.split('x').map(Number);
      return { subs: subs!, events: events! };
    });
}
const CREDITS = process.env.BENCH_CREDITS === 'off' ? undefined : parseSizes(process.env.BENCH_CREDITS ?? '10000x1000000')[0];
const CREDIT_ROUNDS = Number(process.env.BENCH_CREDITS_ROUNDS ?? 3);
const BALANCE_READS = Number(process.env.BENCH_BALANCE_READS ?? 500);
const CREDIT_AMOUNT = process.env.BENCH_CREDIT_AMOUNT ?? '30.00';
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-bench-billing-'));
const secs = (ms: number) => (ms / 1000).toFixed(2);

interface SizeResult {
  subs: number;
  events: number;
  invoices: number;
  totalMs: number;
  usageMs: number;
  usageQueries: number;
  ratingMs: number;
  /** With credits: the live balance computations' times (ms). */
  balanceMs?: number[];
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};

async function main() {
  console.log(`# Tally billing benchmark — ${new Date().toISOString()}, ${os.cpus().length} cores\n`);
  const results: SizeResult[] = [];
  try {
    for (const size of SIZES) results.push(await runSize(size.subs, size.events));
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log('\n| subscriptions | events | bill run s | invoices/s | usage queries (ms each) | rating s (summed) | time growth per 10x of work |');
  console.log('|---|---|---|---|---|---|---|');
  results.forEach((r, i) => {
    const prev = results[i - 1];
    const growth = prev ? (r.totalMs / prev.totalMs / (r.subs / prev.subs / 10)).toFixed(1) : '';
    console.log(`| ${r.subs.toLocaleString('en-US')} | ${r.events.toLocaleString('en-US')} | ${secs(r.totalMs)} | ${(r.invoices / (r.totalMs / 1000)).toFixed(0)} | ${r.usageQueries} (${(r.usageMs / Math.max(1, r.usageQueries)).toFixed(1)}) | ${secs(r.ratingMs)} | ${growth} |`);
  });
  console.log(`\npeak RSS: ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB. Growth: the run's time over the previous size's, per 10x of subscriptions (10 = linear).`);
  if (CREDITS) await creditsComparison(CREDITS.subs, CREDITS.events);
}

/** The same bill run without and with credits, alternated, CREDIT_ROUNDS times each: medians and their ratio. */
async function creditsComparison(subs: number, events: number): Promise<void> {
  console.log(`\n# Applying credits: ${subs} subscriptions, ${events} events, ${CREDIT_ROUNDS} rounds, a grant of ${CREDIT_AMOUNT} on every account\n`);
  const without: number[] = [];
  const withCredits: number[] = [];
  const balances: number[] = [];
  const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-bench-credits-'));
  try {
    for (let round = 0; round < CREDIT_ROUNDS; round++) {
      without.push((await runSize(subs, events, { credits: false, dataDir: dir })).totalMs);
      const r = await runSize(subs, events, { credits: true, dataDir: dir });
      withCredits.push(r.totalMs);
      balances.push(...(r.balanceMs ?? []));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs: number[]) => pct(xs, 50);
  console.log('\n| subscriptions | events | bill run s without credits (median) | with credits (median) | ratio with/without | runs without | runs with | live balance in-process p50 / p95 ms |');
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(
    `| ${subs.toLocaleString('en-US')} | ${events.toLocaleString('en-US')} | ${secs(median(without))} | ${secs(median(withCredits))} | ${(median(withCredits) / median(without)).toFixed(2)} | ${without.map(secs).join(', ')} | ${withCredits.map(secs).join(', ')} | ${pct(balances, 50).toFixed(1)} / ${pct(balances, 95).toFixed(1)} |`,
  );
}

async function runSize(SUBS: number, EVENTS: number, opts: { credits: boolean; dataDir: string } = { credits: false, dataDir }): Promise<SizeResult> {
  const suffix = `${Date.now().toString(36)}_${SUBS}${opts.credits ? 'c' : ''}`;
  const env = {
    ...process.env,
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/tally_bench_billing_${suffix}`,
    CLICKHOUSE_DATABASE: `bench_billing_${suffix}`,
    TALLY_DATA_DIR: opts.dataDir,
    TALLY_LOG_LEVEL: 'warn',
  };
  const config = parseCommonConfig(env);
  const dbUrl = env.DATABASE_URL;
  const chDb = config.clickhouse.database;
  console.log(`## ${SUBS} subscriptions, ${EVENTS} events${opts.credits ? `, a free grant of ${CREDIT_AMOUNT} on every account` : ''}`);
  await ensureDatabase(dbUrl);
  const db = createDb(dbUrl, { max: 12 });
  await migrate(db as never);
  const init = await initTally(db, { dataDir: opts.dataDir });
  const envId = init.environments.development!.id;
  const ch = await openClickHouse(config.clickhouse);
  await migrateClickHouse(ch, chDb);
  try {
    // Catalog: one monthly plan with a flat fee and a tiered @action charge.
    const type = await createAgentType(db, envId, { name: 'bench' });
    const product = await createProduct(db, envId, { name: 'bench', agent_type_id: type.id });
    const plan = await createRatePlan(db, envId, product.id, { name: 'bench', billing_cycle_code: 'monthly', currency: 'USD' });
    const flat = await createChargeModel(db, envId, { name: 'fee', description: 'fee', type: 'flat', pricing_strategy: { amount: 49 } });
    const tiered = await createChargeModel(db, envId, { name: 'tiered', description: 'tiered', type: 'tiered', pricing_strategy: { unit_of_measure: '@action', tiers: [{ start: 0, price: '0.002' }, { start: 500, price: '0.001' }] } });
    await createCharge(db, envId, plan.id, { name: 'Fee', charge_model_id: flat.id, charge_type_code: 'recurring' });
    await createCharge(db, envId, plan.id, { name: 'Actions', charge_model_id: tiered.id, charge_type_code: 'usage' });

    const period = previousPeriod(periodContaining(new Date(), 'monthly'), 'monthly');
    const since = new Date(new Date(period.start).getTime() - 86_400_000);
    let t = performance.now();
    for (let i = 0; i < SUBS; i += 1000) {
      const n = Math.min(1000, SUBS - i);
      const acc = Array.from({ length: n }, (_, k) => `acct_bench_${i + k}`);
      const ags = Array.from({ length: n }, (_, k) => `ai_bench_${i + k}`);
      const subs = Array.from({ length: n }, () => newId('sub'));
      await db.insertInto('accounts').values(acc.map((id, k) => ({ id, environment_id: envId, name: `acct ${i + k}` }))).execute();
      await db.insertInto('agent_instances').values(ags.map((id, k) => ({ id, environment_id: envId, name: `agent ${i + k}`, account_id: acc[k]!, secret_hash: newId('h') }))).execute();
      await db.insertInto('subscriptions').values(subs.map((id, k) => ({ id, environment_id: envId, account_id: acc[k]!, rate_plan_id: plan.id, status: 'active' as const, contract_effective_date: since, activated_at: since }))).execute();
      await db.insertInto('subscription_agent_instances').values(subs.map((id, k) => ({ subscription_id: id, agent_instance_id: ags[k]! }))).execute();
      await db.insertInto('subscription_events').values(subs.flatMap((id) => [
        { id: newId('sev'), environment_id: envId, subscription_id: id, type: 'created', from_status: null, to_status: 'draft' as const, rate_plan_id: plan.id, effective_at: since, data: '{}' },
        { id: newId('sev'), environment_id: envId, subscription_id: id, type: 'activated', from_status: 'draft' as const, to_status: 'active' as const, rate_plan_id: plan.id, effective_at: since, data: '{}' },
      ])).execute();
      if (opts.credits) await grantEach(db, envId, acc, since);
    }
    console.log(`catalog: ${SUBS} subscriptions in ${secs(performance.now() - t)} s`);

    t = performance.now();
    const startMs = new Date(period.start).getTime();
    const spanMs = new Date(period.end).getTime() - startMs;
    await ch.command({
      query: `INSERT INTO ${chDb}.actions (environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, action_type, ts, ingested_at, user_id, anonymous_id, model, input_tokens, output_tokens, total_tokens, metadata)
        SELECT {env:String}, {org:String}, concat('ai_bench_', toString(number % {n:UInt64})), concat('acct_bench_', toString(number % {n:UInt64})),
          concat('e', toString(number)), 'client', 'llm_call',
          fromUnixTimestamp64Milli(toInt64({start:Int64} + (number * 7919) % {span:Int64})), now64(3), concat('u', toString(number % 50)), '', 'gpt', 10, 5, 15, ''
        FROM numbers({events:UInt64})`,
      query_params: { env: envId, org: init.organization_id, n: SUBS, start: startMs, span: spanMs, events: EVENTS },
    });
    console.log(`clickhouse: ${EVENTS} actions inserted in ${secs(performance.now() - t)} s`);

    const usage = new UsageStore(ch, chDb);
    let usageMs = 0;
    let usageQueries = 0;
    let ratingMs = 0;
    const invConfig = parseInvoicingConfig(env);
    const rater = poolRater({ threads: invConfig.ratingThreads, maxQueue: invConfig.ratingMaxQueue });
    const inv: Invoicing = {
      db,
      config: invConfig,
      now: () => new Date(),
      usage: {
        async query(q: UsageQuery) {
          const s = performance.now();
          try {
            return await usage.query(q);
          } finally {
            usageMs += performance.now() - s;
            usageQueries++;
          }
        },
        async firstSeenUsers(q: FirstSeenUsersQuery) {
          const s = performance.now();
          try {
            return await usage.firstSeenUsers(q);
          } finally {
            usageMs += performance.now() - s;
            usageQueries++;
          }
        },
      },
      rater: {
        async rate(input) {
          const s = performance.now();
          try {
            return await rater.rate(input);
          } finally {
            ratingMs += performance.now() - s;
          }
        },
        close: () => rater.close(),
      },
    };
    t = performance.now();
    const run = await runBillRun(inv, envId, new Date(period.end));
    const totalMs = performance.now() - t;
    await rater.close();
    console.log(JSON.stringify({ bill_run: { ...run, invoice_ids: run.invoice_ids?.length } }));
    console.log(`bill run: ${run.invoices_created} invoices in ${secs(totalMs)} s = ${(run.invoices_created / (totalMs / 1000)).toFixed(0)} invoices/s`);
    console.log(`usage queries: ${usageQueries}, ${secs(usageMs)} s summed over concurrent calls (${(usageMs / Math.max(1, usageQueries)).toFixed(1)} ms each)`);
    console.log(`rating (incl. worker hand-off): ${secs(ratingMs)} s summed`);
    if (run.invoices_created !== SUBS) throw new Error(`expected ${SUBS} invoices, got ${run.invoices_created}`);
    let balanceMs: number[] | undefined;
    if (opts.credits) {
      const applied = await db.selectFrom('invoice_lines').select((eb) => eb.fn.countAll<string>().as('n')).where('charge_type', '=', 'credits_applied').executeTakeFirstOrThrow();
      if (Number(applied.n) !== SUBS) throw new Error(`expected ${SUBS} credits_applied lines, got ${applied.n}`);
      balanceMs = await liveBalanceTimes(inv, envId, SUBS, usage);
      console.log(`live balance (in-process, ${balanceMs.length} accounts): p50 ${pct(balanceMs, 50).toFixed(1)} ms, p95 ${pct(balanceMs, 95).toFixed(1)} ms`);
    }
    return { subs: SUBS, events: EVENTS, invoices: run.invoices_created, totalMs, usageMs, usageQueries, ratingMs, ...(balanceMs ? { balanceMs } : {}) };
  } finally {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${chDb}` }).catch(() => {});
    await closeClickHouse(ch);
    await db.destroy();
    await dropDatabase(dbUrl).catch(() => {});
  }
}

/** A free grant of CREDIT_AMOUNT (with its ledger entry) on each account, usable since `since`. */
async function grantEach(db: ReturnType<typeof createDb>, envId: string, accounts: string[], since: Date): Promise<void> {
  const grants = accounts.map((account_id) => ({ id: newId('cgr'), account_id }));
  await db.insertInto('credit_grants').values(grants.map((g) => ({
    id: g.id, environment_id: envId, account_id: g.account_id, currency: 'USD', kind: 'free' as const, amount: CREDIT_AMOUNT, price: null, priority: 50, effective_at: since, expires_at: null,
    scope: null, metadata: '{}', usable: 'immediately' as const, usable_at: since, invoice_id: null, voided_at: null, void_reason: null, idempotency_key: null, request_hash: null, created_by: null,
  }))).execute();
  await db.insertInto('credit_entries').values(grants.map((g) => ({
    id: newId('cle'), environment_id: envId, account_id: g.account_id, currency: 'USD', grant_id: g.id, type: 'grant' as const, amount: CREDIT_AMOUNT, invoice_id: null, reason: null, created_by: null, occurred_at: since,
  }))).execute();
}

/**
 * The live balance of random accounts, one at a time, as the balance endpoint computes it
 * (its first read of each account). Returns the whole read's times; prints where a read
 * goes: the open periods' rating alone, cold (a fresh cache: the usage query) and warm, and
 * the ledger alone (grants, entries summed, holds).
 */
async function liveBalanceTimes(inv: Invoicing, envId: string, subs: number, usage: UsageStore): Promise<number[]> {
  const live = liveInvoicing(inv, new LiveUsageCache(usage));
  const parts = { coldRating: [] as number[], warmRating: [] as number[], ledger: [] as number[] };
  const timed = async (into: number[], f: () => Promise<unknown>) => {
    const s = performance.now();
    await f();
    into.push(performance.now() - s);
  };
  const times: number[] = [];
  for (let i = 0; i < Math.min(BALANCE_READS, subs); i++) {
    const account = `acct_bench_${Math.floor(Math.random() * subs)}`;
    const at = new Date();
    await timed(times, () => accountBalances(inv.db, envId, account, at, () => openPeriodCharges(live, envId, account, { now: at })));
    const other = `acct_bench_${Math.floor(Math.random() * subs)}`;
    const cold = liveInvoicing(inv, new LiveUsageCache(usage));
    await timed(parts.coldRating, () => openPeriodCharges(cold, envId, other, { now: at }));
    await timed(parts.warmRating, () => openPeriodCharges(cold, envId, other, { now: at }));
    await timed(parts.ledger, () => accountBalances(inv.db, envId, other, at));
  }
  const f = (xs: number[]) => `${pct(xs, 50).toFixed(1)} / ${pct(xs, 95).toFixed(1)}`;
  console.log(`live balance parts p50 / p95 ms: open periods rated cold ${f(parts.coldRating)}, warm ${f(parts.warmRating)}; the ledger alone ${f(parts.ledger)}`);
  return times;
}

await main();
