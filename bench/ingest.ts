/**
 * npm run bench:ingest — drives the ingest tier with autocannon (no pipelining) and
 * prints, from one run on this machine: which HTTP server Tally ran (TALLY_HTTP_SERVER,
 * default node: Node's HTTP stack; uws where its binary loads) on which Node.js, a
 * baseline (a bare server of the same kind + JSON.parse, 202; and, where uWS loads and
 * Tally runs on Node's stack, bare Node HTTP against bare uWS: the stack's own cost), then
 * acknowledged events/s and p50/p99 latency for single events and 100-event batches
 * (JSON, msgpack) as ratios to the baseline, the events a JetStream message carried (ingest's
 * micro-batches), peak RSS per role (ingest's per phase), ack-to-queryable
 * latency, and a sustained run of ingest and sink together with the sink's lag, followed by
 * what the run's probes cost the sink, and the batch run once more (the sink stopped) as a
 * check of the machine's drift meanwhile.
 * Phases: (1) ingest alone (the sink stopped, batches wait in JetStream): durable
 * acknowledgement throughput; (2) the raw insert reference runs, then the sink starts
 * and drains that backlog (its insert rate); (3) ingest and sink together for BENCH_SUSTAIN_SECONDS.
 * Options (env): BENCH_SECONDS (default 10), BENCH_SUSTAIN_SECONDS (60), BENCH_CONNECTIONS (64),
 * BENCH_ROUNDS (5: alternating baseline and single-event runs, median ratio reported),
 * BENCH_REF_ROUNDS (3: rounds of the sink's raw insert reference, median reported),
 * BENCH_INGEST_PROCESSES (1; more share the port through SO_REUSEPORT), BENCH_SINK_LOG_LEVEL (the sink's log level),
 * BENCH_SUSTAIN_RATE (events/s offered in the sustained run; default 0: as fast as ingest acknowledges),
 * BENCH_INGEST_NODE_ARGS (node options of the ingest processes; default --max-semi-space-size=32),
 * BENCH_SINK_NODE_ARGS (node options of the sink process; default docker-compose's sink's, --max-semi-space-size=32
 * --initial-old-space-size=128; add e.g. --cpu-prof --cpu-prof-dir=/tmp/prof),
 * BENCH_PROBE_POLL_MS (25: how often the sustained run asks whether its probes are queryable).
 * Spend limits (README "Stopping runaway spend"): after the phases above, a `sink,billing,api`
 * process starts, 10,000 limits are configured (1,000 of them reached `block` limits of
 * other accounts, pushed to ingest), and the batch and sustained runs are repeated with
 * and without them (alternating, BENCH_LIMIT_ROUNDS, default 3; sustained
 * BENCH_LIMIT_SUSTAIN_SECONDS, default 20): their ratios (goal ≥ 0.97), and the time from
 * the acknowledgement of the event crossing a block limit to the first 402, p50/p99 over
 * BENCH_LIMIT_CROSSINGS (default 20) crossings of each metric made during the sustained run
 * with limits: quantity (an agent instance's block limit of 200 actions a day), spend (an
 * account of its own on a 0.01 USD per-action plan, with a spend block limit of 200 actions'
 * worth) and available balance (the same account with a grant of that much and a block limit
 * of available balance 0), created through the API; the same crossing agents' senders and
 * limits run in the sustained run without the 10,000 limits too, so both runs carry the
 * same load.
 * BENCH_ONLY_LIMITS=1 skips to that part (ingest, then the limits phase); BENCH_BILLING_NODE_ARGS are
 * the node options of its `sink,billing,api` process. It prints each run's CPU by process
 * (ingest, sink/billing/api, nats-server, Postgres, the benchmark itself), each run after
 * the sink caught up, and first each process's CPU idle (no load, BENCH_LIMIT_IDLE_SECONDS,
 * default 5) without and with the limits: their fixed cost (`BENCH_LIMITS_IDLE`).
 * The sink's references (phase 2): the raw insert (BENCH_REF_ROUNDS) and the bare consumer
 * (bench/bare-consumer.ts: the same messages, pulled from a copy of the stream with the
 * sink's consumer settings, inserted as Native with no Tally code; BENCH_BARE_ROUNDS,
 * default 2: one before the sink, one after; goal: the sink ≥ 0.85 of it, issue 34).
 * BENCH_ONLY_SINK=1 runs that phase alone, on a backlog of BENCH_SECONDS of 100-event JSON batches.
 * BENCH_SINK_ROLES: the roles of the sink's process (default `sink,api`, the api role answering
 * the sustained run's probes; with BENCH_ONLY_SINK, `sink` as docker-compose runs it). The api
 * role's live tail (billing/live/tail.ts) reads the stream's messages ahead of the sink, in the
 * same process: while the sink drains a backlog that doubled its CPU a row (docs/performance.md).
 * Every process it starts gets MALLOC_ARENA_MAX=2, as `npm start` and the image run Tally
 * (set MALLOC_ARENA_MAX to compare).
 */
import autocannon from 'autocannon';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, rmSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { pack } from 'msgpackr';
import { connect } from '@nats-io/transport-node';
import { DiscardPolicy, jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { createDb, dropDatabase } from '../shared/db/postgres.ts';
import { createAgentInstance } from '../billing/catalog/agent-instances.ts';
import { natsNames } from '../shared/nats/names.ts';
import { hashSecret } from '../shared/ids.ts';
import { Tally } from '../sdk/src/index.ts';
import { cpuSeconds, peakRssMb } from './proc.ts';
import { loadUws } from '../shared/http/uws-server.ts';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SUSTAIN = Number(process.env.BENCH_SUSTAIN_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
/**
 * One ingest process: on 2 cores, two processes measured slower (each sends its own,
 * smaller JetStream messages, and NATS's per-message cost doubles).
 */
const INGEST_PROCESSES = Number(process.env.BENCH_INGEST_PROCESSES ?? 1);
/** Alternating baseline / single-event runs; the median ratio is reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/** Rounds of the sink's reference (raw inserts into chDB), each in a process of its own. */
const REF_ROUNDS = Number(process.env.BENCH_REF_ROUNDS ?? 3);
/**
 * Node options of the ingest processes: the recommended `--max-semi-space-size=32` by
 * default (fewer young-generation collections); e.g. add `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile.
 */
const INGEST_NODE_ARGS = (process.env.BENCH_INGEST_NODE_ARGS ?? '--max-semi-space-size=32').split(' ').filter(Boolean);
/** Node options of the sink process by default: docker-compose's sink's (see the comment there). */
const SINK_NODE_ARGS = '--max-semi-space-size=32 --initial-old-space-size=128';
/**
 * How often the sustained run asks the usage API whether its probes are queryable yet.
 * Each question is a query in the sink's process: with every 250 ms instead of 25 the
 * sink's CPU an event in the sustained run was 2.78 µs against 3.25 in one pair of runs
 * of 2026-11-23 and the same in an earlier pair; the latency is coarser.
 */
const PROBE_POLL_MS = Number(process.env.BENCH_PROBE_POLL_MS ?? 25);
/** Events/s offered during the sustained run (0: as fast as ingest acknowledges). */
const SUSTAIN_RATE = Number(process.env.BENCH_SUSTAIN_RATE ?? 0);
/** The HTTP server Tally's ingest runs (docs/architecture.md "HTTP server"); the baselines are bare servers of the same kind. */
const HTTP_SERVER = (process.env.TALLY_HTTP_SERVER ?? 'node') as 'node' | 'uws';
const UWS_LOADS = loadUws().ok;
const ROOT = path.resolve(import.meta.dirname, '..');
const suffix = Date.now().toString(36);
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-bench-'));
const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL ?? `postgres://postgres@127.0.0.1:5432/tally_bench_${suffix}`,
  TALLY_NATS_PREFIX: `BENCH${suffix}_`,
  CLICKHOUSE_DATABASE: `bench_${suffix}`,
  TALLY_DATA_DIR: dataDir,
  TALLY_LOG_LEVEL: 'warn',
  // As `npm start` and the image run Tally (docs/configuration.md, MALLOC_ARENA_MAX).
  MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  // Phase 1 holds every acknowledged event until the sink starts: on a fast machine more
  // than the default 4 GiB stream (~33M events, ~5.5 GB, in a full run on a fast machine).
  TALLY_STREAM_MAX_BYTES: process.env.TALLY_STREAM_MAX_BYTES ?? String(16 * 1024 ** 3),
};
const children: ChildProcess[] = [];

function startChild(args: string[], extraEnv: Record<string, string>, readyText: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes(readyText)) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}

/**
 * Peak RSS by phase: each ingest process's high-water mark at the end of a phase, then
 * reset to its current RSS (Linux: `5` written to /proc/PID/clear_refs).
 */
const rssByPhase: { phase: string; mb: number[] }[] = [];
function endPhase(phase: string, procs: ChildProcess[]): void {
  rssByPhase.push({ phase, mb: procs.map((p) => peakRssMb(p.pid!)) });
  for (const p of procs) writeFileSync(`/proc/${p.pid}/clear_refs`, '5');
}

