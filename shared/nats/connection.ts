import { NatsConnectionImpl, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, RetentionPolicy, StorageType, DiscardPolicy, type JetStreamManager, type StreamConfig } from '@nats-io/jetstream';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, statfsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_NATS_URL } from '../config/common.ts';
import { logger } from '../log.ts';
import type { NatsNames } from './names.ts';
import type { SinkFloor } from '../clickhouse/sink-progress.ts';
import { commandOf, isAlive, ownerOf, processesWith, readServerRecord, removeServerRecord, stopProcess, writeServerRecord, type ServerRecord } from '../server-record.ts';
import { useLargeReads } from './transport.ts';

const log = logger('nats');

/**
 * Connects, retrying for ever (the client reconnects by itself after outages). `url` may
 * list several servers of a cluster, comma-separated; the client moves between them.
 */
export async function connectNats(url: string, name: string): Promise<NatsConnection> {
  // nats.js's `connect`, with reads of up to 1 MiB (transport.ts).
  useLargeReads();
  const nc = await NatsConnectionImpl.connect({
    servers: url.split(',').map((s) => s.trim()).filter(Boolean),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
  });
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') log.info(`nats ${s.type}`, { name, server: 'server' in s ? s.server : undefined });
    }
  })();
  return nc;
}

/**
 * Resolves the NATS URL: NATS_URL when set; else the default local server when it
 * answers; else a `nats-server -js` from PATH with its store under the data dir (see
 * {@link selfStartedNats}).
 */
export async function resolveNatsUrl(configured: string | undefined, dataDir: string): Promise<{ url: string; stop: () => Promise<void>; storeDir?: string }> {
  const noop = async () => {};
  if (configured) return { url: configured, stop: noop };
  if (await reachable('127.0.0.1', 4222)) return { url: DEFAULT_NATS_URL, stop: noop };
  return selfStartedNats(dataDir);
}

/** The port a self-started nats-server takes when it is free. */
const SELF_STARTED_PORT = 4223;

/**
 * The data directory's own nats-server, recorded in `<store>/tally-nats-server.json`
 * (shared/server-record.ts). One still running is used: shared when another live Tally
 * process started it, adopted (and stopped with this process) when the Tally that started
 * it is dead. Else one is started, on port 4223 or, when that is taken, a free one, in a
 * process group of its own (a signal to Tally's group reaches Tally, which stops it last).
 */
