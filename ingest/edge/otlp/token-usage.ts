import type { OtlpAnyValue, OtlpAttributes } from './model.ts';
import type { TokenClassField } from '../../../shared/events/token-classes.ts';

/** The token counts of a span under Tally's metadata names; each a non-negative integer. */
export type SpanTokens = Partial<Record<'input_tokens' | 'output_tokens' | 'total_tokens' | TokenClassField, number>>;

/**
 * Span attributes of each count, first found wins, per convention:
 * - OpenTelemetry GenAI (`gen_ai.usage.*`, @opentelemetry/semantic-conventions 1.45
 *   incubating), with the deprecated `prompt_tokens` / `completion_tokens`;
 * - OpenLLMetry (@traceloop/ai-semantic-conventions 0.27: `gen_ai.usage.cache_read_input_tokens`,
 *   `cache_creation_input_tokens`, `reasoning_tokens`, `llm.usage.total_tokens`);
 * - OpenInference (@arizeai/openinference-semantic-conventions 2.12: `llm.token_count.*`);
 * - value-python (`value.action.llm.*`);
 * - Vercel AI SDK (5: `ai.usage.inputTokens` …, `cachedInputTokens`, `reasoningTokens`;
 *   4: `ai.usage.promptTokens` / `completionTokens`; embeddings: `ai.usage.tokens`).
 * LangSmith's JSON details and the AI SDK's provider metadata: {@link detailCounts}.
 */
const COUNT_ATTRIBUTES: Readonly<Record<keyof SpanTokens, readonly string[]>> = {
  input_tokens: [
    'gen_ai.usage.input_tokens', 'gen_ai.usage.prompt_tokens', 'llm.token_count.prompt', 'value.action.llm.input_tokens',
    'ai.usage.inputTokens', 'ai.usage.promptTokens', 'ai.usage.tokens',
  ],
  output_tokens: [
    'gen_ai.usage.output_tokens', 'gen_ai.usage.completion_tokens', 'llm.token_count.completion', 'value.action.llm.output_tokens',
    'ai.usage.outputTokens', 'ai.usage.completionTokens',
  ],
  total_tokens: ['gen_ai.usage.total_tokens', 'llm.usage.total_tokens', 'llm.token_count.total', 'value.action.llm.total_tokens', 'ai.usage.totalTokens'],
  cache_read_input_tokens: [
    'gen_ai.usage.cache_read.input_tokens', 'gen_ai.usage.cache_read_input_tokens', 'llm.token_count.prompt_details.cache_read', 'ai.usage.cachedInputTokens',
  ],
  cache_creation_input_tokens: ['gen_ai.usage.cache_creation.input_tokens', 'gen_ai.usage.cache_creation_input_tokens', 'llm.token_count.prompt_details.cache_write'],
  reasoning_tokens: ['gen_ai.usage.reasoning.output_tokens', 'gen_ai.usage.reasoning_tokens', 'llm.token_count.completion_details.reasoning', 'ai.usage.reasoningTokens'],
};

/**
 * Counts sent inside JSON text attributes: LangSmith's OTel export puts LangChain's
 * `usage_metadata.input_token_details` / `output_token_details` in
 * `gen_ai.usage.input_token_details` / `output_token_details` (langsmith 0.3.87
 * dist/experimental/otel/translator.js); the Vercel AI SDK 5 puts Anthropic's cache
 * writes in `ai.response.providerMetadata` (`anthropic.cacheCreationInputTokens`).
 */
const DETAILS: readonly { attribute: string; path: readonly string[]; count: TokenClassField }[] = [
  { attribute: 'gen_ai.usage.input_token_details', path: ['cache_read'], count: 'cache_read_input_tokens' },
  { attribute: 'gen_ai.usage.input_token_details', path: ['cache_creation'], count: 'cache_creation_input_tokens' },
  { attribute: 'gen_ai.usage.output_token_details', path: ['reasoning'], count: 'reasoning_tokens' },
  { attribute: 'ai.response.providerMetadata', path: ['anthropic', 'cacheCreationInputTokens'], count: 'cache_creation_input_tokens' },
];

/**
 * Where a convention's base counts leave a class out (as the provider's own API counts
 * them), so Tally adds it to store every count as the OpenTelemetry GenAI conventions
 * define it (cache reads and writes part of `input_tokens`, reasoning part of
 * `output_tokens`). The Vercel AI SDK (4 and 5) passes the provider's numbers on:
 * Anthropic's `input_tokens` exclude cache reads and writes; Google's
 * `candidatesTokenCount` excludes the thoughts. Elsewhere a class larger than its base
 * shows the same (the base cannot hold it), and is added too.
 */