type Run = Awaited<ReturnType<typeof run>>;

/**
 * Messages ingest has published so far, and the events in them, from its metrics (one
 * ingest process: with more, whichever answers). Read around a phase: what NATS's
 * per-message costs are spread over.
 */
async function publishedSoFar(): Promise<{ messages: number; events: number }> {
  const text = await (await fetch('http://127.0.0.1:18080/metrics')).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { messages: value('tally_ingest_batch_events_count'), events: value('tally_ingest_batch_events_sum') };
}

/** Events a JetStream message between two {@link publishedSoFar} readings. */
const eventsPerMessage = (a: { messages: number; events: number }, b: { messages: number; events: number }) => (b.events - a.events) / (b.messages - a.messages);

/** Local nats-server processes: their CPU is part of every durable figure (none found when NATS runs elsewhere). */
function natsServerPids(): number[] {
  const comm = (pid: string) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d) && comm(d) === 'nats-server').map(Number);
}

/** Local Postgres processes (server and backends; a backend that exits mid-run takes its CPU with it): none found when Postgres runs elsewhere. */
function postgresPids(): number[] {
  const comm = (pid: string) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  };
  return readdirSync('/proc').filter((d) => /^\d+$/.test(d) && comm(d) === 'postgres').map(Number);
}

/** CPU seconds so far of the processes a function names now (a process gone meanwhile counts 0). */
function cpuOf(pids: number[]): number {
  let sum = 0;
  for (const pid of pids) {
    try {
      sum += cpuSeconds(pid);
    } catch {
      // exited
    }
  }
  return sum;
}

/** CPU seconds so far of each role's processes, and of this process (autocannon, probes). */
function cpuByRole(roles: [string, number[]][]): Map<string, number> {
  const out = new Map(roles.map(([role, pids]) => [role, pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0)]));
  const self = process.cpuUsage();
  return out.set('benchmark (autocannon, probes)', (self.user + self.system) / 1e6);
}

/** Waits until a process uses less than `cores` over a second (at most `maxSeconds`); returns the seconds waited. */
async function quiet(pid: number, cores: number, maxSeconds: number): Promise<number> {
  const t0 = Date.now();
  let cpu = cpuSeconds(pid);
  while (Date.now() - t0 < maxSeconds * 1000) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = cpuSeconds(pid);
    if (now - cpu < cores) break;
    cpu = now;
  }
  return (Date.now() - t0) / 1000;
}

/** CPU seconds each role used between two {@link cpuByRole} readings. */
function cpuUsed(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  return new Map([...before].map(([role, t0]) => [role, after.get(role)! - t0]));
}

/** Where the machine's cores went ({@link cpuUsed}): cores busy and CPU µs an event, by role. */
function printCpu(used: Map<string, number>, seconds: number, events: number): void {
  console.log('\n| process | cores busy | CPU µs an event |\n|---|---|---|');
  let total = 0;
  for (const [role, cpu] of used) {
    total += cpu;
    console.log(`| ${role} | ${(cpu / seconds).toFixed(2)} | ${((cpu * 1e6) / events).toFixed(2)} |`);
  }
  console.log(`| all | ${(total / seconds).toFixed(2)} of ${os.cpus().length} | ${((total * 1e6) / events).toFixed(2)} |`);
}

/** One autocannon run; `servers` are the processes whose CPU per request is reported (µs, user + system). */
async function run(title: string, url: string, body: string | Buffer, headers: Record<string, string>, servers: ChildProcess[], seconds = SECONDS, overallRate = 0) {
  const cpu0 = servers.map((p) => cpuSeconds(p.pid!));
  const r = await autocannon({ url, method: 'POST', body, headers, connections: CONNECTIONS, pipelining: 1, duration: seconds, ...(overallRate > 0 ? { overallRate } : {}) });
  const cpu = servers.reduce((sum, p, i) => sum + cpuSeconds(p.pid!) - cpu0[i]!, 0);
  const ok = r['2xx'];
  return { title, ok, reqPerSec: ok / r.duration, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, timeouts: r.timeouts, cpuUsPerReq: ok > 0 ? (cpu * 1e6) / ok : NaN };
}

/** Drives ingest through the SDK: `clients` Tally clients, producers that wait while a client holds 5,000 events. */
async function runSdk(title: string, baseUrl: string, apiKey: string, agentKey: string, seconds: number, clients = 4) {
  const sdks = Array.from({ length: clients }, () => new Tally({ apiKey, agentKey, baseUrl, bufferSize: 100, flushIntervalMs: 50, maxConcurrentRequests: 8, maxBufferedEvents: 100_000, flushOnExit: false, onError: () => {} }));
  const end = Date.now() + seconds * 1000;
  const start = performance.now();
  await Promise.all(
    sdks.map(async (t) => {
      while (Date.now() < end) {
        if (t.stats.buffered > 5000) {
          await new Promise((r) => setTimeout(r, 1));
          continue;
        }
        for (let i = 0; i < 500; i++) t.sendAction({ action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } });
        await new Promise((r) => setImmediate(r));
      }
    }),
  );
  const delivered = sdks.reduce((n, t) => n + t.stats.delivered, 0);
  const elapsed = (performance.now() - start) / 1000;
  await Promise.all(sdks.map((t) => t.close()));
  return { title, delivered, eventsPerSec: delivered / elapsed };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

