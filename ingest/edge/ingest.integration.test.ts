import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pack } from 'msgpackr';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { insertKey } from '../../billing/catalog/bootstrap.ts';
import { refreshAgentSecret, setAgentActive } from '../../billing/catalog/agent-instances.ts';
import { MAX_EVENTS_PER_REQUEST } from '../../shared/events/limits.ts';

let stack: TestStack;
let agent: { id: string; secret: string };
let sdk: string;

beforeAll(async () => {
  // A 1 s JetStream duplicate window, so a test can resend after it has passed.
  stack = await startTestStack({ env: { TALLY_STREAM_DUPLICATE_WINDOW_MS: '1000' } });
  sdk = stack.keys.development.sdk;
  agent = await createAgent(stack);
});
afterAll(async () => {
  await stack?.cleanup();
});

const db = () => stack.env.CLICKHOUSE_DATABASE;
async function rows(table: 'actions' | 'outcomes', eventId: string): Promise<Record<string, any>[]> {
  const rs = await stack.tally.ch!.query({
    query: `SELECT *, toUnixTimestamp64Milli(ts) AS ts_ms FROM ${db()}.${table} WHERE event_id = {id:String}`,
    query_params: { id: eventId },
    format: 'JSONEachRow',
  });
  return rs.json();
}
const arrived = (table: 'actions' | 'outcomes', id: string, n = 1) => waitFor(() => rows(table, id), (r) => r.length >= n);
async function usageOf(agentId: string) {
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
const uid = () => `e-${Math.random().toString(36).slice(2)}`;
/** Waits until everything sent before now is in ClickHouse: the sink keeps stream order. */
async function drained(): Promise<void> {
  const id = uid();
  await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.id, action_type: 'sentinel', id } });
  await arrived('actions', id);
}

describe('POST /v1/actions and /v1/outcomes: formats and fields', () => {
  it('takes a single action exactly as the spec gives it and stores every field', async () => {
    const ts = new Date(Date.now() - 60_000).toISOString();
    const res = await call(stack, 'POST', '/v1/actions', {
      key: sdk,
      body: {
        agent_key: agent.secret,
        action_type: 'llm_call',
        timestamp: ts,
        user_id: 'user-7',
        metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300, nested: { a: [1, 2] } },
      },
    });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'id', 'status']);
    expect(res.body.status).toBe('processed');
    expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
    const [row] = await arrived('actions', res.body.id);
    expect(row).toMatchObject({
      environment_id: stack.keys.development.id,
      organization_id: stack.init.organization_id,
      agent_instance_id: agent.id,
      action_type: 'llm_call',
      id_source: 'server',
      user_id: 'user-7',
      model: 'gpt-4o',
    });
    // chDB prints UInt64 as numbers, a ClickHouse server as strings.
    expect([row!.input_tokens, row!.output_tokens, row!.total_tokens].map(String)).toEqual(['1200', '300', '1500']);
    expect(Number(row!.ts_ms)).toBe(Date.parse(ts));
    expect(JSON.parse(row!.metadata)).toEqual({ model: 'gpt-4o', input_tokens: 1200, output_tokens: 300, nested: { a: [1, 2] } });
  });

  it('takes a single outcome with its value and the agent id as agent_key', async () => {
    // Quotes and backslashes are printable ASCII: the answer (written as text) escapes them.
    const id = `${uid()}"q\\`;
    const res = await call(stack, 'POST', '/v1/outcomes', {
      key: sdk,
      body: { agent_key: agent.id, outcome_type: 'converted_lead', value: 0.1, id, anonymous_id: 'anon-1', metadata: { campaign: 'x' } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id, status: 'processed' });
    const [row] = await arrived('outcomes', id);
    expect(row).toMatchObject({ outcome_type: 'converted_lead', value: 0.1, anonymous_id: 'anon-1', id_source: 'client', agent_instance_id: agent.id });
  });

  it.each([
    ['a JSON array', 'application/json', (evs: object[]) => JSON.stringify(evs)],
    ['{events: [...]}', 'application/json', (evs: object[]) => JSON.stringify({ events: evs })],
    ['NDJSON', 'application/x-ndjson', (evs: object[]) => evs.map((e) => JSON.stringify(e)).join('\n') + '\n'],
    ['msgpack', 'application/msgpack', (evs: object[]) => pack(evs)],
  ])('takes a batch as %s and answers per event', async (_name, contentType, encode) => {
    const ids = Array.from({ length: 5 }, uid);
    const events = ids.map((id, i) => ({ agent_key: agent.secret, action_type: 'tool_call', id, metadata: { i } }));
    const res = await call(stack, 'POST', '/v1/actions', { key: sdk, body: encode(events), headers: { 'content-type': contentType } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ accepted: 5, rejected: 0 });
    expect(Number.isNaN(Date.parse(res.body.created_at))).toBe(false);
    expect(res.body.results.map((r: { id: string }) => r.id)).toEqual(ids);
    for (const [i, id] of ids.entries()) {
      const [row] = await arrived('actions', id);
      expect(JSON.parse(row!.metadata)).toEqual({ i });
    }
  });

  it(`takes ${MAX_EVENTS_PER_REQUEST} events in one request and refuses one more`, async () => {
    const events = Array.from({ length: MAX_EVENTS_PER_REQUEST }, () => ({ agent_key: agent.id, action_type: 'bulk', id: uid() }));
    const ok = await call(stack, 'POST', '/v1/actions', { key: sdk, body: events });
    expect(ok.status).toBe(200);
    expect(ok.body.accepted).toBe(MAX_EVENTS_PER_REQUEST);
    const tooMany = await call(stack, 'POST', '/v1/actions', { key: sdk, body: [...events, events[0]] });
    expect(tooMany.status).toBe(413);
    expect(tooMany.body.error.code).toBe('too_many_events');
  });

  it('uses the Idempotency-Key header as the id of a single event', async () => {
    const id = uid();
    const res = await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.id, action_type: 'x' }, headers: { 'idempotency-key': id } });
    expect(res.body.id).toBe(id);
    await arrived('actions', id);
  });
});

