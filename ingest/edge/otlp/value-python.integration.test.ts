import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metadata, type ServiceError } from '@grpc/grpc-js';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { TallyProcess } from '../../../app/start.ts';
import { actionCounts, call, createAgent, startTestStack, waitFor, type TestStack } from '../../../test/harness.ts';
import { decodeRpcStatus } from '../../../test/google-rpc.ts';

/**
 * Valmi's value-python SDK (v0.1.6), as its source sends: GET {VALUE_BACKEND_URL}/api/v1/agent_instance/info
 * with X-Agent-Secret, then traces over OTLP/gRPC (insecure, no headers) with the info's
 * answer as resource attributes and actions as `value.action` spans. The gRPC side is sent
 * by the official OpenTelemetry gRPC exporter (the same ExportTraceServiceRequest).
 */
let stack: TestStack;
let agent: { id: string; secret: string };
let trusting: TallyProcess;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest', 'sink', 'api'] });
  agent = await createAgent(stack);
  // A second ingest process of the same stack, where exports without credentials are
  // trusted by their resource's agent id (TALLY_OTLP_TRUST_RESOURCE_AGENT=on).
  trusting = await stack.startAnother(['ingest'], { env: { TALLY_OTLP_TRUST_RESOURCE_AGENT: 'on' } });
}, 60_000);
afterAll(async () => {
  await stack?.cleanup();
});

/** What value-python's `initialize` does with the info answer (client.py). */
function valueResource(info: Record<string, string>): Record<string, string> {
  return {
    'service.name': 'value-control-agent',
    'service.version': '0.1.0',
    'value.client.sdk': 'value-python',
    'value.agent.organization_id': info.organization_id ?? 'unknown',
    'value.agent.workspace_id': info.workspace_id ?? 'unknown',
    'value.agent.name': info.name ?? 'unknown',
    'value.agent.id': info.id ?? 'unknown',
  };
}

/** value-python's `ActionEmitter._send_action`: one `value.action` span, ended at once. */
function valueActions(resource: Record<string, string>, actions: { name: string; user?: string; anon: string; kwargs?: Record<string, unknown>; llm?: Record<string, unknown> }[]): ReadableSpan[] {
  const mem = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ resource: resourceFromAttributes(resource), spanProcessors: [new SimpleSpanProcessor(mem)] });
  const tracer = provider.getTracer('value-control-agent');
  for (const a of actions) {
    const attrs: Record<string, string | number> = {};
    for (const [k, v] of Object.entries(a.llm ?? {})) attrs[`value.action.llm.${k}`] = v as string | number;
    if (a.user) attrs['value.action.user_id'] = a.user;
    attrs['value.action.anonymous_id'] = a.anon;
    attrs['value.action.name'] = a.name;
    attrs['value.action.user_attributes'] = JSON.stringify(a.kwargs ?? {});
    tracer.startSpan('value.action', { attributes: attrs }).end();
  }
  return mem.getFinishedSpans();
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error & { code?: number } }> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

async function rowOf(spanId: string): Promise<Record<string, any> | undefined> {
  const rs = await stack.tally.ch!.query({
    query: `SELECT * FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE event_id = {id:String}`,
    query_params: { id: spanId },
    format: 'JSONEachRow',
  });
  return (await rs.json<Record<string, any>>())[0];
}
const arrived = (spanId: string) => waitFor(() => rowOf(spanId), (r) => r !== undefined) as Promise<Record<string, any>>;

