/**
 * OpenMeter's ingest API on the real stack, driven by @openmeter/sdk itself: CloudEvents
 * posted to /api/v1/events become actions and outcomes, counted once per id (a resent
 * batch too), outcome values exact, bad events and outages surfaced by the SDK as errors.
 */
import { OpenMeter, type HTTPError } from '@openmeter/sdk';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionCounts, call, createAgent, startTestStack, waitFor, type TestStack } from '../../../test/harness.ts';

// Ingest holds at most 8 unacknowledged events: a 9-event batch is the 503 of an outage.
const MAX_INFLIGHT = 8;

let stack: TestStack;
let sdk: string;
let om: OpenMeter;

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_INGEST_MAX_INFLIGHT_EVENTS: String(MAX_INFLIGHT) } });
  sdk = stack.keys.development.sdk;
  om = new OpenMeter({ baseUrl: stack.baseUrl, apiKey: sdk });
});
afterAll(async () => {
  await stack?.cleanup();
});

const range = () => `start_date=${new Date(Date.now() - 3600_000).toISOString()}&end_date=${new Date(Date.now() + 3600_000).toISOString()}`;
const usageOf = async (agentId: string) => (await call(stack, 'GET', `/v1/usage?${range()}&agent_id=${agentId}`, { key: sdk })).body.usage?.[0];

/** The error an SDK call threw. */
async function sdkError(p: Promise<unknown>): Promise<HTTPError> {
  try {
    await p;
  } catch (err) {
    return err as HTTPError;
  }
  throw new Error('the SDK call succeeded');
}

/** Stored rows of an agent's actions: type, model, tokens and metadata by event id. */
async function storedActions(agentId: string) {
  const rs = await stack.tally.ch!.query({
    query: `SELECT event_id, action_type, model, input_tokens, output_tokens, metadata FROM ${stack.env.CLICKHOUSE_DATABASE}.actions FINAL WHERE agent_instance_id = {a:String} ORDER BY event_id`,
    query_params: { a: agentId },
    format: 'JSONEachRow',
  });
  return rs.json<{ event_id: string; action_type: string; model: string; input_tokens: number | string; output_tokens: number | string; metadata: string }>();
}