describe('bad input: a clear 4xx, and the good events of a batch still land', () => {
  const now = Date.now();
  it.each([
    ['a missing action_type', { agent_key: 'A' }, 400, 'validation_failed', /action_type/],
    ['a wrong type', { agent_key: 'A', action_type: 42 }, 400, 'validation_failed', /action_type/],
    ['an unknown field', { agent_key: 'A', action_type: 'x', colour: 'red' }, 400, 'validation_failed', /unknown field `colour`/],
    ['metadata that is not an object', { agent_key: 'A', action_type: 'x', metadata: [1] }, 400, 'validation_failed', /metadata/],
    ['a malformed timestamp', { agent_key: 'A', action_type: 'x', timestamp: 'yesterday' }, 400, 'validation_failed', /ISO 8601/],
    ['a timestamp 36 days old', { agent_key: 'A', action_type: 'x', timestamp: new Date(now - 36 * 86400_000).toISOString() }, 422, 'timestamp_out_of_range', /past/],
    ['a timestamp an hour ahead', { agent_key: 'A', action_type: 'x', timestamp: new Date(now + 3600_000).toISOString() }, 422, 'timestamp_out_of_range', /future/],
    ['negative token counts', { agent_key: 'A', action_type: 'x', metadata: { input_tokens: -1 } }, 400, 'validation_failed', /input_tokens/],
    ['metadata over 16 KiB', { agent_key: 'A', action_type: 'x', metadata: { blob: 'x'.repeat(17_000) } }, 400, 'validation_failed', /16384 bytes/],
    ['metadata nested too deep', { agent_key: 'A', action_type: 'x', metadata: JSON.parse('{"a":'.repeat(12) + '1' + '}'.repeat(12)) }, 400, 'validation_failed', /nested/],
    ['an unknown agent', { agent_key: 'no-such-agent', action_type: 'x' }, 422, 'unknown_agent', /agent_key/],
    ['ids that disagree', { agent_key: 'A', action_type: 'x', id: 'a', event_id: 'b' }, 400, 'validation_failed', /disagree/],
  ])('%s', async (_name, bad, status, code, message) => {
    const body = JSON.parse(JSON.stringify(bad).replaceAll('"A"', JSON.stringify(agent.id)));
    const single = await call(stack, 'POST', '/v1/actions', { key: sdk, body });
    expect(single.status).toBe(status);
    expect(single.body.error).toMatchObject({ code });
    expect(single.body.error.message).toMatch(message);
    expect(single.body.error.request_id).toBeTruthy();

    const goodId = uid();
    const batch = await call(stack, 'POST', '/v1/actions', { key: sdk, body: [body, { agent_key: agent.id, action_type: 'ok', id: goodId }] });
    expect(batch.status).toBe(207);
    expect(batch.body).toMatchObject({ accepted: 1, rejected: 1 });
    expect(batch.body.results[0]).toMatchObject({ index: 0, status: 'rejected', error: { code } });
    expect(batch.body.results[1]).toMatchObject({ index: 1, status: 'processed', id: goodId });
    await arrived('actions', goodId);
  });

  it.each([
    ['outcome without value', { agent_key: 'A', outcome_type: 'hire' }, /value/],
    ['negative value', { agent_key: 'A', outcome_type: 'hire', value: -5 }, /value/],
    ['value as a non-decimal string', { agent_key: 'A', outcome_type: 'hire', value: '5 USD' }, /decimal from 0 to 10\^18/],
    ['value as an exponent string', { agent_key: 'A', outcome_type: 'hire', value: '1e3' }, /decimal from 0 to 10\^18/],
    ['value above 10^18', { agent_key: 'A', outcome_type: 'hire', value: '1000000000000000001' }, /decimal from 0 to 10\^18/],
    ['more than 9 decimals', { agent_key: 'A', outcome_type: 'hire', value: 0.0000000001 }, /decimal places/],
  ])('outcomes: %s', async (_n, bad, message) => {
    const body = JSON.parse(JSON.stringify(bad).replaceAll('"A"', JSON.stringify(agent.id)));
    const res = await call(stack, 'POST', '/v1/outcomes', { key: sdk, body });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(message);
  });

  it.each([
    ['malformed JSON', '{"agent_key": ', 'application/json', 400, 'invalid_json'],
    ['malformed msgpack', Buffer.from([0xc1, 0xc1, 0xc1]), 'application/msgpack', 400, 'invalid_body'],
    ['an empty body', '', 'application/json', 400, 'invalid_body'],
    ['a bare number', '42', 'application/json', 400, 'invalid_body'],
    ['an unsupported type', 'agent_key=x', 'application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
    ['an empty batch', '[]', 'application/json', 400, 'invalid_body'],
  ])('rejects %s as a whole', async (_n, body, contentType, status, code) => {
    const res = await call(stack, 'POST', '/v1/actions', { key: sdk, body, headers: { 'content-type': contentType } });
    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
  });

  it('rejects a body over 10 MiB with 413', async () => {
    const res = await call(stack, 'POST', '/v1/actions', { key: sdk, body: 'x'.repeat(10 * 1024 * 1024 + 10), headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('takes a gzip body (JSON or NDJSON) after authenticating, within the same 10 MiB bound once inflated', async () => {
    const ids = [uid(), uid()];
    const ndjson = ids.map((id) => JSON.stringify({ agent_key: agent.id, action_type: 'zipped', id })).join('\n');
    const res = await call(stack, 'POST', '/v1/actions', { key: sdk, headers: { 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' }, body: gzipSync(ndjson) });
    expect(res.status).toBe(200);
    expect(res.body.accepted).toBe(2);
    const single = await call(stack, 'POST', '/v1/outcomes', {
      key: sdk,
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ agent_key: agent.id, outcome_type: 'zipped', value: 1.5 })),
    });
    expect(single.status).toBe(200);
    await arrived('actions', ids[1]!);

    const bomb = gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20));
    const gz = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    expect((await call(stack, 'POST', '/v1/actions', { headers: gz, body: bomb })).status).toBe(401);
    const tooBig = await call(stack, 'POST', '/v1/actions', { key: sdk, headers: gz, body: bomb });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.error.code).toBe('payload_too_large');
    const notGzip = await call(stack, 'POST', '/v1/actions', { key: sdk, headers: gz, body: '{"agent_key":"x","action_type":"y"}' });
    expect(notGzip.status).toBe(400);
    expect(notGzip.body.error).toMatchObject({ code: 'invalid_body', message: expect.stringMatching(/not valid gzip/) });
    const brotli = await call(stack, 'POST', '/v1/actions', { key: sdk, headers: { ...gz, 'content-encoding': 'br' }, body: 'x' });
    expect(brotli.status).toBe(415);
  });

  it('rejects only the bad line of an NDJSON body', async () => {
    const id = uid();
    const res = await call(stack, 'POST', '/v1/actions', {
      key: sdk,
      body: `{"agent_key":"${agent.id}","action_type":"a","id":"${id}"}\n{not json\n`,
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(res.status).toBe(207);
    expect(res.body.results[1].error.code).toBe('invalid_json');
    await arrived('actions', id);
  });

  it('answers 4xx with the error of the first event when every event is rejected', async () => {
    const res = await call(stack, 'POST', '/v1/actions', { key: sdk, body: [{ agent_key: 'nope', action_type: 'x' }] });
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('unknown_agent');
    expect(res.body.rejected).toBe(1);
  });
});

describe('credentials and environments', () => {
  it.each([
    ['no credentials', {}, 401, 'unauthorized'],
    ['an unknown key', { authorization: 'Bearer sk_test_nope' }, 401, 'unauthorized'],
    ['a malformed header', { authorization: 'Basic abc' }, 401, 'unauthorized'],
  ])('answers %s with 401 and the spec body', async (_n, headers, status, code) => {
    const res = await call(stack, 'POST', '/v1/actions', { body: { agent_key: agent.id, action_type: 'x' }, headers });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code });
    expect(typeof res.body.error.message).toBe('string');
  });

  it('lets read-write and admin API keys send events, not read-only ones', async () => {
    const e = stack.keys.development;
    const ro = await insertKey(stack.tally.db!, stack.init.organization_id, e.id, 'development', 'api', 'read-only', 'ro');
    const rw = await insertKey(stack.tally.db!, stack.init.organization_id, e.id, 'development', 'api', 'read-write', 'rw');
    const body = { agent_key: agent.id, action_type: 'x' };
    expect((await call(stack, 'POST', '/v1/actions', { key: ro, body })).status).toBe(403);
    expect((await call(stack, 'POST', '/v1/actions', { key: rw, body })).status).toBe(200);
    expect((await call(stack, 'POST', '/v1/actions', { key: e.admin, body })).status).toBe(200);
    // The api-key header is accepted too (Family B clients).
    expect((await call(stack, 'POST', '/v1/actions', { body, headers: { 'api-key': rw } })).status).toBe(200);
  });

  it('never lets a key of one environment send events for an agent of another', async () => {
    const staging = await createAgent(stack, 'staging');
    for (const agentKey of [staging.id, staging.secret]) {
      const res = await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agentKey, action_type: 'x' } });
      expect(res.status).toBe(422);
      expect(res.body.error.code).toBe('unknown_agent');
    }
    const own = await call(stack, 'POST', '/v1/actions', { key: stack.keys.staging.sdk, body: { agent_key: staging.secret, action_type: 'x' } });
    expect(own.status).toBe(200);
  });

  it('authenticates an agent by X-Agent-Secret alone', async () => {
    const a = await createAgent(stack);
    const id = uid();
    const res = await call(stack, 'POST', '/v1/actions', { body: { action_type: 'x', id }, headers: { 'x-agent-secret': a.secret } });
    expect(res.status).toBe(200);
    const [row] = await arrived('actions', id);
    expect(row!.agent_instance_id).toBe(a.id);
    const other = await call(stack, 'POST', '/v1/actions', { body: { action_type: 'x', agent_key: agent.id }, headers: { 'x-agent-secret': a.secret } });
    expect(other.status).toBe(400);
  });

  it('gives events sent with X-Agent-Secret alone their agent\'s account, as agent_key does', async () => {
    const account = (await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name: 'Secret Co', email: 'ap@secret.test' } })).body.id;
    const a = await createAgent(stack, 'development', { accountId: account });
    const ids = [uid(), uid(), uid()];
    for (const id of ids.slice(0, 2)) {
      expect((await call(stack, 'POST', '/v1/actions', { body: { action_type: 'x', id }, headers: { 'x-agent-secret': a.secret } })).status).toBe(200);
    }
    expect((await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: a.secret, action_type: 'x', id: ids[2] } })).status).toBe(200);
    for (const id of ids) expect((await arrived('actions', id))[0]!.account_id).toBe(account);
    const now = Date.now();
    const range = `start_date=${new Date(now - 86400_000).toISOString().slice(0, 10)}&end_date=${new Date(now + 86400_000).toISOString().slice(0, 10)}`;
    const usage = await call(stack, 'GET', `/v1/usage?${range}&group_by=account&account_id=${account}`, { key: sdk });
    expect(usage.body.usage).toEqual([expect.objectContaining({ account_id: account, actions: '3' })]);
  });

  it('stops accepting a refreshed secret at once, and an inactive agent', async () => {
    const a = await createAgent(stack);
    const send = (agentKey: string) => call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agentKey, action_type: 'x' } });
    expect((await send(a.secret)).status).toBe(200); // now cached
    const fresh = await refreshAgentSecret(stack.tally.db!, stack.tally.bus, stack.keys.development.id, a.id);
    expect((await send(a.secret)).status).toBe(422);
    expect((await send(fresh!)).status).toBe(200);
    await setAgentActive(stack.tally.db!, stack.tally.bus, stack.keys.development.id, a.id, false);
    const inactive = await send(fresh!);
    expect(inactive.status).toBe(422);
    expect(inactive.body.error.code).toBe('agent_inactive');
  });

  it('hears invalidations from another process over NATS', async () => {
    const a = await createAgent(stack);
    const send = (agentKey: string) => call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agentKey, action_type: 'x' } });
    expect((await send(a.secret)).status).toBe(200);
    const other = await stack.startAnother(['api']);
    await refreshAgentSecret(other.db!, other.bus, stack.keys.development.id, a.id);
    await waitFor(() => send(a.secret), (r) => r.status === 422, 5000);
  });
});

