import { describe, expect, it } from 'vitest';
import { wellKnownProvider } from './provider.ts';
import { spanTokens } from './token-usage.ts';

describe('provider names', () => {
  it.each([
    ['openai', 'openai'], ['OpenAI', 'openai'], ['openai.chat', 'openai'], ['openai.responses', 'openai'],
    ['anthropic.messages', 'anthropic'], ['Anthropic', 'anthropic'],
    ['google.generative-ai', 'gcp.gemini'], ['google.vertex.chat', 'gcp.vertex_ai'], ['vertexai', 'gcp.vertex_ai'], ['vertex_ai', 'gcp.vertex_ai'], ['google', 'gcp.gen_ai'],
    ['amazon-bedrock', 'aws.bedrock'], ['aws', 'aws.bedrock'], ['azure.chat', 'azure.ai.openai'], ['az.ai.inference', 'azure.ai.inference'],
    ['mistralai', 'mistral_ai'], ['mistral.chat', 'mistral_ai'], ['xai', 'x_ai'], ['ibm.watsonx.ai', 'ibm.watsonx.ai'], ['groq.chat', 'groq'],
    // Case, spaces, hyphens and underscores are one: display names and ids alike.
    ['AWS Bedrock', 'aws.bedrock'], ['aws-bedrock', 'aws.bedrock'], ['Amazon Bedrock', 'aws.bedrock'], [' Azure OpenAI ', 'azure.ai.openai'],
    ['Mistral AI', 'mistral_ai'], ['google.generative_ai', 'gcp.gemini'], ['Vertex AI', 'gcp.vertex_ai'],
  ])('%s is %s', (sent, known) => expect(wellKnownProvider(sent)).toBe(known));

  it.each([['my-gateway'], ['ollama'], [''], ['aws bedrock x'], ['Open AI']])('%j is none of the well-known names', (sent) => expect(wellKnownProvider(sent)).toBeUndefined());
});

describe('span token counts', () => {
  const read = (a: Record<string, unknown>, rule = 'gen_ai', provider?: string) => {
    const warnings: string[] = [];
    return { ...spanTokens(a as never, rule, provider, warnings), warnings };
  };

  it('reads each class under every convention name', () => {
    expect(read({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.cache_read.input_tokens': 4, 'gen_ai.usage.cache_creation.input_tokens': 2 }).tokens)
      .toMatchObject({ input_tokens: 10, cache_read_input_tokens: 4, cache_creation_input_tokens: 2 });
    expect(read({ 'gen_ai.usage.prompt_tokens': 10, 'gen_ai.usage.cache_read_input_tokens': 4, 'gen_ai.usage.reasoning_tokens': 1, 'gen_ai.usage.completion_tokens': 3 }).tokens)
      .toMatchObject({ input_tokens: 10, cache_read_input_tokens: 4, reasoning_tokens: 1, output_tokens: 3, total_tokens: 13 });
    expect(read({ 'llm.token_count.prompt_details.cache_write': 5, 'llm.token_count.completion_details.reasoning': 6 }).tokens)
      .toEqual({ cache_creation_input_tokens: 5, reasoning_tokens: 6 });
    expect(read({ 'gen_ai.usage.input_token_details': '{"cache_read": 7, "cache_creation": 1}', 'gen_ai.usage.output_token_details': '{"reasoning": 2}' }).tokens)
      .toEqual({ cache_read_input_tokens: 7, cache_creation_input_tokens: 1, reasoning_tokens: 2 });
  });

  it('adds the classes the Vercel AI SDK leaves out for Anthropic and Google, keeping what was sent', () => {
    const anthropic = read({ 'ai.usage.inputTokens': 100, 'ai.usage.outputTokens': 5, 'ai.usage.cachedInputTokens': 2000, 'ai.response.providerMetadata': '{"anthropic":{"cacheCreationInputTokens":300}}' }, 'vercel_ai', 'anthropic');
    expect(anthropic.tokens).toMatchObject({ input_tokens: 2400, total_tokens: 2405 });
    expect(anthropic.notes).toEqual({ input_tokens_sent: 100 });
    const openai = read({ 'ai.usage.inputTokens': 1200, 'ai.usage.cachedInputTokens': 1000 }, 'vercel_ai', 'openai');
    expect(openai.tokens.input_tokens).toBe(1200);
    const gemini = read({ 'ai.usage.outputTokens': 40, 'ai.usage.reasoningTokens': 30, 'ai.usage.inputTokens': 1 }, 'vercel_ai', 'gcp.gemini');
    expect(gemini.tokens).toMatchObject({ output_tokens: 70, reasoning_tokens: 30 });
  });

  it('adds a class larger than its base in any convention (the base cannot hold it)', () => {
    expect(read({ 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.cache_read.input_tokens': 2000 }).tokens.input_tokens).toBe(2100);
  });

  it('checks gen_ai.usage.total_tokens against the sum, and stores the sum', () => {
    const ok = read({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5, 'gen_ai.usage.total_tokens': 15 });
    expect(ok.warnings).toEqual([]);
    const off = read({ 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 5, 'gen_ai.usage.total_tokens': 99 });
    expect(off.tokens.total_tokens).toBe(15);
    expect(off.notes).toEqual({ total_tokens_sent: 99 });
    expect(off.warnings).toEqual(['`gen_ai.usage.total_tokens` 99 is not input + output tokens (15); total_tokens is stored as their sum']);
    // The total of counts as sent is no mistake: the AI SDK's Anthropic total leaves the cache out too.
    const sentSum = read({ 'ai.usage.inputTokens': 100, 'ai.usage.outputTokens': 5, 'ai.usage.totalTokens': 105, 'ai.usage.cachedInputTokens': 50 }, 'vercel_ai', 'anthropic');
    expect(sentSum.warnings).toEqual([]);
    expect(sentSum.tokens.total_tokens).toBe(155);
    expect(read({ 'llm.token_count.total': 80 }).tokens).toEqual({ total_tokens: 80 });
  });

  it('leaves out a count that is not one, with a warning', () => {
    const r = read({ 'gen_ai.usage.reasoning.output_tokens': -1 });
    expect(r.tokens).toEqual({});
    expect(r.warnings).toEqual(['`gen_ai.usage.reasoning.output_tokens` -1 is not a non-negative integer; the call is metered without it']);
  });
});
