/**
 * npm run bench:rollup-step — what one cost rollup step costs against the history it is
 * checked against: for each size of BENCH_SIZES (default 1M, 10M counted events; actions
 * of the last 30 days over BENCH_AGENTS (1,000) agents, generated server-side), the
 * rollup is built (a first step over everything), then BENCH_STEPS (5) steps of
 * BENCH_STEP_EVENTS (100,000) new actions each, a tenth of them later copies of counted
 * events (duplicates the lookup must find), are folded in, alternating the counted-copy
 * lookup of one server (`keyed`: point lookups in `cost_counted`) with the scan of
 * `cost_events`' key hashes a cluster uses (`scan`; BENCH_LOOKUPS=keyed to skip it).
 * Prints each step, the median µs an action per lookup and size, the growth between sizes
 * (1.0: flat), the process's peak RSS, and whether the rollup and the raw events agree.
 * BENCH_PROFILE=1 prints every statement of a step with the engine's read counters (system.events);
 * BENCH_SETTLE=0 times steps without first waiting for merges to finish.
 * Run under the machine-wide lock: `flock /tmp/tally-bench.lock npm run bench:rollup-step`.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeClickHouse, openClickHouse, type ClickHouseClient } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { parseCommonConfig } from '../shared/config/common.ts';
import { createDb, dropDatabase, ensureDatabase, migrate } from '../shared/db/postgres.ts';
import { queryCosts } from '../billing/costs/cost-query.ts';
import { CostRuleStore } from '../billing/costs/cost-rules.ts';
import { CostRollup } from '../billing/costs/cost-rollup.ts';

const SIZES = (process.env.BENCH_SIZES ?? '1000000,10000000').split(',').map(Number);
const AGENTS = Number(process.env.BENCH_AGENTS ?? 1_000);
const STEPS = Number(process.env.BENCH_STEPS ?? 5);
const STEP_EVENTS = Number(process.env.BENCH_STEP_EVENTS ?? 100_000);
const LOOKUPS = (process.env.BENCH_LOOKUPS ?? 'keyed,scan').split(',') as ('keyed' | 'scan')[];
const DAY_MS = 86_400_000;
/** BENCH_PROFILE=1: each statement of each step with its rows and bytes read (chDB's counters, not noisy) and time. */
const PROFILE = process.env.BENCH_PROFILE === '1';
/**
 * BENCH_SETTLE (default 1): before each step, wait until no merge of the database runs, so
 * a step is not timed against the merges of the history the bench has just written
 * (10M rows inserted in a minute, which a real history is not). 0 times them together.
 */
const SETTLE = process.env.BENCH_SETTLE !== '0';
/**
 * BENCH_QUIET_STEPS=1: before a size's steps (after its insert and build, which may run on a
 * busy machine, niced), wait until the 1-minute load average is under BENCH_QUIET_LOAD (1.5),
 * at most BENCH_QUIET_MAX_SECONDS (3600), then take the machine-wide bench lock
 * (/tmp/tally-bench.lock, as `flock` does): a 100M build takes an hour, its steps a minute.
 */
const QUIET = process.env.BENCH_QUIET_STEPS === '1';
const QUIET_LOAD = Number(process.env.BENCH_QUIET_LOAD ?? 1.5);
const QUIET_MAX_S = Number(process.env.BENCH_QUIET_MAX_SECONDS ?? 3600);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-bench-rollup-'));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const peakMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(0);

