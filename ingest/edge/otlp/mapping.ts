import type { OtlpAnyValue, OtlpAttributes, OtlpSpan } from './model.ts';
import { wellKnownProvider } from './provider.ts';
import { spanTokens, tokenCount } from './token-usage.ts';

export { tokenCount };

/** Rules for spans that carry no GenAI operation: names of tagged actions of the environment. */
export interface SpanRules {
  /** Span names metered as an action of the same name (Postgres `tagged_items`, kind 'action'). */
  readonly taggedActions: ReadonlySet<string>;
}

/**
 * Resource or span attributes naming the agent instance (its secret or id), first found
 * wins. `value.agent.id` is what Valmi's value-python SDK puts on its resource: the `id`
 * its info call (GET /api/v1/agent_instance/info) answered.
 */
export const AGENT_KEY_ATTRIBUTES = ['tally.agent_key', 'tally.agent_secret', 'tally.agent_id', 'value.agent.id'] as const;

/** The span value-python's `send`/`action_context` emits for an action; `value.action.name` names it. */
const VALUE_ACTION_SPAN = 'value.action';

/**
 * GenAI operation (`gen_ai.operation.name`, OpenTelemetry semantic conventions) to action
 * type. Operations not listed (e.g. `invoke_agent`, `create_agent`) fall through to the
 * other rules.
 */
const GEN_AI_OPERATIONS: Readonly<Record<string, string>> = {
  chat: 'llm_call',
  text_completion: 'llm_call',
  generate_content: 'llm_call',
  embeddings: 'embedding',
  execute_tool: 'tool_call',
};
/** Older conventions still emitted by instrumentations: OpenLLMetry `llm.request.type`, OpenInference span kinds. */
const LLM_REQUEST_TYPES: Readonly<Record<string, string>> = { chat: 'llm_call', completion: 'llm_call', embedding: 'embedding' };
const OPENINFERENCE_KINDS: Readonly<Record<string, string>> = { LLM: 'llm_call', TOOL: 'tool_call', EMBEDDING: 'embedding' };
/**
 * Vercel AI SDK operations (`ai.operationId`, AI SDK 4 and 5) to action type: only the
 * spans of one provider call or one tool execution. The wrapper spans around them
 * (`ai.generateText`, `ai.streamText`, `ai.embed`, …) carry the sum of their steps, so
 * they are not metered: a call counts once.
 */
const VERCEL_AI_OPERATIONS: Readonly<Record<string, string>> = {
  'ai.generateText.doGenerate': 'llm_call',
  'ai.streamText.doStream': 'llm_call',
  'ai.generateObject.doGenerate': 'llm_call',
  'ai.streamObject.doStream': 'llm_call',
  'ai.embed.doEmbed': 'embedding',
  'ai.embedMany.doEmbed': 'embedding',
  'ai.toolCall': 'tool_call',
};

const str = (v: OtlpAnyValue | undefined): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);
const first = (a: OtlpAttributes, keys: readonly string[]): OtlpAnyValue | undefined => {
  for (const k of keys) if (a[k] !== undefined && a[k] !== null) return a[k];
  return undefined;
};

/** How a span is metered: the action type and which rule chose it, or undefined (ignored). */
function actionTypeOf(span: OtlpSpan, rules: SpanRules): { type: string; rule: string } | undefined {
  const a = span.attributes;
  const explicit = str(a['tally.action_type']);
  if (explicit) return { type: explicit, rule: 'tally.action_type' };
  const valueAction = span.name === VALUE_ACTION_SPAN ? str(a['value.action.name']) : undefined;
  if (valueAction) return { type: valueAction, rule: 'value.action' };
  const op = str(a['gen_ai.operation.name']);
  if (op && GEN_AI_OPERATIONS[op]) return { type: GEN_AI_OPERATIONS[op], rule: 'gen_ai' };
  const legacy = str(a['llm.request.type']);
  if (legacy && LLM_REQUEST_TYPES[legacy]) return { type: LLM_REQUEST_TYPES[legacy], rule: 'gen_ai' };
  const oi = str(a['openinference.span.kind']);
  if (oi && OPENINFERENCE_KINDS[oi]) return { type: OPENINFERENCE_KINDS[oi], rule: 'openinference' };
  const vercel = str(a['ai.operationId']);
  if (vercel && VERCEL_AI_OPERATIONS[vercel]) return { type: VERCEL_AI_OPERATIONS[vercel], rule: 'vercel_ai' };
  if (rules.taggedActions.has(span.name)) return { type: span.name, rule: 'tagged' };
  return undefined;
}

/** Provider names: GenAI (current, then older), OpenInference, the Vercel AI SDK's provider id. */
const PROVIDER_ATTRIBUTES = ['gen_ai.provider.name', 'gen_ai.system', 'llm.provider', 'llm.system', 'ai.model.provider'];

/** Model names of conventions without `gen_ai.*.model`: OpenInference, value-python, the Vercel AI SDK. */
const MODEL_FALLBACKS = ['llm.model_name', 'embedding.model_name', 'value.action.llm.model', 'ai.response.model', 'ai.model.id'];

/** A span metered as an action: the action event, and what was wrong but not fatal. */
export interface MappedSpan {
  action: Record<string, unknown>;
  /** Attributes left out, each named with why (reported in the export's partial_success). */
  warnings: string[];
}