async function main() {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  if (HTTP_SERVER === 'uws' && !UWS_LOADS) throw new Error(`TALLY_HTTP_SERVER=uws: ${(loadUws() as { reason: string }).reason}`);
  const serverName = HTTP_SERVER === 'uws' ? 'uWebSockets.js' : "Node's HTTP stack";
  console.log(`# Tally ingest benchmark — ${new Date().toISOString()}, ${os.cpus().length} cores, ${CONNECTIONS} connections, ${SECONDS}s per run, ${INGEST_PROCESSES} ingest process(es) (node ${INGEST_NODE_ARGS.join(' ') || 'defaults'}), rate limits ${process.env.TALLY_RATE_LIMITS ?? "on"}\n`);
  console.log(`HTTP server measured: ${serverName} (TALLY_HTTP_SERVER=${HTTP_SERVER}), Node.js ${process.version}; baselines: bare ${serverName}.\n`);

  // Keys and an agent.
  const init = await new Promise<string>((resolve, reject) => {
    const c = spawn(process.execPath, ['bin/tally.js', 'init', '--json'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d) => (out += d));
    c.once('exit', (code) => (code === 0 ? resolve(out) : reject(new Error('init failed'))));
  });
  const keys = JSON.parse(init).environments.development;
  const db = createDb(env.DATABASE_URL, { max: 1 });
  // A high-volume fleet's key: its rate limit raised (limiting stays on and is measured).
  await db.updateTable('api_keys').set({ rate_limit_per_minute: 1_000_000_000 }).where('key_hash', '=', hashSecret(keys.sdk_key)).execute();
  const agent = await createAgentInstance(db, { environmentId: keys.id, name: 'bench' });
  const probe = await createAgentInstance(db, { environmentId: keys.id, name: 'probe' });
  await db.destroy();
  const headers = { authorization: `Bearer ${keys.sdk_key}`, 'content-type': 'application/json' };
  if (process.env.BENCH_ONLY_LIMITS) {
    const only: ChildProcess[] = [];
    for (let i = 0; i < INGEST_PROCESSES; i++) only.push(await startChild([...INGEST_NODE_ARGS, 'bin/tally.js', 'start', '--roles', 'ingest'], { TALLY_HTTP_PORT: '18080', TALLY_OTLP_GRPC_PORT: 'off', TALLY_HTTP_SERVER: HTTP_SERVER }, 'Tally is running'));
    const e = { agent_key: agent.secret, action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } };
    try {
      await limitsPhase(only, keys, agent.secret, headers, Array.from({ length: 100 }, () => e));
    } finally {
      // JetStream reserves a stream's max_bytes: never leave the benchmark's stream behind, failed or not.
      const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
      await (await jetstreamManager(nc)).streams.delete(natsNames(env.TALLY_NATS_PREFIX).stream).catch(() => {});
      await nc.close();
    }
    return;
  }
  if (process.env.BENCH_ONLY_SINK) {
    // The sink's phase alone: a backlog of 100-event JSON batches (BENCH_SECONDS of them), then phase 2,
    // the sink's process running the sink role alone as docker-compose runs it (no probes follow,
    // so no api role: its live tail reads the backlog too, as much CPU a row again as the sink).
    const only: ChildProcess[] = [];
    for (let i = 0; i < INGEST_PROCESSES; i++) only.push(await startChild([...INGEST_NODE_ARGS, 'bin/tally.js', 'start', '--roles', 'ingest'], { TALLY_HTTP_PORT: '18080', TALLY_OTLP_GRPC_PORT: 'off', TALLY_HTTP_SERVER: HTTP_SERVER }, 'Tally is running'));
    const e = { agent_key: agent.secret, action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } };
    const p0 = await publishedSoFar();
    const fill = await run('100-event batch, JSON (the backlog)', 'http://127.0.0.1:18080/v1/actions', JSON.stringify(Array.from({ length: 100 }, () => e)), headers, only);
    console.log(`Backlog: ${fmt(fill.ok * 100)} events in ${SECONDS} s of 100-event JSON batches (${fmt(fill.reqPerSec * 100)} events/s acknowledged; ${eventsPerMessage(p0, await publishedSoFar()).toFixed(1)} events a JetStream message; non-2xx ${fill.non2xx + fill.errors}).`);
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    const jsm = await jetstreamManager(nc);
    const names = natsNames(env.TALLY_NATS_PREFIX);
    try {
      const { sink } = await drainPhase(fill.ok * 100, jsm, names, process.env.BENCH_SINK_ROLES ?? 'sink');
      sink.kill('SIGTERM');
      await new Promise((r) => sink.once('exit', r));
    } finally {
      await jsm.streams.delete(names.stream).catch(() => {});
      for (let i = 0; i < BARE_ROUNDS; i++) await jsm.streams.delete(`${names.stream}_BARE${i}`).catch(() => {});
      await nc.close();
    }
    return;
  }

  // Phase 1: ingest alone (INGEST_PROCESSES processes on one port); the sink is not running.
  // Single events and the baseline alternate for ROUNDS rounds (this machine's speed
  // drifts within minutes): each round's ratio is taken, and the median reported.
  const baselineProc = await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '18999', HTTP_SERVER], {}, 'ready');
  // Tally on Node's stack, where uWS loads too: bare Node HTTP against bare uWS each round (what the stack itself costs).
  const bareUws = HTTP_SERVER === 'node' && UWS_LOADS ? await startChild(['--import', 'tsx', 'bench/baseline-server.ts', '18997', 'uws'], {}, 'ready') : undefined;
  const ingests: ChildProcess[] = [];
  for (let i = 0; i < INGEST_PROCESSES; i++) ingests.push(await startChild([...INGEST_NODE_ARGS, 'bin/tally.js', 'start', '--roles', 'ingest'], { TALLY_HTTP_PORT: '18080', TALLY_OTLP_GRPC_PORT: 'off', TALLY_HTTP_SERVER: HTTP_SERVER }, 'Tally is running'));
  const event = { agent_key: agent.secret, action_type: 'llm_call', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } };
  const rounds: { baseline: Run; single: Run; uws?: Run }[] = [];
  const published0 = await publishedSoFar();
  for (let i = 0; i < ROUNDS; i++) {
    const b = await run(`baseline (bare ${HTTP_SERVER === 'uws' ? 'uWS' : 'Node HTTP'} + JSON.parse, 202)`, 'http://127.0.0.1:18999/', JSON.stringify(event), headers, [baselineProc]);
    const u = bareUws ? await run('bare uWS + JSON.parse, 202', 'http://127.0.0.1:18997/', JSON.stringify(event), headers, [bareUws]) : undefined;
    const s = await run('single event, JSON', 'http://127.0.0.1:18080/v1/actions', JSON.stringify(event), headers, ingests);
    rounds.push({ baseline: b, single: s, ...(u ? { uws: u } : {}) });
  }
  baselineProc.kill();
  bareUws?.kill();
  const published1 = await publishedSoFar();
  endPhase('start-up and single events', ingests);
  const byMedian = (key: 'baseline' | 'single') => [...rounds].sort((a, b) => a[key].reqPerSec - b[key].reqPerSec)[Math.floor(rounds.length / 2)]![key];
  const baseline = byMedian('baseline');
  const single = byMedian('single');
  const singleRatio = median(rounds.map((r) => r.single.reqPerSec / r.baseline.reqPerSec));
  const batch = Array.from({ length: 100 }, () => event);
  // 100-event batches against the durable-publish reference (a bare server of the same kind + JSON.parse + one
  // JetStream publish with Nats-Msg-Id, awaiting the PubAck), alternating as above.
  const reference = await startChild(['--import', 'tsx', 'bench/reference-durable.ts', '18998', `REF${suffix}_`, HTTP_SERVER], {}, 'ready');
  // The reference's stream holds the JSON bodies (~330 bytes an event, twice Tally's
  // messages) and no consumer reads it: emptied before each round, it never fills.
  const refNc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  const refJsm = await jetstreamManager(refNc);
  const batchRounds: { reference: Run; tally: Run }[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    await refJsm.streams.purge(natsNames(`REF${suffix}_`).stream);
    const ref = await run(`durable-publish reference (bare ${HTTP_SERVER === 'uws' ? 'uWS' : 'Node HTTP'} + JSON.parse + JetStream publish, PubAck)`, 'http://127.0.0.1:18998/', JSON.stringify(batch), headers, [reference]);
    const t = await run('100-event batch, JSON', 'http://127.0.0.1:18080/v1/actions', JSON.stringify(batch), headers, ingests);
    batchRounds.push({ reference: ref, tally: t });
  }
  const published2 = await publishedSoFar();
  endPhase('100-event JSON batches', ingests);
  reference.kill('SIGTERM');
  await new Promise((r) => reference.once('exit', r));
  await refNc.close();
  const byBatchMedian = (key: 'reference' | 'tally') => [...batchRounds].sort((a, b) => a[key].reqPerSec - b[key].reqPerSec)[Math.floor(batchRounds.length / 2)]![key];
  const durableRef = byBatchMedian('reference');
  const jsonBatch = byBatchMedian('tally');
  const batchRatio = median(batchRounds.map((r) => r.tally.reqPerSec / r.reference.reqPerSec));
  const mpBatch = await run('100-event batch, msgpack', 'http://127.0.0.1:18080/v1/actions', pack(batch), { ...headers, 'content-type': 'application/msgpack' }, ingests);
  endPhase('100-event msgpack batches', ingests);
  const viaSdk = await runSdk('SDK: 4 clients, 100-event batches, JSON', 'http://127.0.0.1:18080', keys.sdk_key, agent.secret, SECONDS);
  endPhase('the SDK', ingests);

  console.log('## Ingest: durably acknowledged (sink stopped)\n');
  console.log('| run | requests/s | events/s | p50 ms | p99 ms | non-2xx | ratio | vs | server CPU µs/request |');
  console.log('|---|---|---|---|---|---|---|---|---|');
  const rows: [Run, number, number | undefined, string][] = [
    [baseline, 1, 1, 'bare server'],
    [single, 1, singleRatio, 'bare server'],
    [durableRef, 100, 1, 'durable publish'],
    [jsonBatch, 100, batchRatio, 'durable publish'],
    [mpBatch, 100, mpBatch.reqPerSec / durableRef.reqPerSec, 'durable publish'],
  ];
  for (const [r, per, ratio, vs] of rows) {
    console.log(`| ${r.title} | ${fmt(r.reqPerSec)} | ${fmt(r.reqPerSec * per)} | ${r.p50} | ${r.p99} | ${r.non2xx + r.errors} | ${ratio === undefined ? '' : ratio.toFixed(2)} | ${vs} | ${r.cpuUsPerReq.toFixed(1)} |`);
  }
  console.log(`| ${viaSdk.title} | | ${fmt(viaSdk.eventsPerSec)} | | | | | | |`);
  const refused = [...rounds.flatMap((r) => [r.baseline, r.single]), ...batchRounds.flatMap((r) => [r.reference, r.tally]), mpBatch].filter((r) => r.non2xx + r.errors > 0);
  if (refused.length > 0) console.log(`\nWARNING: answers other than 2xx in ${refused.map((r) => `${r.title} (${r.non2xx + r.errors})`).join(', ')}: those runs' figures are not comparable (is a stream full?).`);
  const byRound = (rs: { a: Run; b: Run }[]) => rs.map((r) => `${fmt(r.a.reqPerSec)} / ${fmt(r.b.reqPerSec)} = ${(r.a.reqPerSec / r.b.reqPerSec).toFixed(2)}`).join('; ');
  console.log(`\nSingle events / bare ${serverName}, round by round (requests/s): ${byRound(rounds.map((r) => ({ a: r.single, b: r.baseline })))}.`);
  if (bareUws) {
    const ofUws = rounds.map((r) => ({ a: r.baseline, b: r.uws! }));
    console.log(`Node's HTTP stack against uWS: bare Node HTTP / bare uWS, round by round: ${byRound(ofUws)}; median ${median(ofUws.map((r) => r.a.reqPerSec / r.b.reqPerSec)).toFixed(2)}. Tally's single events / bare uWS: median ${median(rounds.map((r) => r.single.reqPerSec / r.uws!.reqPerSec)).toFixed(2)}.`);
  }
  console.log(`100-event JSON batches / durable-publish reference, round by round: ${byRound(batchRounds.map((r) => ({ a: r.tally, b: r.reference })))}.`);
  console.log('The table shows the median runs and the median ratios (msgpack batches: against the median reference). Goals: single ≥ 0.6, batches ≥ 0.8.');
  console.log(`Events a JetStream message (ingest's micro-batches): single events ${eventsPerMessage(published0, published1).toFixed(1)}, 100-event JSON batches ${eventsPerMessage(published1, published2).toFixed(1)}.`);

  // Phase 2: the sink starts and drains the backlog of phase 1.
  const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  const jsm = await jetstreamManager(nc);
  const names = natsNames(env.TALLY_NATS_PREFIX);
  const backlog = rounds.reduce((n, r) => n + r.single.ok, 0) + (batchRounds.reduce((n, r) => n + r.tally.ok, 0) + mpBatch.ok) * 100 + viaSdk.delivered;
  const { sink, drainRoles, afterDrainQuiet, mergeTailUs } = await drainPhase(backlog, jsm, names, process.env.BENCH_SINK_ROLES ?? 'sink,api');

  // Sustained: batches for SUSTAIN seconds with the sink running; lag sampled each second;
  // probes measure acknowledgement-to-queryable latency through the usage API. It starts
  // once the sink is quiet (above): its chDB goes on merging the drained backlog's parts for
  // seconds after the drain (a quarter to a half of a core), which is not the sustained load's work.
  console.log(`\nThe sink fell quiet ${afterDrainQuiet.toFixed(0)} s after the drain, having spent ${mergeTailUs.toFixed(2)} µs of CPU a row of the backlog meanwhile (its chDB merging; in neither figure above). The sustained run starts after the reference's last rounds.`);
  const lag: number[] = [];
  const lagTimer = setInterval(async () => {
    const i = await jsm.consumers.info(names.stream, names.sinkConsumer).catch(() => undefined);
    if (i) lag.push(i.num_pending + i.num_ack_pending);
  }, 1000);
  const probeAcks: number[] = [];
  const seenAt: number[] = [];
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const r = await fetch('http://127.0.0.1:18080/v1/actions', { method: 'POST', headers, body: JSON.stringify({ agent_key: probe.id, action_type: 'probe' }) });
      if (r.status === 200) probeAcks.push(Date.now());
      await new Promise((res) => setTimeout(res, 250));
    }
  })();
  const probeUsage = `http://127.0.0.1:18081/v1/usage?start_date=${new Date(Date.now() - 3600_000).toISOString()}&end_date=${new Date(Date.now() + 2 * 3600_000).toISOString()}&agent_id=${probe.id}`;
  let probeQueries = 0;
  const watcher = (async () => {
    while (probing || seenAt.length < probeAcks.length) {
      const r = await fetch(probeUsage, { headers });
      probeQueries++;
      const n = Number(((await r.json()) as { usage?: { actions: string }[] }).usage?.[0]?.actions ?? 0);
      while (seenAt.length < Math.min(n, probeAcks.length)) seenAt.push(Date.now());
      await new Promise((res) => setTimeout(res, PROBE_POLL_MS));
      if (!probing && seenAt.length < probeAcks.length && Date.now() - (probeAcks.at(-1) ?? 0) > 30_000) break;
    }
  })();
  const sustainRoles: [string, number[]][] = [['ingest', ingests.map((p) => p.pid!)], ...drainRoles];
  const sustainCpu0 = cpuByRole(sustainRoles);
  const probeQueries0 = probeQueries;
  const sustained = await run(`sustained ${SUSTAIN}s, 100-event JSON batches, ingest + sink`, 'http://127.0.0.1:18080/v1/actions', JSON.stringify(batch), headers, ingests, SUSTAIN, SUSTAIN_RATE / 100);
  const sustainCpu = cpuUsed(sustainCpu0, cpuByRole(sustainRoles));
  const sustainProbeQueries = probeQueries - probeQueries0;
  probing = false;
  await prober;
  const drainStart = Date.now();
  while ((lag.at(-1) ?? 0) > 0 && Date.now() - drainStart < 120_000) await new Promise((r) => setTimeout(r, 500));
  const tailSeconds = (Date.now() - drainStart) / 1000;
  await watcher;
  clearInterval(lagTimer);
  const latencies = seenAt.map((t, i) => t - probeAcks[i]!);
  const third = Math.max(1, Math.floor(lag.length / 3));
  console.log(`\n## Sustained ingest + sink (${SUSTAIN}s, ${SUSTAIN_RATE > 0 ? `offered ${fmt(SUSTAIN_RATE)} events/s` : 'as fast as acknowledged'})`);
  console.log(`- acknowledged: ${fmt(sustained.reqPerSec * 100)} events/s (p50 ${sustained.p50} ms, p99 ${sustained.p99} ms, non-2xx ${sustained.non2xx}): ${((sustained.reqPerSec) / jsonBatch.reqPerSec).toFixed(2)} of the batch acknowledgement throughput of this run (goal ≥ 0.6)`);
  console.log(`- sink lag (messages pending), median of first third ${median(lag.slice(0, third))}, of last third ${median(lag.slice(-third))}; drained ${tailSeconds.toFixed(1)}s after load stopped`);
  console.log(`- acknowledged-to-queryable: p50 ${pct(latencies, 0.5)} ms, p99 ${pct(latencies, 0.99)} ms over ${latencies.length} probes`);
  console.log(`\nWhere the cores went in the sustained run (${SUSTAIN} s; the sink's work on the backlog left at the end not included):`);
  printCpu(sustainCpu, SUSTAIN, sustained.ok * 100);
  endPhase('sustained, with the sink', ingests);

  // What the probes cost the sink's process (each is a usage query there): the same query
  // asked 200 times in a row over the parts the run left, once the sink has fallen quiet
  // (its merges after the run would count otherwise), less what the idle sink spends in
  // as long (its merges go on, slower), times the queries the watcher asked during the run.
  const PROBE_COST_QUERIES = 200;
  await quiet(sink.pid!, 0.05, 60);
  const probeCpu0 = cpuSeconds(sink.pid!);
  const probeT0 = performance.now();
  for (let i = 0; i < PROBE_COST_QUERIES; i++) await (await fetch(probeUsage, { headers })).arrayBuffer();
  const probeWall = performance.now() - probeT0;
  const idleCpu0 = cpuSeconds(sink.pid!);
  await new Promise((r) => setTimeout(r, probeWall));
  const idleCpu = cpuSeconds(sink.pid!) - idleCpu0;
  const probeCpuMs = ((idleCpu0 - probeCpu0 - idleCpu) * 1000) / PROBE_COST_QUERIES;
  const probeWallMs = probeWall / PROBE_COST_QUERIES;
  const probeCores = (sustainProbeQueries * probeCpuMs) / 1000 / SUSTAIN;
  console.log(
    `\n- the probes' cost: a usage query takes ${probeCpuMs.toFixed(2)} ms of the sink's CPU (${probeWallMs.toFixed(1)} ms; ${PROBE_COST_QUERIES} asked in a row after the run); ` +
      `the watcher asked ${sustainProbeQueries} during the run (every ${PROBE_POLL_MS} ms after an answer): ~${probeCores.toFixed(2)} of a core, ~${((probeCores * 1e6) / (sustained.reqPerSec * 100)).toFixed(2)} µs of the sink's CPU an event above`,
  );

  // The sustained ratio's reference, the batch phase, ran minutes before it, and the
  // machine's speed drifts within minutes: the batch run once more, ingest alone again
  // (the sink stopped), brackets it. The sink is stopped first, so it does not report its
  // consumer's deletion below.
  const sinkRssMb = peakRssMb(sink.pid!);
  sink.kill('SIGTERM');
  await new Promise((r) => sink.once('exit', r));
  const batchAfter = await run('100-event batch, JSON, after the sustained run', 'http://127.0.0.1:18080/v1/actions', JSON.stringify(batch), headers, ingests);
  endPhase('100-event JSON batches, after the sustained run', ingests);
  const bracket = (jsonBatch.reqPerSec + batchAfter.reqPerSec) / 2;
  console.log(
    `- drift check: the same batch run once more after the sustained run, the sink stopped: ${fmt(batchAfter.reqPerSec * 100)} events/s (before it: ${fmt(jsonBatch.reqPerSec * 100)}); ` +
      `the sustained run is ${(sustained.reqPerSec / batchAfter.reqPerSec).toFixed(2)} of the run after it, ${(sustained.reqPerSec / bracket).toFixed(2)} of the two's mean` +
      (batchAfter.non2xx + batchAfter.errors > 0 ? ` (WARNING: ${batchAfter.non2xx + batchAfter.errors} answers other than 2xx in the run after: not comparable)` : ''),
  );

  await limitsPhase(ingests, keys, agent.secret, headers, batch);

  console.log(`\n## Peak RSS (goal: ingest < 300 MB at every load)\n`);
  console.log('| phase | ingest MB |\n|---|---|');
  for (const { phase, mb } of rssByPhase) console.log(`| ${phase} | ${mb.join(', ')} |`);
  console.log(`\n- ingest, highest: ${Math.max(...rssByPhase.flatMap((r) => r.mb))} MB\n- sink (+ api for probes): ${sinkRssMb} MB`);
  // JetStream reserves a stream's max_bytes: never leave the benchmark's stream behind,
  // once ingest has answered what the load generator left in flight (a deleted stream
  // would answer those 503).
  await new Promise((r) => setTimeout(r, 2000));
  await jsm.streams.delete(names.stream).catch(() => {});
  await nc.close();
}

