/**
 * Receiving the sink's messages from JetStream, micro-benchmark: what the NATS client costs
 * the sink before any row is read. Fills a stream of its own with MESSAGES (2,000) format-4
 * micro-batches of EVENTS (470, ~78 KB: the size ingest sent in the ingest benchmark's
 * backlog) LLM-call events, then drains it ROUNDS (5) times through a new durable consumer
 * with the sink's pull settings, acknowledging as the sink does (a batch of acks at a
 * time), alternating nats.js's own transport (the reference) and Tally's
 * (shared/nats/transport.ts), each in a process of its own. Prints CPU ms a MB and ns a
 * row per round, and the median ratio. PULL (16, the sink's) sets the messages a pull asks for.
 *   node --import tsx bench/nats-receive.ts
 *   EVENTS=22 MESSAGES=20000 PULL=64 node --import tsx bench/nats-receive.ts   (a backlog of single events)
 * COMPARE_FLAGS (e.g. "--initial-old-space-size=128") compares instead Tally's transport in
 * processes started without and with those node options, and counts each drain's full
 * (mark-compact) garbage collections:
 *   MESSAGES=2500 EVENTS=1400 COMPARE_FLAGS=--initial-old-space-size=128 node --import tsx bench/nats-receive.ts
 */
import { spawnSync } from 'node:child_process';
import { PerformanceObserver, constants as perfConstants } from 'node:perf_hooks';
import { connect, NatsConnectionImpl } from '@nats-io/transport-node';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import { encodeNativeBatch } from '../shared/events/native-batch.ts';
import { useLargeReads } from '../shared/nats/transport.ts';
import { llmCallBatch } from './llm-call-events.ts';
import { batchEvents } from '../shared/events/wire.ts';

const URL = process.env.NATS_URL ?? '127.0.0.1:4222';
const MESSAGES = Number(process.env.MESSAGES ?? 2000);
const EVENTS = Number(process.env.EVENTS ?? 470);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const COMPARE_FLAGS = (process.env.COMPARE_FLAGS ?? '').split(' ').filter(Boolean);
const [, , role, stream] = process.argv;

/** One drain of `stream` in this process: CPU µs, bytes and messages. */
async function drain(transport: 'nats.js' | 'tally'): Promise<void> {
  let nc;
  if (transport === 'tally') {
    useLargeReads();
    nc = await NatsConnectionImpl.connect({ servers: URL });
  } else nc = await connect({ servers: URL });
  const jsm = await jetstreamManager(nc);
  const durable = `drain_${Date.now().toString(36)}`;
  await jsm.consumers.add(stream!, { durable_name: durable, ack_policy: AckPolicy.Explicit, deliver_policy: DeliverPolicy.All, max_ack_pending: 100_000 });
  const total = (await jsm.streams.info(stream!)).state.messages;
  const consumer = await jetstream(nc).consumers.get(stream!, durable);
  let fullGcs = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (((e as { detail?: { kind?: number } }).detail)?.kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR) fullGcs++;
  });
  gcs.observe({ entryTypes: ['gc'] });
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const pull = Number(process.env.PULL ?? 16);
  // The sink's pull settings otherwise (sink.ts: a new pull when a quarter is left).
  const messages = await consumer.consume({ max_messages: pull, threshold_messages: Math.max(1, Math.floor(pull / 4)), expires: 30_000, idle_heartbeat: 15_000 });
  let got = 0;
  let bytes = 0;
  const unacked = [];
  for await (const m of messages) {
    got++;
    bytes += m.data.length;
    unacked.push(m);
    if (unacked.length === 200 || got === total) for (const u of unacked.splice(0)) u.ack();
    if (got === total) break;
  }
  await nc.flush();
  const cpu = process.cpuUsage(cpu0);
  await new Promise((r) => setImmediate(r)); // the observer's last entries
  gcs.disconnect();
  console.log(JSON.stringify({ cpuUs: cpu.user + cpu.system, ms: Math.round(performance.now() - t0), bytes, messages: got, fullGcs }));
  await jsm.consumers.delete(stream!, durable);
  await nc.close();
}