/** Waits (up to 10 minutes) until no merge or mutation of the database runs; prints how long it took. */
async function settled(ch: ClickHouseClient, database: string): Promise<void> {
  const t = performance.now();
  for (;;) {
    const [row] = await (await ch.query({ query: 'SELECT count() AS n FROM system.merges WHERE database = {db:String}', query_params: { db: database }, format: 'JSONEachRow' })).json<{ n: string }>();
    if (Number(row!.n) === 0 || performance.now() - t > 600_000) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const ms = performance.now() - t;
  if (ms > 500) console.log(`  (waited ${(ms / 1000).toFixed(1)} s for merges to finish)`);
}

/** Waits for a quiet machine (no lock held meanwhile: other benches go first), then holds the bench lock (a `flock` child); returns the release. */
async function quietMachine(): Promise<() => void> {
  const t = performance.now();
  while (os.loadavg()[0]! >= QUIET_LOAD && performance.now() - t < QUIET_MAX_S * 1000) await new Promise((r) => setTimeout(r, 5000));
  const holder = spawn('flock', ['/tmp/tally-bench.lock', 'sh', '-c', 'echo locked; read x'], { stdio: ['pipe', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('error', reject);
  });
  console.log(`  (waited ${((performance.now() - t) / 1000).toFixed(0)} s for a quiet machine and the bench lock; load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  return () => holder.stdin.end();
}

/** Bytes of the files under a directory. */
function duBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue;
    // A merge's temporary file may be gone by the time it is looked at.
    total += statSync(path.join(e.parentPath, e.name), { throwIfNoEntry: false })?.size ?? 0;
  }
  return total;
}

/** The highest RSS sampled (every 20 ms) while `f` runs: a step's own peak, which the process's maxRSS hides after a larger one. */
async function sampledPeakMb<T>(f: () => Promise<T>): Promise<[T, string]> {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  try {
    const out = await f();
    peak = Math.max(peak, process.memoryUsage.rss());
    return [out, (peak / 1048576).toFixed(0)];
  } finally {
    clearInterval(timer);
  }
}

async function main() {
  console.log(`# Cost rollup step benchmark — ${new Date().toISOString()}, ${os.cpus().length} cores, ${AGENTS} agents, ${STEPS} steps of ${STEP_EVENTS} actions a lookup\n`);
  const results: { events: number; us: Map<string, number> }[] = [];
  try {
    for (const events of SIZES) results.push({ events, us: await runSize(events) });
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
  console.log(`\n## Median µs an action of a ${STEP_EVENTS}-action step, by counted events\n`);
  console.log(`| lookup | ${results.map((r) => r.events.toLocaleString('en-US')).join(' | ')} | largest / smallest |`);
  console.log(`|---|${results.map(() => '---|').join('')}---|`);
  for (const l of LOOKUPS.flatMap((l) => [l, `${l} (CPU)`])) {
    const us = results.map((r) => r.us.get(l)!);
    console.log(`| ${l} | ${us.map((x) => x.toFixed(2)).join(' | ')} | ${(us.at(-1)! / us[0]!).toFixed(2)} |`);
  }
  console.log(`\npeak RSS of the process (chDB in it): ${peakMb()} MB`);
}

async function runSize(EVENTS: number): Promise<Map<string, number>> {
  const suffix = `${Date.now().toString(36)}_${EVENTS}`;
  const config = parseCommonConfig({ TALLY_DATA_DIR: dataDir, CLICKHOUSE_DATABASE: `bench_rollup_${suffix}` });
  const dbUrl = `postgres://postgres@127.0.0.1:5432/tally_bench_rollup_${suffix}`;
  const chDb = config.clickhouse.database;
  console.log(`## ${EVENTS.toLocaleString('en-US')} counted events`);
  await ensureDatabase(dbUrl);
  const db = createDb(dbUrl, { max: 4 });
  await migrate(db as never);
  const ch = await openClickHouse(config.clickhouse);
  await migrateClickHouse(ch, chDb);
  const envId = 'env_bench';
  const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const from = new Date(today - 30 * DAY_MS);
  const to = new Date(today + DAY_MS);
  const insert = (count: number, firstKey: string, seq: number) =>
    ch.command({
      query: `INSERT INTO ${chDb}.actions (environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, action_type, ts, ingested_at, user_id, anonymous_id, model, input_tokens, output_tokens, total_tokens, metadata, stream_seq)
        SELECT {env:String}, 'org', concat('ai_bench_', toString(k % {n:UInt64})), concat('acct_bench_', toString(k % {n:UInt64})),
          concat('e', toString(k)), 'client', if(k % 5 = 0, 'tool_call', 'llm_call'),
          fromUnixTimestamp64Milli(toInt64({start:Int64} + (k * 7919) % {span:Int64})), now64(3), '', '', if(k % 3 = 0, 'gpt-4o', 'claude'),
          100 + k % 1000, 50 + k % 300, 150 + k % 1000 + 50 + k % 300, if(k % 100 = 0, '{"cost":{"amount":"0.01","currency":"USD","category":"api"}}', '{}'), {seq:UInt64}
        FROM (SELECT ${firstKey} AS k FROM numbers({count:UInt64}))`,
      query_params: { env: envId, n: AGENTS, start: from.getTime(), span: 30 * DAY_MS, count, seq },
    });
  const us = new Map<string, number[]>(LOOKUPS.map((l) => [l, []]));
  // The process's CPU time (chDB's threads included) a step: steadier than wall time on a shared machine.
  const cpu = new Map<string, number[]>(LOOKUPS.map((l) => [l, []]));
  try {
    let t = performance.now();
    await insert(EVENTS, 'number', 0);
    console.log(`clickhouse: ${EVENTS} actions inserted in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const rules = new CostRuleStore(ch, chDb, db);
    const since = { effective_from: new Date(from.getTime() - DAY_MS).toISOString(), reallocate: true };
    await rules.create(envId, { name: 'in', category: 'llm', currency: 'USD', basis: 'per_input_token', model_rates: { 'gpt-4o': '0.0000025', claude: '0.000003' }, action_type: 'llm_call', ...since });
    await rules.create(envId, { name: 'infra', category: 'infrastructure', currency: 'USD', basis: 'per_action', rate: '0.0001', ...since });

    let floor = 0;
    const statements: Profiled[] = [];
    const profiled = PROFILE ? profiledClient(ch, statements) : ch;
    const rollups = new Map(LOOKUPS.map((l) => [l, new CostRollup(db, profiled, chDb, async () => ({ stream: 'bench', floor }), { readWaitMs: 0, lookup: l })]));
    const first = rollups.get(LOOKUPS[0]!)!;
    t = performance.now();
    const [, buildPeak] = await sampledPeakMb(() => first.catchUp(0));
    if (PROFILE) printStatements(statements.splice(0));
    console.log(`rollup built from ${EVENTS} actions in ${((performance.now() - t) / 1000).toFixed(1)} s (peak RSS during the build ${buildPeak} MB, of the process so far ${peakMb()} MB)`);

    let fresh = EVENTS;
    const release = QUIET ? await quietMachine() : () => {};
    try {
    for (let i = 1; i <= STEPS * LOOKUPS.length; i++) {
      const lookup = LOOKUPS[(i - 1) % LOOKUPS.length]!;
      // A tenth of the step are later copies of counted events spread over the key range.
      await insert(STEP_EVENTS, `if(number % 10 = 0, (number * 97) % ${fresh}, ${fresh} + number)`, i);
      fresh += STEP_EVENTS;
      floor = i;
      if (SETTLE) await settled(ch, chDb);
      t = performance.now();
      const cpu0 = process.cpuUsage();
      const [, stepPeak] = await sampledPeakMb(() => rollups.get(lookup)!.catchUp(0));
      const ms = performance.now() - t;
      const c = process.cpuUsage(cpu0);
      const cpuUs = (c.user + c.system) / STEP_EVENTS;
      us.get(lookup)!.push((ms * 1000) / STEP_EVENTS);
      cpu.get(lookup)!.push(cpuUs);
      if (PROFILE) printStatements(statements.splice(0));
      console.log(`step ${i} (${lookup}): ${STEP_EVENTS} actions over ${(fresh - STEP_EVENTS).toLocaleString('en-US')} counted in ${ms.toFixed(0)} ms (${((ms * 1000) / STEP_EVENTS).toFixed(2)} µs an action; CPU ${cpuUs.toFixed(2)} µs an action), peak RSS during the step ${stepPeak} MB, load average ${os.loadavg()[0]!.toFixed(2)}`);
    }
    } finally {
      release();
    }
    // Disk: the parts of each table (system.parts) and the data directory as a whole (cost_counted's RocksDB files included).
    const disk = await (await ch.query({ query: `SELECT table, sum(bytes_on_disk) AS b, sum(rows) AS r FROM system.parts WHERE database = {db:String} AND active GROUP BY table ORDER BY b DESC`, query_params: { db: chDb }, format: 'JSONEachRow' })).json<{ table: string; b: string; r: string }>();
    console.log(`disk: ${disk.map((d) => `${d.table} ${(Number(d.b) / 1e6).toFixed(0)} MB (${Number(d.r).toLocaleString('en-US')} rows)`).join(', ')}; the data directory ${(duBytes(dataDir) / 1e6).toFixed(0)} MB`);
    const [viaRollup, viaRaw] = await Promise.all([
      queryCosts(ch, chDb, { environmentId: envId, from, to, granularity: 'day', byAgent: true }, first),
      queryCosts(ch, chDb, { environmentId: envId, from, to, granularity: 'day', byAgent: true }),
    ]);
    const same = JSON.stringify(viaRollup) === JSON.stringify(viaRaw);
    console.log(`rollup and raw events agree on every agent's and day's costs: ${same ? 'yes' : 'NO'}`);
    if (!same) process.exitCode = 1;
    for (const r of rollups.values()) await r.stop();
  } finally {
    await ch.command({ query: `DROP DATABASE IF EXISTS ${chDb}` }).catch(() => {});
    await closeClickHouse(ch);
    await db.destroy();
    await dropDatabase(dbUrl).catch(() => {});
  }
  return new Map([...[...us].map(([l, xs]) => [l, median(xs)] as const), ...[...cpu].map(([l, xs]) => [`${l} (CPU)`, median(xs)] as const)]);
}

/** The engine's counters a statement is profiled by (system.events: cumulative, read before and after it). */
const COUNTERS = ['SelectedParts', 'SelectedMarks', 'SelectedRows', 'SelectedBytes', 'MergedRows', 'InsertedRows'] as const;
type Profiled = { what: string; ms: number; counters: Record<string, number> };

/** A client whose commands record their statement, time and the engine's read counters (reads of system.events not counted). */
function profiledClient(ch: ClickHouseClient, out: Profiled[]): ClickHouseClient {
  const counters = async () => {
    const rows = await (await ch.query({ query: `SELECT event, value FROM system.events WHERE event IN (${COUNTERS.map((c) => `'${c}'`).join(',')})`, format: 'JSONEachRow' })).json<{ event: string; value: string }>();
    return Object.fromEntries(rows.map((r) => [r.event, Number(r.value)]));
  };
  return new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop !== 'command') return Reflect.get(target, prop, receiver);
      return async (p: Parameters<ClickHouseClient['command']>[0]) => {
        const before = await counters();
        const t = performance.now();
        const r = await target.command(p);
        const ms = performance.now() - t;
        const after = await counters();
        out.push({ what: p.query.replace(/\s+/g, ' ').trim().slice(0, 70), ms, counters: Object.fromEntries(COUNTERS.map((c) => [c, (after[c] ?? 0) - (before[c] ?? 0)])) });
        return r;
      };
    },
  });
}

function printStatements(xs: Profiled[]): void {
  for (const x of xs) {
    const c = x.counters;
    console.log(`  ${x.ms.toFixed(0).padStart(6)} ms | parts ${c.SelectedParts} marks ${c.SelectedMarks} rows ${c.SelectedRows} MB ${((c.SelectedBytes ?? 0) / 1e6).toFixed(1)} | merged ${c.MergedRows} inserted ${c.InsertedRows} | ${x.what}`);
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
