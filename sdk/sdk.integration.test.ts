import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';
import { Tally, TallyBufferOverflowError, TallyDeliveryError, TallyRejectedError, type TallyError, type TallyOptions } from './src/index.ts';

let stack: TestStack;
let sdk: string;
let ingestPort: number;
let ingest: ChildProcess;
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function freePort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise((r) => s.close(r));
  return port;
}
/**
 * The HTTP ingest as a process of its own (`tally start --roles ingest`), reachable at the
 * fixed `ingestPort` through a TCP front (like a load balancer) once it is ready: a test
 * can kill it (its connections die with it) and bring another up at the same address.
 * TRICKY: the front is needed because a starting Tally process listens before its routes
 * are registered and answers 404 meanwhile (reported; a non-retryable 4xx to clients).
 */
let front: net.Server | undefined;
const frontSockets = new Set<net.Socket>();
async function startIngest(): Promise<ChildProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(repo, 'bin/tally.js'), 'start', '--roles', 'ingest'], {
    cwd: repo,
    env: { ...process.env, ...stack.env, TALLY_HTTP_PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await waitFor(
    () => fetch(`http://127.0.0.1:${port}/readyz`).then((r) => r.status, () => 0),
    (s) => s === 200,
    30_000,
  );
  front = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    for (const s of [client, upstream]) {
      frontSockets.add(s);
      s.on('close', () => frontSockets.delete(s));
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => front!.listen(ingestPort, '127.0.0.1', r));
  return child;
}
async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  await new Promise((r) => front?.close(r));
  for (const s of frontSockets) s.destroy();
}

beforeAll(async () => {
  // Sink and api here; the HTTP ingest is a process of its own on a fixed port, so a test
  // can stop it and start another on the same address.
  stack = await startTestStack({ roles: ['sink', 'api'] });
  sdk = stack.keys.development.sdk;
  ingestPort = await freePort();
  ingest = await startIngest();
});
afterAll(async () => {
  if (ingest) await kill(ingest);
  await stack?.cleanup();
});

