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
import { queryCosts } from '../../../billing/costs/cost-query.ts';

let stack: TestStack;
let sdk: string;

const day = new Date().toISOString().slice(0, 10);
const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

/**
 * Cost rules as OpenAI and Anthropic publish their prices (USD per token, list prices of
 * November 2026): OpenAI gpt-4o input 2.50, cached input 1.25, output 10.00 per million;
 * o4-mini input 1.10, cached input 0.275, output 4.40 (reasoning billed as output);
 * Anthropic Claude Sonnet 4 input 3.00, cache writes (5 min) 3.75, cache hits 0.30, output
 * 15.00; text-embedding-3-small 0.02.
 */
const PRICES = [
  { name: 'input', basis: 'per_input_token', model_rates: { 'gpt-4o-2024-08-06': '0.0000025', 'o4-mini-2025-04-16': '0.0000011', 'claude-sonnet-4-20250514': '0.000003', 'text-embedding-3-small': '0.00000002', 'gpt-4o-mini-2024-07-18': '0.00000015' } },
  { name: 'cache reads', basis: 'per_cache_read_token', model_rates: { 'gpt-4o-2024-08-06': '0.00000125', 'o4-mini-2025-04-16': '0.000000275', 'claude-sonnet-4-20250514': '0.0000003' } },
  { name: 'cache writes', basis: 'per_cache_write_token', model_rates: { 'claude-sonnet-4-20250514': '0.00000375' } },
  { name: 'output', basis: 'per_output_token', model_rates: { 'gpt-4o-2024-08-06': '0.00001', 'o4-mini-2025-04-16': '0.0000044', 'claude-sonnet-4-20250514': '0.000015', 'gpt-4o-mini-2024-07-18': '0.0000006' } },
  { name: 'reasoning', basis: 'per_reasoning_token', model_rates: { 'o4-mini-2025-04-16': '0.0000044' } },
];

/**
 * The three calls every convention below reports, and what they cost under PRICES:
 * - gpt-4o: 1,200 input tokens of which 1,000 cached, 300 output:
 *   200 x 0.0000025 + 1000 x 0.00000125 + 300 x 0.00001 = 0.0005 + 0.00125 + 0.003 = 0.00475
 * - Claude Sonnet 4: 100 uncached input, 2,000 cache reads, 300 cache writes (2,400 input
 *   in all), 500 output: 0.0003 + 0.0006 + 0.001125 + 0.0075 = 0.009525
 * - o4-mini: 50 input, 400 output of which 256 reasoning: 0.000055 + 144 x 0.0000044 +
 *   256 x 0.0000044 = 0.000055 + 0.00176 = 0.001815
 */
const THREE_CALLS_COST = '0.01609';
/** The three calls and an embedding of 80 tokens: 0.01609 + 80 x 0.00000002. */
const EMBEDDING_TOO = '0.0160916';

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_INGEST_LINGER_MS: '1' } });
  sdk = stack.keys.development.sdk;
  for (const p of PRICES) {
    const r = await call(stack, 'POST', '/v1/cost_rules', {
      key: stack.keys.development.admin,
      body: { ...p, category: 'llm', currency: 'USD', effective_from: `${day}T00:00:00Z`, reallocate: true },
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  }
});

/** What an agent's actions cost today (USD), once `actions` of them carry a cost. */
async function costOf(agentId: string, actions: number): Promise<string> {
  const r = await waitFor(
    () => call(stack, 'GET', `/v1/costs?start_date=${day}&end_date=${next}&agent_id=${agentId}`, { key: stack.keys.development.admin }),
    (res) => res.status !== 200 || (res.body.costs ?? []).reduce((n: number, c: { actions: number }) => n + c.actions, 0) >= actions,
  );
  expect(r.status).toBe(200);
  return r.body.total.USD;
}