async function selfStartedNats(dataDir: string): Promise<{ url: string; stop: () => Promise<void>; storeDir: string }> {
  const storeDir = path.join(dataDir, 'nats');
  mkdirSync(storeDir, { recursive: true });
  const recordFile = path.join(storeDir, 'tally-nats-server.json');
  const record = runningRecord(recordFile, storeDir);
  const stopRecorded = (pid: number) => async () => {
    await stopProcess(pid, 'SIGTERM', 10_000);
    if (readServerRecord(recordFile)?.pid === pid) removeServerRecord(recordFile);
  };
  if (record && (await reachable('127.0.0.1', record.port))) {
    const url = `nats://127.0.0.1:${record.port}`;
    if (ownerOf(record) !== 'dead') {
      log.info('using the nats-server another Tally process started on this data directory', { pid: record.pid, port: record.port, owner: record.owner });
      return { url, storeDir, stop: async () => {} };
    }
    log.warn('adopting the nats-server a Tally process that ended without stopping it left running; it stops with this process', { pid: record.pid, port: record.port, dead_owner: record.owner || 'unrecorded' });
    writeServerRecord(recordFile, { ...record, owner: process.pid });
    return { url, storeDir, stop: stopRecorded(record.pid) };
  }
  const bin = findNatsServer();
  if (!bin) {
    throw new Error(
      'no NATS at 127.0.0.1:4222 and no nats-server on PATH: install it (Debian/Ubuntu: apt-get install nats-server; macOS: brew install nats-server) or set NATS_URL to a NATS server with JetStream',
    );
  }
  const port = (await reachable('127.0.0.1', SELF_STARTED_PORT)) ? await freePort() : SELF_STARTED_PORT;
  if (port !== SELF_STARTED_PORT) log.info(`port ${SELF_STARTED_PORT} is taken by another process; the nats-server takes a free one`, { port });
  log.info('no NATS at the default address; starting nats-server', { bin, port, storeDir });
  const tail: string[] = [];
  const child = spawnNats(bin, port, storeDir, { detached: true, onLine: (l) => (tail.push(l), tail.length > 10 && tail.shift()) });
  for (let i = 0; i < 100 && !(await reachable('127.0.0.1', port)); i++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with code ${child.exitCode} while starting: ${tail.join(' | ')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  if (child.exitCode !== null || child.pid === undefined) throw new Error(`nats-server exited with code ${child.exitCode} while starting: ${tail.join(' | ')}`);
  writeServerRecord(recordFile, { pid: child.pid, owner: process.pid, port });
  return { url: `nats://127.0.0.1:${port}`, storeDir, stop: stopRecorded(child.pid) };
}

/**
 * The nats-server running on `storeDir`: the recorded one while it runs; else one found by
 * its command line (`-sd <storeDir>`, left by a Tally that kept no record), owner unknown.
 */
function runningRecord(recordFile: string, storeDir: string): ServerRecord | undefined {
  const record = readServerRecord(recordFile);
  if (record && isAlive(record.pid) && commandOf(record.pid).includes(`-sd ${storeDir}`)) return record;
  for (const pid of processesWith(`-sd ${storeDir}`)) {
    const port = Number(/ -p (\d+)/.exec(commandOf(pid))?.[1]);
    if (commandOf(pid).includes('nats-server') && port > 0) return { pid, port, owner: 0 };
  }
  return undefined;
}

/** A port the system reports free on 127.0.0.1 now. */
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

/**
 * The stream size a self-started nats-server can hold: JetStream reserves a stream's
 * `max_bytes` on disk, so the default (4 GiB) is lowered to half the free disk of its store.
 */
export function streamBytesForDisk(storeDir: string, configured: number): number {
  const { bavail, bsize } = statfsSync(storeDir);
  const half = Math.floor((Number(bavail) * Number(bsize)) / 2);
  return Math.max(16 * 1024 * 1024, Math.min(configured, half));
}

export function findNatsServer(): string | undefined {
  const dirs = [...(process.env.PATH ?? '').split(':'), '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];
  for (const d of dirs) {
    const p = path.join(d, 'nats-server');
    if (d && existsSync(p)) return p;
  }
  return undefined;
}

/**
 * A nats-server with JetStream on loopback; its output goes to the log (stderr), never to
 * stdout. `detached`: in a process group of its own, so a signal to Tally's group does not
 * stop it before Tally has stopped its roles.
 */
export function spawnNats(bin: string, port: number, storeDir: string, opts: { detached?: boolean; onLine?: (line: string) => void } = {}): ChildProcess {
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', storeDir], { stdio: ['ignore', 'pipe', 'pipe'], detached: opts.detached ?? false });
  const serverLog = logger('nats-server');
  for (const stream of [child.stdout, child.stderr]) {
    stream?.setEncoding('utf8');
    stream?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (!line.trim()) continue;
        serverLog.debug(line.trim());
        opts.onLine?.(line.trim());
      }
    });
  }
  return child;
}

export function reachable(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    s.setTimeout(1000);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
    s.once('timeout', () => {
      s.destroy();
      resolve(false);
    });
  });
}

interface StreamOptions {
  /** Upper bound of stored, not yet consumed event data; beyond it ingest answers 503. */
  maxBytes: number;
  /** JetStream's Nats-Msg-Id duplicate window for publish retries. */
  duplicateWindowMs: number;
  /** Copies of the stream on a NATS cluster (1, 3 or 5); a stream survives the loss of a minority. */
  replicas?: number;
}

/**
 * Creates or updates the EVENTS stream: file storage, work-queue retention (a batch is
 * removed once the sink acknowledged it), discard-new when full so publishers get an
 * error instead of older data being dropped.
 */
export async function ensureEventsStream(nc: NatsConnection, names: NatsNames, opts: StreamOptions): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config: Partial<StreamConfig> & { name: string } = {
    name: names.stream,
    subjects: [names.eventsFilter],
    storage: StorageType.File,
    retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.New,
    max_bytes: opts.maxBytes,
    duplicate_window: opts.duplicateWindowMs * 1_000_000,
    num_replicas: opts.replicas ?? 1,
  };
  try {
    const existing = await jsm.streams.info(names.stream);
    const { retention: _r, ...update } = config;
    if (existing.config.num_replicas !== config.num_replicas) {
      // JetStream moves the stream (and consumers that inherit its replicas) to the new count.
      log.warn('changing the events stream replica count (TALLY_STREAM_REPLICAS)', { stream: names.stream, from: existing.config.num_replicas, to: config.num_replicas });
    }
    await jsm.streams.update(names.stream, update);
  } catch (err) {
    if ((err as { name?: string }).name !== 'StreamNotFoundError' && !/stream not found/i.test(String(err))) throw storageHint(err, opts);
    await jsm.streams.add(config).catch((e: unknown) => {
      throw storageHint(e, opts);
    });
  }
}

