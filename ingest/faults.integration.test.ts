import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { call, createAgent, startTestStack, startPrivateNats, waitFor, type TestStack } from '../test/harness.ts';
import { spawnNats } from '../shared/nats/connection.ts';
import type { TallyProcess } from '../app/start.ts';

const stacks: TestStack[] = [];
afterAll(async () => {
  for (const s of stacks) await s.cleanup();
});

async function countActions(stack: TestStack, agentId: string): Promise<string> {
  const now = Date.now();
  const rows = await stack.tally.usage!.query({
    environmentId: stack.keys.development.id,
    from: new Date(now - 86400_000),
    to: new Date(now + 86400_000),
    groupBy: 'agent',
    agentInstanceIds: [agentId],
  });
  return rows[0]?.actions ?? '0';
}

describe('the sink killed between insert and ack', () => {
  it('loses nothing and counts nothing twice', async () => {
    // Ingest and api in the main process; the sink runs as its own "process" that dies
    // right after its first insert, before acknowledging anything.
    const stack = await startTestStack({ roles: ['ingest', 'api'], env: { TALLY_SINK_ACK_WAIT_MS: '1000' } });
    stacks.push(stack);
    const agent = await createAgent(stack);
    let crashed = false;
    let doomed: TallyProcess | undefined;
    doomed = await stack.startAnother(['sink'], {
      sinkHooks: {
        afterInsert: () => {
          if (crashed) return;
          crashed = true;
          void doomed!.nc!.close(); // the process is gone: no ack will ever be sent
          throw new Error('simulated crash after insert');
        },
      },
    });
    const events = Array.from({ length: 50 }, (_, i) => ({ agent_key: agent.id, action_type: 'x', id: `crash-${i}` }));
    const res = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: events });
    expect(res.status).toBe(200);
    await waitFor(async () => crashed, (c) => c);
    await doomed.stop();
    // The rows of the dead sink's insert are already in ClickHouse, unacknowledged.
    expect(await countActions(stack, agent.id)).toBe('50');

    await stack.startAnother(['sink']);
    // JetStream redelivers after ack_wait; the new sink inserts the same rows again.
    const rawCopies = async () => {
      const rs = await stack.tally.ch!.query({
        query: `SELECT count() AS n FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE agent_instance_id = {a:String}`,
        query_params: { a: agent.id },
        format: 'JSONEachRow',
      });
      return Number((await rs.json<{ n: number }>())[0]!.n);
    };
    const info = async () => (await (await import('@nats-io/jetstream')).jetstreamManager(stack.tally.nc!)).consumers.info(stack.tally.names.stream, stack.tally.names.sinkConsumer);
    await waitFor(info, (i) => i.num_ack_pending === 0 && i.num_pending === 0, 20_000);
    expect(await rawCopies()).toBeGreaterThanOrEqual(50);
    expect(await countActions(stack, agent.id)).toBe('50');
  });
});

describe('NATS stopped', () => {
  let nats: ChildProcess | undefined;
  let store: string | undefined;
  afterEach(() => {
    nats?.kill('SIGKILL');
    if (store) rmSync(store, { recursive: true, force: true });
  });

  it('answers 503 with Retry-After, loses nothing acknowledged, and recovers by itself', async () => {
    store = mkdtempSync(path.join(os.tmpdir(), 'tally-nats-'));
    const started = await startPrivateNats(store);
    const { port, bin } = started;
    nats = started.child;

    const stack = await startTestStack({ env: { NATS_URL: `nats://127.0.0.1:${port}`, TALLY_INGEST_ACK_TIMEOUT_MS: '1000' } });
    const agent = await createAgent(stack);
    const sdk = stack.keys.development.sdk;
    const acknowledged: string[] = [];
    const send = async (id: string) => {
      const r = await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.id, action_type: 'x', id } });
      if (r.status === 200) acknowledged.push(id);
      return r;
    };
    for (let i = 0; i < 10; i++) expect((await send(`before-${i}`)).status).toBe(200);

    nats.kill('SIGKILL');
    await new Promise((r) => setTimeout(r, 300));
    const during = await send('during-0');
    expect(during.status).toBe(503);
    expect(during.headers.get('retry-after')).toBeTruthy();
    expect(during.body.error.code).toBe('service_unavailable');
    expect((await call(stack, 'GET', '/readyz')).status).toBe(503);

    nats = spawnNats(bin, port, store);
    const after = await waitFor(() => send('after-0'), (r) => r.status === 200, 30_000);
    expect(after.status).toBe(200);
    for (let i = 1; i < 10; i++) expect((await send(`after-${i}`)).status).toBe(200);

    await waitFor(() => countActions(stack, agent.id), (n) => Number(n) >= acknowledged.length, 30_000);
    expect(await countActions(stack, agent.id)).toBe(String(acknowledged.length));
    expect((await call(stack, 'GET', '/readyz')).status).toBe(200);
    await stack.cleanup(); // while this test's NATS still runs
  }, 90_000);
});
