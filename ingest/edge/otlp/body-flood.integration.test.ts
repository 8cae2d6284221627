import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as grpc from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRpcStatus } from '../../../test/google-rpc.ts';
import { startTestStack, waitFor, type TestStack } from '../../../test/harness.ts';

/**
 * Floods of large OTLP bodies (HTTP, then gRPC) against a separate `tally start --roles
 * ingest` process with a small body budget: its resident memory is sampled from /proc
 * while the flood lasts. Without a budget each 60 MiB JSON export holds its body, its text
 * and its tree (~300 MiB): the HTTP flood here, all accepted, took the process from 157 MiB
 * to 1.8 GB.
 */
const MiB = 1024 * 1024;
const BUDGET = 512 * MiB;
/** Freed memory the process keeps mapped for reuse (V8's pages, malloc's arenas): resident, not in use. */
const RETAINED_PAGES = 128 * MiB;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let stack: TestStack;
let child: ChildProcess;
let url: string;
let grpcAddress: string;
let sdk: string;

/** A port free now (the system's choice), for a process started next: no fixed ports another test may hold. */
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

/** A fresh `tally start --roles ingest` process on the test's stack, with the small budget: each flood measures its own. */
async function startIngestProcess(grpc: boolean, budget = BUDGET): Promise<void> {
  await stopIngestProcess(); // the last test's, when it failed before stopping it
  const httpPort = await freePort();
  const grpcPort = grpc ? await freePort() : 'off';
  url = `http://127.0.0.1:${httpPort}`;
  grpcAddress = `127.0.0.1:${grpcPort}`;
  const started = spawn(process.execPath, [path.join(repo, 'bin/tally.js'), 'start', '--roles', 'ingest'], {
    cwd: repo,
    env: { ...process.env, ...stack.env, TALLY_HTTP_PORT: String(httpPort), TALLY_OTLP_GRPC_PORT: String(grpcPort), TALLY_MAX_INFLIGHT_BODY_BYTES: String(budget) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child = started;
  // Ready, and this process (not another on a reused port) is the one answering.
  await waitFor(() => fetch(`${url}/readyz`).then((r) => r.status, () => 0), (s) => s === 200 || started.exitCode !== null, 30_000);
  expect(started.exitCode, 'the ingest process exited while starting').toBeNull();
}

async function stopIngestProcess(): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  // An orderly stop takes a moment; one that hangs is not this test's subject.
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest'] });
  sdk = stack.keys.development.sdk;
}, 60_000);
afterAll(async () => {
  await stopIngestProcess();
  await stack?.cleanup();
});

/** An OTLP JSON export of `spans` plain (not GenAI, not tagged) spans: parsed whole, metered as nothing. */
function traceExport(spans: number): Buffer {
  const list = [];
  for (let i = 0; i < spans; i++) {
    list.push({
      traceId: 'ab'.repeat(16),
      spanId: i.toString(16).padStart(16, '0'),
      name: 'http GET /internal',
      kind: 2,
      startTimeUnixNano: '1700000000000000000',
      endTimeUnixNano: '1700000000100000000',
      attributes: [
        { key: 'http.method', value: { stringValue: 'GET' } },
        { key: 'http.status_code', value: { intValue: '200' } },
      ],
    });
  }
  return Buffer.from(JSON.stringify({ resourceSpans: [{ resource: { attributes: [{ key: 'service.name', value: { stringValue: 'flood' } }] }, scopeSpans: [{ spans: list }] }] }));
}

function rssBytes(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

const post = (body: Buffer, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/traces`, { method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${sdk}`, ...headers } }).then(
    async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), body: (await r.json()) as Record<string, any> }),
    (err: Error) => ({ status: 0, retryAfter: null, body: { err: err.message } }),
  );

