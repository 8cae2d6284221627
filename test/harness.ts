import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { initNewOrganization, initTally, type InitResult } from '../billing/catalog/bootstrap.ts';
import { hashSecret } from '../shared/ids.ts';
import { createDb, dropDatabase, ensureDatabase, migrate } from '../shared/db/postgres.ts';
import type { ChildProcess } from 'node:child_process';
import { deleteEventsStream, findNatsServer, reachable, spawnNats } from '../shared/nats/connection.ts';
import { startTally, ROLES, type Role, type TallyProcess } from '../app/start.ts';
import type { SinkHooks } from '../ingest/sink/sink.ts';
import { createAgentInstance } from '../billing/catalog/agent-instances.ts';
import type { EnvironmentName } from '../shared/db/schema.ts';

/**
 * An isolated Tally stack for one test file: its own Postgres database, NATS name
 * prefix and ClickHouse database (chDB: one data directory per test process), on the
 * real services. `cleanup()` removes all three.
 */
export interface TestStack {
  tally: TallyProcess;
  baseUrl: string;
  env: Record<string, string>;
  init: InitResult;
  keys: Record<EnvironmentName, { id: string; admin: string; sdk: string }>;
  /** Starts another process on the same isolated stack (e.g. a second sink). */
  startAnother(roles: Role[], extra?: { sinkHooks?: SinkHooks; env?: Record<string, string>; now?: () => Date }): Promise<TallyProcess>;
  cleanup(): Promise<void>;
}

export function uniqueSuffix(): string {
  return `${process.pid.toString(36)}${randomBytes(4).toString('hex')}`;
}

export async function startTestStack(
  opts: { roles?: Role[]; env?: Record<string, string>; sinkHooks?: SinkHooks; now?: () => Date } = {},
): Promise<TestStack> {
  const suffix = uniqueSuffix();
  const env: Record<string, string> = {
    DATABASE_URL: `postgres://postgres@127.0.0.1:5432/tally_t_${suffix}`,
    NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
    TALLY_NATS_PREFIX: `T${suffix}_`,
    CLICKHOUSE_DATABASE: `t_${suffix}`,
    TALLY_DATA_DIR: path.join(os.tmpdir(), `tally-test-${process.pid}`),
    TALLY_HTTP_PORT: '0',
    TALLY_OTLP_GRPC_PORT: '0',
    TALLY_HTTP_HOST: '127.0.0.1',
    TALLY_LOG_LEVEL: 'warn',
    TALLY_SINK_BATCH_LINGER_MS: '20',
    // JetStream reserves a stream's max_bytes on the server: keep test streams small so
    // parallel test files never exhaust the shared server's storage.
    TALLY_STREAM_MAX_BYTES: String(256 * 1024 * 1024),
    // Tests walk every route without a credential from one address.
    TALLY_AUTH_FAILURES_PER_MINUTE: '100000',
    // Test receivers listen on 127.0.0.1 (the SSRF tests turn this off).
    TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'on',
    ...opts.env,
  };
  await ensureDatabase(env.DATABASE_URL!);
  const db = createDb(env.DATABASE_URL!, { max: 2 });
  await migrate(db as never);
  const init = await initTally(db, { dataDir: path.join(env.TALLY_DATA_DIR!, suffix) });
  await db.destroy();
  const tally = await startTally({ roles: opts.roles ?? [...ROLES], env, ...(opts.sinkHooks ? { sinkHooks: opts.sinkHooks } : {}), ...(opts.now ? { now: opts.now } : {}) });
  const others: TallyProcess[] = [];
  const keys = {} as TestStack['keys'];
  for (const [name, e] of Object.entries(init.environments)) keys[name as EnvironmentName] = { id: e.id, admin: e.admin_api_key!, sdk: e.sdk_key! };
  return {
    tally,
    baseUrl: `http://127.0.0.1:${tally.port}`,
    env,
    init,
    keys,
    async startAnother(roles, extra = {}) {
      const p = await startTally({ roles, env: { ...env, ...extra.env }, ...(extra.sinkHooks ? { sinkHooks: extra.sinkHooks } : {}), ...(extra.now ? { now: extra.now } : {}) });
      others.push(p);
      return p;
    },
    async cleanup() {
      for (const p of others) await p.stop();
      const { nc, ch } = tally;
      if (ch) await ch.command({ query: `DROP DATABASE IF EXISTS ${env.CLICKHOUSE_DATABASE}` }).catch(() => {});
      if (nc && !nc.isClosed()) await deleteEventsStream(nc, tally.names).catch(() => {});
      await tally.stop();
      await dropDatabase(env.DATABASE_URL!).catch(() => {});
    },
  };
}

