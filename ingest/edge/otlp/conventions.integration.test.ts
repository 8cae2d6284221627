/**
 * Spans built exactly as each LLM instrumentation emits them, exported with the official
 * OpenTelemetry exporter (OTLP/HTTP protobuf) to a real Tally: what is stored per span,
 * and what it costs. Each attribute list names the source it was copied from.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { context, trace, type Attributes, type Span } from '@opentelemetry/api';
import { OTLPTraceExporter as ProtoExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../../test/harness.ts';

let stack: TestStack;
let sdk: string;

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_INGEST_LINGER_MS: '1' } });
  sdk = stack.keys.development.sdk;
});
afterAll(async () => {
  await stack?.cleanup();
});

/** A span to record: its name, attributes and the spans it encloses. */
interface SpanTree {
  name: string;
  attributes: Attributes;
  children?: SpanTree[];
}

/** Records span trees (children within their parent, as instrumentations nest them) under the agent's resource. */
function record(agentSecret: string, trees: SpanTree[]): ReadableSpan[] {
  const mem = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'conventions-test', 'tally.agent_key': agentSecret }),
    spanProcessors: [new SimpleSpanProcessor(mem)],
  });
  const tracer = provider.getTracer('conventions-test');
  const start = (t: SpanTree, parent?: Span): void => {
    const ctx = parent ? trace.setSpan(context.active(), parent) : context.active();
    const span = tracer.startSpan(t.name, { attributes: t.attributes }, ctx);
    for (const c of t.children ?? []) start(c, span);
    span.end();
  };
  for (const t of trees) start(t);
  return mem.getFinishedSpans();
}

/** Exports spans as the OTLP/HTTP protobuf exporter does; resolves once Tally answered 200. */
async function exportSpans(spans: ReadableSpan[]): Promise<void> {
  const exporter = new ProtoExporter({ url: `${stack.baseUrl}/v1/traces`, headers: { Authorization: `Bearer ${sdk}` } });
  const r = await new Promise<{ code: number; error?: Error }>((resolve) => exporter.export(spans, resolve));
  expect(r.error).toBeUndefined();
  expect(r.code).toBe(0);
  await exporter.shutdown();
}

/** The stored actions of an agent, by span name (from metadata), once `n` are stored. */
async function storedBySpan(agentId: string, n: number): Promise<Record<string, Record<string, any>>> {
  const rows = await waitFor(
    async () => {
      const rs = await stack.tally.ch!.query({
        query: `SELECT * FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE agent_instance_id = {a:String}`,
        query_params: { a: agentId },
        format: 'JSONEachRow',
      });
      return rs.json<Record<string, any>>();
    },
    (r) => r.length >= n,
  );
  // Spans that are not metered could still be on their way: a short grace, then count again.
  await new Promise((res) => setTimeout(res, 300));
  const rs = await stack.tally.ch!.query({
    query: `SELECT * FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE agent_instance_id = {a:String}`,
    query_params: { a: agentId },
    format: 'JSONEachRow',
  });
  const all = await rs.json<Record<string, any>>();
  expect(all).toHaveLength(rows.length);
  return Object.fromEntries(all.map((r) => [JSON.parse(r.metadata).span_name, { ...r, meta: JSON.parse(r.metadata) }]));
}

const tokens = (r: Record<string, any>) => [r.input_tokens, r.output_tokens, r.total_tokens].map(String);