describe('a flood of large OTLP bodies', () => {
  it('leaves the process alive, within its budget of body memory, and serving small requests: the rest are answered 503 with Retry-After', async () => {
    await startIngestProcess(false);
    const large = traceExport(200_000); // ~60 MiB of JSON
    expect(large.length).toBeGreaterThan(55 * MiB);
    // Trace "bombs": a few hundred KB of gzip that inflate to ~30 MiB each.
    const bomb = gzipSync(traceExport(100_000));
    expect(bomb.length).toBeLessThan(4 * MiB);
    const small = traceExport(1);
    expect((await post(small)).status).toBe(200);
    const pid = child.pid!;
    const before = rssBytes(pid);

    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
    let flooding = true;
    const smallAnswers: number[] = [];
    const smallSender = (async () => {
      while (flooding) {
        smallAnswers.push((await post(small)).status);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const answers = await Promise.all([
      ...Array.from({ length: 16 }, () => post(large)),
      ...Array.from({ length: 8 }, () => post(bomb, { 'content-encoding': 'gzip' })),
    ]);
    flooding = false;
    await smallSender;
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));

    const statuses = answers.map((a) => a.status);
    console.log(`RSS before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB (budget ${BUDGET / MiB} MiB); answers ${JSON.stringify(count(statuses))}; small ${JSON.stringify(count(smallAnswers))}`);
    expect(child.exitCode).toBeNull();
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    // How many large ones get in during the flood depends on the machine's load (a share
    // comes back after V8's collections): none may, and the retry below shows one gets in.
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.retryAfter).toBe('1');
      expect((r.body as { error: { code: string } }).error.code).toBe('service_unavailable');
    }
    expect(smallAnswers.length).toBeGreaterThan(0);
    expect(smallAnswers.every((s) => s === 200)).toBe(true);
    // Resident memory grew by less than the budget.
    expect(peak - before).toBeLessThan(BUDGET);
    // A client that retries after Retry-After, as OTLP exporters do, gets in once the flood is over.
    let retried = await post(large);
    for (let i = 0; i < 10 && retried.status === 503; i++) {
      await new Promise((r) => setTimeout(r, Number(retried.retryAfter) * 1000));
      retried = await post(large);
    }
    expect(retried.status).toBe(200);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    // The budget on /metrics: its limit, and what is held of it.
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toContain(`tally_body_budget_bytes{state="limit"} ${BUDGET}`);
    expect(metrics).toMatch(/tally_body_budget_bytes\{state="used"\} \d+/);
    await stopIngestProcess();
  }, 180_000);
});

/** An ExportTraceServiceRequest of `n` empty ResourceSpans (2 bytes each). */
function emptyResources(n: number): Buffer {
  const b = Buffer.alloc(2 * n);
  for (let i = 0; i < b.length; i += 2) b[i] = 0x0a;
  return b;
}

/** A msgpack array of `n` empty maps (5 + n bytes), after `prefix` (e.g. an outer array's header). */
function emptyMaps(n: number, prefix: number[] = []): Buffer {
  const header = Buffer.alloc(5);
  header[0] = 0xdd;
  header.writeUInt32BE(n, 1);
  return Buffer.concat([Buffer.from(prefix), header, Buffer.alloc(n, 0x80)]);
}