function excludesClasses(rule: string, provider: string | undefined): { cache: boolean; reasoning: boolean } {
  if (rule !== 'vercel_ai' || provider === undefined) return { cache: false, reasoning: false };
  return { cache: provider === 'anthropic', reasoning: provider.startsWith('gcp.') };
}

/**
 * The token counts of a span, as Tally stores them: every convention's names read, base
 * counts made to include their classes, and the total the sum of input and output. A
 * sent total that is neither the sum of the counts as sent nor as stored is reported
 * (and kept in `total_tokens_sent`). Counts that are not non-negative integers are left
 * out with a warning naming the attribute.
 */
export function spanTokens(a: OtlpAttributes, rule: string, provider: string | undefined, warnings: string[]): { tokens: SpanTokens; notes: Record<string, number> } {
  const t: SpanTokens = {};
  const notes: Record<string, number> = {};
  for (const k of Object.keys(COUNT_ATTRIBUTES) as (keyof SpanTokens)[]) {
    const n = readCount(a, COUNT_ATTRIBUTES[k], warnings);
    if (n !== undefined) t[k] = n;
  }
  for (const d of DETAILS) {
    if (t[d.count] !== undefined || typeof a[d.attribute] !== 'string') continue;
    const n = detailCount(a[d.attribute] as string, d.path);
    if (n !== undefined) t[d.count] = n;
  }
  const sentInput = t.input_tokens;
  const sentOutput = t.output_tokens;
  const excluded = excludesClasses(rule, provider);
  const cached = (t.cache_read_input_tokens ?? 0) + (t.cache_creation_input_tokens ?? 0);
  if (t.input_tokens !== undefined && cached > 0 && (excluded.cache || cached > t.input_tokens)) t.input_tokens += cached;
  const reasoning = t.reasoning_tokens ?? 0;
  if (t.output_tokens !== undefined && reasoning > 0 && (excluded.reasoning || reasoning > t.output_tokens)) t.output_tokens += reasoning;
  if (sentInput !== t.input_tokens && sentInput !== undefined) notes['input_tokens_sent'] = sentInput;
  if (sentOutput !== t.output_tokens && sentOutput !== undefined) notes['output_tokens_sent'] = sentOutput;

  if (t.input_tokens !== undefined && t.output_tokens !== undefined) {
    const sum = t.input_tokens + t.output_tokens;
    const sentSum = (sentInput ?? 0) + (sentOutput ?? 0);
    if (t.total_tokens !== undefined && t.total_tokens !== sum && t.total_tokens !== sentSum) {
      const name = COUNT_ATTRIBUTES.total_tokens.find((k) => a[k] !== undefined && a[k] !== null)!;
      warnings.push(`\`${name}\` ${t.total_tokens} is not input + output tokens (${sum}); total_tokens is stored as their sum`);
      notes['total_tokens_sent'] = t.total_tokens;
    }
    t.total_tokens = sum;
  }
  return { tokens: t, notes };
}

/** The count of the first of `keys` the span has, or a warning that it is not one. */
function readCount(a: OtlpAttributes, keys: readonly string[], warnings: string[]): number | undefined {
  const name = keys.find((key) => a[key] !== undefined && a[key] !== null);
  if (name === undefined) return undefined;
  const n = tokenCount(a[name]!);
  if (n === undefined) warnings.push(`\`${name}\` ${JSON.stringify(a[name])} is not a non-negative integer; the call is metered without it`);
  return n;
}

/** A count at `path` of a JSON object text; undefined when the text is not JSON or holds no count there. */
function detailCount(text: string, path: readonly string[]): number | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  for (const p of path) v = v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined;
  return typeof v === 'number' || typeof v === 'string' ? tokenCount(v) : undefined;
}

/** A token count: a non-negative safe integer, or a string of at most 15 digits; else undefined. */
export function tokenCount(v: OtlpAnyValue): number | undefined {
  if (typeof v === 'number') return Number.isSafeInteger(v) && v >= 0 ? v : undefined;
  if (typeof v === 'string' && /^\d{1,15}$/.test(v.trim())) return Number(v.trim());
  return undefined;
}
