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
 *   BENCH_B="--max-semi-space-size=32" npm run bench:all-roles
 */
import autocannon from 'autocannon';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { dropDatabase } from '../shared/db/postgres.ts';
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

async function runOnce(spec: string): Promise<Result> {
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
    const base = `http://127.0.0.1:${PORT}`;
    const admin = { authorization: `Bearer ${started.admin}`, 'content-type': 'application/json' };
    const agent = (await (await fetch(`${base}/v1/agents`, { method: 'POST', headers: admin, body: JSON.stringify({ name: 'bench', type: 'custom' }) })).json()) as { id: string };
    const body = JSON.stringify(Array.from({ length: EVENTS_PER_REQUEST }, () => ({ agent_key: agent.id, action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } })));
    const events = REQUESTS * EVENTS_PER_REQUEST;
    const usageUrl = `${base}/v1/usage?agent_id=${agent.id}&start_date=${new Date(Date.now() - 86_400_000).toISOString()}&end_date=${new Date(Date.now() + 86_400_000).toISOString()}`;
    const pid = child.pid!;
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const load = await autocannon({ url: `${base}/v1/actions`, method: 'POST', body, headers: { authorization: `Bearer ${started.sdk}`, 'content-type': 'application/json' }, connections: 32, amount: REQUESTS });
    const ackedSeconds = (performance.now() - t0) / 1000;
    for (;;) {
      const usage = (await (await fetch(usageUrl, { headers: admin })).json()) as { usage: { actions: string }[] };
      if (Number(usage.usage[0]?.actions ?? 0) >= events) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(pid) - cpu0;
    return { acked: events / ackedSeconds, queryable: events / seconds, cpuUsPerEvent: (cpu * 1e6) / events, peakRssMb: peakRssMb(pid), non2xx: load.non2xx + load.errors };
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child!.once('exit', r));
    }
    const nc = await connect({ servers: NATS_URL });
    const jsm = await jetstreamManager(nc);
    for await (const s of jsm.streams.list()) if (s.config.name.startsWith(prefix)) await jsm.streams.delete(s.config.name);
    await nc.close();
    await dropDatabase(dbUrl.toString()).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`# npm start's process (${ROLES[1] ?? 'every role'}) under ${fmt(REQUESTS)} 100-event batches — ${new Date().toISOString()}, ${os.cpus().length} cores`);
for (const [name, spec] of VARIANTS) console.log(`${name}: ${spec}`);
console.log('\n| run | events/s acknowledged | events/s queryable | CPU µs an event | peak RSS MB |\n|---|---|---|---|---|');
const results = new Map<string, Result[]>(VARIANTS.map(([name]) => [name, []]));
for (let i = 0; i < PAIRS; i++) {
  for (const [name, spec] of VARIANTS) {
    const r = await runOnce(spec);
    results.get(name)!.push(r);
    console.log(`| ${name}${i + 1} | ${fmt(r.acked)} | ${fmt(r.queryable)} | ${r.cpuUsPerEvent.toFixed(2)} | ${fmt(r.peakRssMb)} |${r.non2xx ? ` ${r.non2xx} requests not answered 2xx` : ''}`);
  }
}
console.log('\nMedians:');
for (const [name, rs] of results) {
  console.log(`- ${name}: ${fmt(median(rs.map((r) => r.queryable)))} events/s queryable, ${median(rs.map((r) => r.cpuUsPerEvent)).toFixed(2)} µs of CPU an event, peak RSS ${fmt(median(rs.map((r) => r.peakRssMb)))} MB`);
}
const [a, b] = [...results.values()].map((rs) => median(rs.map((r) => r.cpuUsPerEvent)));
console.log(`CPU an event, B / A: ${(b! / a!).toFixed(2)} (pair by pair: ${results.get('A')!.map((r, i) => (results.get('B')![i]!.cpuUsPerEvent / r.cpuUsPerEvent).toFixed(2)).join(', ')})`);