describe('POST /api/v1/events with @openmeter/sdk', () => {
  it('meters one event and a mixed batch as actions and outcomes, each counted once when the batch is sent again', async () => {
    const a = await createAgent(stack);
    // One event (the SDK fills in id, source, specversion and time).
    expect(await om.events.ingest({ type: 'llm_call', subject: a.id, data: { model: 'gpt-4o', input_tokens: 10, output_tokens: 5 } })).toBeUndefined();

    const batch = [
      { id: 'b-1', source: 'billing-svc', type: 'tool_call', subject: a.id, data: { tool: 'search' } },
      { id: 'b-2', type: 'outcome.converted_lead', subject: a.id, data: { value: 2.5, crm: 'hubspot' } },
      { id: 'b-3', type: 'llm_call', subject: a.id, time: new Date(Date.now() - 60_000) },
      { id: 'b-4', type: 'outcome.converted_lead', subject: a.id, data: { value: '123456789.123456789' } },
    ];
    await om.events.ingest(batch);
    await om.events.ingest(batch); // a retry: the same ids
    // An exact value as JSON number text (the SDK's JSON.stringify cannot write one), as one event.
    const raw = `{"specversion":"1.0","id":"b-5","source":"curl","type":"outcome.converted_lead","subject":"${a.id}","data":{"value":123456789.123456789}}`;
    const single = await call(stack, 'POST', '/api/v1/events', { key: sdk, body: raw, headers: { 'content-type': 'application/cloudevents+json' } });
    expect(single.status).toBe(204);
    expect(single.body).toBe('');

    const u = await waitFor(() => usageOf(a.id), (u) => u?.actions === '3' && u?.outcomes === '3');
    // 2.5 + 123456789.123456789 (a string) + 123456789.123456789 (a JSON number)
    expect(u).toMatchObject({ actions: '3', outcomes: '3', outcome_value: '246913580.746913578', input_tokens: '10', output_tokens: '5' });
    expect([...(await actionCounts(stack, a.id)).values()]).toEqual([1, 1, 1]);

    const rows = await storedActions(a.id);
    expect(rows.map((r) => [r.event_id, r.action_type])).toEqual(expect.arrayContaining([['b-1', 'tool_call'], ['b-3', 'llm_call']]));
    expect(JSON.parse(rows.find((r) => r.event_id === 'b-1')!.metadata)).toEqual({ tool: 'search', _source: 'billing-svc' });
    const first = rows.find((r) => !r.event_id.startsWith('b-'))!;
    expect({ ...first, input_tokens: Number(first.input_tokens), output_tokens: Number(first.output_tokens) }).toMatchObject({ action_type: 'llm_call', model: 'gpt-4o', input_tokens: 10, output_tokens: 5 });
    expect(JSON.parse(first.metadata)).toMatchObject({ _source: '@openmeter/sdk' });
    // The SDK's default id (a UUID) is the event id.
    expect(first.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('surfaces rejected events as an SDK error naming the attribute, while the accepted events of the batch are counted once', async () => {
    const a = await createAgent(stack);
    const batch = [
      { id: 'p-1', type: 'llm_call', subject: a.id },
      { id: 'p-2', type: 'outcome.hire', subject: a.id, data: { note: 'no value' } },
      { id: 'p-3', type: 'llm_call', subject: 'ain_does_not_exist' },
      { id: 'p-4', type: 'outcome.hire', subject: a.id, data: { value: 1 } },
    ];
    const err = await sdkError(om.events.ingest(batch));
    expect(err.status).toBe(400);
    expect(err.message).toContain('2 of 4 events were rejected and 2 accepted');
    expect(err.message).toContain('event 1 (id "p-2"): `data.value` is required for an outcome');
    expect(err.getField('results')).toEqual([
      { index: 0, id: 'p-1', status: 'processed' },
      { index: 1, id: 'p-2', status: 'rejected', error: { code: 'validation_failed', message: expect.stringContaining('`data.value` is required') } },
      { index: 2, id: 'p-3', status: 'rejected', error: { code: 'unknown_agent', message: expect.stringContaining('no agent instance with this `subject`') } },
      { index: 3, id: 'p-4', status: 'processed' },
    ]);
    expect(err.getField('error')).toMatchObject({ code: 'validation_failed' });

    // Fixed and resent: p-1 and p-4 again, deduplicated; p-2 now counted.
    batch[1]!.data = { note: 'fixed', value: 3 } as never;
    batch[2]!.subject = a.id;
    await om.events.ingest(batch);
    const u = await waitFor(() => usageOf(a.id), (u) => u?.actions === '2' && u?.outcomes === '2');
    expect(u).toMatchObject({ outcome_value: '4' });

    const unknown = await sdkError(om.events.ingest({ type: 'llm_call', subject: 'ain_nope' }));
    expect(unknown.status).toBe(422);
    expect(unknown.message).toMatch(/\[422\]: the event was rejected: event 0 \(id "[0-9a-f-]+"\): no agent instance with this `subject`/);
    const old = await sdkError(om.events.ingest({ type: 'llm_call', subject: a.id, time: new Date(Date.now() - 40 * 86400_000) }));
    expect(old.status).toBe(422);
    expect(old.message).toContain('`time` is more than 35 days in the past');
  });

  it('answers 503 with Retry-After, thrown by the SDK, when the events cannot be stored; nothing of it is counted', async () => {
    const a = await createAgent(stack);
    const events = Array.from({ length: MAX_INFLIGHT + 1 }, (_, i) => ({ id: `o-${i}`, type: 'llm_call', subject: a.id }));
    const err = await sdkError(om.events.ingest(events));
    expect(err.status).toBe(503);
    expect(err.message).toContain('retry');
    const res = await call(stack, 'POST', '/api/v1/events', { key: sdk, body: events.map((e) => ({ specversion: '1.0', source: 's', ...e })) });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.body).toMatchObject({ status: 503, error: { code: 'service_unavailable' } });
    // The batch within the limit goes through; the refused events were never stored.
    await om.events.ingest(events.slice(0, MAX_INFLIGHT));
    await waitFor(() => usageOf(a.id), (u) => u?.actions === String(MAX_INFLIGHT));
    expect([...(await actionCounts(stack, a.id)).keys()].sort()).toEqual(events.slice(0, MAX_INFLIGHT).map((e) => e.id).sort());
  });
});

describe('POST /api/v1/events over HTTP', () => {
  const event = (agentKey: string | undefined, id: string) => ({ specversion: '1.0', id, source: 's', type: 'x', ...(agentKey ? { subject: agentKey } : {}) });

  it('takes application/json too, answers 415 for other content types and problem details for bad bodies', async () => {
    const a = await createAgent(stack);
    const asJson = await call(stack, 'POST', '/api/v1/events', { key: sdk, body: [event(a.id, 'j-1'), event(a.id, 'j-2')] });
    expect(asJson.status).toBe(204);
    const zipped = await call(stack, 'POST', '/api/v1/events', {
      key: sdk,
      body: gzipSync(JSON.stringify([event(a.id, 'j-1'), event(a.id, 'j-5')])),
      headers: { 'content-type': 'application/cloudevents-batch+json', 'content-encoding': 'gzip' },
    });
    expect(zipped.status).toBe(204);

    const text = await call(stack, 'POST', '/api/v1/events', { key: sdk, body: JSON.stringify(event(a.id, 'j-3')), headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.headers.get('content-type')).toBe('application/problem+json');
    expect(text.body).toMatchObject({ type: 'about:blank', title: 'Unsupported Media Type', status: 415, error: { code: 'unsupported_media_type', request_id: expect.any(String) } });
    expect(text.body.detail).toContain('application/cloudevents+json');

    const notJson = await call(stack, 'POST', '/api/v1/events', { key: sdk, body: '[{', headers: { 'content-type': 'application/cloudevents-batch+json' } });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('invalid_json');
    const noVersion = await call(stack, 'POST', '/api/v1/events', { key: sdk, body: { id: 'j-4', source: 's', type: 'x', subject: a.id } });
    expect(noVersion.status).toBe(400);
    expect(noVersion.body.detail).toBe('the event was rejected: event 0 (id "j-4"): `specversion` is required: "1.0"');

    await waitFor(() => usageOf(a.id), (u) => u?.actions === '3');
  });

  it('authenticates as POST /v1/actions: 401 without a credential, an agent secret meters for its own instance', async () => {
    const a = await createAgent(stack);
    const none = await call(stack, 'POST', '/api/v1/events', { body: event(a.id, 's-0') });
    expect(none.status).toBe(401);
    expect(none.body).toMatchObject({ status: 401, error: { code: 'unauthorized' } });
    const bySecret = new OpenMeter({ baseUrl: stack.baseUrl, headers: { 'X-Agent-Secret': a.secret } });
    await bySecret.events.ingest([{ id: 's-1', type: 'x' } as never, { id: 's-2', type: 'x', subject: a.id }]);
    const admin = new OpenMeter({ baseUrl: stack.baseUrl, apiKey: stack.keys.development.admin });
    await admin.events.ingest({ id: 's-3', type: 'x', subject: a.secret });
    await waitFor(() => usageOf(a.id), (u) => u?.actions === '3');
  });
});
