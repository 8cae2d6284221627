/**
 * npm run bench:reports — each report over growing numbers of actions of the last 30 days
 * in ClickHouse (BENCH_SIZES, default 1M, 10M, 100M; BENCH_EVENTS one size; generated
 * server-side with `numbers()`), BENCH_AGENTS (1,000) agent instances and accounts, four
 * cost rules and one invoice per account and month: runs every report from raw events
 * (the baseline) and through the daily cost rollup BENCH_RUNS (20) times and prints p50
 * and p95 latency, then the cost of keeping the rollup up to date (one step of new
 * actions; a backdated rule change); at the end, each report's p95 by size and its growth
 * per 10x of events. Goal: p95 under 100 ms at the largest size. Calls the report
 * functions the endpoints call (no HTTP). Each size uses its own Postgres and ClickHouse
 * databases (dropped afterwards).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { initTally } from '../billing/catalog/bootstrap.ts';
import { closeClickHouse, openClickHouse } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { parseCommonConfig } from '../shared/config/common.ts';
import { createDb, dropDatabase, ensureDatabase, migrate } from '../shared/db/postgres.ts';
import { newId } from '../shared/ids.ts';
import { queryCosts } from '../billing/costs/cost-query.ts';
import { CostRuleStore } from '../billing/costs/cost-rules.ts';
import { agentEmbed } from '../billing/reports/embeds.ts';
import { computePnl } from '../billing/reports/pnl.ts';
import { loadRevenue, revenueEntries } from '../billing/reports/revenue.ts';
import { CostRollup } from '../billing/costs/cost-rollup.ts';

/** Event counts to run, one after the other (BENCH_EVENTS: one size). */
const SIZES = (process.env.BENCH_EVENTS ?? process.env.BENCH_SIZES ?? '1000000,10000000,100000000').split(',').map(Number);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 1_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-bench-reports-'));
const DAY_MS = 86_400_000;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
}

/** p50 and p95 of each report, raw and through the rollup, at one size. */
type SizeResult = Map<string, { rawP95: number; rollupP50: number; rollupP95: number }>;