/** Rounds of the bare-consumer reference (bench/bare-consumer.ts), each on a copy of the stream of its own. */
const BARE_ROUNDS = Number(process.env.BENCH_BARE_ROUNDS ?? 2);

/**
 * Copies every message of the events stream (`from`), headers included, into new streams
 * configured as ingest configures it (work-queue retention, file storage, discard-new):
 * the bare consumer's rounds read these copies, since the sink's stream is a work queue
 * (one consumer; an acknowledged message is gone). Done before the sink starts, while
 * `from` still holds everything; `sync` after, so no measurement pays the write-back.
 */
async function copyEventsStream(jsm: JetStreamManager, from: string, copies: { stream: string; subject: string }[]): Promise<number> {
  const info = await jsm.streams.info(from);
  for (const c of copies) {
    await jsm.streams.add({
      name: c.stream,
      subjects: [c.subject],
      storage: StorageType.File,
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.New,
      max_bytes: Math.ceil(info.state.bytes * 1.2) + 64 * 1024 * 1024,
      duplicate_window: info.config.duplicate_window,
      num_replicas: 1,
    });
  }
  const js = jsm.jetstream();
  const { first_seq: first, last_seq: last } = info.state;
  // A few messages at a time: they are large (~1,500 events, ~250 KB), and many requests
  // in flight time out.
  const WINDOW = 16;
  for (let at = first; at <= last; at += WINDOW) {
    const seqs = Array.from({ length: Math.min(WINDOW, last - at + 1) }, (_, i) => at + i);
    const msgs = (await Promise.all(seqs.map((seq) => jsm.streams.getMessage(from, { seq })))).filter((m) => m !== null);
    await Promise.all(copies.flatMap((c) => msgs.map((m) => js.publish(c.subject, m.data, m.header ? { headers: m.header } : {}))));
  }
  for (const c of copies) {
    const n = (await jsm.streams.info(c.stream)).state.messages;
    if (n !== info.state.messages) throw new Error(`the copy ${c.stream} holds ${n} messages of ${info.state.messages}`);
  }
  spawnSync('sync');
  return info.state.messages;
}