/** JetStream's "insufficient storage" or "no peers for the replicas" as an error naming the variables to change. */
function storageHint(err: unknown, opts: StreamOptions): unknown {
  const msg = String((err as Error)?.message ?? err);
  const replicas = opts.replicas ?? 1;
  if (replicas > 1 && /not supported in non-clustered mode/i.test(msg)) {
    return new Error(`TALLY_STREAM_REPLICAS=${replicas} needs a NATS cluster of at least ${replicas} servers with JetStream; this server is not clustered (set TALLY_STREAM_REPLICAS=1)`, { cause: err });
  }
  if (!/insufficient storage|no suitable peers|storage resources/i.test(msg)) return err;
  const bytes = `JetStream cannot reserve the events stream's ${opts.maxBytes} bytes (TALLY_STREAM_MAX_BYTES)`;
  const message =
    replicas > 1
      ? `${bytes} on ${replicas} servers (TALLY_STREAM_REPLICAS=${replicas}): the cluster has fewer servers with JetStream, or one has too little disk. Start more servers, set TALLY_STREAM_REPLICAS lower, or set TALLY_STREAM_MAX_BYTES lower (at least 16777216)`
      : `${bytes}: its store has less free disk or a lower max_file_store. Set TALLY_STREAM_MAX_BYTES lower (at least 16777216), free disk, or raise the server's JetStream limits`;
  return new Error(message, { cause: err });
}

/** Deletes the stream (tests clean up their prefix). */
export async function deleteEventsStream(nc: NatsConnection, names: NatsNames): Promise<void> {
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(names.stream).catch(() => {});
}

/**
 * Extends an ack floor over messages known inserted though not acknowledged
 * (shared/clickhouse/sink-progress.ts): (stream creation time, ack floor, last sequence).
 */
export type FloorExtension = (streamCreated: string, floor: number, last: number) => Promise<number>;

/**
 * The sink's floor: the stream sequence up to which every event message is in
 * ClickHouse (acknowledged after its insert, set aside as undecodable, or, with
 * `extend`, recorded as inserted). Waits up to `waitMs` for the sink to reach what the
 * stream held when asked. 0 while the stream or the sink's consumer does not exist yet.
 */
export async function sinkAckFloor(nc: NatsConnection, names: NatsNames, waitMs: number, extend?: FloorExtension): Promise<number> {
  return (await sinkFloorOf(nc, names, waitMs, extend)).floor;
}

/**
 * {@link sinkAckFloor} with the stream it is a sequence of (its creation time), read
 * together: what keeps a position must keep which stream it was taken on.
 */
export async function sinkFloorOf(nc: NatsConnection, names: NatsNames, waitMs: number, extend?: FloorExtension): Promise<SinkFloor> {
  const jsm = await managerOf(nc);
  let last: number;
  let created: string;
  try {
    const info = await jsm.streams.info(names.stream);
    last = info.state.last_seq;
    created = info.created;
  } catch (err) {
    if (/not found/i.test(String(err))) return { stream: '', floor: 0 };
    throw err;
  }
  const deadline = Date.now() + waitMs;
  for (;;) {
    let floor: number;
    try {
      floor = (await jsm.consumers.info(names.stream, names.sinkConsumer)).ack_floor.stream_seq;
    } catch (err) {
      if (/not found/i.test(String(err))) return { stream: created, floor: 0 };
      throw err;
    }
    if (extend && floor < last) floor = await extend(created, floor, last);
    if (floor >= last || Date.now() >= deadline) return { stream: created, floor };
    await new Promise((r) => setTimeout(r, 20));
  }
}

const managers = new WeakMap<NatsConnection, Promise<JetStreamManager>>();
/** One JetStream manager per connection (making one asks the server for its JetStream info). */
function managerOf(nc: NatsConnection): Promise<JetStreamManager> {
  let m = managers.get(nc);
  if (!m) {
    m = jetstreamManager(nc);
    m.catch(() => managers.delete(nc));
    managers.set(nc, m);
  }
  return m;
}
