/**
 * npm run bench:all-roles — `npm start`'s one process (every role) under a load of
 * BENCH_REQUESTS (20,000) 100-event JSON batches sent as fast as it acknowledges them
 * (autocannon, 32 connections): events/s acknowledged, events/s until every event is
 * queryable (GET /v1/usage, asked every 200 ms), the process's CPU an event over that
 * time and its peak RSS. Two variants alternate for BENCH_PAIRS (3) pairs, each run on
 * databases, a data directory and NATS names of its own:
 *   BENCH_A  npm start as it is (package.json's node options)
 *   BENCH_B  the same with TALLY_COST_ROLLUP_INTERVAL_MS=3600000: the billing role's cost
 *            rollup folds nothing during the run (what the rollup costs)
 * A variant is node options and KEY=VALUE environment variables, space-separated;
 * BENCH_ROLES (default: every role) is passed as --roles; rate limits are off.
 * Then costs live at a sustained load (issue 34; `costsLive` below): variant A under a
 * fixed rate (BENCH_COST_RATE events/s, default 50,000, for BENCH_COST_SECONDS, 60) with
 * BENCH_COST_PROBES (50; 0 skips it) probe actions carrying a known cost: acknowledgement
 * to cost visible in GET /v1/costs, p50/p99, and how many answers said `costs_behind`.
 * BENCH_PAIRS=0 runs that part alone.
 *   BENCH_B="--max-semi-space-size=32" npm run bench:all-roles
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { removeBenchState } from './cleanup.ts';
import { cpuSeconds, peakRssMb } from './proc.ts';

const ROOT = path.resolve(import.meta.dirname, '..');
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 20_000);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 3);
const EVENTS_PER_REQUEST = 100;
const PORT = Number(process.env.BENCH_PORT ?? 18070);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
/** `npm start`'s environment and node options, as a variant: `exec env K=V node OPTIONS bin/tally.js start`. */
const npmStart = /^exec (?:env )?(.*?) ?node (.*) bin\/tally\.js start$/
  .exec(JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts.start)!
  .slice(1)
  .join(' ')
  .trim();
const VARIANTS: [string, string][] = [
  ['A', process.env.BENCH_A ?? npmStart],
  ['B', process.env.BENCH_B ?? `${npmStart} TALLY_COST_ROLLUP_INTERVAL_MS=3600000`],
];
const ROLES = process.env.BENCH_ROLES ? ['--roles', process.env.BENCH_ROLES] : [];

type Result = { acked: number; queryable: number; cpuUsPerEvent: number; peakRssMb: number; non2xx: number };

/** Node options (`--…`) and environment (`KEY=VALUE`) of a variant. */
function parseVariant(spec: string): { nodeArgs: string[]; env: Record<string, string> } {
  const words = spec.split(' ').filter(Boolean);
  const env = Object.fromEntries(words.filter((w) => !w.startsWith('-')).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
  return { nodeArgs: words.filter((w) => w.startsWith('-')), env };
}

/** Starts Tally and resolves once it has printed the first start's keys. */
function startTally(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; admin: string; sdk: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (!out.includes('Keep these keys')) return;
      resolve({ child, admin: /admin API key:\s+(\S+)/.exec(out)![1]!, sdk: /SDK key:\s+(\S+)/.exec(out)![1]! });
    });
    child.once('exit', (code) => reject(new Error(`tally start exited with ${code}`)));
  });
}

/** A running `npm start` process of its own (databases, data directory, NATS names), its keys and base URL. */
type Started = { child: ChildProcess; base: string; admin: Record<string, string>; sdk: string };