/**
 * A second organization on the stack, created as `tally init --new-organization` does:
 * its development environment's admin (rate limit raised for route walks) and SDK key.
 */
export async function addOrganization(stack: TestStack): Promise<{ organizationId: string; environmentId: string; admin: string; sdk: string }> {
  const db = stack.tally.db!;
  const org = await initNewOrganization(db, { dataDir: path.join(stack.env.TALLY_DATA_DIR!, uniqueSuffix()), organizationName: 'Other organization' });
  const dev = org.environments.development;
  await db.updateTable('api_keys').set({ rate_limit_per_minute: 1_000_000 }).where('key_hash', '=', hashSecret(dev.admin_api_key!)).execute();
  return { organizationId: org.organization_id, environmentId: dev.id, admin: dev.admin_api_key!, sdk: dev.sdk_key! };
}

/** Creates an agent instance in an environment of the stack. */
export async function createAgent(stack: TestStack, envName: EnvironmentName = 'development', extra: { accountId?: string } = {}) {
  return createAgentInstance(stack.tally.db!, { environmentId: stack.keys[envName].id, name: `agent-${uniqueSuffix()}`, ...extra });
}

export interface Answer<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** Sends a request; JSON bodies are serialized unless a Buffer/string is given. */
export async function call<T = any>(
  stack: TestStack,
  method: string,
  p: string,
  opts: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.key) headers['authorization'] = `Bearer ${opts.key}`;
  let body: string | Buffer | Uint8Array | undefined;
  if (opts.body !== undefined) {
    if (typeof opts.body === 'string' || opts.body instanceof Uint8Array) body = opts.body as string | Uint8Array;
    else {
      body = JSON.stringify(opts.body);
      headers['content-type'] ??= 'application/json';
    }
  }
  const res = await fetch(stack.baseUrl + p, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body: parsed as T };
}

/** Polls until `fn` returns a value that `done` accepts, or fails after `timeoutMs`. */
export async function waitFor<T>(fn: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const start = Date.now();
  let last: T = await fn();
  while (!done(last)) {
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting; last value: ${JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 100));
    last = await fn();
  }
  return last;
}

/** How many times each event id of an agent is counted (actions, read with FINAL as usage reads them). */
export async function actionCounts(stack: TestStack, agentId: string): Promise<Map<string, number>> {
  const rs = await stack.tally.ch!.query({
    query: `SELECT event_id, count() AS n FROM ${stack.env.CLICKHOUSE_DATABASE}.actions FINAL WHERE agent_instance_id = {a:String} GROUP BY event_id`,
    query_params: { a: agentId },
    format: 'JSONEachRow',
  });
  return new Map((await rs.json<{ event_id: string; n: string }>()).map((r) => [r.event_id, Number(r.n)]));
}

/** How many copies of the agent's actions ClickHouse holds (read with FINAL, as usage reads them). */
export async function storedActionCount(stack: TestStack, agentId: string): Promise<number> {
  return [...(await actionCounts(stack, agentId)).values()].reduce((a, b) => a + b, 0);
}

/** Resolves once ClickHouse holds at least `n` actions of the agent (an invoice counts only what it holds). */
export function untilStored(stack: TestStack, agentId: string, n: number, timeoutMs?: number): Promise<number> {
  return waitFor(() => storedActionCount(stack, agentId), (c) => c >= n, timeoutMs);
}

/**
 * A private nats-server with JetStream on a free loopback port, for fault tests that kill
 * and restart it. A port taken between the check and the start (another test's) makes the
 * server exit at once: another port is tried.
 */
export async function startPrivateNats(storeDir: string): Promise<{ port: number; child: ChildProcess; bin: string }> {
  const bin = findNatsServer();
  if (!bin) throw new Error('nats-server must be installed (Debian: apt-get install nats-server)');
  for (let attempt = 0; attempt < 10; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if (await reachable('127.0.0.1', port)) continue;
    const child = spawnNats(bin, port, storeDir);
    const exited = new Promise<boolean>((resolve) => child.once('exit', () => resolve(false)));
    const up = (async () => {
      for (const start = Date.now(); Date.now() - start < 30_000; await new Promise((r) => setTimeout(r, 100))) {
        if (child.exitCode !== null) return false;
        if (await reachable('127.0.0.1', port)) return true;
      }
      return false;
    })();
    if (await Promise.race([up, exited])) return { port, child, bin };
    child.kill('SIGKILL');
  }
  throw new Error('no private nats-server started after 10 attempts');
}

/** A clock that reads `start` now and runs at real speed from there: a test written for a date keeps working after it. */
export function clockFrom(start: string): () => Date {
  const offset = Date.parse(start) - Date.now();
  return () => new Date(Date.now() + offset);
}