/** GET /v1/usage of one agent over the last and next day. */
async function usageOf(agentId: string): Promise<Record<string, string>> {
  const start = new Date(Date.now() - 86400_000).toISOString();
  const end = new Date(Date.now() + 86400_000).toISOString();
  const res = await call(stack, 'GET', `/v1/usage?agent_id=${agentId}&start_date=${start}&end_date=${end}`, { key: stack.keys.development.admin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.usage).toHaveLength(1);
  return res.body.usage[0];
}

describe('value-python: the info call', () => {
  it('answers GET /api/v1/agent_instance/info for an agent secret with what initialize reads', async () => {
    // httpx: GET with X-Agent-Secret and Content-Type, then raise_for_status() and .json().
    const res = await fetch(`${stack.baseUrl}/api/v1/agent_instance/info`, { headers: { 'X-Agent-Secret': agent.secret, 'Content-Type': 'application/json' } });
    expect(res.status).toBe(200);
    const info = (await res.json()) as Record<string, unknown>;
    expect(info).toMatchObject({
      id: agent.id,
      organization_id: stack.init.organization_id,
      workspace_id: stack.keys.development.id,
      environment_id: stack.keys.development.id,
      is_active: true,
    });
    expect(typeof info.name).toBe('string');
  });

  it('refuses other credentials with a clear error', async () => {
    const bad = await call(stack, 'GET', '/api/v1/agent_instance/info', { headers: { 'X-Agent-Secret': 'not-a-secret' } });
    expect(bad.status).toBe(401);
    const sdk = await call(stack, 'GET', '/api/v1/agent_instance/info', { key: stack.keys.development.sdk });
    expect(sdk.status).toBe(403);
    expect(sdk.body.error.message).toMatch(/agent/);
  });

  it('validate-secret accepts an agent secret as credential', async () => {
    const res = await call(stack, 'POST', '/api/v1/agent_instance/validate-secret', { headers: { 'X-Agent-Secret': agent.secret }, body: { secret: agent.secret } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ valid: true, agent_instance: { id: agent.id } });
  });
});

describe('value-python: actions over OTLP/gRPC', () => {
  async function info(secret: string): Promise<Record<string, string>> {
    const res = await fetch(`${stack.baseUrl}/api/v1/agent_instance/info`, { headers: { 'X-Agent-Secret': secret } });
    return (await res.json()) as Record<string, string>;
  }

  it('meters value.action spans sent without credentials where the deployment trusts the resource agent id, once each', async () => {
    const own = await createAgent(stack);
    const resource = valueResource(await info(own.secret));
    const spans = valueActions(resource, [
      { name: 'resume_screened', user: 'user123', anon: 'anon456', kwargs: { candidate: 'c-1', score: 0.82 } },
      { name: 'resume_screened', anon: 'anon789' },
      { name: 'summarize', anon: 'anon456', llm: { model: 'gemini-2.0-flash', input_tokens: 1200, output_tokens: 300, prompt: 'never stored' } },
    ]);
    // value-python: OTLPSpanExporter(endpoint=..., insecure=True), no headers.
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${trusting.ingest!.grpcPort}` });
    const first = await exportWith(exporter, spans);
    expect(first.error).toBeUndefined();
    // An exporter retry (the same spans again) counts once.
    expect((await exportWith(exporter, spans)).code).toBe(0);
    await exporter.shutdown();

    const [screened, anonymous, summarize] = spans.map((s) => s.spanContext().spanId);
    const a = await arrived(screened!);
    expect(a).toMatchObject({ agent_instance_id: own.id, action_type: 'resume_screened', user_id: 'user123', anonymous_id: 'anon456' });
    expect(JSON.parse(a.metadata)).toMatchObject({ attributes: { candidate: 'c-1', score: 0.82 }, source: 'otlp:value.action', agent_name: resource['value.agent.name'] });
    expect(await arrived(anonymous!)).toMatchObject({ action_type: 'resume_screened', user_id: '', anonymous_id: 'anon789' });
    const s = await arrived(summarize!);
    expect(s).toMatchObject({ action_type: 'summarize', model: 'gemini-2.0-flash' });
    expect([s.input_tokens, s.output_tokens, s.total_tokens].map(String)).toEqual(['1200', '300', '1500']);
    expect(s.metadata).not.toContain('never stored');

    const counts = await waitFor(() => actionCounts(stack, own.id), (c) => c.size === 3);
    expect([...counts.values()]).toEqual([1, 1, 1]);
    // Users: user123, and the anonymous ids of the actions without a user (anon789, anon456).
    expect(await usageOf(own.id)).toMatchObject({ agent_instance_id: own.id, actions: '3', users: '3', input_tokens: '1200', output_tokens: '300' });
  });

  it('without that trust, an export needs a credential: metadata x-agent-secret (OTEL_EXPORTER_OTLP_HEADERS) or an SDK key', async () => {
    const grpcPort = stack.tally.ingest!.grpcPort!;
    const own = await createAgent(stack);
    const resource = valueResource(await info(own.secret));

    const none = new GrpcExporter({ url: `http://127.0.0.1:${grpcPort}` });
    const refused = await exportWith(none, valueActions(resource, [{ name: 'refused', anon: 'a' }]));
    expect(refused.code).toBe(1);
    expect(String(refused.error?.message)).toMatch(/missing credentials/);
    await none.shutdown();

    const withSecret = new Metadata();
    withSecret.set('x-agent-secret', own.secret);
    const bySecret = new GrpcExporter({ url: `http://127.0.0.1:${grpcPort}`, metadata: withSecret });
    const spans = valueActions(resource, [{ name: 'by_secret', anon: 'a' }]);
    expect((await exportWith(bySecret, spans)).error).toBeUndefined();
    await bySecret.shutdown();
    expect(await arrived(spans[0]!.spanContext().spanId)).toMatchObject({ agent_instance_id: own.id, action_type: 'by_secret' });

    // An SDK key names the environment; the resource's value.agent.id names the instance.
    const withKey = new Metadata();
    withKey.set('authorization', `Bearer ${stack.keys.development.sdk}`);
    const byKey = new GrpcExporter({ url: `http://127.0.0.1:${grpcPort}`, metadata: withKey });
    const keyed = valueActions(resource, [{ name: 'by_key', anon: 'a' }]);
    expect((await exportWith(byKey, keyed)).error).toBeUndefined();
    await byKey.shutdown();
    expect(await arrived(keyed[0]!.spanContext().spanId)).toMatchObject({ agent_instance_id: own.id, action_type: 'by_key' });
  });

  it('limits failed authentications per address, as the HTTP listener does', async () => {
    // Failures are counted across the stack's processes per client address: this test's own
    // address, named by X-Forwarded-For from a trusted proxy (here, the test itself).
    const strict = await stack.startAnother(['ingest'], { env: { TALLY_AUTH_FAILURES_PER_MINUTE: '3', TALLY_TRUSTED_PROXIES: '127.0.0.1' } });
    const wrong = new Metadata();
    wrong.set('x-agent-secret', 'guessed-secret');
    wrong.set('x-forwarded-for', '203.0.113.30');
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${strict.ingest!.grpcPort}`, metadata: wrong });
    const messages: string[] = [];
    for (let i = 0; i < 4; i++) messages.push(String((await exportWith(exporter, valueActions(valueResource({ id: agent.id }), [{ name: 'guess', anon: 'a' }]))).error?.message));
    await exporter.shutdown();
    expect(messages.slice(0, 3).every((m) => /invalid agent secret/.test(m))).toBe(true);
    expect(messages[3]).toMatch(/too many failed authentications/);
    // Only failures are limited: a valid key from the same address is served.
    const valid = new Metadata();
    valid.set('authorization', `Bearer ${stack.keys.development.sdk}`);
    valid.set('x-forwarded-for', '203.0.113.30');
    const byKey = new GrpcExporter({ url: `http://127.0.0.1:${strict.ingest!.grpcPort}`, metadata: valid });
    expect((await exportWith(byKey, valueActions(valueResource({ id: agent.id }), [{ name: 'after_guesses', anon: 'a' }]))).error).toBeUndefined();
    await byKey.shutdown();
  });

  it('answers RESOURCE_EXHAUSTED with a RetryInfo in the trailers, so exporters send the spans again instead of dropping them', async () => {
    const strict = await stack.startAnother(['ingest'], { env: { TALLY_AUTH_FAILURES_PER_MINUTE: '1', TALLY_TRUSTED_PROXIES: '127.0.0.1' } });
    const wrong = new Metadata();
    wrong.set('x-agent-secret', 'guessed-secret');
    wrong.set('x-forwarded-for', '203.0.113.31');
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${strict.ingest!.grpcPort}`, metadata: wrong });
    const spans = valueActions(valueResource({ id: agent.id }), [{ name: 'guess', anon: 'a' }]);
    const first = (await exportWith(exporter, spans)).error as ServiceError;
    expect(first.code).toBe(16); // UNAUTHENTICATED: no RetryInfo (sending again cannot help)
    expect(first.metadata.get('grpc-status-details-bin')).toEqual([]);
    const limited = (await exportWith(exporter, spans)).error as ServiceError;
    await exporter.shutdown();
    expect(limited.code).toBe(8);
    const [bin] = limited.metadata.get('grpc-status-details-bin') as Buffer[];
    const status = decodeRpcStatus(bin!);
    expect(status).toMatchObject({ code: 8, message: limited.details, detailTypes: ['type.googleapis.com/google.rpc.RetryInfo'] });
    const [seconds] = status.retryDelaysSeconds;
    // The rest of the minute the address stays blocked, as the message says.
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60);
    expect(limited.details).toContain(`retry in ${seconds} s`);
  });

  it("past a key's rate limit, both transports answer with the delay: RetryInfo over gRPC, Retry-After and a RetryInfo in the OTLP/HTTP Status", async () => {
    const created = await call(stack, 'POST', '/api/v1/api_keys', { key: stack.keys.development.admin, body: { name: 'slow sdk', permission: 'sdk', rate_limit_per_minute: 1 } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // Fixed one-minute windows: the two requests below must fall in the same one.
    const left = 60_000 - (Date.now() % 60_000);
    if (left < 5_000) await new Promise((r) => setTimeout(r, left + 100));
    const withKey = new Metadata();
    withKey.set('authorization', `Bearer ${created.body.key}`);
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${stack.tally.ingest!.grpcPort}`, metadata: withKey });
    const spans = (name: string) => valueActions(valueResource({ id: agent.id }), [{ name, anon: 'a' }]);
    expect((await exportWith(exporter, spans('within_limit'))).error).toBeUndefined();
    const limited = (await exportWith(exporter, spans('over_limit'))).error as ServiceError;
    await exporter.shutdown();
    expect(limited.code).toBe(8);
    const status = decodeRpcStatus((limited.metadata.get('grpc-status-details-bin') as Buffer[])[0]!);
    expect(status).toMatchObject({ code: 8, message: limited.details, detailTypes: ['type.googleapis.com/google.rpc.RetryInfo'] });
    expect(status.retryDelaysSeconds[0]).toBeGreaterThanOrEqual(1);
    expect(status.retryDelaysSeconds[0]).toBeLessThanOrEqual(60);

    // OTLP/HTTP with protobuf: an empty ExportTraceServiceRequest, over the same limit.
    const res = await fetch(`http://127.0.0.1:${stack.tally.port}/v1/traces`, { method: 'POST', headers: { authorization: `Bearer ${created.body.key}`, 'content-type': 'application/x-protobuf' }, body: new Uint8Array(0) });
    expect(res.status).toBe(429);
    const body = decodeRpcStatus(new Uint8Array(await res.arrayBuffer()));
    expect(body).toMatchObject({ code: 8, detailTypes: ['type.googleapis.com/google.rpc.RetryInfo'] });
    expect(body.retryDelaysSeconds).toEqual([Number(res.headers.get('retry-after'))]);
    // OTLP/HTTP with JSON: the same Status in proto3 JSON, beside Tally's error object.
    const json = await call(stack, 'POST', '/v1/traces', { key: created.body.key, body: { resourceSpans: [] } });
    expect(json.status).toBe(429);
    expect(json.body).toMatchObject({ code: 8, error: { code: 'rate_limited' }, details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${json.headers.get('retry-after')}s` }] });
  });

  it('refuses, in trust mode, a resource naming no known agent (nothing metered)', async () => {
    const exporter = new GrpcExporter({ url: `http://127.0.0.1:${trusting.ingest!.grpcPort}` });
    const spans = valueActions(valueResource({ id: 'ain_does_not_exist' }), [{ name: 'ghost', anon: 'a' }]);
    const r = await exportWith(exporter, spans);
    // OTLP: a partial success is still a success for the exporter; the span is not stored.
    expect(r.code).toBe(0);
    await exporter.shutdown();
    await new Promise((res) => setTimeout(res, 300));
    expect(await rowOf(spans[0]!.spanContext().spanId)).toBeUndefined();
  });
});

describe('large trace exports', () => {
  /** 512 LLM spans carrying ~25 KB of message content each: one default batch of a content-capturing instrumentation. */
  function contentHeavy(agentKey: string): ReadableSpan[] {
    const mem = new InMemorySpanExporter();
    const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'chatty', 'tally.agent_key': agentKey }), spanProcessors: [new SimpleSpanProcessor(mem)] });
    const tracer = provider.getTracer('chatty');
    const content = 'lorem ipsum dolor sit amet '.repeat(950);
    for (let i = 0; i < 512; i++) {
      tracer
        .startSpan('chat', {
          attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 100 + i, 'gen_ai.usage.output_tokens': 7, 'gen_ai.input.messages': content },
        })
        .end();
    }
    return mem.getFinishedSpans();
  }

  it.each([
    ['OTLP/HTTP protobuf', (key: string) => new ProtoExporter({ url: `${stack.baseUrl}/v1/traces`, headers: { Authorization: `Bearer ${key}` }, timeoutMillis: 60_000 })],
    [
      'OTLP/gRPC',
      (key: string) => {
        const m = new Metadata();
        m.set('authorization', `Bearer ${key}`);
        return new GrpcExporter({ url: `http://127.0.0.1:${stack.tally.ingest!.grpcPort}`, metadata: m, timeoutMillis: 60_000 });
      },
    ],
  ])('%s: a 13 MB batch of 512 spans is metered whole', async (_name, make) => {
    const own = await createAgent(stack);
    const spans = contentHeavy(own.secret);
    const exporter = make(stack.keys.development.sdk);
    const r = await exportWith(exporter, spans);
    expect(r.error).toBeUndefined();
    await exporter.shutdown();
    const counts = await waitFor(() => actionCounts(stack, own.id), (c) => c.size === 512, 30_000);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    const row = await arrived(spans[511]!.spanContext().spanId);
    expect(String(row.input_tokens)).toBe('611');
    expect(row.metadata).not.toContain('lorem');
  }, 90_000);
});