/** Starts Tally as `spec` says on fresh databases, runs `fn`, then stops it and removes everything it made. */
async function withTally<T>(spec: string, fn: (t: Started) => Promise<T>): Promise<T> {
  const suffix = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-bench-all-'));
  const dbUrl = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  dbUrl.pathname = `/tally_bench_${suffix}`;
  const prefix = `BENCH${suffix}_`;
  const { nodeArgs, env } = parseVariant(spec);
  let child: ChildProcess | undefined;
  try {
    const started = await startTally([...nodeArgs, 'bin/tally.js', 'start', ...ROLES], {
      ...process.env,
      DATABASE_URL: dbUrl.toString(),
      TALLY_NATS_PREFIX: prefix,
      TALLY_DATA_DIR: dataDir,
      TALLY_HTTP_PORT: String(PORT),
      TALLY_OTLP_GRPC_PORT: 'off',
      TALLY_RATE_LIMITS: 'off',
      TALLY_LOG_LEVEL: 'warn',
      ...env,
    });
    child = started.child;
    return await fn({ child, base: `http://127.0.0.1:${PORT}`, admin: { authorization: `Bearer ${started.admin}`, 'content-type': 'application/json' }, sdk: started.sdk });
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    await removeBenchState({ natsUrl: NATS_URL, prefix, dbUrl: dbUrl.toString(), dataDir });
  }
}