async function main(): Promise<void> {
  if (role === 'drain-nats.js' || role === 'drain-tally') return drain(role.slice(6) as 'nats.js' | 'tally');
  const nc = await connect({ servers: URL });
  const jsm = await jetstreamManager(nc);
  const name = `BENCHRECV${Date.now().toString(36)}`;
  await jsm.streams.add({ name, subjects: [`${name}.events`] });
  try {
    const js = jetstream(nc);
    const start = Date.now();
    for (let m = 0; m < MESSAGES; m++) {
      const events = batchEvents(llmCallBatch(start, m * EVENTS, EVENTS, (i) => `ai_01JAGENT00000000000000000${i % 3}`));
      await js.publish(`${name}.events`, encodeNativeBatch(events));
    }
    const rows = MESSAGES * EVENTS;
    if (COMPARE_FLAGS.length > 0) return compareFlags(name, rows);
    console.log(`# NATS receive: ${MESSAGES} messages of ${EVENTS} events, ${ROUNDS} rounds\n`);
    console.log('| round | nats.js transport ms/MB | Tally transport ms/MB | nats.js ns/row | Tally ns/row | wall ms (nats.js, Tally) | ratio |');
    console.log('|---|---|---|---|---|---|---|');
    const ratios: number[] = [];
    for (let r = 1; r <= ROUNDS; r++) {
      const [ref, tally] = (['drain-nats.js', 'drain-tally'] as const).map((arg) => drainIn(arg, name));
      const perMb = (x: { cpuUs: number; bytes: number }) => x.cpuUs / 1000 / (x.bytes / 1e6);
      ratios.push(tally!.cpuUs / ref!.cpuUs);
      console.log(`| ${r} | ${perMb(ref!).toFixed(2)} | ${perMb(tally!).toFixed(2)} | ${((ref!.cpuUs * 1000) / rows).toFixed(0)} | ${((tally!.cpuUs * 1000) / rows).toFixed(0)} | ${ref!.ms}, ${tally!.ms} | ${ratios.at(-1)!.toFixed(2)} |`);
    }
    const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
    console.log(`\nTally's transport / nats.js's, CPU to receive and acknowledge: median ${median.toFixed(2)}`);
  } finally {
    await jsm.streams.delete(name);
    await nc.close();
  }
}

type Drain = { cpuUs: number; ms: number; bytes: number; fullGcs: number };

/** One drain in a process of its own, with node options `flags`. */
function drainIn(role: string, name: string, flags: string[] = []): Drain {
  const c = spawnSync(process.execPath, [...flags, '--import', 'tsx', import.meta.filename, role, name], { encoding: 'utf8' });
  if (c.status !== 0) throw new Error(`${role} failed: ${c.stderr}`);
  return JSON.parse(c.stdout.trim().split('\n').at(-1)!) as Drain;
}

/** Tally's transport without and with COMPARE_FLAGS, alternating. */
function compareFlags(name: string, rows: number): void {
  const with_ = COMPARE_FLAGS.join(' ');
  console.log(`# NATS receive, Tally's transport without and with \`${with_}\`: ${MESSAGES} messages of ${EVENTS} events, ${ROUNDS} rounds\n`);
  console.log(`| round | ns/row without | ns/row with | full GCs without | full GCs with | ratio |`);
  console.log('|---|---|---|---|---|---|');
  const ratios: number[] = [];
  for (let r = 1; r <= ROUNDS; r++) {
    const plain = drainIn('drain-tally', name);
    const flagged = drainIn('drain-tally', name, COMPARE_FLAGS);
    ratios.push(flagged.cpuUs / plain.cpuUs);
    console.log(`| ${r} | ${((plain.cpuUs * 1000) / rows).toFixed(0)} | ${((flagged.cpuUs * 1000) / rows).toFixed(0)} | ${plain.fullGcs} | ${flagged.fullGcs} | ${ratios.at(-1)!.toFixed(2)} |`);
  }
  const median = [...ratios].sort((a, b) => a - b)[Math.floor(ratios.length / 2)]!;
  console.log(`\nCPU to receive and acknowledge with \`${with_}\` / without: median ${median.toFixed(2)}`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