/**
 * Turns a span into an action event of the public API (the `POST /v1/actions` shape), so
 * that the ingest pipeline validates and normalizes it like any other event: the span id
 * is the event id (a re-exported span counts once), the span's end time its timestamp,
 * and the model and token counts go to metadata under the names the normalize step
 * extracts. Prompt and completion contents are never copied. A token count that is not a
 * non-negative integer (a string of digits is read as one) is left out with a warning:
 * the call is still metered. Returns undefined for ignored spans.
 */
export function spanToAction(span: OtlpSpan, resource: OtlpAttributes, rules: SpanRules, agentKey: string | undefined): MappedSpan | undefined {
  const t = actionTypeOf(span, rules);
  if (!t) return undefined;
  const a = span.attributes;
  const meta: Record<string, unknown> = {};
  const warnings: string[] = [];
  // Helpers at module level, not closures here: run through tsx, a named closure costs a
  // property definition per span (esbuild's keepNames).
  const requestModel = str(first(a, ['gen_ai.request.model', 'llm.request.model']));
  const responseModel = str(first(a, ['gen_ai.response.model', 'llm.response.model']));
  // The model that answered decides the cost; the requested one is kept beside it.
  put(meta, 'model', responseModel ?? requestModel ?? str(first(a, MODEL_FALLBACKS)));
  if (requestModel && responseModel && requestModel !== responseModel) put(meta, 'request_model', requestModel);
  // The provider as the GenAI conventions name it; what was sent, when it differs, beside it.
  const providerSent = str(first(a, PROVIDER_ATTRIBUTES));
  const provider = providerSent === undefined ? undefined : wellKnownProvider(providerSent);
  put(meta, 'provider', provider ?? providerSent);
  if (provider !== undefined && provider !== providerSent) put(meta, 'provider_sent', providerSent);
  const { tokens, notes } = spanTokens(a, t.rule, provider, warnings);
  Object.assign(meta, tokens, notes);
  put(meta, 'operation', str(first(a, ['gen_ai.operation.name', 'ai.operationId'])));
  put(meta, 'tool_name', str(first(a, ['gen_ai.tool.name', 'tool.name', 'ai.toolCall.name'])));
  put(meta, 'tool_call_id', str(first(a, ['gen_ai.tool.call.id', 'ai.toolCall.id'])));
  put(meta, 'agent_name', str(a['gen_ai.agent.name']) ?? str(resource['value.agent.name']));
  if (t.rule === 'value.action') putValueAction(a, meta, warnings);
  put(meta, 'span_name', span.name);
  put(meta, 'trace_id', span.traceId);
  put(meta, 'span_id', span.spanId);
  put(meta, 'parent_span_id', span.parentSpanId);
  if (span.endTimeMs > 0 && span.startTimeMs > 0) put(meta, 'duration_ms', Math.max(0, span.endTimeMs - span.startTimeMs));
  if (span.statusCode === 2) put(meta, 'status', 'error');
  put(meta, 'service_name', str(resource['service.name']));
  put(meta, 'source', `otlp:${t.rule}`);

  const action: Record<string, unknown> = { action_type: t.type, id: span.spanId, metadata: meta };
  const ts = span.endTimeMs || span.startTimeMs;
  if (ts > 0) action['timestamp'] = new Date(ts).toISOString();
  const key = str(first(a, AGENT_KEY_ATTRIBUTES)) ?? agentKey;
  if (key !== undefined) action['agent_key'] = key;
  const user = str(first(a, USER_ATTRIBUTES)) ?? str(first(resource, USER_ATTRIBUTES));
  if (user) action['user_id'] = user;
  // value-python's action contexts put the anonymous id on every span they enclose.
  const anonymous = str(a['value.action.anonymous_id']);
  if (anonymous) action['anonymous_id'] = anonymous;
  return { action, warnings };
}

/** Sets `meta[k]` to a value that is there (not undefined, null or empty text). */
function put(meta: Record<string, unknown>, k: string, v: unknown): void {
  if (v !== undefined && v !== null && v !== '') meta[k] = v;
}

const USER_ATTRIBUTES = ['user.id', 'enduser.id', 'tally.user_id', 'value.action.user_id'];

/**
 * The attributes of a value-python action span: its description, type, status and error,
 * and `value.action.user_attributes` (the caller's keyword arguments, a JSON object text)
 * as the metadata object `attributes`.
 */
function putValueAction(a: OtlpAttributes, meta: Record<string, unknown>, warnings: string[]): void {
  put(meta, 'description', str(a['value.action.description']));
  put(meta, 'action_kind', str(a['value.action.type']));
  put(meta, 'action_status', str(a['value.action.status']));
  put(meta, 'error', str(a['value.action.error']));
  const text = str(a['value.action.user_attributes']);
  if (text === undefined) return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
    if (Object.keys(parsed).length > 0) put(meta, 'attributes', parsed);
  } else {
    warnings.push('`value.action.user_attributes` is not a JSON object text; left out');
  }
}

/** The agent key a resource names, if any. */
export function resourceAgentKey(resource: OtlpAttributes): string | undefined {
  return str(first(resource, AGENT_KEY_ATTRIBUTES));
}