describe('counted once', () => {
  it('counts an event sent twice, and again after the JetStream duplicate window, once', async () => {
    const a = await createAgent(stack);
    const ts = new Date(Date.now() - 1000).toISOString();
    const ev = { agent_key: a.secret, action_type: 'llm_call', id: 'dup-1', timestamp: ts, user_id: 'u', metadata: { input_tokens: 10 } };
    const out = { agent_key: a.id, outcome_type: 'hire', value: 3, id: 'dup-o' };
    for (let i = 0; i < 2; i++) {
      expect((await call(stack, 'POST', '/v1/actions', { key: sdk, body: ev })).status).toBe(200);
      expect((await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: out })).status).toBe(200);
    }
    await new Promise((r) => setTimeout(r, 1500)); // past the 1 s duplicate window of this stack
    // Sent again later without its timestamp: the server stamps a new time, still the same event.
    const { timestamp: _t, ...late } = ev;
    expect((await call(stack, 'POST', '/v1/actions', { key: sdk, body: [late, ev] })).status).toBe(200);
    expect((await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: out })).status).toBe(200);
    await drained();
    const u = await usageOf(a.id);
    expect(u).toMatchObject({ actions: '1', outcomes: '1', outcome_value: '3', users: '1', input_tokens: '10' });
  });

  it('keeps the first copy of an id repeated in one batch: its timestamp decides the period', async () => {
    const a = await createAgent(stack);
    const id = uid();
    const now = Date.now();
    const first = new Date(now - 3 * 86400_000).toISOString();
    const later = new Date(now - 3600_000).toISOString();
    const res = await call(stack, 'POST', '/v1/actions', {
      key: sdk,
      body: [{ agent_key: a.id, action_type: 'x', id, timestamp: first }, { agent_key: a.id, action_type: 'x', id, timestamp: later }],
    });
    expect(res.status).toBe(200);
    expect(res.body.results.map((r: { id: string; status: string }) => [r.id, r.status])).toEqual([[id, 'processed'], [id, 'processed']]);
    await arrived('actions', id);
    const usageIn = async (from: number, to: number) => {
      const range = `start_date=${new Date(from).toISOString()}&end_date=${new Date(to).toISOString()}`;
      const res = await call(stack, 'GET', `/v1/usage?${range}&agent_id=${a.id}`, { key: sdk });
      expect(res.status).toBe(200);
      return res.body.usage[0]?.actions ?? '0';
    };
    expect(await usageIn(now - 4 * 86400_000, now - 2 * 86400_000)).toBe('1');
    expect(await usageIn(now - 2 * 86400_000, now + 86400_000)).toBe('0');
  });

  it('counts the same id of two agents as two events', async () => {
    const a = await createAgent(stack);
    const b = await createAgent(stack);
    await call(stack, 'POST', '/v1/actions', { key: sdk, body: [{ agent_key: a.id, action_type: 'x', id: 'shared' }, { agent_key: b.id, action_type: 'x', id: 'shared' }] });
    await drained();
    expect((await usageOf(a.id))!.actions).toBe('1');
    expect((await usageOf(b.id))!.actions).toBe('1');
  });

  it('counts events resent after the sink restarted once', async () => {
    const a = await createAgent(stack);
    const events = Array.from({ length: 20 }, (_, i) => ({ agent_key: a.id, action_type: 'x', id: `restart-${i}` }));
    await call(stack, 'POST', '/v1/actions', { key: sdk, body: events });
    await waitFor(() => usageOf(a.id), (u) => u?.actions === '20');
    await stack.tally.sink!.stop();
    await call(stack, 'POST', '/v1/actions', { key: sdk, body: events });
    await stack.tally.sink!.start();
    await drained();
    expect((await usageOf(a.id))!.actions).toBe('20');
  });
});

