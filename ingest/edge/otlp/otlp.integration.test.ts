import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OTLPTraceExporter as HttpExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../../test/harness.ts';

let stack: TestStack;
let agent: { id: string; secret: string };
let sdk: string;

beforeAll(async () => {
  stack = await startTestStack();
  sdk = stack.keys.development.sdk;
  agent = await createAgent(stack);
});
afterAll(async () => {
  await stack?.cleanup();
});

async function rows(eventId: string): Promise<Record<string, any>[]> {
  const rs = await stack.tally.ch!.query({
    query: `SELECT *, toUnixTimestamp64Milli(ts) AS ts_ms FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE event_id = {id:String}`,
    query_params: { id: eventId },
    format: 'JSONEachRow',
  });
  return rs.json();
}
const arrived = (id: string, n = 1) => waitFor(() => rows(id), (r) => r.length >= n);

/** Spans recorded by a tracer with the given resource, returned for export by any exporter. */
function record(resource: Record<string, string>, make: (t: ReturnType<NodeTracerProvider['getTracer']>) => void): ReadableSpan[] {
  const mem = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ resource: resourceFromAttributes({ 'service.name': 'test-agent', ...resource }), spanProcessors: [new SimpleSpanProcessor(mem)] });
  make(provider.getTracer('tally-test'));
  return mem.getFinishedSpans();
}

function exportWith(exporter: SpanExporter, spans: ReadableSpan[]): Promise<{ code: number; error?: Error }> {
  return new Promise((resolve) => exporter.export(spans, resolve));
}