describe('event bodies whose parsed form is far larger than their bytes', () => {
  it('are bounded before parsing: the process stays within its budget and serving', async () => {
    await startIngestProcess(true);
    const grpcClient = new grpc.Client(grpcAddress, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 });
    const send = (body: Buffer, type: string, route = '/v1/actions') =>
      fetch(`${url}${route}`, { method: 'POST', body, headers: { 'content-type': type, authorization: `Bearer ${sdk}` } }).then(
        async (r) => ({ status: r.status, code: r.headers.get('content-type')?.includes('json') ? ((await r.json()) as { error?: { code: string } }).error?.code : `${await r.arrayBuffer().then(() => 'binary')}` }),
        (err: Error) => ({ status: 0, code: err.message }),
      );
    const one = Buffer.from(JSON.stringify({ agent_key: 'nobody', action_type: 'x' }));
    expect((await send(one, 'application/json')).status).toBe(422);
    const pid = child.pid!;
    const before = rssBytes(pid);
    let peak = before;
    const sampler = setInterval(() => child.exitCode === null && (peak = Math.max(peak, rssBytes(pid))), 20);
    const maps = 4 * MiB;
    const answers = await Promise.all([
      // An array of 4 Mi empty maps (4 MiB): refused from its header.
      ...Array.from({ length: 3 }, () => send(emptyMaps(maps), 'application/msgpack')),
      // One event holding them: what they take is counted before decoding.
      ...Array.from({ length: 2 }, () => send(emptyMaps(maps, [0x91]), 'application/msgpack')),
      // 1.4 M empty JSON arrays (4.2 MB).
      ...Array.from({ length: 3 }, () => send(Buffer.from('[' + '[],'.repeat(1_400_000) + '[]]'), 'application/json')),
      // The same in an OTLP/JSON export and a CloudEvents batch.
      send(Buffer.from('{"resourceSpans":[' + '[],'.repeat(1_400_000) + '[]]}'), 'application/json', '/v1/traces'),
      send(Buffer.from('[' + '[],'.repeat(1_400_000) + '[]]'), 'application/cloudevents-batch+json', '/api/v1/events'),
      // 4 M empty ResourceSpans (8 MiB of protobuf), over HTTP and gRPC: their memory is taken as they are decoded.
      send(emptyResources(4 * MiB), 'application/x-protobuf', '/v1/traces'),
      exportGrpc(grpcClient, emptyResources(4 * MiB)).then((a) => ({ status: a.code, code: `grpc ${a.code}` })),
    ]);
    grpcClient.close();
    clearInterval(sampler);
    peak = Math.max(peak, rssBytes(pid));
    console.log(`containers: RSS before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB (budget ${BUDGET / MiB} MiB); answers ${JSON.stringify(answers)}`);
    expect(child.exitCode).toBeNull();
    expect(answers.slice(0, 3).map((a) => a.code)).toEqual(['too_many_events', 'too_many_events', 'too_many_events']);
    for (const a of answers.slice(3, -1)) expect([400, 413, 422, 503]).toContain(a.status);
    // Decoding stops once the messages' memory does not fit (503 while others hold the budget, 413 once it never can).
    expect([413, 503]).toContain(answers.at(-2)!.status);
    expect(answers.at(-1)!.status).toBe(grpc.status.RESOURCE_EXHAUSTED);
    // Within the budget, and the pages V8 and malloc keep after a collection (up to ~100 MiB
    // measured on a loaded machine: after a full collection left 32 MB of heap, RSS stayed
    // 250 MB above it). Before answered requests' garbage was collected before its bytes were
    // given back, a loaded machine took this flood to 1.7 times the budget.
    expect(peak - before).toBeLessThan(BUDGET + RETAINED_PAGES);
    expect((await send(one, 'application/json')).status).toBe(422);
    await stopIngestProcess();
  }, 120_000);
});

/** An ExportTraceServiceRequest of `bytes` bytes: one unknown field, skipped by decoders (an export of nothing). */
function protobufOf(bytes: number): Buffer {
  const len: number[] = [];
  for (let n = bytes; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      len.push(n);
      break;
    }
    len.push((n % 128) | 128);
  }
  return Buffer.concat([Buffer.from([(15 << 3) | 2, ...len]), Buffer.alloc(bytes, 0x61)]);
}

