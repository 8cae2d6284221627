/**
 * Fault test: NATS (a private nats-server with JetStream file storage) is killed with
 * SIGKILL and restarted while several senders push batches. Every event that was
 * answered `processed` must end up counted exactly once in ClickHouse; answers during the
 * outage are 503 with Retry-After (or a refused connection), never a 4xx or a 500.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { jetstreamManager } from '@nats-io/jetstream';
import { actionCounts, createAgent, startTestStack, startPrivateNats, waitFor, type TestStack } from '../test/harness.ts';
import { spawnNats } from '../shared/nats/connection.ts';

const SENDERS = 8;
const BATCH = 50;
const LOAD_MS = 6_000;
const KILL_AT_MS = 2_000;
const DOWN_MS = 1_500;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('NATS restarted under load', () => {
  let nats: ChildProcess | undefined;
  let store: string | undefined;
  let stack: TestStack | undefined;
  afterEach(async () => {
    await stack?.cleanup().catch(() => {}); // while this test's NATS still runs
    nats?.kill('SIGKILL');
    if (store) rmSync(store, { recursive: true, force: true });
  });

  it('loses no acknowledged event and counts each once', async () => {
    store = mkdtempSync(path.join(os.tmpdir(), 'tally-nats-load-'));
    const privateNats = await startPrivateNats(store);
    const { port, bin } = privateNats;
    nats = privateNats.child;

    stack = await startTestStack({ env: { NATS_URL: `nats://127.0.0.1:${port}`, TALLY_INGEST_ACK_TIMEOUT_MS: '1000', TALLY_SINK_ACK_WAIT_MS: '5000', TALLY_SINK_RETRY_DELAY_MS: '200' } });
    const s = stack;
    const agent = await createAgent(s);
    const sdk = s.keys.development.sdk;

    const acknowledged = new Set<string>();
    const statuses = new Map<string, number>(); // status (or 'network') -> answers
    const bad: string[] = []; // answers that break the contract
    let stop = false;
    const count = (k: string) => statuses.set(k, (statuses.get(k) ?? 0) + 1);

    // Each sender sends a batch until it is acknowledged (like the SDK: same ids on retry),
    // then the next one, until the load period ends.
    const sender = async (w: number) => {
      for (let b = 0; !stop; b++) {
        const events = Array.from({ length: BATCH }, (_, i) => ({ agent_key: agent.id, action_type: 'load', id: `w${w}-b${b}-${i}` }));
        while (!stop) {
          let res: Response;
          try {
            res = await fetch(`${s.baseUrl}/v1/actions`, { method: 'POST', headers: { authorization: `Bearer ${sdk}`, 'content-type': 'application/json' }, body: JSON.stringify(events) });
          } catch {
            count('network');
            await sleep(100);
            continue;
          }
          const body = (await res.json().catch(() => undefined)) as any;
          count(String(res.status));
          if (res.status >= 200 && res.status < 300) {
            for (const r of body.results) {
              if (r.status === 'processed') acknowledged.add(r.id);
              else bad.push(`rejected in a ${res.status}: ${JSON.stringify(r)}`);
            }
            break;
          }
          if (res.status !== 503 || !res.headers.get('retry-after') || body?.error?.code !== 'service_unavailable' || !body.error.request_id) {
            bad.push(`${res.status} ${res.headers.get('retry-after')} ${JSON.stringify(body)}`);
          }
          await sleep(100);
        }
      }
    };

    const started = Date.now();
    const load = Promise.all(Array.from({ length: SENDERS }, (_, w) => sender(w)));
    await sleep(KILL_AT_MS);
    const ackedBeforeKill = acknowledged.size;
    nats.kill('SIGKILL');
    await sleep(DOWN_MS);
    const ackedWhileDown = acknowledged.size;
    nats = spawnNats(bin, port, store);
    await sleep(Math.max(0, LOAD_MS - (Date.now() - started)));
    stop = true;
    await load;

    expect(bad).toEqual([]);
    expect(statuses.get('503') ?? 0, JSON.stringify(Object.fromEntries(statuses))).toBeGreaterThan(0); // the outage was seen
    expect(ackedBeforeKill).toBeGreaterThan(0);
    expect(acknowledged.size, 'ingest recovered after the restart').toBeGreaterThan(ackedWhileDown);

    // Drained: the sink consumed and acknowledged everything in the stream.
    const jsm = await jetstreamManager(s.tally.nc!);
    await waitFor(() => jsm.consumers.info(s.tally.names.stream, s.tally.names.sinkConsumer), (i) => i.num_pending === 0 && i.num_ack_pending === 0, 30_000);

    const stored = await actionCounts(s, agent.id);
    const missing = [...acknowledged].filter((id) => !stored.has(id));
    expect(missing.length, `acknowledged but missing: ${missing.slice(0, 10).join(', ')}`).toBe(0);
    expect([...stored].filter(([, n]) => n !== 1)).toEqual([]);
    // Stored but never acknowledged can only be the batches in flight when NATS died (answered 503, then resent and acknowledged).
    expect([...stored.keys()].filter((id) => !acknowledged.has(id)).length).toBeLessThanOrEqual(SENDERS * BATCH);

    // The usage API counts each acknowledged event once.
    const now = Date.now();
    const usage = await s.tally.usage!.query({ environmentId: s.keys.development.id, from: new Date(now - 86_400_000), to: new Date(now + 86_400_000), groupBy: 'agent', agentInstanceIds: [agent.id] });
    expect(usage[0]?.actions).toBe(String(stored.size));
    console.info(`nats-restart-load: ${acknowledged.size} events acknowledged, ${stored.size} stored; answers ${JSON.stringify(Object.fromEntries(statuses))}`);
  }, 60_000);
});