async function runOnce(spec: string): Promise<Result> {
  return withTally(spec, async ({ child, base, admin, sdk }) => {
    const agent = (await (await fetch(`${base}/v1/agents`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench', type: 'custom' }) })).json()) as { id: string };
    const body = JSON.stringify(Array.from({ length: EVENTS_PER_REQUEST }, () => ({ agent_key: agent.id, action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } })));
    const events = REQUESTS * EVENTS_PER_REQUEST;
    const usageUrl = `${base}/v1/usage?agent_id=${agent.id}&start_date=${new Date(Date.now() - 86_400_000).toISOString()}&end_date=${new Date(Date.now() + 86_400_000).toISOString()}`;
    const pid = child.pid!;
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const load = await autocannon({ url: `${base}/v1/actions`, method: 'POST', body, headers: { authorization: `Bearer ${sdk}`, 'content-type': 'application/json' }, connections: 32, amount: REQUESTS });
    const ackedSeconds = (performance.now() - t0) / 1000;
    for (;;) {
      const usage = (await (await fetch(usageUrl, { headers: admin })).json()) as { usage: { actions: string }[] };
      if (Number(usage.usage[0]?.actions ?? 0) >= events) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(pid) - cpu0;
    return { acked: events / ackedSeconds, queryable: events / seconds, cpuUsPerEvent: (cpu * 1e6) / events, peakRssMb: peakRssMb(pid), non2xx: load.non2xx + load.errors };
  });
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Costs live at a sustained load (issue 34): probes, and the load's rate and length. */
const COST_PROBES = Number(process.env.BENCH_COST_PROBES ?? 50);
const COST_SECONDS = Number(process.env.BENCH_COST_SECONDS ?? 60);
/** Events/s offered (100-event batches at a fixed rate): below what the process acknowledges flat out (~135–165k queryable events/s in the 2026-11-23 pairs). */
const COST_RATE = Number(process.env.BENCH_COST_RATE ?? 50_000);
/** How often the watcher asks `GET /v1/costs` for the probes' agent (each answer is a query in the process measured). */
const COST_POLL_MS = Number(process.env.BENCH_COST_POLL_MS ?? 100);

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

/**
 * Costs live at the sustained load: `npm start`'s process (variant A) takes 100-event
 * batches at COST_RATE events/s for COST_SECONDS, with a cost rule pricing them (the
 * rollup folds every action, priced or not); meanwhile COST_PROBES probe actions of an
 * agent of their own, each carrying `metadata.cost` (one exact amount), are sent one at
 * a time, evenly from the 5th second to 5 s before the end. A watcher asks `GET /v1/costs`
 * for the probes' agent every COST_POLL_MS (the current month: whole UTC days, so the
 * answer comes from the daily rollup, which each query brings up to the sink within its
 * read budget) and records when each probe's cost shows (its record's `actions`) and every
 * answer's `costs_behind`. Goal: p99 acknowledgement -> cost visible ≤ 2 s, and
 * `costs_behind` never true.
 */
async function costsLive(spec: string): Promise<void> {
  await withTally(spec, async ({ child, base, admin, sdk }) => {
    const post = async (p: string, body: unknown, headers = admin) => (await fetch(`${base}${p}`, { method: 'POST', headers, body: JSON.stringify(body) })).json() as Promise<{ id: string }>;
    const agent = await post('/v1/agents', { name: 'bench', type: 'custom' });
    const probe = await post('/v1/agents', { name: 'cost probe', type: 'custom' });
    const rule = await post('/v1/cost_rules', { name: 'gpt-4o input', category: 'llm', currency: 'USD', basis: 'per_input_token', model_rates: { 'gpt-4o': '0.0000025' } });
    if (!rule.id) throw new Error(`cost rule not created: ${JSON.stringify(rule)}`);
    const sdkHeaders = { authorization: `Bearer ${sdk}`, 'content-type': 'application/json' };
    const costsOf = async (agentId: string) => {
      const t = performance.now();
      const r = (await (await fetch(`${base}/v1/costs?agent_id=${agentId}`, { headers: admin })).json()) as { costs: { actions: number }[]; costs_behind: boolean };
      return { actions: r.costs.reduce((n, c) => n + c.actions, 0), behind: r.costs_behind, ms: performance.now() - t };
    };
    await costsOf(probe.id); // the rollup's first step (over an empty store) before the load
    const body = JSON.stringify(Array.from({ length: EVENTS_PER_REQUEST }, () => ({ agent_key: agent.id, action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } })));
    const probeBody = JSON.stringify({ agent_key: probe.id, action_type: 'cost_probe', metadata: { cost: { amount: '0.001', currency: 'USD', category: 'llm' } } });
    const acks: number[] = [];
    const seenAt: number[] = [];
    const answers: { behind: boolean; ms: number; during: boolean }[] = [];
    let loading = true;
    const pid = child.pid!;
    const cpu0 = cpuSeconds(pid);
    const t0 = Date.now();
    const load = autocannon({ url: `${base}/v1/actions`, method: 'POST', body, headers: sdkHeaders, connections: 32, duration: COST_SECONDS, overallRate: COST_RATE / EVENTS_PER_REQUEST });
    const prober = (async () => {
      const every = ((COST_SECONDS - 10) * 1000) / Math.max(1, COST_PROBES - 1);
      for (let i = 0; i < COST_PROBES; i++) {
        const at = t0 + 5000 + i * every;
        if (at > Date.now()) await new Promise((r) => setTimeout(r, at - Date.now()));
        const r = await fetch(`${base}/v1/actions`, { method: 'POST', headers: sdkHeaders, body: probeBody });
        await r.arrayBuffer();
        if (r.status === 200) acks.push(Date.now());
      }
    })();
    const watcher = (async () => {
      while (loading || seenAt.length < acks.length) {
        const c = await costsOf(probe.id);
        answers.push({ behind: c.behind, ms: c.ms, during: loading });
        while (seenAt.length < Math.min(c.actions, acks.length)) seenAt.push(Date.now());
        if (!loading && Date.now() - (acks.at(-1) ?? 0) > 60_000) break;
        await new Promise((r) => setTimeout(r, COST_POLL_MS));
      }
    })();
    const result = await load;
    const loadEnd = Date.now();
    const loadSeconds = (loadEnd - t0) / 1000;
    const cpu = cpuSeconds(pid) - cpu0;
    await prober;
    loading = false;
    await watcher;
    // Whether the process kept up: the load's own costs all counted, and how long after the load.
    const acked = result['2xx'] * EVENTS_PER_REQUEST;
    let counted = 0;
    while (Date.now() - loadEnd < 120_000 && (counted = (await costsOf(agent.id)).actions) < acked) await new Promise((r) => setTimeout(r, 200));
    const caughtUp = (Date.now() - loadEnd) / 1000;
    const latencies = seenAt.map((t, i) => t - acks[i]!);
    const during = answers.filter((a) => a.during);
    const behind = during.filter((a) => a.behind).length;
    console.log(`\n## Costs live at a sustained load (issue 34; ${spec})\n`);
    console.log(`- load: offered ${fmt(COST_RATE)} events/s for ${COST_SECONDS} s, acknowledged ${fmt(acked / loadSeconds)} events/s (p99 ${result.latency.p99} ms, non-2xx ${result.non2xx + result.errors}); the process ${(cpu / loadSeconds).toFixed(2)} cores busy, peak RSS ${fmt(peakRssMb(pid))} MB`);
    console.log(`- the load's ${fmt(acked)} events all in GET /v1/costs ${counted >= acked ? `${caughtUp.toFixed(1)} s after the load ended` : `NOT within 120 s (${fmt(counted)} counted)`} (asked once the watcher saw every probe)`);
    console.log(`- a probe's cost visible in GET /v1/costs after its acknowledgement: p50 ${pct(latencies, 0.5)} ms, p99 ${pct(latencies, 0.99)} ms, max ${Math.max(...latencies)} ms over ${latencies.length} of ${COST_PROBES} probes (goal: p99 ≤ 2,000 ms)`);
    console.log(`- each probe in order (s): ${latencies.map((l) => (l / 1000).toFixed(1)).join(' ')}`);
    console.log(`- costs_behind true in ${behind} of ${during.length} answers during the load (${((100 * behind) / Math.max(1, during.length)).toFixed(1)}%; goal: never), ${answers.filter((a) => !a.during && a.behind).length} of ${answers.length - during.length} after it; an answer took p50 ${pct(answers.map((a) => a.ms), 0.5).toFixed(0)} ms, p99 ${pct(answers.map((a) => a.ms), 0.99).toFixed(0)} ms`);
    console.log(`\nBENCH_COSTS visible p50 ${pct(latencies, 0.5)} ms p99 ${pct(latencies, 0.99)} ms (${latencies.length} probes), costs_behind ${behind}/${during.length} answers during the load, offered ${COST_RATE} events/s acknowledged ${Math.round(acked / loadSeconds)}`);
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`# npm start's process (${ROLES[1] ?? 'every role'}) under ${fmt(REQUESTS)} 100-event batches — ${new Date().toISOString()}, ${os.cpus().length} cores`);
for (const [name, spec] of VARIANTS) console.log(`${name}: ${spec}`);
if (PAIRS > 0) console.log('\n| run | events/s acknowledged | events/s queryable | CPU µs an event | peak RSS MB |\n|---|---|---|---|---|');
const results = new Map<string, Result[]>(VARIANTS.map(([name]) => [name, []]));
for (let i = 0; i < PAIRS; i++) {
  for (const [name, spec] of VARIANTS) {
    const r = await runOnce(spec);
    results.get(name)!.push(r);
    console.log(`| ${name}${i + 1} | ${fmt(r.acked)} | ${fmt(r.queryable)} | ${r.cpuUsPerEvent.toFixed(2)} | ${fmt(r.peakRssMb)} |${r.non2xx ? ` ${r.non2xx} requests not answered 2xx` : ''}`);
  }
}
if (PAIRS > 0) {
  console.log('\nMedians:');
  for (const [name, rs] of results) {
    console.log(`- ${name}: ${fmt(median(rs.map((r) => r.queryable)))} events/s queryable, ${median(rs.map((r) => r.cpuUsPerEvent)).toFixed(2)} µs of CPU an event, peak RSS ${fmt(median(rs.map((r) => r.peakRssMb)))} MB`);
  }
  const [a, b] = [...results.values()].map((rs) => median(rs.map((r) => r.cpuUsPerEvent)));
  console.log(`CPU an event, B / A: ${(b! / a!).toFixed(2)} (pair by pair: ${results.get('A')!.map((r, i) => (results.get('B')![i]!.cpuUsPerEvent / r.cpuUsPerEvent).toFixed(2)).join(', ')})`);
}
if (COST_PROBES > 0) await costsLive(VARIANTS[0]![1]);