type GrpcAnswer = { code: number; retryDelays: number[] };
function exportGrpc(client: grpc.Client, message: Buffer): Promise<GrpcAnswer> {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${sdk}`);
  const id = (b: Buffer) => b;
  return new Promise((resolve) =>
    client.makeUnaryRequest('/opentelemetry.proto.collector.trace.v1.TraceService/Export', id, id, message, md, (err) => {
      if (!err) return resolve({ code: 0, retryDelays: [] });
      const [bin] = err.metadata.get('grpc-status-details-bin') as Buffer[];
      resolve({ code: err.code, retryDelays: bin ? decodeRpcStatus(bin).retryDelaysSeconds : [] });
    }),
  );
}

describe('a flood of large OTLP/gRPC messages', () => {
  it('is answered RESOURCE_EXHAUSTED with a RetryInfo beyond the budget, and leaves the process within it and serving small calls', async () => {
    await startIngestProcess(true);
    // One client per call: each its own HTTP/2 connection, as a fleet of exporters.
    const clients = Array.from({ length: 12 }, () => new grpc.Client(grpcAddress, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 }));
    try {
      const smallClient = new grpc.Client(grpcAddress, grpc.credentials.createInsecure());
      expect((await exportGrpc(smallClient, protobufOf(100))).code).toBe(0);
      const pid = child.pid!;
      const before = rssBytes(pid);
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 20);
      const message = protobufOf(60 * MiB);
      const answers = await Promise.all(clients.map((c) => exportGrpc(c, message)));
      const small = await exportGrpc(smallClient, protobufOf(100));
      clearInterval(sampler);
      peak = Math.max(peak, rssBytes(pid));
      smallClient.close();
      console.log(`gRPC: RSS before ${(before / MiB).toFixed(0)} MiB, peak ${(peak / MiB).toFixed(0)} MiB (budget ${BUDGET / MiB} MiB); codes ${JSON.stringify(count(answers.map((a) => a.code)))}`);
      expect(child.exitCode).toBeNull();
      expect(small.code).toBe(0);
      expect(answers.every((a) => a.code === 0 || a.code === grpc.status.RESOURCE_EXHAUSTED)).toBe(true);
      expect(answers.filter((a) => a.code === 0).length).toBeGreaterThan(0);
      const exhausted = answers.filter((a) => a.code === grpc.status.RESOURCE_EXHAUSTED);
      expect(exhausted.length).toBeGreaterThan(0);
      for (const a of exhausted) expect(a.retryDelays).toEqual([1]);
      // Resident memory grew by less than the budget and the pages V8 and malloc keep mapped
      // after a collection (see the containers test above; 534 MiB measured once in CI).
      expect(peak - before).toBeLessThan(BUDGET + RETAINED_PAGES);
    } finally {
      for (const c of clients) c.close();
      await stopIngestProcess();
    }
  }, 180_000);
});

describe('small OTLP/gRPC exports during a flood of large ones', () => {
  it('are admitted on the share kept for small requests, as small HTTP requests are', async () => {
    const budget = 20 * 1000 * 1000;
    await startIngestProcess(true, budget);
    const clients = Array.from({ length: 5 }, () => new grpc.Client(grpcAddress, grpc.credentials.createInsecure(), { 'grpc.max_send_message_length': -1 }));
    const smallClient = new grpc.Client(grpcAddress, grpc.credentials.createInsecure());
    try {
      expect((await exportGrpc(smallClient, protobufOf(400))).code).toBe(0);
      let flooding = true;
      const small: number[] = [];
      const smallHttp: number[] = [];
      const smallSender = (async () => {
        while (flooding) {
          small.push((await exportGrpc(smallClient, protobufOf(400))).code);
          smallHttp.push((await post(traceExport(1))).status);
        }
      })();
      const message = protobufOf(5 * MiB);
      // At least two rounds (the second meets the first's shares still counted, garbage until
      // collected), and more while fewer than 3 small exports went out during the flood (a
      // fast machine floods briefly).
      const answers: Awaited<ReturnType<typeof exportGrpc>>[] = [];
      for (let round = 0; round < 2 || (small.length < 3 && round < 8); round++) answers.push(...(await Promise.all(clients.map((c) => exportGrpc(c, message)))));
      flooding = false;
      await smallSender;
      console.log(`gRPC flood under ${budget} bytes: large ${JSON.stringify(count(answers.map((a) => a.code)))}; small gRPC ${JSON.stringify(count(small))}; small HTTP ${JSON.stringify(count(smallHttp))}`);
      expect(answers.some((a) => a.code === grpc.status.RESOURCE_EXHAUSTED)).toBe(true);
      expect(small.length).toBeGreaterThan(2);
      expect(small.every((c) => c === 0)).toBe(true);
      expect(smallHttp.every((s) => s === 200)).toBe(true);
    } finally {
      smallClient.close();
      for (const c of clients) c.close();
      await stopIngestProcess();
    }
  }, 120_000);
});

function count(xs: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const x of xs) out[x] = (out[x] ?? 0) + 1;
  return out;
}