/** Token columns of a stored action: input, output, total, cache reads, cache writes, reasoning. */
const classes = (r: Record<string, any>) =>
  [r.input_tokens, r.output_tokens, r.total_tokens, r.cache_read_input_tokens, r.cache_creation_input_tokens, r.reasoning_tokens].map(String);
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

/** The stored actions of an agent (metadata parsed as `meta`), once `n` are stored and no more arrive. */
async function storedRows(agentId: string, n: number): Promise<Record<string, any>[]> {
  const read = async () => {
    const rs = await stack.tally.ch!.query({
      query: `SELECT * FROM ${stack.env.CLICKHOUSE_DATABASE}.actions WHERE agent_instance_id = {a:String}`,
      query_params: { a: agentId },
      format: 'JSONEachRow',
    });
    return (await rs.json<Record<string, any>>()).map((r) => ({ ...r, meta: JSON.parse(r.metadata) }));
  };
  await waitFor(read, (r) => r.length >= n);
  // Spans that are not metered could still be on their way: a short grace, then count again.
  await new Promise((res) => setTimeout(res, 300));
  const rows = await read();
  expect(rows).toHaveLength(n);
  return rows;
}

/** The stored actions of an agent by span name. */
async function storedBySpan(agentId: string, n: number): Promise<Record<string, Record<string, any>>> {
  return Object.fromEntries((await storedRows(agentId, n)).map((r) => [r.meta.span_name, r]));
}

/** `{a: 1}` as `{'<prefix>a': 1}`. */
const prefixed = (prefix: string, o: Record<string, number>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [prefix + k, v]));

const tokens = (r: Record<string, any>) => [r.input_tokens, r.output_tokens, r.total_tokens].map(String);