async function main() {
  console.log(`# Tally reports benchmark — ${new Date().toISOString()}, ${os.cpus().length} cores, ${AGENTS} agents, ${RUNS} runs a report\n`);
  const results: { events: number; reports: SizeResult }[] = [];
  try {
    for (const events of SIZES) results.push({ events, reports: await runSize(events) });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  if (results.length < 2) return;
  const names = [...results[0]!.reports.keys()];
  console.log(`\n## p95 through the rollup (ms) by size, and its growth per 10x of events (1.0: flat, 10: linear)\n`);
  console.log(`| report | ${results.map((r) => r.events.toLocaleString('en-US')).join(' | ')} | growth per 10x |`);
  console.log(`|---|${results.map(() => '---|').join('')}---|`);
  for (const name of names) {
    const p95s = results.map((r) => r.reports.get(name)!.rollupP95);
    const first = results[0]!, last = results.at(-1)!;
    const growth = Math.pow(p95s.at(-1)! / p95s[0]!, 1 / Math.log10(last.events / first.events));
    console.log(`| ${name} | ${p95s.map((x) => x.toFixed(0)).join(' | ')} | ${growth.toFixed(2)} |`);
  }
}

async function runSize(EVENTS: number): Promise<SizeResult> {
  const suffix = `${Date.now().toString(36)}_${EVENTS}`;
  const env = {
    ...process.env,
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/tally_bench_reports_${suffix}`,
    CLICKHOUSE_DATABASE: `bench_reports_${suffix}`,
    TALLY_DATA_DIR: dataDir,
    TALLY_LOG_LEVEL: 'warn',
  };
  const config = parseCommonConfig(env);
  const dbUrl = env.DATABASE_URL;
  const chDb = config.clickhouse.database;
  console.log(`## ${EVENTS.toLocaleString('en-US')} actions`);
  const result: SizeResult = new Map();
  await ensureDatabase(dbUrl);
  const db = createDb(dbUrl, { max: 8 });
  await migrate(db as never);
  const init = await initTally(db, { dataDir });
  const envId = init.environments.development!.id;
  const ch = await openClickHouse(config.clickhouse);
  await migrateClickHouse(ch, chDb);
  try {
    // Whole days, as the reports' dates give them (the rollup answers whole hours).
    const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
    const from = new Date(today - 30 * DAY_MS);
    const to = new Date(today + DAY_MS);
    let t = performance.now();
    await ch.command({
      query: `INSERT INTO ${chDb}.actions (environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, action_type, ts, ingested_at, user_id, anonymous_id, model, input_tokens, output_tokens, total_tokens, metadata)
        SELECT {env:String}, {org:String}, concat('ai_bench_', toString(number % {n:UInt64})), concat('acct_bench_', toString(number % {n:UInt64})),
          concat('e', toString(number)), 'client', if(number % 5 = 0, 'tool_call', 'llm_call'),
          fromUnixTimestamp64Milli(toInt64({start:Int64} + (number * 7919) % {span:Int64})), now64(3), '', '', if(number % 3 = 0, 'gpt-4o', 'claude'),
          100 + number % 1000, 50 + number % 300, 150 + number % 1000 + 50 + number % 300, if(number % 100 = 0, '{"cost":{"amount":"0.01","currency":"USD","category":"api"}}', '{}')
        FROM numbers({events:UInt64})`,
      query_params: { env: envId, org: init.organization_id, n: AGENTS, start: from.getTime(), span: 30 * DAY_MS, events: EVENTS },
    });
    console.log(`clickhouse: ${EVENTS} actions inserted in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const rules = new CostRuleStore(ch, chDb, db);
    const since = { effective_from: new Date(from.getTime() - DAY_MS).toISOString(), reallocate: true };
    await rules.create(envId, { name: 'in', category: 'llm', currency: 'USD', basis: 'per_input_token', model_rates: { 'gpt-4o': '0.0000025', claude: '0.000003' }, action_type: 'llm_call', ...since });
    await rules.create(envId, { name: 'out', category: 'llm', currency: 'USD', basis: 'per_output_token', model_rates: { 'gpt-4o': '0.00001', claude: '0.000015' }, action_type: 'llm_call', ...since });
    await rules.create(envId, { name: 'api', category: 'api', currency: 'USD', basis: 'per_api_call', rate: '0.002', action_type: 'tool_call', ...since });
    await rules.create(envId, { name: 'infra', category: 'infrastructure', currency: 'USD', basis: 'per_action', rate: '0.0001', ...since });

    // Catalog rows the invoices point to, and one invoice per account and month with two lines.
    t = performance.now();
    const type = newId('at');
    await db.insertInto('agent_types').values({ id: type, environment_id: envId, name: 'bench' }).execute();
    const product = newId('prod');
    await db.insertInto('products').values({ id: product, environment_id: envId, agent_type_id: type, name: 'bench' }).execute();
    const plan = newId('rp');
    await db.insertInto('rate_plans').values({ id: plan, environment_id: envId, product_id: product, name: 'bench', billing_cycle_code: 'monthly', currency: 'USD' }).execute();
    // One subscription per account: an invoice belongs to one (subscription, period).
    for (let i = 0; i < AGENTS; i += 500) {
      const ks = Array.from({ length: Math.min(500, AGENTS - i) }, (_, k) => i + k);
      await db.insertInto('accounts').values(ks.map((k) => ({ id: `acct_bench_${k}`, environment_id: envId, name: `acct ${k}` }))).execute();
      await db.insertInto('agent_instances').values(ks.map((k) => ({ id: `ai_bench_${k}`, environment_id: envId, name: `agent ${k}`, account_id: `acct_bench_${k}`, agent_type_id: type, secret_hash: newId('h') }))).execute();
      await db.insertInto('subscriptions').values(ks.map((k) => ({ id: `sub_bench_${k}`, environment_id: envId, account_id: `acct_bench_${k}`, rate_plan_id: plan, status: 'active' as const, contract_effective_date: from }))).execute();
    }
    const months = [new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1)), new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() + 1, 1))];
    let n = 0;
    for (const m of months) {
      const end = new Date(Date.UTC(m.getUTCFullYear(), m.getUTCMonth() + 1, 1));
      for (let i = 0; i < AGENTS; i += 500) {
        const ks = Array.from({ length: Math.min(500, AGENTS - i) }, (_, k) => i + k);
        const ids = ks.map(() => newId('inv'));
        await db
          .insertInto('invoices')
          .values(ks.map((k, j) => ({
            id: ids[j]!, environment_id: envId, number: `B-${++n}`, account_id: `acct_bench_${k}`, subscription_id: `sub_bench_${k}`, rate_plan_id: plan, billing_cycle: 'monthly' as const,
            currency: 'USD', period_start: m, period_end: end, status: 'draft' as const, subtotal: '149.00', discount_total: '0.00', total: '149.00', amount_due: '149.00',
            issue_date: end, due_date: end, grace_until: end, usage: '{}', rated_at: new Date(),
          })))
          .execute();
        await db
          .insertInto('invoice_lines')
          .values(ks.flatMap((k, j) => [
            { invoice_id: ids[j]!, position: 1, charge_id: 'c1', charge_name: 'fee', model: 'flat', charge_type: 'recurring', unit: null, quantity: '1', unit_price: '100', tiers: null, detail: JSON.stringify({ rate_plan_id: plan }), proration: null, amount: '100.00', agent_instance_id: null, service_start: m, service_end: end, usage_query: null },
            { invoice_id: ids[j]!, position: 2, charge_id: 'c2', charge_name: 'actions', model: 'per_unit', charge_type: 'usage', unit: '@action', quantity: '49', unit_price: '1', tiers: null, detail: JSON.stringify({ rate_plan_id: plan }), proration: null, amount: '49.00', agent_instance_id: `ai_bench_${k}`, service_start: m, service_end: end, usage_query: null },
          ]))
          .execute();
      }
    }
    console.log(`postgres: ${n} invoices inserted in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    // The daily cost rollup, built from the 10M actions (the first step folds in every
    // row already in ClickHouse). The ack floor is a variable here: no sink runs.
    let floor = 0;
    const rollup = new CostRollup(db, ch, chDb, async () => ({ stream: 'bench', floor }), { readWaitMs: 0 });
    t = performance.now();
    await rollup.catchUp(0);
    console.log(`rollup: built from ${EVENTS} actions in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const reports: [string, (r?: CostRollup) => Promise<unknown>][] = [
      ['GET /v1/costs (30 days, by agent, customer, month)', (r) => queryCosts(ch, chDb, { environmentId: envId, from, to, byAgent: true, byAccount: true, granularity: 'month' }, r)],
      ['GET /v1/costs?agent_id=…', (r) => queryCosts(ch, chDb, { environmentId: envId, from, to, agentInstanceIds: ['ai_bench_7'], byAgent: true, byAccount: true, granularity: 'month' }, r)],
      ['GET /v1/reports/revenue?group_by=agent&granularity=week', async () => { const r = await loadRevenue(db, { environmentId: envId, from: months[0]!, to }, 'agent'); return revenueEntries(r.invoices, 'agent', 'week', r.maps); }],
      ['GET /v1/reports/pnl (month, itemized)', (r) => computePnl(db, ch, chDb, { environmentId: envId, from, to, granularity: 'month', groupBy: 'none', costs: 'itemized' }, r)],
      ['GET /v1/reports/pnl?group_by=customer&granularity=week', (r) => computePnl(db, ch, chDb, { environmentId: envId, from, to, granularity: 'week', groupBy: 'customer', costs: 'blended' }, r)],
      ['GET /api/v1/embeds/{id}?duration=7days', (r) => agentEmbed(db, ch, chDb, envId, 'ai_bench_7', 7, r)],
    ];
    const time = async (fn: () => Promise<unknown>, runs: number): Promise<number[]> => {
      await fn(); // warm-up
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        const s = performance.now();
        await fn();
        times.push(performance.now() - s);
      }
      return times;
    };
    console.log(`\nReports over ${EVENTS} actions: from raw events (the baseline: FINAL on every query) and through the daily rollup.`);
    console.log(`| report | raw p50 ms | raw p95 ms | rollup p50 ms | rollup p95 ms | p95 rollup / raw |\n|---|---|---|---|---|---|`);
    for (const [name, fn] of reports) {
      const raw = await time(() => fn(), Math.min(RUNS, 5));
      const rolled = await time(() => fn(rollup), RUNS);
      console.log(`| ${name} | ${pct(raw, 50).toFixed(0)} | ${pct(raw, 95).toFixed(0)} | ${pct(rolled, 50).toFixed(0)} | ${pct(rolled, 95).toFixed(0)} | ${(pct(rolled, 95) / pct(raw, 95)).toFixed(3)} |`);
      result.set(name, { rawP95: pct(raw, 95), rollupP50: pct(rolled, 50), rollupP95: pct(rolled, 95) });
    }

    // Keeping up: one step folding STEP_EVENTS new actions (a tenth of them copies of
    // existing events) into the rollup of EVENTS; and a rule change recomputing 7 days.
    const STEP_EVENTS = Number(process.env.BENCH_STEP_EVENTS ?? 100_000);
    await ch.command({
      query: `INSERT INTO ${chDb}.actions (environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, action_type, ts, ingested_at, user_id, anonymous_id, model, input_tokens, output_tokens, total_tokens, metadata, stream_seq)
        SELECT {env:String}, {org:String}, concat('ai_bench_', toString(k % {n:UInt64})), concat('acct_bench_', toString(k % {n:UInt64})),
          concat('e', toString(k)), 'client', 'llm_call', fromUnixTimestamp64Milli(toInt64({start:Int64} + (k * 7919) % {span:Int64})), now64(3), '', '', 'claude', 100, 50, 150, '{}', 1
        FROM (SELECT if(number % 10 = 0, number, {events:UInt64} + number) AS k FROM numbers({step:UInt64}))`,
      query_params: { env: envId, org: init.organization_id, n: AGENTS, start: from.getTime(), span: 30 * DAY_MS, events: EVENTS, step: STEP_EVENTS },
    });
    floor = 1;
    const steps: number[] = [];
    t = performance.now();
    await rollup.catchUp(0);
    steps.push(performance.now() - t);
    console.log(`\nrollup step: ${STEP_EVENTS} new actions folded into the rollup of ${EVENTS} in ${(steps[0]! / 1000).toFixed(2)} s (${((steps[0]! * 1000) / STEP_EVENTS).toFixed(1)} µs per action)`);
    const rule = (await rules.list(envId, {})).find((r) => r.name === 'infra')!;
    await rules.update(envId, rule.id, { rate: '0.0002', effective_from: new Date(today - 7 * DAY_MS).toISOString(), reallocate: true });
    t = performance.now();
    await rollup.catchUp(0);
    console.log(`rollup recompute after a rule change backdated 7 days: ${((performance.now() - t) / 1000).toFixed(2)} s`);
    const [viaRollup, viaRaw] = await Promise.all([
      queryCosts(ch, chDb, { environmentId: envId, from, to, granularity: 'day' }, rollup),
      queryCosts(ch, chDb, { environmentId: envId, from, to, granularity: 'day' }),
    ]);
    const same = JSON.stringify(viaRollup) === JSON.stringify(viaRaw);
    console.log(`rollup and raw events agree on every day's costs: ${same ? 'yes' : 'NO'}`);
    if (!same) process.exitCode = 1;
    return result;
  } finally {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${chDb}` }).catch(() => {});
    await closeClickHouse(ch);
    await db.destroy();
    await dropDatabase(dbUrl).catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