const genAiSpans = (t: ReturnType<NodeTracerProvider['getTracer']>) => {
  const chat = t.startSpan('chat gpt-4o', {
    attributes: {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.response.model': 'gpt-4o-2024-08-06',
      'gen_ai.usage.input_tokens': 1200,
      'gen_ai.usage.output_tokens': 345,
      'gen_ai.input.messages': 'a long prompt that must not be copied',
      'user.id': 'user-9',
    },
  });
  chat.end();
  const emb = t.startSpan('embeddings text-embedding-3-small', {
    attributes: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.usage.input_tokens': 80 },
  });
  emb.end();
  const tool = t.startSpan('execute_tool search', { attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search' } });
  tool.end();
  t.startSpan('http GET /internal').end(); // not GenAI, not tagged: ignored
};

describe('POST /v1/traces with the official OpenTelemetry exporters', () => {
  it.each([
    ['OTLP/HTTP JSON', (headers: Record<string, string>) => new HttpExporter({ url: `${stack.baseUrl}/v1/traces`, headers })],
    ['OTLP/HTTP protobuf', (headers: Record<string, string>) => new ProtoExporter({ url: `${stack.baseUrl}/v1/traces`, headers })],
  ])('%s: GenAI spans become llm_call / embedding / tool_call actions with tokens and model', async (_name, make) => {
    const spans = record({ 'tally.agent_key': agent.secret }, genAiSpans);
    expect(spans).toHaveLength(4);
    const exporter = make({ Authorization: `Bearer ${sdk}` });
    const r = await exportWith(exporter, spans);
    expect(r.error).toBeUndefined();
    expect(r.code).toBe(0);

    const [chat, emb, tool, other] = spans.map((s) => s.spanContext().spanId);
    const [c] = await arrived(chat!);
    expect(c).toMatchObject({ agent_instance_id: agent.id, action_type: 'llm_call', model: 'gpt-4o-2024-08-06', user_id: 'user-9', id_source: 'client' });
    expect([c!.input_tokens, c!.output_tokens, c!.total_tokens].map(String)).toEqual(['1200', '345', '1545']);
    const endMs = spans[0]!.endTime[0] * 1000 + Math.floor(spans[0]!.endTime[1] / 1e6);
    expect(Number(c!.ts_ms)).toBe(endMs);
    const meta = JSON.parse(c!.metadata);
    expect(meta).toMatchObject({ request_model: 'gpt-4o', provider: 'openai', operation: 'chat', span_id: chat, service_name: 'test-agent', source: 'otlp:gen_ai' });
    expect(JSON.stringify(meta)).not.toContain('long prompt');

    const [e] = await arrived(emb!);
    expect(e).toMatchObject({ action_type: 'embedding', model: 'text-embedding-3-small' });
    expect(String(e!.input_tokens)).toBe('80');
    const [t] = await arrived(tool!);
    expect(t).toMatchObject({ action_type: 'tool_call' });
    expect(JSON.parse(t!.metadata).tool_name).toBe('search');
    expect(await rows(other!)).toHaveLength(0);
    await exporter.shutdown();
  });

  it('counts a span exported twice (JSON then protobuf) once', async () => {
    const own = await createAgent(stack);
    const spans = record({ 'tally.agent_key': own.secret }, (t) => {
      t.startSpan('chat', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm-dedup', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5 } }).end();
    });
    const headers = { Authorization: `Bearer ${sdk}` };
    expect((await exportWith(new HttpExporter({ url: `${stack.baseUrl}/v1/traces`, headers }), spans)).code).toBe(0);
    await arrived(spans[0]!.spanContext().spanId);
    expect((await exportWith(new ProtoExporter({ url: `${stack.baseUrl}/v1/traces`, headers }), spans)).code).toBe(0);
    // A sentinel sent after the second export: once it is stored, so is everything before it.
    const sentinel = record({ 'tally.agent_key': own.secret }, (t) => t.startSpan('chat', { attributes: { 'gen_ai.operation.name': 'chat' } }).end());
    expect((await exportWith(new ProtoExporter({ url: `${stack.baseUrl}/v1/traces`, headers }), sentinel)).code).toBe(0);
    await arrived(sentinel[0]!.spanContext().spanId);
    const now = Date.now();
    const [u] = await stack.tally.usage!.query({
      environmentId: stack.keys.development.id,
      from: new Date(now - 86400_000),
      to: new Date(now + 86400_000),
      groupBy: 'agent',
      agentInstanceIds: [own.id],
    });
    expect(u).toMatchObject({ actions: '2', input_tokens: '10', output_tokens: '5', total_tokens: '15' });
  });

  it('takes the agent from X-Agent-Secret alone (no API key)', async () => {
    const spans = record({}, (t) => t.startSpan('chat', { attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'm' } }).end());
    const r = await exportWith(new ProtoExporter({ url: `${stack.baseUrl}/v1/traces`, headers: { 'X-Agent-Secret': agent.secret } }), spans);
    expect(r.code).toBe(0);
    const [row] = await arrived(spans[0]!.spanContext().spanId);
    expect(row!.agent_instance_id).toBe(agent.id);
  });

  it('meters spans named like a tagged action, and ignores other spans', async () => {
    const put = await call(stack, 'PUT', '/api/v1/tagged_actions', {
      key: stack.keys.development.admin,
      body: { tagged_actions: [{ action_name: 'resume_screening', description: 'one screened resume' }] },
    });
    expect(put.status).toBeLessThan(300);
    // A fresh process: the span rules cache of the running one may predate the tag.
    const other = await stack.startAnother(['ingest']);
    const spans = record({ 'tally.agent_key': agent.secret }, (t) => {
      t.startSpan('resume_screening').end();
      t.startSpan('not_tagged').end();
    });
    const r = await exportWith(new HttpExporter({ url: `http://127.0.0.1:${other.port}/v1/traces`, headers: { Authorization: `Bearer ${sdk}` } }), spans);
    expect(r.code).toBe(0);
    const [row] = await arrived(spans[0]!.spanContext().spanId);
    expect(row).toMatchObject({ action_type: 'resume_screening', agent_instance_id: agent.id });
    expect(JSON.parse(row!.metadata).source).toBe('otlp:tagged');
    await new Promise((res) => setTimeout(res, 500));
    expect(await rows(spans[1]!.spanContext().spanId)).toHaveLength(0);
  });
});

describe('POST /v1/traces answers per OTLP', () => {
  const spanJson = (spanId: string, attrs: Record<string, unknown>[], endNanos = String(BigInt(Date.now()) * 1_000_000n)) => ({
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId,
    name: 'chat',
    kind: 3,
    startTimeUnixNano: endNanos,
    endTimeUnixNano: endNanos,
    attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, ...attrs],
  });
  const body = (agentKey: string, spans: object[]) => ({
    resourceSpans: [{ resource: { attributes: [{ key: 'tally.agent_key', value: { stringValue: agentKey } }] }, scopeSpans: [{ scope: { name: 's' }, spans }] }],
  });

  it('rejects bad spans with partial_success and stores the good ones; a bad token count is left out, the call metered', async () => {
    const old = String(BigInt(Date.now() - 40 * 86400_000) * 1_000_000n);
    const res = await call(stack, 'POST', '/v1/traces', {
      key: sdk,
      body: body(agent.secret, [
        spanJson('b7ad6b7169203331', [{ key: 'gen_ai.usage.input_tokens', value: { intValue: '7' } }]),
        spanJson('b7ad6b7169203332', [{ key: 'gen_ai.usage.input_tokens', value: { intValue: '-3' } }]),
        spanJson('b7ad6b7169203333', [], old),
        spanJson('b7ad6b7169203334', [{ key: 'gen_ai.usage.input_tokens', value: { doubleValue: 12.5 } }, { key: 'gen_ai.usage.output_tokens', value: { stringValue: '120' } }]),
        spanJson('b7ad6b7169203335', [{ key: 'gen_ai.usage.output_tokens', value: { stringValue: 'many' } }]),
      ]),
    });
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess.rejectedSpans).toBe(1);
    expect(res.body.partialSuccess.errorMessage).toMatch(/timestamp_out_of_range/);
    // Warnings name each bad attribute; the spans are metered without it.
    const message: string = res.body.partialSuccess.errorMessage;
    expect(message).toMatch(/3 attribute\(s\) left out/);
    expect(message).toContain('span b7ad6b7169203332: `gen_ai.usage.input_tokens` -3');
    expect(message).toContain('span b7ad6b7169203334: `gen_ai.usage.input_tokens` 12.5');
    expect(message).toContain('span b7ad6b7169203335: `gen_ai.usage.output_tokens` "many"');
    const [row] = await arrived('b7ad6b7169203331');
    expect(String(row!.input_tokens)).toBe('7');
    const [negative] = await arrived('b7ad6b7169203332');
    expect(String(negative!.input_tokens)).toBe('0');
    const [fraction] = await arrived('b7ad6b7169203334');
    expect([fraction!.input_tokens, fraction!.output_tokens].map(String)).toEqual(['0', '120']);
    await arrived('b7ad6b7169203335');
    expect(await rows('b7ad6b7169203333')).toHaveLength(0);
  });

  it('answers an unknown agent per span, a bad key 401, a bad body 400, other media 415', async () => {
    const unknown = await call(stack, 'POST', '/v1/traces', { key: sdk, body: body('no-such-agent', [spanJson('c7ad6b7169203331', [])]) });
    expect(unknown.status).toBe(200);
    expect(unknown.body.partialSuccess).toMatchObject({ rejectedSpans: 1 });
    expect(unknown.body.partialSuccess.errorMessage).toMatch(/unknown_agent/);

    const unauth = await call(stack, 'POST', '/v1/traces', { key: 'sk_test_nope', body: body(agent.secret, []) });
    expect(unauth.status).toBe(401);
    expect(unauth.body).toMatchObject({ code: 16, error: { code: 'unauthorized' } });

    const bad = await call(stack, 'POST', '/v1/traces', { key: sdk, body: Buffer.from([0x0a, 0xff, 0xff]), headers: { 'content-type': 'application/x-protobuf' } });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('content-type')).toBe('application/x-protobuf');

    const media = await call(stack, 'POST', '/v1/traces', { key: sdk, body: 'x', headers: { 'content-type': 'text/plain' } });
    expect(media.status).toBe(415);

    const empty = await call(stack, 'POST', '/v1/traces', { key: sdk, body: { resourceSpans: [] } });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({});
  });

  it('inflates a gzip export only once its credentials are good, and stops at the bound', async () => {
    const gz = { 'content-type': 'application/json', 'content-encoding': 'gzip' };
    const ok = await call(stack, 'POST', '/v1/traces', { key: sdk, headers: gz, body: gzipSync(JSON.stringify(body(agent.secret, [spanJson('d7ad6b7169203331', [])]))) });
    expect(ok.status).toBe(200);
    await arrived('d7ad6b7169203331');

    // 300 MiB of zeros in ~300 KB: without a key, or with a bad one, a 401 before anything is inflated.
    const bomb = gzipSync(Buffer.alloc(300 * 1024 * 1024), { level: 9 });
    for (const key of [undefined, 'sk_test_nope']) {
      const started = performance.now();
      const res = await call(stack, 'POST', '/v1/traces', { ...(key ? { key } : {}), headers: gz, body: bomb });
      expect(res.status).toBe(401);
      expect(performance.now() - started).toBeLessThan(2000);
    }
    const withKey = await call(stack, 'POST', '/v1/traces', { key: sdk, headers: gz, body: bomb });
    expect(withKey.status).toBe(413);
    expect(withKey.body.error.message).toMatch(/inflates to more than 134217728 bytes/);
    const notGzip = await call(stack, 'POST', '/v1/traces', { key: sdk, headers: gz, body: '{"resourceSpans":[]}' });
    expect(notGzip.status).toBe(400);
    const brotli = await call(stack, 'POST', '/v1/traces', { key: sdk, headers: { ...gz, 'content-encoding': 'br' }, body: 'x' });
    expect(brotli.status).toBe(415);
  });
});