async function usage(agentId: string) {
  const now = Date.now();
  const [row] = await stack.tally.usage!.query({
    environmentId: stack.keys.development.id,
    from: new Date(now - 40 * 86400_000),
    to: new Date(now + 86400_000),
    groupBy: 'agent',
    agentInstanceIds: [agentId],
  });
  return row;
}
const counted = (agentId: string) => usage(agentId).then((u) => Number(u?.actions ?? 0) + Number(u?.outcomes ?? 0));
/** Waits for `n` events of the agent, then checks the count stays `n` (nothing late, nothing twice). */
async function expectExactly(agentId: string, n: number): Promise<void> {
  await waitFor(() => counted(agentId), (c) => c >= n, 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  expect(await counted(agentId)).toBe(n);
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function client(extra: Partial<TallyOptions> & { errors?: TallyError[] } = {}): Tally {
  const { errors, ...rest } = extra;
  return new Tally({
    apiKey: sdk,
    baseUrl: `http://127.0.0.1:${ingestPort}`,
    bufferSize: 20,
    flushIntervalMs: 100,
    retryBaseMs: 100,
    retryMaxMs: 2000,
    flushOnExit: false,
    onError: (e) => errors?.push(e),
    ...rest,
  });
}

describe('SDK against the real server', () => {
  it('loses and duplicates nothing when the ingest server stops mid-stream and comes back', async () => {
    const agent = await createAgent(stack);
    const errors: TallyError[] = [];
    const tally = client({ agentKey: agent.secret, errors });
    let sent = 0;
    const sendFor = async (ms: number) => {
      const until = Date.now() + ms;
      while (Date.now() < until) {
        for (let i = 0; i < 5; i++) {
          tally.sendAction({ action_type: 'llm_call', metadata: { model: 'm', input_tokens: 1, output_tokens: 2, n: sent } });
          sent++;
        }
        await sleep(10);
      }
    };
    await sendFor(1000);
    // Kill it while requests are in flight: some answered, some cut off, then refused.
    await kill(ingest);
    await sendFor(2500); // longer than one batch's retries: batches go back to the buffer
    expect(tally.stats.buffered).toBeGreaterThan(0);
    ingest = await startIngest();
    await sendFor(1000);
    await tally.close();
    expect(errors.map((e) => `${e.code}: ${e.message}`)).toEqual([]);
    expect(tally.stats.retries).toBeGreaterThan(0);
    expect(tally.stats.delivered).toBe(sent);
    await expectExactly(agent.id, sent);
    const u = await usage(agent.id);
    expect(u).toMatchObject({ input_tokens: String(sent), output_tokens: String(2 * sent) });
  });

  it('rides out a 429 storm, honouring Retry-After', async () => {
    const agent = await createAgent(stack);
    let limited = 0;
    const limitedAt: number[] = [];
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        if (limited < 5) {
          limited++;
          limitedAt.push(Date.now());
          res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { code: 'rate_limited', message: 'slow down' } }));
          return;
        }
        const up = await fetch(`http://127.0.0.1:${ingestPort}${req.url}`, {
          method: 'POST',
          headers: { 'content-type': req.headers['content-type']!, authorization: req.headers['authorization']! },
          body: Buffer.concat(chunks),
        });
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(await up.text());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const errors: TallyError[] = [];
      const tally = client({ agentKey: agent.id, errors, baseUrl: `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}/v1` });
      for (let i = 0; i < 50; i++) tally.sendAction({ action_type: 'tool_call' });
      for (let i = 0; i < 5; i++) tally.sendOutcome({ outcome_type: 'converted_lead', value: 1 });
      await waitFor(async () => limited, (n) => n >= 5, 20_000);
      await tally.close();
      expect(errors.map((e) => `${e.code}: ${e.message}`)).toEqual([]);
      expect(limited).toBe(5);
      // Each retry after a 429 waited for its Retry-After (1 s), not the 100 ms backoff.
      for (let i = 1; i < limitedAt.length; i++) expect(limitedAt[i]! - limitedAt[i - 1]!).toBeGreaterThanOrEqual(950);
      await expectExactly(agent.id, 55);
    } finally {
      proxy.close();
    }
  });

  it('reports bad events with their event and error; the good events land', async () => {
    const agent = await createAgent(stack);
    const errors: TallyError[] = [];
    const tally = client({ agentKey: agent.secret, errors, transport: 'msgpack' });
    const good = [tally.sendAction({ action_type: 'llm_call', user_id: 'u1', metadata: { input_tokens: 3 } }), tally.sendOutcome({ outcome_type: 'hire', value: 2.5 })];
    const badTokens = tally.sendAction({ action_type: 'llm_call', metadata: { input_tokens: -1 } });
    const badAgent = tally.sendAction({ action_type: 'llm_call', agent_key: 'no-such-agent' });
    const badTime = tally.sendAction({ action_type: 'llm_call', timestamp: new Date(Date.now() - 40 * 86400_000) });
    good.push(tally.sendAction({ action_type: 'tool_call', anonymous_id: 'a1' }));
    await tally.flush();
    const byId = new Map(errors.map((e) => [(e as TallyRejectedError).event.body.id, e as TallyRejectedError]));
    expect(errors.every((e) => e instanceof TallyRejectedError)).toBe(true);
    expect([...byId.keys()].sort()).toEqual([badTokens, badAgent, badTime].sort());
    expect(byId.get(badTokens)).toMatchObject({ code: 'validation_failed', status: 207 });
    expect(byId.get(badTokens)!.message).toMatch(/input_tokens/);
    expect(byId.get(badAgent)).toMatchObject({ code: 'unknown_agent' });
    expect(byId.get(badTime)).toMatchObject({ code: 'timestamp_out_of_range' });
    await tally.close();
    await expectExactly(agent.id, 3);
    expect(await usage(agent.id)).toMatchObject({ actions: '2', outcomes: '1', outcome_value: '2.5', users: '2', input_tokens: '3' });
  });

  it('does not retry a refused credential and reports the whole batch', async () => {
    const errors: TallyError[] = [];
    const tally = client({ apiKey: 'sk_test_not_a_key', agentKey: 'x', errors });
    const ids = [tally.sendAction({ action_type: 'a' }), tally.sendAction({ action_type: 'b' })];
    await tally.close();
    expect(tally.stats.retries).toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(TallyDeliveryError);
    expect(errors[0]).toMatchObject({ code: 'unauthorized', status: 401, retryable: false });
    expect(errors[0]!.events.map((e) => e.body.id)).toEqual(ids);
  });

  it('keeps at most maxBufferedEvents while the service is down, dropping and reporting the oldest', async () => {
    const errors: TallyError[] = [];
    const dead = await freePort();
    const tally = client({ agentKey: 'x', errors, baseUrl: `http://127.0.0.1:${dead}`, bufferSize: 2, maxBufferedEvents: 4, maxRetries: 1, retryBaseMs: 10, flushIntervalMs: 60_000 });
    const ids = Array.from({ length: 7 }, (_, i) => tally.sendAction({ action_type: `a${i}` }));
    await tally.flush();
    expect(tally.stats.buffered).toBeLessThanOrEqual(4);
    const dropped = errors.filter((e) => e instanceof TallyBufferOverflowError).flatMap((e) => e.events.map((x) => x.body.id));
    expect(dropped.length).toBe(7 - tally.stats.buffered);
    // The oldest were dropped (a failed batch goes back in front of newer events, so it is dropped first).
    expect([...dropped].sort()).toEqual(ids.slice(0, dropped.length).sort());
    await tally.close();
    const undelivered = errors.find((e) => e.code === 'undelivered');
    expect(undelivered?.events.map((e) => e.body.id)).toEqual(ids.slice(dropped.length));
  });
});