/**
 * One round of the bare-consumer reference on its copy of the stream: rows/s from its
 * `ready` (chDB open, its consumer made) until the consumer has nothing pending or
 * unacknowledged (asked every 250 ms, as for the sink), and the CPU of its process and
 * of nats-server meanwhile; checks that it stored every event.
 */
async function bareRound(jsm: JetStreamManager, copy: { stream: string; consumer: string }, events: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/bare-consumer.ts', copy.stream, copy.consumer], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('ready\n')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`bare consumer exited with ${code}`)));
  });
  const nats = natsServerPids();
  const roles: [string, number[]][] = [['bare consumer (its chDB included)', [child.pid!]], ['nats-server', nats]];
  const cpu0 = cpuByRole(roles);
  const t0 = Date.now();
  for (;;) {
    const i = await jsm.consumers.info(copy.stream, copy.consumer).catch(() => undefined);
    if (i && i.num_pending + i.num_ack_pending === 0 && i.delivered.stream_seq > 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const seconds = (Date.now() - t0) / 1000;
  const used = cpuUsed(cpu0, cpuByRole(roles));
  child.removeAllListeners('exit');
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  const rows = Number(JSON.parse(out.slice(out.indexOf('ready\n') + 6).trim().split('\n').at(-1) ?? '{}').rows);
  // The load generator counts the answers it got: requests cut at the end of a run may have been stored too (more rows).
  if (rows < events) console.log(`WARNING: the bare consumer stored ${rows} rows; the backlog counted ${events} events`);
  await jsm.streams.delete(copy.stream).catch(() => {});
  return {
    rows,
    rowsPerSec: events / seconds,
    seconds,
    cpuUsPerRow: (used.get(roles[0]![0])! * 1e6) / events,
    natsUsPerRow: (used.get('nats-server')! * 1e6) / events,
  };
}

/**
 * Phase 2: the sink drains the backlog of phase 1, with its two references around it, each
 * measured in a process of its own: the raw insert (Native blocks built in memory, into
 * chDB: the engine alone) and the bare consumer (the same messages pulled from a copy of
 * the same stream as the sink pulls them, inserted as Native with no Tally code in
 * between: the architecture's own limit). Rounds alternate: half of each before the
 * sink, the rest after it has fallen quiet. Returns the sink, running.
 */
async function drainPhase(backlog: number, jsm: JetStreamManager, names: ReturnType<typeof natsNames>, sinkRoles: string) {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  // The bare consumer's copies of the stream, made while it still holds the backlog.
  const copies = Array.from({ length: BARE_ROUNDS }, (_, i) => ({ stream: `${names.stream}_BARE${i}`, subject: `${env.TALLY_NATS_PREFIX}bare${i}.batch`, consumer: `bare${i}` }));
  const copyT0 = Date.now();
  const messages = await copyEventsStream(jsm, names.stream, copies);
  console.log(`\nThe stream's ${fmt(messages)} messages (${fmt(backlog)} events, ${(backlog / messages).toFixed(1)} a message) copied for the bare consumer's ${BARE_ROUNDS} rounds in ${((Date.now() - copyT0) / 1000).toFixed(1)} s.`);
  const bareRounds: Awaited<ReturnType<typeof bareRound>>[] = [];
  // The reference: the same number of rows (at most 2M) inserted into chDB by the engine
  // alone, Native blocks built in memory beforehand (bench/reference-insert.ts), each round
  // in a process of its own, on a machine doing nothing else; the median of REF_ROUNDS,
  // taken around the drain (the machine's speed drifts within minutes): the first half
  // before the sink starts, the rest once the sink has fallen quiet after it (its chDB
  // merges what it inserted for seconds; with those merges running, the reference swung
  // from 0.8 to 1.6 µs a row).
  const refRows = Math.min(backlog, 2_000_000);
  const refRounds: { rowsPerSec: number; cpuUsPerRow: number }[] = [];
  const referenceRound = async () => {
    const out = await new Promise<string>((resolve, reject) => {
      const c = spawn(process.execPath, ['--import', 'tsx', 'bench/reference-insert.ts', String(refRows), '100000'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      c.stdout.on('data', (d) => (text += d));
      c.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error('reference insert failed'))));
    });
    refRounds.push(JSON.parse(out) as { rowsPerSec: number; cpuUsPerRow: number });
  };
  // The stream written in phase 1 (GBs of dirty pages) is written back by the kernel ~30 s
  // later, during whichever measurement runs then: flushed first, it slows neither.
  spawnSync('sync');
  for (let i = 0; i < Math.ceil(REF_ROUNDS / 2); i++) await referenceRound();
  for (let i = 0; i < Math.ceil(BARE_ROUNDS / 2); i++) bareRounds.push(await bareRound(jsm, copies[i]!, backlog));
  const drainT0 = Date.now();
  // BENCH_SINK_LOG_LEVEL=debug: the sink's per-insert timings and consumer statuses on stderr.
  const sinkEnv = { TALLY_HTTP_PORT: '18081', TALLY_OTLP_GRPC_PORT: 'off', ...(process.env.BENCH_SINK_LOG_LEVEL ? { TALLY_LOG_LEVEL: process.env.BENCH_SINK_LOG_LEVEL } : {}) };
  const sinkNodeArgs = (process.env.BENCH_SINK_NODE_ARGS ?? SINK_NODE_ARGS).split(' ').filter(Boolean);
  const sink = await startChild([...sinkNodeArgs, 'bin/tally.js', 'start', '--roles', sinkRoles], sinkEnv, 'Tally is running');
  const readyAt = Date.now();
  const nats = natsServerPids();
  const SINK = 'the sink (its chDB included)';
  const drainRoles: [string, number[]][] = [[SINK, [sink.pid!]], ['nats-server', nats]];
  const drainCpu0 = cpuByRole(drainRoles);
  for (;;) {
    const i = await jsm.consumers.info(names.stream, names.sinkConsumer).catch(() => undefined);
    if (i && i.num_pending + i.num_ack_pending === 0 && i.delivered.stream_seq > 0) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const drainSeconds = (Date.now() - drainT0) / 1000;
  const drainedFromReady = (Date.now() - readyAt) / 1000;
  const drainCpu1 = cpuByRole(drainRoles);
  const drainCpu = cpuUsed(drainCpu0, drainCpu1);
  const sinkCpuUsPerRow = (drainCpu.get(SINK)! * 1e6) / backlog;
  const sinkRate = backlog / drainedFromReady;
  const afterDrainQuiet = await quiet(sink.pid!, 0.15, 60);
  const mergeTailUs = ((cpuSeconds(sink.pid!) - drainCpu1.get(SINK)!) * 1e6) / backlog;
  for (let i = Math.ceil(REF_ROUNDS / 2); i < REF_ROUNDS; i++) await referenceRound();
  for (let i = Math.ceil(BARE_ROUNDS / 2); i < BARE_ROUNDS; i++) bareRounds.push(await bareRound(jsm, copies[i]!, backlog));
  const bare = { rowsPerSec: median(bareRounds.map((r) => r.rowsPerSec)), cpuUsPerRow: median(bareRounds.map((r) => r.cpuUsPerRow)), natsUsPerRow: median(bareRounds.map((r) => r.natsUsPerRow)) };
  const sinkNatsUsPerRow = (drainCpu.get('nats-server')! * 1e6) / backlog;
  const ref = { rowsPerSec: median(refRounds.map((r) => r.rowsPerSec)), cpuUsPerRow: median(refRounds.map((r) => r.cpuUsPerRow)) };
  console.log(`\n## Sink: drained the backlog of ${fmt(backlog)} events\n`);
  console.log('| | rows/s | CPU µs/row | ratio | vs |');
  console.log('|---|---|---|---|---|');
  console.log(`| bare consumer reference (the same messages pulled from a copy of the stream as the sink pulls them, Native into chDB, no Tally code; median of ${BARE_ROUNDS}) | ${fmt(bare.rowsPerSec)} | ${bare.cpuUsPerRow.toFixed(2)} (+ nats-server ${bare.natsUsPerRow.toFixed(2)}) | 1.00 | bare consumer |`);
  console.log(`| raw insert reference (Native from memory into chDB, ${fmt(refRows)} rows, median of ${REF_ROUNDS}) | ${fmt(ref.rowsPerSec)} | ${ref.cpuUsPerRow.toFixed(2)} | 1.00 | raw insert |`);
  console.log(`| the sink (--roles ${sinkRoles}: JetStream to ClickHouse, from ready; ${drainSeconds.toFixed(1)} s with start-up) | ${fmt(sinkRate)} | ${sinkCpuUsPerRow.toFixed(2)} (+ nats-server ${sinkNatsUsPerRow.toFixed(2)}) | ${(sinkRate / bare.rowsPerSec).toFixed(2)} / ${(sinkRate / ref.rowsPerSec).toFixed(2)} | bare consumer / raw insert |`);
  console.log(`\nBare consumer rounds (rows/s, CPU µs a row of its process + nats-server's; ${Math.ceil(BARE_ROUNDS / 2)} before the drain, the rest after): ${bareRounds.map((r) => `${fmt(r.rowsPerSec)} at ${r.cpuUsPerRow.toFixed(2)} + ${r.natsUsPerRow.toFixed(2)}`).join('; ')}.`);
  console.log(`The bare consumer stored ${fmt(bareRounds[0]!.rows)} rows a round: the stream's events (the backlog above, ${fmt(backlog)}, counts the answers the load generator got; requests cut at a run's end were stored too). Both rates divide the backlog: their ratio is exact.`);
  console.log(`BENCH_SINK sink / bare consumer ${(sinkRate / bare.rowsPerSec).toFixed(3)} (goal ≥ 0.85), sink / raw insert ${(sinkRate / ref.rowsPerSec).toFixed(3)}; CPU µs a row: sink ${sinkCpuUsPerRow.toFixed(2)} + nats-server ${sinkNatsUsPerRow.toFixed(2)}, bare consumer ${bare.cpuUsPerRow.toFixed(2)} + nats-server ${bare.natsUsPerRow.toFixed(2)}`);
  console.log(`\nRaw insert reference rounds (rows/s, CPU µs a row; ${Math.ceil(REF_ROUNDS / 2)} before the drain, the rest after): ${refRounds.map((r) => `${fmt(r.rowsPerSec)} at ${r.cpuUsPerRow.toFixed(2)}`).join('; ')}.`);
  console.log(`\nWhere the cores went while the sink drained (${drainedFromReady.toFixed(1)} s; the reference pays neither NATS column):`);
  printCpu(drainCpu, drainedFromReady, backlog);
  if (nats.length > 0) {
    // A bound, derived: the rows/s of the machine's cores if the sink and nats-server were limited by CPU alone.
    const usPerRow = ((drainCpu.get(SINK)! + drainCpu.get('nats-server')!) * 1e6) / backlog;
    const bound = (os.cpus().length * 1e6) / usPerRow;
    console.log(`\nCPU-bound ceiling (derived): ${os.cpus().length} cores / ${usPerRow.toFixed(2)} µs a row (sink + nats-server) = ${fmt(bound)} rows/s, ${(bound / ref.rowsPerSec).toFixed(2)} of the reference.`);
  }
  if (sinkRoles.includes('api')) {
    // What the live tail read of the stream meanwhile (its metric, in the sink's process).
    const metricsText = await (await fetch('http://127.0.0.1:18081/metrics')).text().catch(() => '');
    const tailRead = Number(/^tally_live_tail_messages_total (\S+)$/m.exec(metricsText)?.[1] ?? NaN);
    const skipped = Number(/^tally_live_tail_backlogs_skipped_total (\S+)$/m.exec(metricsText)?.[1] ?? NaN);
    console.log(
      `Note: the sink's process also runs the api role (--roles ${sinkRoles}, for the sustained run's probes): its live tail read ${fmt(tailRead)} of the backlog's ${fmt(messages)} messages ` +
        `by direct get (decoded) in the same process, and left ${fmt(skipped)} backlog(s) to the sink (TALLY_LIVE_TAIL_READ_BACKLOG_MAX_BYTES); its CPU is in the sink's figures; BENCH_SINK_ROLES=sink measures the sink alone.`,
    );
  }
  console.log('Goals: the sink ≥ 0.85 of the bare consumer (issue 34; against the raw insert, issue 18 asked ≥ 0.7), ≤ 2 µs of CPU a row in the sink process.');
  return { sink, drainRoles, afterDrainQuiet, mergeTailUs };

}

const LIMIT_ROUNDS = Number(process.env.BENCH_LIMIT_ROUNDS ?? 3);
const LIMIT_SUSTAIN = Number(process.env.BENCH_LIMIT_SUSTAIN_SECONDS ?? 20);
const LIMIT_CROSSINGS = Number(process.env.BENCH_LIMIT_CROSSINGS ?? 20);
const LIMITS = 10_000;
/** Seconds of each idle measurement (no load, without and with the limits). */
const IDLE_SECONDS = Number(process.env.BENCH_LIMIT_IDLE_SECONDS ?? 5);
/** Node options of the limits phase's `sink,billing,api` process (BENCH_BILLING_NODE_ARGS; e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`). */
const BILLING_NODE_ARGS = (process.env.BENCH_BILLING_NODE_ARGS ?? '').split(' ').filter(Boolean);
const REACHED = 1_000;
/** Actions each crossing agent's block limit allows (quantity), or pays for (money, at CROSSING_UNIT_PRICE USD an action). */
const CROSSING_ACTIONS = 200;
const CROSSING_UNIT_PRICE = '0.01';
/** What a crossing agent's block limit counts (README "Stopping runaway spend"). */
type CrossingMetric = 'quantity' | 'spend' | 'available_balance';
interface CrossingAgent {
  id: string;
  metric: CrossingMetric;
  /** Sends ids of its own (a random UUID an event, as the TypeScript SDK does): every other agent of each metric. */
  clientIds: boolean;
}
type CrossingTimes = Record<CrossingMetric, number[]> & { byIds: Record<'client' | 'ingest', number[]> };

/** The ingest process's metric (first series matching). */
async function ingestMetric(name: string, labels = ''): Promise<number> {
  const text = await (await fetch('http://127.0.0.1:18080/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `) || (labels === '' && l.startsWith(`${name}{`)));
  return line === undefined ? NaN : Number(line.split(' ').at(-1));
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Batch and sustained runs with 10,000 spend limits configured against the same runs
 * without (alternating), and the crossing-to-first-402 time. The limits are written
 * straight into Postgres (10,000 accounts, one limit each; 1,000 reached `block` limits,
 * their state written as the evaluator would), dated so that the evaluator does not
 * evaluate them again (TALLY_LIMIT_FULL_PASS_MS of an hour): what is measured is the edge
 * holding and checking the pushed set, and the evaluator's passes on the load's usage.
 * "Without" deletes them (deleted limits are not pushed); "with" restores them.
 */
async function limitsPhase(ingests: ChildProcess[], keys: { id: string; admin_api_key: string; sdk_key: string }, agentSecret: string, headers: Record<string, string>, batch: unknown[]): Promise<void> {
  const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
  const billing = await startChild([...BILLING_NODE_ARGS, 'bin/tally.js', 'start', '--roles', 'sink,billing,api'], { TALLY_HTTP_PORT: '18082', TALLY_OTLP_GRPC_PORT: 'off', TALLY_LIMIT_FULL_PASS_MS: '3600000' }, 'Tally is running');
  await until('the ingest process to hold a fresh limit state', async () => (await ingestMetric('tally_ingest_limit_state_stale')) === 0);
  const db = createDb(env.DATABASE_URL, { max: 2 });
  const old = new Date('2000-01-01T00:00:00Z');
  const tomorrow = new Date(Date.now() + 86_400_000);
  const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
  for (let i = 0; i < LIMITS; i += 1000) {
    const n = Array.from({ length: 1000 }, (_, j) => i + j);
    await db.insertInto('accounts').values(n.map((k) => ({ id: `acct_bench${k}`, environment_id: keys.id, name: `bench ${k}` }))).execute();
    await db
      .insertInto('spend_limits')
      .values(n.map((k) => ({ id: `lim_bench${k}`, environment_id: keys.id, scope: 'account' as const, account_id: `acct_bench${k}`, agent_instance_id: null, metric: 'quantity' as const, currency: null, unit: '@action', window: 'day' as const, value: k < REACHED ? '0' : '1000000', thresholds: [100], action: 'block' as const, description: null, created_by: null, created_at: old, updated_at: old, deleted_at: old })))
      .execute();
    const reached = n.filter((k) => k < REACHED);
    if (reached.length) await db.insertInto('spend_limit_states').values(reached.map((k) => ({ limit_id: `lim_bench${k}`, period_start: today, period_end: tomorrow, current: '0', reached: true, evaluated_at: old }))).execute();
  }
  const setLimits = async (on: boolean) => {
    await db.updateTable('spend_limits').set({ deleted_at: on ? null : old }).where('id', 'like', 'lim_bench%').execute();
    const want = on ? REACHED : 0;
    await until(`${want} reached limits at the edge`, async () => (await ingestMetric('tally_ingest_limits_reached', '{action="block"}')) === want);
  };
  const body = JSON.stringify(batch);
  const url = 'http://127.0.0.1:18080/v1/actions';
  // Where the cores went in each run, by process (issue 32: is a loss the edge's, or CPU the
  // billing process, NATS or Postgres took from ingest on the shared cores?).
  const cpuRoles = (): [string, number][] => {
    const self = process.cpuUsage();
    return [
      ['ingest', cpuOf(ingests.map((p) => p.pid!))],
      ['sink,billing,api', cpuOf([billing.pid!])],
      ['nats-server', cpuOf(natsServerPids())],
      ['postgres', cpuOf(postgresPids())],
      ['benchmark (autocannon, crossing senders)', (self.user + self.system) / 1e6],
    ];
  };
  const cpuTable: { title: string; settle: number; seconds: number; events: number; used: [string, number][] }[] = [];
  // Each run starts with the sink caught up (the billing process quiet: under 0.2 of a core
  // over a second, at most 30 s): otherwise a run inherits the sink's backlog of the run
  // before it (the sink shares the 2 cores with ingest), and which runs inherit more depends
  // on the order, not on the limits. The wait before each run is printed.
  const settled: number[] = [];
  const settle = async () => settled.push(await quiet(billing.pid!, 0.2, 30));
  /** A run (settled before it unless `settle` was called already, as before the crossing senders start). */
  const measuredRun = async (...args: Parameters<typeof run>): Promise<Run> => {
    if (settled.length === cpuTable.length) await settle();
    const before = cpuRoles();
    const t0 = performance.now();
    const r = await run(...args);
    const seconds = (performance.now() - t0) / 1000;
    const after = cpuRoles();
    cpuTable.push({ title: r.title, settle: settled.at(-1)!, seconds, events: r.ok * 100, used: after.map(([role, c], i) => [role, c - before[i]![1]]) });
    return r;
  };
  // The fixed cost of holding the limits: each process's CPU over IDLE_SECONDS with no load,
  // without the limits and with them (what the billing role, Postgres, NATS and the edge
  // spend on them whatever the load, taken from ingest on shared cores).
  const idle: { on: boolean; cores: [string, number][] }[] = [];
  for (const on of [false, true]) {
    await setLimits(on);
    await settle();
    const before = cpuRoles();
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const after = cpuRoles();
    idle.push({ on, cores: after.map(([role, c], i) => [role, (c - before[i]![1]) / IDLE_SECONDS]) });
  }
  settled.length = 0;
  const rounds: { off: Run; on: Run }[] = [];
  for (let i = 0; i < LIMIT_ROUNDS; i++) {
    await setLimits(false);
    const off = await measuredRun('100-event batch, JSON, no limits', url, body, headers, ingests);
    await setLimits(true);
    const on = await measuredRun(`100-event batch, JSON, ${fmt(LIMITS)} limits (${fmt(REACHED)} reached)`, url, body, headers, ingests);
    rounds.push({ off, on });
  }
  // The sustained pair: the same load in both, the fleet (autocannon) and LIMIT_CROSSINGS crossing
  // agents sending 20-event batches (one every 20 ms once past 200 actions), each with a block
  // limit of 200 actions a day in both runs; the run with limits has the 10,000 besides. (Issue
  // 32: with the crossing agents' limits in the run with limits only, their senders had
  // ~98k events acknowledged without limits against ~5k with (then refused): not the same load.)
  const api = (method: string, p: string, b?: unknown) =>
    fetch(`http://127.0.0.1:18082${p}`, { method, headers: { authorization: `Bearer ${keys.admin_api_key}`, 'content-type': 'application/json' }, ...(b === undefined ? {} : { body: JSON.stringify(b) }) }).then((r) => r.json() as Promise<any>);
  const crossingAgents = async (run: string) => Promise.all(Array.from({ length: LIMIT_CROSSINGS }, (_, c) => createAgentInstance(db, { environmentId: keys.id, name: `crossing ${run} ${c}` })));
  /** Events of the crossing senders acknowledged, and requests refused, by run (their load beside autocannon's). */
  const crossingLoad: { run: string; acked: number; refused: number }[] = [];
  /**
   * Sends until the run ends (and, with limits, until each agent was refused); returns each
   * agent's crossing → first 402 (ms), by the metric of its limit.
   */
  const crossingFleet = async (agents: CrossingAgent[], limited: boolean, seconds: number, run: string): Promise<CrossingTimes> => {
    const end = Date.now() + seconds * 1000;
    const times: CrossingTimes = { quantity: [], spend: [], available_balance: [], byIds: { client: [], ingest: [] } };
    const load = { run, acked: 0, refused: 0 };
    crossingLoad.push(load);
    await Promise.all(
      agents.map(async (a) => {
        let acked = 0;
        let crossedAt = 0;
        let refused = false;
        for (;;) {
          const now = Date.now();
          if (now >= end && (!limited || refused || (crossedAt !== 0 && now - crossedAt > 120_000))) break;
          const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(Array.from({ length: 20 }, () => ({ agent_key: a.id, action_type: 'crossing', ...(a.clientIds ? { id: randomUUID() } : {}) }))) });
          await res.arrayBuffer();
          const at = Date.now();
          if (res.status === 402 && !refused) {
            refused = true;
            times[a.metric].push(at - crossedAt);
            times.byIds[a.clientIds ? 'client' : 'ingest'].push(at - crossedAt);
          }
          if (res.status === 200) acked += 20;
          if (res.status === 200) load.acked += 20;
          else load.refused++;
          if (acked >= CROSSING_ACTIONS && crossedAt === 0) crossedAt = at;
          // Past the crossing, one batch every 20 ms: the first 402 is seen within that.
          if (crossedAt !== 0) await new Promise((r) => setTimeout(r, 20));
        }
        if (limited && !refused) {
          times[a.metric].push(Infinity);
          times.byIds[a.clientIds ? 'client' : 'ingest'].push(Infinity);
        }
      }),
    );
    return times;
  };
  // The money crossings' plan: CROSSING_UNIT_PRICE USD an @action (per unit), monthly, created as a user would.
  const made = async (p: string, b: unknown) => {
    const r = await api('POST', p, b);
    if (!r.id) throw new Error(`POST ${p}: ${JSON.stringify(r)}`);
    return r.id as string;
  };
  const typeId = await made('/api/v1/agent_type/create', { name: 'crossing' });
  const product = await made('/api/v1/products', { name: 'Crossing', agent_type_id: typeId });
  const chargeModel = await made('/api/v1/charge_models', { name: 'per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
  const plan = await made(`/api/v1/products/${product}/rateplans`, { name: 'Crossing', billing_cycle_code: 'monthly', currency: 'USD' });
  await made(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Actions', charge_model_id: chargeModel, charge_type_code: 'usage', pricing: { unit_price: CROSSING_UNIT_PRICE } });
  /**
   * The crossing agents of a run and their block limits, CROSSING_ACTIONS actions' worth each,
   * LIMIT_CROSSINGS of each metric. Quantity: an agent instance's @action a day. Spend: an
   * account of its own subscribed to the plan above, with an account spend limit. Available
   * balance: the same with a grant of that much, and a limit of available balance 0.
   */
  const crossingSetup = async (run: string): Promise<{ agents: CrossingAgent[]; limits: string[] }> => {
    const agents: CrossingAgent[] = [];
    const limits: string[] = [];
    const worth = (Number(CROSSING_UNIT_PRICE) * CROSSING_ACTIONS).toFixed(2);
    for (const [c, a] of (await crossingAgents(run)).entries()) {
      limits.push(await made('/v1/limits', { scope: 'agent_instance', agent_instance_id: a.id, metric: 'quantity', unit: '@action', window: 'day', value: CROSSING_ACTIONS, thresholds: [100], action: 'block' }));
      agents.push({ id: a.id, metric: 'quantity', clientIds: c % 2 === 1 });
    }
    for (const metric of ['spend', 'available_balance'] as const) {
      for (let c = 0; c < LIMIT_CROSSINGS; c++) {
        const account = await made('/v1/accounts', { name: `crossing ${metric} ${run} ${c}` });
        const a = await createAgentInstance(db, { environmentId: keys.id, name: `crossing ${metric} ${run} ${c}`, accountId: account });
        await made('/v1/subscriptions', { account_id: account, rate_plan_id: plan });
        if (metric === 'available_balance') await made('/v1/credits/grants', { account_id: account, currency: 'USD', kind: 'free', amount: worth });
        limits.push(await made('/v1/limits', { scope: 'account', account_id: account, metric, currency: 'USD', value: metric === 'spend' ? worth : '0', thresholds: [100], action: 'block' }));
        agents.push({ id: a.id, metric, clientIds: c % 2 === 1 });
      }
    }
    return { agents, limits };
  };
  await setLimits(false);
  const off = await crossingSetup('off');
  await settle();
  const offFleet = crossingFleet(off.agents, true, LIMIT_SUSTAIN, 'without the 10,000 limits');
  const sustainedOff = await measuredRun(`sustained ${LIMIT_SUSTAIN}s, no limits but the ${off.agents.length} crossing agents'`, url, body, headers, ingests, LIMIT_SUSTAIN);
  const offCrossingByMetric = await offFleet;
  // Out of the way of the run with limits (the edge then holds exactly the 1,000 reached).
  await db.updateTable('spend_limits').set({ deleted_at: new Date() }).where('id', 'in', off.limits).execute();
  await setLimits(true);
  const on = await crossingSetup('on');
  await settle();
  const onFleet = crossingFleet(on.agents, true, LIMIT_SUSTAIN, 'with them');
  const sustainedOn = await measuredRun(`sustained ${LIMIT_SUSTAIN}s, ${fmt(LIMITS)} limits (${fmt(REACHED)} reached) and the ${on.agents.length} crossing agents'`, url, body, headers, ingests, LIMIT_SUSTAIN);
  const crossingByMetric = await onFleet;
  const metricsOf = ({ byIds: _, ...m }: CrossingTimes): Record<CrossingMetric, number[]> => m;
  const crossingTimes = Object.values(metricsOf(crossingByMetric)).flat();
  const offCrossingTimes = Object.values(metricsOf(offCrossingByMetric)).flat();
  const crossingsDone = crossingTimes.every(Number.isFinite);
  await db.destroy();
  billing.kill('SIGTERM');
  await new Promise((r) => billing.once('exit', r));

  const batchRatio = median(rounds.map((r) => r.on.reqPerSec / r.off.reqPerSec));
  console.log(`\n## Spend limits at the edge (${fmt(LIMITS)} limits, ${fmt(REACHED)} reached and pushed to ingest; a sink, billing and api process running)\n`);
  console.log('| run | without limits, events/s | with limits, events/s | ratio (goal ≥ 0.97) |\n|---|---|---|---|');
  console.log(`| 100-event JSON batches, ${SECONDS} s, median of ${LIMIT_ROUNDS} alternating rounds | ${rounds.map((r) => fmt(r.off.reqPerSec * 100)).join(' / ')} | ${rounds.map((r) => fmt(r.on.reqPerSec * 100)).join(' / ')} | ${batchRatio.toFixed(2)} |`);
  console.log(`| sustained ${LIMIT_SUSTAIN} s, ingest + sink + billing, the same ${3 * LIMIT_CROSSINGS} crossing agents' senders and limits in both | ${fmt(sustainedOff.reqPerSec * 100)} | ${fmt(sustainedOn.reqPerSec * 100)} | ${(sustainedOn.reqPerSec / sustainedOff.reqPerSec).toFixed(2)} |`);
  const byMetric = (times: CrossingTimes) => (Object.entries({ ...metricsOf(times), ...Object.fromEntries(Object.entries(times.byIds).map(([k, t]) => [`${k} ids`, t])) }) as [string, number[]][]).map(([m, t]) => `${m} p50 ${pct(t, 0.5)} ms p99 ${pct(t, 0.99)} ms (${t.length})`).join(', ');
  console.log(`\nBENCH_LIMITS batch ratio ${batchRatio.toFixed(3)}, sustained ratio ${(sustainedOn.reqPerSec / sustainedOff.reqPerSec).toFixed(3)}, crossing->first 402 p50 ${pct(crossingTimes, 0.5)} ms p99 ${pct(crossingTimes, 0.99)} ms (${crossingTimes.length} crossings); by metric: ${byMetric(crossingByMetric)}`);
  console.log('\nCPU by process in each run (cores busy over the run; CPU µs per acknowledged event):\n');
  console.log(`| run | waited for the sink before it, s | ${cpuTable[0]!.used.map(([role]) => role).join(' | ')} | all |\n|---|---|${cpuTable[0]!.used.map(() => '---|').join('')}---|`);
  for (const t of cpuTable) {
    const all = t.used.reduce((s, [, c]) => s + c, 0);
    const cell = (c: number) => `${(c / t.seconds).toFixed(2)} (${((c * 1e6) / t.events).toFixed(2)})`;
    console.log(`| ${t.title} | ${t.settle.toFixed(0)} | ${t.used.map(([, c]) => cell(c)).join(' | ')} | ${cell(all)} |`);
  }
  console.log(`\nIdle, ${IDLE_SECONDS} s with no load (cores busy): the fixed cost of the limits\n`);
  console.log(`| limits | ${idle[0]!.cores.map(([role]) => role).join(' | ')} |\n|---|${idle[0]!.cores.map(() => '---|').join('')}`);
  for (const r of idle) console.log(`| ${r.on ? `${fmt(LIMITS)} (${fmt(REACHED)} reached)` : 'none'} | ${r.cores.map(([, c]) => c.toFixed(3)).join(' | ')} |`);
  console.log(`\nBENCH_LIMITS_IDLE extra cores with limits: ${idle[1]!.cores.map(([role, c], i) => `${role.split(' ')[0]} ${(c - idle[0]!.cores[i]![1]).toFixed(3)}`).join(', ')}`);
  console.log(`\nThe crossing senders' own load beside autocannon's (not in the events/s above): ${crossingLoad.map((l) => `${l.run}: ${fmt(l.acked)} events acknowledged, ${fmt(l.refused)} requests refused`).join('; ')}.`);
  const failures = [...rounds.flatMap((r) => [r.off, r.on]), sustainedOff, sustainedOn].filter((r) => r.non2xx + r.errors > 0);
  if (failures.length) console.log(`\nWARNING: answers other than 2xx in ${failures.map((r) => `${r.title} (${r.non2xx + r.errors})`).join(', ')}.`);
  console.log(`\n| crossing → first 402, sustained run | with the 10,000 limits: p50 / p99 ms (crossings) | without them: p50 / p99 ms |\n|---|---|---|`);
  for (const m of Object.keys(metricsOf(crossingByMetric)) as CrossingMetric[]) {
    const [t, o] = [crossingByMetric[m], offCrossingByMetric[m]];
    console.log(`| ${m} | ${pct(t, 0.5)} / ${pct(t, 0.99)} (${t.length}) | ${pct(o, 0.5)} / ${pct(o, 0.99)} (${o.length}) |`);
  }
  for (const k of ['client', 'ingest'] as const) {
    const [t, o] = [crossingByMetric.byIds[k], offCrossingByMetric.byIds[k]];
    console.log(`| all metrics, ids made by ${k === 'client' ? 'the client (a UUID an event, as the SDKs)' : 'ingest (none sent)'} | ${pct(t, 0.5)} / ${pct(t, 0.99)} (${t.length}) | ${pct(o, 0.5)} / ${pct(o, 0.99)} (${o.length}) |`);
  }
  console.log(
    `\nCrossing to first 402 (from the acknowledgement of the batch that reached a ${CROSSING_ACTIONS}-action block limit, or ${CROSSING_ACTIONS} actions' worth of spend or of a credit grant, to the first 402 of that agent, during the sustained run with limits): ` +
      `p50 ${pct(crossingTimes, 0.5)} ms, p99 ${pct(crossingTimes, 0.99)} ms over ${crossingTimes.length} crossings of all metrics (goal 1 s)${crossingsDone ? '' : ' (some unfinished: Infinity)'}; ` +
      `${(Object.entries(metricsOf(crossingByMetric)) as [CrossingMetric, number[]][]).map(([m, t]) => `${m}: ${t.join(', ')} ms`).join('; ')}. In the run without the 10,000 limits: ${byMetric(offCrossingByMetric)}.`,
  );
  void agentSecret;
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(async () => {
    for (const c of children) c.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 1000));
    // A process whose orderly stop hangs would keep the benchmark's ports (and its stream) after it.
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    // The bare consumer's copies of the stream, should a run have failed before removing them (JetStream reserves their max_bytes).
    const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' }).catch(() => undefined);
    if (nc) {
      const jsm = await jetstreamManager(nc);
      for (let i = 0; i < BARE_ROUNDS; i++) await jsm.streams.delete(`${natsNames(env.TALLY_NATS_PREFIX).stream}_BARE${i}`).catch(() => {});
      await nc.close();
    }
    if (!process.env.DATABASE_URL) await dropDatabase(env.DATABASE_URL).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });
