/**
 * A replicated events stream (TALLY_STREAM_REPLICAS=3) on a 3-node nats-server cluster
 * on loopback: the stream leader is killed with SIGKILL under load. Every acknowledged
 * event must be stored once, and ingest must acknowledge again within seconds, on the
 * two servers left.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';
import { findNatsServer, reachable } from '../shared/nats/connection.ts';

const SENDERS = 4;
const BATCH = 25;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function freePorts(n: number): Promise<number[]> {
  const out: number[] = [];
  while (out.length < n) {
    const p = 20_000 + Math.floor(Math.random() * 30_000);
    if (!out.includes(p) && !(await reachable('127.0.0.1', p))) out.push(p);
  }
  return out;
}

interface Node {
  name: string;
  port: number;
  proc: ChildProcess;
}
const nodes: Node[] = [];
let store: string | undefined;
let stack: TestStack | undefined;

afterAll(async () => {
  await stack?.cleanup().catch(() => {});
  for (const n of nodes) n.proc.kill('SIGKILL');
  if (store) rmSync(store, { recursive: true, force: true });
});

describe('a replicated events stream on a 3-node NATS cluster', () => {
  it('loses no acknowledged event when the stream leader is killed, and acknowledges again within seconds', async () => {
    const bin = findNatsServer();
    expect(bin, 'nats-server must be installed').toBeTruthy();
    const [c1, c2, c3, p1, p2, p3] = await freePorts(6);
    const clusterPorts = [c1!, c2!, c3!];
    store = mkdtempSync(path.join(os.tmpdir(), 'tally-nats-cluster-'));
    const routes = clusterPorts.map((p) => `nats://127.0.0.1:${p}`).join(',');
    [p1!, p2!, p3!].forEach((port, i) => {
      const name = `n${i + 1}`;
      const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', path.join(store!, name), '-n', name, '--cluster_name', 'tally-test', '--cluster', `nats://127.0.0.1:${clusterPorts[i]}`, '--routes', routes];
      nodes.push({ name, port, proc: spawn(bin!, args, { stdio: 'ignore' }) });
    });
    const url = nodes.map((n) => `nats://127.0.0.1:${n.port}`).join(',');
    for (const n of nodes) await waitFor(() => reachable('127.0.0.1', n.port), Boolean, 15_000);
    // Wait for JetStream's meta leader: the cluster answers account info.
    const probe = await connect({ servers: nodes.map((n) => `127.0.0.1:${n.port}`), maxReconnectAttempts: -1, reconnectTimeWait: 250 });
    const probeJsm = await jetstreamManager(probe, { checkAPI: false });
    await waitFor(() => probeJsm.getAccountInfo().then(() => true, () => false), Boolean, 30_000);

    stack = await startTestStack({
      roles: ['ingest', 'sink'],
      env: { NATS_URL: url, TALLY_STREAM_REPLICAS: '3', TALLY_INGEST_ACK_TIMEOUT_MS: '1000', TALLY_SINK_ACK_WAIT_MS: '5000', TALLY_SINK_RETRY_DELAY_MS: '200' },
    });
    const s = stack;
    const info = await probeJsm.streams.info(s.tally.names.stream);
    expect(info.config.num_replicas).toBe(3);
    expect(info.cluster?.replicas?.length).toBe(2);
    const agent = await createAgent(s);
    const sdk = s.keys.development.sdk;

    const acknowledged = new Set<string>();
    const ackTimes: number[] = [];
    const bad: string[] = [];
    let stop = false;
    const sender = async (w: number) => {
      for (let b = 0; !stop; b++) {
        const events = Array.from({ length: BATCH }, (_, i) => ({ agent_key: agent.id, action_type: 'load', id: `w${w}-b${b}-${i}` }));
        while (!stop) {
          const res = await fetch(`${s.baseUrl}/v1/actions`, { method: 'POST', headers: { authorization: `Bearer ${sdk}`, 'content-type': 'application/json' }, body: JSON.stringify(events) }).catch(() => undefined);
          if (res && res.status >= 200 && res.status < 300) {
            const body = (await res.json()) as { results: { status: string; id: string }[] };
            for (const r of body.results) if (r.status === 'processed') acknowledged.add(r.id);
            ackTimes.push(Date.now());
            break;
          }
          if (res && res.status !== 503) bad.push(`${res.status} ${await res.text()}`);
          await sleep(100);
        }
      }
    };
    const load = Promise.all(Array.from({ length: SENDERS }, (_, w) => sender(w)));
    await sleep(2_000);
    const leaderName = (await probeJsm.streams.info(s.tally.names.stream)).cluster!.leader!;
    const leader = nodes.find((n) => n.name === leaderName)!;
    const ackedBeforeKill = acknowledged.size;
    const killedAt = Date.now();
    leader.proc.kill('SIGKILL');
    await sleep(12_000);
    stop = true;
    await load;
    await probe.close().catch(() => {});

    const firstAckAfter = ackTimes.filter((t) => t > killedAt + 50)[0];
    const recoveryMs = firstAckAfter === undefined ? Infinity : firstAckAfter - killedAt;
    console.info(`stream-replicas: killed leader ${leaderName}; ${ackedBeforeKill} acknowledged before, ${acknowledged.size} in all; acknowledging again after ${recoveryMs} ms`);
    expect(bad).toEqual([]);
    expect(ackedBeforeKill).toBeGreaterThan(0);
    expect(recoveryMs, 'ingest acknowledges again within seconds of losing the stream leader').toBeLessThan(10_000);
    expect(acknowledged.size).toBeGreaterThan(ackedBeforeKill);

    const jsm = await jetstreamManager(s.tally.nc!);
    await waitFor(() => jsm.consumers.info(s.tally.names.stream, s.tally.names.sinkConsumer), (i) => i.num_pending === 0 && i.num_ack_pending === 0, 60_000);
    const rs = await s.tally.ch!.query({
      query: `SELECT event_id, count() AS n FROM ${s.env.CLICKHOUSE_DATABASE}.actions FINAL WHERE agent_instance_id = {a:String} GROUP BY event_id`,
      query_params: { a: agent.id },
      format: 'JSONEachRow',
    });
    const stored = new Map((await rs.json<{ event_id: string; n: string }>()).map((r) => [r.event_id, Number(r.n)]));
    const missing = [...acknowledged].filter((id) => !stored.has(id));
    expect(missing.length, `acknowledged but missing: ${missing.slice(0, 10).join(', ')}`).toBe(0);
    expect([...stored].filter(([, n]) => n !== 1)).toEqual([]);
  }, 120_000);
});