describe('GET /v1/usage', () => {
  it('keeps outcome values exact from the client\'s digits to /v1/usage (JSON number text, decimal strings, NDJSON, msgpack)', async () => {
    const a = await createAgent(stack);
    const raw = `[{"agent_key":"${a.id}","outcome_type":"hire","value":123456789.123456789},{"agent_key":"${a.id}","outcome_type":"hire","value":999999999999999999}]`;
    expect((await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: raw, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    const ndjson = `{"agent_key":"${a.id}","outcome_type":"hire","value":0.000000001}\n{"agent_key":"${a.id}","outcome_type":"hire","value":"1000000000000000000"}\n`;
    expect((await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: ndjson, headers: { 'content-type': 'application/x-ndjson' } })).status).toBe(200);
    const mp = pack([{ agent_key: a.id, outcome_type: 'hire', value: '0.000000009' }]);
    expect((await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: mp, headers: { 'content-type': 'application/msgpack' } })).status).toBe(200);
    const tooLarge = await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: { agent_key: a.id, outcome_type: 'hire', value: '1000000000000000000.000000001' } });
    expect(tooLarge.status).toBe(400);
    expect(tooLarge.body.error.message).toContain('10^18');
    const from = new Date(Date.now() - 3600_000).toISOString();
    const to = new Date(Date.now() + 3600_000).toISOString();
    const res = await waitFor(
      () => call(stack, 'GET', `/v1/usage?start_date=${from}&end_date=${to}&agent_id=${a.id}`, { key: sdk }),
      (r) => r.body.usage?.[0]?.outcomes === '5',
    );
    // 123456789.123456789 + 999999999999999999 + 0.000000001 + 10^18 + 0.000000009
    expect(res.body.usage[0].outcome_value).toBe('2000000000123456788.123456799');
  });

  it('reads usage with an SDK key, grouped by agent, and validates its parameters', async () => {
    const a = await createAgent(stack);
    await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: [{ agent_key: a.id, outcome_type: 'hire', value: 1.25 }, { agent_key: a.id, outcome_type: 'hire', value: 2 }] });
    const from = new Date(Date.now() - 3600_000).toISOString();
    const to = new Date(Date.now() + 3600_000).toISOString();
    const res = await waitFor(
      () => call(stack, 'GET', `/v1/usage?start_date=${from}&end_date=${to}&agent_id=${a.id}`, { key: sdk }),
      (r) => r.body.usage?.[0]?.outcomes === '2',
    );
    expect(res.body.usage[0]).toMatchObject({ agent_instance_id: a.id, outcomes: '2', outcome_value: '3.25', actions: '0' });
    expect((await call(stack, 'GET', `/v1/usage?start_date=bad&end_date=${to}`, { key: sdk })).status).toBe(400);
    expect((await call(stack, 'GET', `/v1/usage?start_date=${from}&end_date=${to}`)).status).toBe(401);
  });
});