describe('Vercel AI SDK', () => {
  // ai@5.0.277 dist/index.mjs: recordSpan calls of generateText (ai.generateText, line 2339;
  // ai.generateText.doGenerate, 2405-2488; ai.toolCall, 2660-2701), streamText
  // (ai.streamText, 5377, its usage 5300-5304; ai.streamText.doStream, 5445-5697) and embed
  // (ai.embed, 6632; ai.embed.doEmbed, 6645-6672); assembleOperationName (1511) gives every
  // span `operation.name` and `ai.operationId`. Provider ids: @ai-sdk/openai "openai.chat",
  // @ai-sdk/anthropic "anthropic.messages" (AI SDK 5 reports Anthropic's input_tokens,
  // cache excluded, as `inputTokens`, its cache reads as `cachedInputTokens` and its cache
  // writes in the provider metadata).
  const op = (id: string) => ({ 'operation.name': id, 'ai.operationId': id });
  const streamText = (provider: string, model: string, usage: Record<string, number>, providerMetadata: object): SpanTree => ({
    name: 'ai.streamText',
    attributes: { ...op('ai.streamText'), 'ai.model.provider': provider, 'ai.model.id': model, 'ai.prompt': '{"prompt":"never copied"}', ...prefixed('ai.usage.', usage) },
    children: [
      {
        name: 'ai.streamText.doStream',
        attributes: {
          ...op('ai.streamText.doStream'),
          'ai.model.provider': provider, 'ai.model.id': model, 'ai.prompt.messages': '[{"role":"user","content":"never copied"}]',
          'gen_ai.system': provider, 'gen_ai.request.model': model,
          'ai.response.msToFirstChunk': 412.5, 'ai.response.finishReason': 'stop', 'ai.response.id': 'r1', 'ai.response.model': model,
          'ai.response.timestamp': '2026-11-26T00:00:00.000Z', 'ai.response.providerMetadata': JSON.stringify(providerMetadata),
          ...prefixed('ai.usage.', usage),
          'gen_ai.response.finish_reasons': ['stop'], 'gen_ai.response.id': 'r1', 'gen_ai.response.model': model,
          'gen_ai.usage.input_tokens': usage['inputTokens']!, 'gen_ai.usage.output_tokens': usage['outputTokens']!,
        },
      },
    ],
  });
  const v5: SpanTree[] = [
    {
      name: 'ai.generateText',
      attributes: { ...op('ai.generateText'), 'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o-mini', 'ai.usage.promptTokens': 40, 'ai.usage.completionTokens': 9 },
      children: [
        {
          name: 'ai.generateText.doGenerate',
          attributes: {
            ...op('ai.generateText.doGenerate'),
            'ai.model.provider': 'openai.chat', 'ai.model.id': 'gpt-4o-mini', 'ai.prompt.messages': '[{"role":"user","content":"never copied"}]',
            'gen_ai.system': 'openai.chat', 'gen_ai.request.model': 'gpt-4o-mini', 'gen_ai.request.temperature': 0,
            'ai.response.finishReason': 'tool-calls', 'ai.response.id': 'chatcmpl-1', 'ai.response.model': 'gpt-4o-mini-2024-07-18',
            'ai.response.timestamp': '2026-11-26T00:00:00.000Z', 'ai.response.providerMetadata': '{"openai":{}}',
            'ai.usage.promptTokens': 40, 'ai.usage.completionTokens': 9,
            'gen_ai.response.finish_reasons': ['tool-calls'], 'gen_ai.response.id': 'chatcmpl-1', 'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
            'gen_ai.usage.input_tokens': 40, 'gen_ai.usage.output_tokens': 9,
          },
        },
        { name: 'ai.toolCall', attributes: { ...op('ai.toolCall'), 'ai.toolCall.name': 'weather', 'ai.toolCall.id': 'call_1', 'ai.toolCall.args': '{"city":"Paris"}', 'ai.toolCall.result': '"sunny"' } },
      ],
    },
    streamText('openai.chat', 'gpt-4o-2024-08-06', { inputTokens: 1200, outputTokens: 300, totalTokens: 1500, cachedInputTokens: 1000 }, { openai: { cachedPromptTokens: 1000 } }),
    streamText('anthropic.messages', 'claude-sonnet-4-20250514', { inputTokens: 100, outputTokens: 500, totalTokens: 600, cachedInputTokens: 2000 }, { anthropic: { cacheCreationInputTokens: 300 } }),
    streamText('openai.responses', 'o4-mini-2025-04-16', { inputTokens: 50, outputTokens: 400, totalTokens: 450, reasoningTokens: 256 }, { openai: { reasoningTokens: 256 } }),
    {
      name: 'ai.embed',
      attributes: { ...op('ai.embed'), 'ai.model.provider': 'openai.embedding', 'ai.model.id': 'text-embedding-3-small', 'ai.value': '"never copied"', 'ai.usage.tokens': 8 },
      children: [
        { name: 'ai.embed.doEmbed', attributes: { ...op('ai.embed.doEmbed'), 'ai.model.provider': 'openai.embedding', 'ai.model.id': 'text-embedding-3-small', 'ai.values': ['"never copied"'], 'ai.usage.tokens': 8 } },
      ],
    },
  ];

  it('AI SDK 5: 11 spans, 6 actions: provider calls as llm_call / embedding, the tool as tool_call, wrappers not counted; every token class priced', async () => {
    const agent = await createAgent(stack);
    const spans = record(agent.secret, v5);
    expect(spans).toHaveLength(11);
    await exportSpans(spans);
    const rows = await storedRows(agent.id, 6);
    expect(rows.map((r) => r.meta.span_name).sort()).toEqual([
      'ai.embed.doEmbed', 'ai.generateText.doGenerate', 'ai.streamText.doStream', 'ai.streamText.doStream', 'ai.streamText.doStream', 'ai.toolCall',
    ]);
    const by = Object.fromEntries(rows.map((r) => [r.model || r.meta.span_name, r]));

    const gen = by['gpt-4o-mini-2024-07-18']!;
    expect(gen).toMatchObject({ action_type: 'llm_call' });
    expect(classes(gen)).toEqual(['40', '9', '49', '0', '0', '0']);
    expect(gen.meta).toMatchObject({ operation: 'ai.generateText.doGenerate', source: 'otlp:vercel_ai', request_model: 'gpt-4o-mini', provider: 'openai', provider_sent: 'openai.chat' });

    expect(classes(by['gpt-4o-2024-08-06']!)).toEqual(['1200', '300', '1500', '1000', '0', '0']);
    // Anthropic's input_tokens leave the cache out: stored with it, as sent beside it.
    const claude = by['claude-sonnet-4-20250514']!;
    expect(classes(claude)).toEqual(['2400', '500', '2900', '2000', '300', '0']);
    expect(claude.meta).toMatchObject({ provider: 'anthropic', provider_sent: 'anthropic.messages', input_tokens_sent: 100 });
    expect(classes(by['o4-mini-2025-04-16']!)).toEqual(['50', '400', '450', '0', '0', '256']);

    const tool = by['ai.toolCall']!;
    expect(tool).toMatchObject({ action_type: 'tool_call' });
    expect(tool.meta).toMatchObject({ tool_name: 'weather', tool_call_id: 'call_1' });
    const emb = by['text-embedding-3-small']!;
    expect(emb).toMatchObject({ action_type: 'embedding' });
    expect(String(emb.input_tokens)).toBe('8');
    expect(rows.filter((r) => r.action_type === 'llm_call')).toHaveLength(4);
    expect(JSON.stringify(rows.map((r) => r.metadata))).not.toContain('never copied');

    // The three calls, gpt-4o-mini (40 x 0.00000015 + 9 x 0.0000006 = 0.0000114) and the embedding (8 x 0.00000002).
    expect(await costOf(agent.id, 5)).toBe('0.01610156');
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

/**
 * Exports one convention's spans for a fresh agent; checks the token columns of its three
 * priced calls (by model), that only `metered` spans were stored, and that the `costed`
 * actions among them cost `cost`.
 */
async function exportAndPrice(trees: SpanTree[], metered: number, costed = 3, cost = THREE_CALLS_COST): Promise<Record<string, Record<string, any>>> {
  const agent = await createAgent(stack);
  await exportSpans(record(agent.secret, trees));
  const rows = await storedRows(agent.id, metered);
  const by = Object.fromEntries(rows.map((r) => [r.model || r.meta.span_name, r]));
  expect(classes(by['gpt-4o-2024-08-06']!)).toEqual(['1200', '300', '1500', '1000', '0', '0']);
  expect(classes(by['claude-sonnet-4-20250514']!)).toEqual(['2400', '500', '2900', '2000', '300', '0']);
  expect(classes(by['o4-mini-2025-04-16']!)).toEqual(['50', '400', '450', '0', '0', '256']);
  for (const m of ['gpt-4o-2024-08-06', 'claude-sonnet-4-20250514', 'o4-mini-2025-04-16']) expect(by[m]).toMatchObject({ action_type: 'llm_call' });
  expect(await costOf(agent.id, costed)).toBe(cost);
  return by;
}

describe('OpenTelemetry GenAI semantic conventions', () => {
  // @opentelemetry/semantic-conventions@1.45.0 dist/experimental_attributes.d.mts:
  // gen_ai.operation.name (chat, embeddings, execute_tool, invoke_agent), gen_ai.provider.name
  // (well-known values "openai", "anthropic"), gen_ai.request.model, gen_ai.response.model,
  // gen_ai.usage.input_tokens / output_tokens, gen_ai.usage.cache_read.input_tokens and
  // cache_creation.input_tokens ("SHOULD be included in gen_ai.usage.input_tokens"),
  // gen_ai.usage.reasoning.output_tokens ("SHOULD be included in gen_ai.usage.output_tokens").
  const chat = (provider: string, model: string, usage: Record<string, number>): SpanTree => ({
    name: `chat ${model}`,
    attributes: { 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': provider, 'gen_ai.request.model': model, 'gen_ai.response.model': model, ...prefixed('gen_ai.usage.', usage) },
  });
  it('meters chat, embeddings and execute_tool, not the invoke_agent parent nor HTTP and DB spans; each class priced', async () => {
    const by = await exportAndPrice(
      [
        {
          name: 'invoke_agent support',
          attributes: { 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.agent.name': 'support', 'gen_ai.provider.name': 'openai', 'gen_ai.usage.input_tokens': 3650, 'gen_ai.usage.output_tokens': 1200 },
          children: [
            chat('openai', 'gpt-4o-2024-08-06', { input_tokens: 1200, output_tokens: 300, 'cache_read.input_tokens': 1000 }),
            chat('anthropic', 'claude-sonnet-4-20250514', { input_tokens: 2400, output_tokens: 500, 'cache_read.input_tokens': 2000, 'cache_creation.input_tokens': 300 }),
            chat('openai', 'o4-mini-2025-04-16', { input_tokens: 50, output_tokens: 400, 'reasoning.output_tokens': 256 }),
            { name: 'embeddings text-embedding-3-small', attributes: { 'gen_ai.operation.name': 'embeddings', 'gen_ai.provider.name': 'openai', 'gen_ai.request.model': 'text-embedding-3-small', 'gen_ai.usage.input_tokens': 80 } },
            { name: 'execute_tool search', attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'search', 'gen_ai.tool.call.id': 'call_9' } },
            // @opentelemetry/semantic-conventions stable HTTP and database client attributes.
            { name: 'POST', attributes: { 'http.request.method': 'POST', 'url.full': 'https://api.openai.com/v1/chat/completions', 'http.response.status_code': 200 } },
            { name: 'SELECT orders', attributes: { 'db.system.name': 'postgresql', 'db.query.text': 'SELECT 1', 'db.collection.name': 'orders' } },
          ],
        },
      ],
      5,
      4,
      EMBEDDING_TOO,
    );
    expect(by['text-embedding-3-small']).toMatchObject({ action_type: 'embedding' });
    expect(by['execute_tool search']).toMatchObject({ action_type: 'tool_call' });
    expect(by['claude-sonnet-4-20250514']!.meta).toMatchObject({ provider: 'anthropic', source: 'otlp:gen_ai' });
    expect(by['claude-sonnet-4-20250514']!.meta).not.toHaveProperty('provider_sent');
  });
});

describe('gen_ai.usage.total_tokens', () => {
  it('is checked against input + output: a total that is neither is named in partial_success, the sum stored', async () => {
    const agent = await createAgent(stack);
    const attr = (key: string, v: number) => ({ key, value: { intValue: String(v) } });
    const end = String(BigInt(Date.now()) * 1_000_000n);
    const res = await call(stack, 'POST', '/v1/traces', {
      key: sdk,
      body: {
        resourceSpans: [{
          resource: { attributes: [{ key: 'tally.agent_key', value: { stringValue: agent.secret } }] },
          scopeSpans: [{
            scope: { name: 's' },
            spans: [{
              traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'e7ad6b7169203331', name: 'chat', kind: 3, startTimeUnixNano: end, endTimeUnixNano: end,
              attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }, attr('gen_ai.usage.input_tokens', 10), attr('gen_ai.usage.output_tokens', 5), attr('gen_ai.usage.total_tokens', 99)],
            }],
          }],
        }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.partialSuccess.errorMessage).toContain('span e7ad6b7169203331: `gen_ai.usage.total_tokens` 99 is not input + output tokens (15); total_tokens is stored as their sum');
    const [row] = await storedRows(agent.id, 1);
    expect(tokens(row!)).toEqual(['10', '5', '15']);
    expect(row!.meta.total_tokens_sent).toBe(99);
  });
});

describe('OpenLLMetry', () => {
  // @traceloop/ai-semantic-conventions@0.27.0 dist/src/SemanticAttributes.js: llm.request.type,
  // gen_ai.system ("OpenAI", "Anthropic" as its instrumentations send it), gen_ai.request.model,
  // gen_ai.response.model, gen_ai.usage.prompt_tokens / completion_tokens, llm.usage.total_tokens,
  // gen_ai.usage.cache_read_input_tokens, gen_ai.usage.cache_creation_input_tokens,
  // gen_ai.usage.reasoning_tokens. Span names "openai.chat", "anthropic.chat".
  const chat = (system: string, model: string, usage: Record<string, number>, total?: number): SpanTree => ({
    name: `${system.toLowerCase()}.chat`,
    attributes: {
      'llm.request.type': 'chat', 'gen_ai.system': system, 'gen_ai.request.model': model, 'gen_ai.response.model': model,
      'gen_ai.prompt.0.role': 'user', 'gen_ai.prompt.0.content': 'never copied',
      ...prefixed('gen_ai.usage.', usage),
      ...(total === undefined ? {} : { 'llm.usage.total_tokens': total }),
    },
  });
  it('meters llm.request.type spans with OpenLLMetry token names; provider names normalized, what was sent kept', async () => {
    const by = await exportAndPrice(
      [
        { name: 'workflow.task', attributes: { 'traceloop.span.kind': 'workflow', 'traceloop.entity.name': 'support' } },
        chat('OpenAI', 'gpt-4o-2024-08-06', { prompt_tokens: 1200, completion_tokens: 300, cache_read_input_tokens: 1000 }, 1500),
        chat('Anthropic', 'claude-sonnet-4-20250514', { prompt_tokens: 2400, completion_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 }, 2900),
        chat('OpenAI', 'o4-mini-2025-04-16', { prompt_tokens: 50, completion_tokens: 400, reasoning_tokens: 256 }),
      ],
      3,
    );
    expect(by['gpt-4o-2024-08-06']!.meta).toMatchObject({ provider: 'openai', provider_sent: 'OpenAI', source: 'otlp:gen_ai' });
    expect(by['claude-sonnet-4-20250514']!.meta).toMatchObject({ provider: 'anthropic', provider_sent: 'Anthropic' });
    expect(JSON.stringify(Object.values(by).map((r) => r.metadata))).not.toContain('never copied');
  });
});

describe('OpenInference', () => {
  // @arizeai/openinference-semantic-conventions@2.12.0 src/trace/SemanticConventions.ts:
  // openinference.span.kind (LLM, EMBEDDING, TOOL, CHAIN), llm.model_name, llm.provider,
  // llm.system, llm.token_count.prompt / completion / total,
  // llm.token_count.prompt_details.cache_read / cache_write,
  // llm.token_count.completion_details.reasoning, embedding.model_name, tool.name.
  const llm = (provider: string, model: string, counts: Record<string, number>): SpanTree => ({
    name: provider === 'anthropic' ? 'ChatAnthropic' : 'ChatOpenAI',
    attributes: { 'openinference.span.kind': 'LLM', 'llm.model_name': model, 'llm.provider': provider, 'llm.system': provider, 'input.value': 'never copied', ...prefixed('llm.token_count.', counts) },
  });
  it('meters LLM, EMBEDDING and LangChain TOOL spans, not CHAIN spans', async () => {
    const by = await exportAndPrice(
      [
        {
          name: 'RunnableSequence',
          attributes: { 'openinference.span.kind': 'CHAIN', 'input.value': 'never copied' },
          children: [
            llm('openai', 'gpt-4o-2024-08-06', { prompt: 1200, completion: 300, total: 1500, 'prompt_details.cache_read': 1000 }),
            llm('anthropic', 'claude-sonnet-4-20250514', { prompt: 2400, completion: 500, total: 2900, 'prompt_details.cache_read': 2000, 'prompt_details.cache_write': 300 }),
            llm('openai', 'o4-mini-2025-04-16', { prompt: 50, completion: 400, total: 450, 'completion_details.reasoning': 256 }),
            { name: 'OpenAIEmbeddings', attributes: { 'openinference.span.kind': 'EMBEDDING', 'embedding.model_name': 'text-embedding-3-small', 'llm.token_count.prompt': 80, 'llm.token_count.total': 80 } },
            { name: 'search', attributes: { 'openinference.span.kind': 'TOOL', 'tool.name': 'search', 'tool.description': 'web search' } },
          ],
        },
      ],
      5,
      4,
      EMBEDDING_TOO,
    );
    expect(by['text-embedding-3-small']).toMatchObject({ action_type: 'embedding' });
    expect(by['search']).toMatchObject({ action_type: 'tool_call' });
    expect(by['search']!.meta.tool_name).toBe('search');
    expect(by['gpt-4o-2024-08-06']!.meta).toMatchObject({ provider: 'openai', source: 'otlp:openinference' });
  });
});

describe("LangSmith's OpenTelemetry export", () => {
  // langsmith@0.3.87 dist/experimental/otel/translator.js: run types to gen_ai.operation.name
  // (llm: chat, tool: execute_tool, chain: "chain"), langsmith.span.kind, gen_ai.system,
  // gen_ai.request.model, gen_ai.response.model, gen_ai.usage.input_tokens / output_tokens /
  // total_tokens, and LangChain's usage_metadata details as JSON text in
  // gen_ai.usage.input_token_details ({cache_read, cache_creation}) and
  // gen_ai.usage.output_token_details ({reasoning}).
  const run = (system: string, model: string, input: number, output: number, inputDetails: object, outputDetails: object): SpanTree => ({
    name: 'ChatModel',
    attributes: {
      'langsmith.span.kind': 'llm', 'gen_ai.operation.name': 'chat', 'gen_ai.system': system, 'gen_ai.request.model': model, 'gen_ai.response.model': model,
      'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output, 'gen_ai.usage.total_tokens': input + output,
      'gen_ai.usage.input_token_details': JSON.stringify(inputDetails), 'gen_ai.usage.output_token_details': JSON.stringify(outputDetails),
      'gen_ai.prompt': '{"messages":"never copied"}',
    },
  });
  it('meters llm runs with their JSON token details; chain runs not', async () => {
    const by = await exportAndPrice(
      [
        {
          name: 'AgentExecutor',
          attributes: { 'langsmith.span.kind': 'chain', 'gen_ai.operation.name': 'chain' },
          children: [
            run('openai', 'gpt-4o-2024-08-06', 1200, 300, { audio: 0, cache_read: 1000 }, { audio: 0, reasoning: 0 }),
            run('anthropic', 'claude-sonnet-4-20250514', 2400, 500, { cache_read: 2000, cache_creation: 300 }, {}),
            run('openai', 'o4-mini-2025-04-16', 50, 400, { cache_read: 0 }, { reasoning: 256 }),
            { name: 'search', attributes: { 'langsmith.span.kind': 'tool', 'gen_ai.operation.name': 'execute_tool' } },
          ],
        },
      ],
      4,
    );
    expect(by['search']).toMatchObject({ action_type: 'tool_call' });
  });
});

describe('the ingest API', () => {
  it('takes the token classes as metadata fields, prices them, and refuses cached tokens beyond input_tokens', async () => {
    const agent = await createAgent(stack);
    const send = (id: string, metadata: object) => call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.secret, action_type: 'llm_call', id, metadata } });
    expect((await send('a1', { model: 'gpt-4o-2024-08-06', input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 1000 })).status).toBe(200);
    expect((await send('a2', { model: 'claude-sonnet-4-20250514', usage: { input_tokens: 2400, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 } })).status).toBe(200);
    expect((await send('a3', { model: 'o4-mini-2025-04-16', input_tokens: 50, output_tokens: 400, reasoning_tokens: 256 })).status).toBe(200);
    // Anthropic's own numbers (input_tokens without the cache): refused, with how to send them.
    const anthropicRaw = await send('a4', { model: 'claude-sonnet-4-20250514', input_tokens: 100, output_tokens: 500, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300 });
    expect(anthropicRaw.status).toBe(400);
    expect(anthropicRaw.body.error).toMatchObject({ code: 'validation_failed' });
    expect(anthropicRaw.body.error.message).toMatch(/cached tokens \(2300\) are part of `input_tokens` \(100\)/);
    const reasoning = await send('a5', { model: 'o4-mini-2025-04-16', input_tokens: 1, output_tokens: 10, reasoning_tokens: 11 });
    expect(reasoning.status).toBe(400);
    expect(reasoning.body.error.message).toMatch(/`metadata.reasoning_tokens` \(11\) is part of `output_tokens` \(10\)/);
    const negative = await send('a6', { input_tokens: 10, cache_read_input_tokens: -1 });
    expect(negative.status).toBe(400);
    expect(negative.body.error.message).toBe('`metadata.cache_read_input_tokens` must be a non-negative integer');

    expect(await costOf(agent.id, 3)).toBe(THREE_CALLS_COST);
    // The same from the raw events (the API may answer from the daily rollup): one definition, two paths.
    const [live] = await queryCosts(stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!, { environmentId: stack.keys.development.id, from: new Date(`${day}T00:00:00Z`), to: new Date(`${next}T00:00:00Z`), agentInstanceIds: [agent.id] });
    expect(live).toMatchObject({ category: 'llm', currency: 'USD', amount: THREE_CALLS_COST, actions: '3' });
    const rolled = await waitFor(
      async () => {
        const rs = await stack.tally.ch!.query({
          query: `SELECT toString(sum(amount)) AS a FROM ${stack.env.CLICKHOUSE_DATABASE}.costs_daily WHERE agent_instance_id = {a:String}`,
          query_params: { a: agent.id },
          format: 'JSONEachRow',
        });
        return (await rs.json<{ a: string }>())[0]!.a;
      },
      (a) => a !== '0',
    );
    expect(rolled).toBe(THREE_CALLS_COST);
    const now = Date.now();
    const [u] = await stack.tally.usage!.query({ environmentId: stack.keys.development.id, from: new Date(now - 86400_000), to: new Date(now + 86400_000), groupBy: 'agent', agentInstanceIds: [agent.id] });
    expect(u).toMatchObject({ actions: '3', input_tokens: '3650', output_tokens: '1200', cache_read_input_tokens: '3000', cache_creation_input_tokens: '300', reasoning_tokens: '256' });
    // The columns in analysts' SQL.
    const sql = await call(stack, 'POST', '/v1/sql', {
      key: stack.keys.development.admin,
      body: { query: `SELECT sum(cache_read_input_tokens) AS r, sum(cache_creation_input_tokens) AS w, sum(reasoning_tokens) AS t FROM actions WHERE agent_instance_id = '${agent.id}'`, format: 'JSON' },
    });
    expect(sql.status, JSON.stringify(sql.body)).toBe(200);
    expect(sql.body.data.map((d: Record<string, unknown>) => [d['r'], d['w'], d['t']].map(String))).toEqual([['3000', '300', '256']]);
  });

  it('without a rule of its own, a class stays in its base count, charged at the base rate', async () => {
    // gpt-4o-mini has no cache read rate: its 1,000 cached tokens are input at 0.00000015.
    const agent = await createAgent(stack);
    const r = await call(stack, 'POST', '/v1/actions', {
      key: sdk,
      body: { agent_key: agent.secret, action_type: 'llm_call', id: 'm1', metadata: { model: 'gpt-4o-mini-2024-07-18', input_tokens: 1200, output_tokens: 100, cache_read_input_tokens: 1000 } },
    });
    expect(r.status).toBe(200);
    // 1200 x 0.00000015 + 100 x 0.0000006
    expect(await costOf(agent.id, 1)).toBe('0.00024');
  });
});