describe('Vercel AI SDK', () => {
  // ai@5.0.277 dist/index.mjs: recordSpan calls of generateText (ai.generateText, line 2339;
  // ai.generateText.doGenerate, 2405-2488; ai.toolCall, 2660-2701), streamText
  // (ai.streamText, 5377, its usage 5300-5304; ai.streamText.doStream, 5445-5697) and embed (ai.embed,
  // 6632; ai.embed.doEmbed, 6645-6672); assembleOperationName (1511) gives every span
  // `operation.name` and `ai.operationId`.
  const op = (id: string) => ({ 'operation.name': id, 'ai.operationId': id });
  const v5: SpanTree[] = [
    {
      name: 'ai.generateText',
      attributes: { ...op('ai.generateText'), 'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o', 'ai.prompt': '{"prompt":"never copied"}', 'ai.usage.promptTokens': 1200, 'ai.usage.completionTokens': 300 },
      children: [
        {
          name: 'ai.generateText.doGenerate',
          attributes: {
            ...op('ai.generateText.doGenerate'),
            'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o', 'ai.prompt.messages': '[{"role":"user","content":"never copied"}]',
            'gen_ai.system': 'openai.chat', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.request.temperature': 0,
            'ai.response.finishReason': 'tool-calls', 'ai.response.id': 'chatcmpl-1', 'ai.response.model': 'gpt-4o-2024-08-06',
            'ai.response.timestamp': '2026-11-26T00:00:00.000Z', 'ai.response.providerMetadata': '{"openai":{"cachedPromptTokens":1000,"reasoningTokens":0}}',
            'ai.usage.promptTokens': 1200, 'ai.usage.completionTokens': 300,
            'gen_ai.response.finish_reasons': ['tool-calls'], 'gen_ai.response.id': 'chatcmpl-1', 'gen_ai.response.model': 'gpt-4o-2024-08-06',
            'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 300,
          },
        },
        { name: 'ai.toolCall', attributes: { ...op('ai.toolCall'), 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'call_1', 'ai.toolCall.args': '{"city":"Paris"}', 'ai.toolCall.result': '"sunny"' } },
      ],
    },
    {
      name: 'ai.streamText',
      attributes: { ...op('ai.streamText'), 'ai.model.provider': 'anthropic.messages', 'ai.model.id': 'claude-sonnet-4-20250514', 'ai.usage.inputTokens': 100, 'ai.usage.outputTokens': 500, 'ai.usage.totalTokens': 600, 'ai.usage.reasoningTokens': 200, 'ai.usage.cachedInputTokens': 2000 },
      children: [
        {
          name: 'ai.streamText.doStream',
          attributes: {
            ...op('ai.streamText.doStream'),
            'ai.model.provider': 'anthropic.messages', 'ai.model.id': 'claude-sonnet-4-20250514',
            'gen_ai.system': 'anthropic.messages', 'gen_ai.request.model': 'claude-sonnet-4-20250514',
            'ai.response.msToFirstChunk': 412.5, 'ai.response.finishReason': 'stop', 'ai.response.id': 'msg_1', 'ai.response.model': 'claude-sonnet-4-20250514',
            'ai.response.providerMetadata': '{"anthropic":{"cacheCreationInputTokens":300}}',
            'ai.usage.inputTokens': 100, 'ai.usage.outputTokens': 500, 'ai.usage.totalTokens': 600, 'ai.usage.reasoningTokens': 200, 'ai.usage.cachedInputTokens': 2000,
            'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.response.id': 'msg_1', 'gen_ai.response.model': 'claude-sonnet-4-20250514',
            'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 500,
          },
        },
      ],
    },
    {
      name: 'ai.embed',
      attributes: { ...op('ai.embed'), 'ai.model.provider': 'openai.embedding', 'ai.model.id': 'text-embedding-3-small', 'ai.value': '"never copied"', 'ai.usage.tokens': 8 },
      children: [
        { name: 'ai.embed.doEmbed', attributes: { ...op('ai.embed.doEmbed'), 'ai.model.provider': 'openai.embedding', 'ai.model.id': 'text-embedding-3-small', 'ai.values': ['"never copied"'], 'ai.usage.tokens': 8 } },
      ],
    },
  ];

  it('AI SDK 5: 7 spans, 4 actions: the provider calls as llm_call / embedding, the tool as tool_call, wrappers not counted', async () => {
    const agent = await createAgent(stack);
    const spans = record(agent.secret, v5);
    expect(spans).toHaveLength(7);
    await exportSpans(spans);
    const by = await storedBySpan(agent.id, 4);
    expect(Object.keys(by).sort()).toEqual(['ai.embed.doEmbed', 'ai.generateText.doGenerate', 'ai.streamText.doStream', 'ai.toolCall']);

    const gen = by['ai.generateText.doGenerate']!;
    expect(gen).toMatchObject({ action_type: 'llm_call', model: 'gpt-4o-2024-08-06' });
    expect(tokens(gen)).toEqual(['1200', '300', '1500']);
    expect(gen.meta).toMatchObject({ operation: 'ai.generateText.doGenerate', source: 'otlp:vercel_ai', request_model: 'gpt-4o' });

    const stream = by['ai.streamText.doStream']!;
    expect(stream).toMatchObject({ action_type: 'llm_call', model: 'claude-sonnet-4-20250514' });
    expect(String(stream.output_tokens)).toBe('500');

    const tool = by['ai.toolCall']!;
    expect(tool).toMatchObject({ action_type: 'tool_call' });
    expect(tool.meta).toMatchObject({ tool_name: 'weather', tool_call_id: 'call_1' });

    const emb = by['ai.embed.doEmbed']!;
    expect(emb).toMatchObject({ action_type: 'embedding', model: 'text-embedding-3-small' });
    expect(String(emb.input_tokens)).toBe('8');
    expect(JSON.stringify(Object.values(by).map((r) => r.metadata))).not.toContain('never copied');
  });

  it('AI SDK 4: ai.usage.promptTokens / completionTokens on doGenerate and doStream, ai.usage.tokens on embedMany', async () => {
    // ai@4.3.19 dist/index.mjs: ai.generateText.doGenerate (4287-4368), ai.streamText.doStream
    // (5664-5951), ai.embedMany.doEmbed (696-728).
    const agent = await createAgent(stack);
    const spans = record(agent.secret, [
      {
        name: 'ai.generateText',
        attributes: { ...op('ai.generateText'), 'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o-mini', 'ai.usage.promptTokens': 40, 'ai.usage.completionTokens': 9 },
        children: [
          {
            name: 'ai.generateText.doGenerate',
            attributes: {
              ...op('ai.generateText.doGenerate'), 'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o-mini',
              'gen_ai.system': 'openai.chat', 'gen_ai.request.model': 'gpt-4o-mini', 'ai.response.model': 'gpt-4o-mini-2024-07-18',
              'ai.usage.promptTokens': 40, 'ai.usage.completionTokens': 9,
              'gen_ai.response.model': 'gpt-4o-mini-2024-07-18', 'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 9,
            },
          },
        ],
      },
      {
        name: 'ai.streamText',
        attributes: { ...op('ai.streamText'), 'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o-mini', 'ai.usage.promptTokens': 30, 'ai.usage.completionTokens': 7 },
        children: [
          {
            name: 'ai.streamText.doStream',
            attributes: {
              ...op('ai.streamText.doStream'), 'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o-mini',
              'gen_ai.system': 'openai.chat', 'gen_ai.request.model': 'gpt-4o-mini', 'ai.response.model': 'gpt-4o-mini-2024-07-18',
              'ai.usage.promptTokens': 30, 'ai.usage.completionTokens': 7,
              'gen_ai.response.model': 'gpt-4o-mini-2024-07-18', 'gen_ai.usage.input_tokens': 30, 'gen_ai.usage.output_tokens': 7,
            },
          },
        ],
      },
      {
        name: 'ai.embedMany',
        attributes: { ...op('ai.embedMany'), 'ai.model.provider': 'openai.embedding', 'ai.model.id': 'text-embedding-3-small', 'ai.usage.tokens': 12 },
        children: [{ name: 'ai.embedMany.doEmbed', attributes: { ...op('ai.embedMany.doEmbed'), 'ai.model.provider': 'openai.embedding', 'ai.model.id': 'text-embedding-3-small', 'ai.usage.tokens': 12 } }],
      },
    ]);
    await exportSpans(spans);
    const by = await storedBySpan(agent.id, 3);
    expect(Object.keys(by).sort()).toEqual(['ai.embedMany.doEmbed', 'ai.generateText.doGenerate', 'ai.streamText.doStream']);
    expect(by['ai.generateText.doGenerate']).toMatchObject({ action_type: 'llm_call', model: 'gpt-4o-mini-2024-07-18' });
    expect(tokens(by['ai.generateText.doGenerate']!)).toEqual(['40', '9', '49']);
    expect(tokens(by['ai.streamText.doStream']!)).toEqual(['30', '7', '37']);
    expect(by['ai.embedMany.doEmbed']).toMatchObject({ action_type: 'embedding', model: 'text-embedding-3-small' });
    expect(String(by['ai.embedMany.doEmbed']!.input_tokens)).toBe('12');
  });
});
