import type { TypeCheck } from '@sinclair/typebox/compiler';
import type { ErrorCode } from '../../../shared/errors.ts';
import {
  MAX_EVENT_AGE_MS,
  MAX_EVENT_FUTURE_MS,
  MAX_METADATA_BYTES,
  MAX_METADATA_DEPTH,
} from '../../../shared/events/limits.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { parseTimestamp } from '../../../shared/time.ts';
import { fieldProblems, type FieldProblem } from '../../../shared/validation/typebox-errors.ts';
import { costInputsProblem } from './cost-inputs.ts';
import { TOKEN_CLASSES } from '../../../shared/events/token-classes.ts';
import { exactMetadataJson, exactNumbersOf, plainDecimal, withExactTexts } from './exact-values.ts';
import { actionChecker, outcomeChecker, type ActionEvent, type OutcomeEvent } from '../../../shared/events/schemas.ts';

export type EventKind = 'action' | 'outcome';

/** The result of a step: the value, or why the event is rejected. */
export type StepResult<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string; path?: string };

/**
 * An event that passed validation, before its agent is resolved: the fields of its wire
 * form ({@link WireEvent}) that come from the event itself, with its kind, its
 * `agent_key` and its id when it has one (to-wire.ts adds the agent's and the server's).
 */
export interface NormalizedEvent extends Pick<WireEvent, 'type' | 'ts' | 'uid' | 'anon' | 'meta' | 'model' | 'tin' | 'tout' | 'ttot' | 'val'> {
  kind: EventKind;
  agentKey: string | undefined;
  id: string | undefined;
}

/** A rejection; `path` names the field at fault (a single event's answer lists it in `details`). */
const reject = (code: ErrorCode, message: string, path?: string): StepResult<never> => ({ ok: false, code, message, ...(path ? { path } : {}) });

/** The step validate (pipeline/run.ts STEPS): the event's shape (types, required fields, lengths, no unknown fields). */
export function validateStep(kind: EventKind, value: unknown): StepResult<ActionEvent | OutcomeEvent> {
  const checker: TypeCheck<typeof import('../../../shared/events/schemas.ts').ActionEvent> | TypeCheck<typeof import('../../../shared/events/schemas.ts').OutcomeEvent> =
    kind === 'action' ? actionChecker : outcomeChecker;
  if (checker.Check(value)) return { ok: true, value: value as ActionEvent | OutcomeEvent };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return reject('validation_failed', `each ${kind} must be a JSON object`);
  const [first] = fieldProblems(checker.Errors(value));
  return first ? reject('validation_failed', describe(first), first.path) : reject('validation_failed', `invalid ${kind}`);
}

/** The ingest tier's wording of a shape problem: "unknown field `colour`", "`action_type` is required", "`value`: expected union value". */
function describe({ path, kind, message }: FieldProblem): string {
  const field = path || '(event)';
  if (kind === 'unknown') return `unknown field \`${field}\``;
  if (kind === 'required') return `\`${field}\` ${message}`;
  return `\`${field}\`: ${message.toLowerCase()}`;
}

/**
 * The step normalize (pipeline/run.ts STEPS): id, timestamp bounds, metadata limits, token counts and attribution, into
 * the normalized event.
 */
export function normalizeStep(
  kind: EventKind,
  e: ActionEvent | OutcomeEvent,
  now: number,
  headerId: string | undefined,
): StepResult<NormalizedEvent> {
  const id = e.id ?? e.event_id ?? e.idempotency_key ?? headerId;
  if (id !== undefined && (differs(e.id, id) || differs(e.event_id, id) || differs(e.idempotency_key, id) || differs(headerId, id))) {
    return reject('validation_failed', 'id, event_id, idempotency_key and the Idempotency-Key header disagree');
  }

  let ts = now;
  if (e.timestamp !== undefined) {
    const t = parseTimestamp(e.timestamp);
    if (t === undefined) return reject('validation_failed', '`timestamp` must be an ISO 8601 date-time, e.g. 2026-11-21T10:00:00Z', 'timestamp');
    if (t < now - MAX_EVENT_AGE_MS) return reject('timestamp_out_of_range', '`timestamp` is more than 35 days in the past', 'timestamp');
    if (t > now + MAX_EVENT_FUTURE_MS) return reject('timestamp_out_of_range', '`timestamp` is more than 5 minutes in the future', 'timestamp');
    ts = t;
  }

  let meta = '{}';
  const m = e.metadata as Record<string, unknown> | undefined;
  if (m !== undefined) {
    // Fewer brackets in the JSON text than the depth limit means it cannot be too deep:
    // the walk is only needed for metadata with many objects or arrays. Metadata too deep
    // to serialize (thousands of levels) is refused by the same rule.
    const text = metadataText(m);
    if (text === undefined || (text.length > 2 * MAX_METADATA_DEPTH && bracketCount(text) > MAX_METADATA_DEPTH && tooDeep(m))) {
      return reject('validation_failed', `\`metadata\` is nested more than ${MAX_METADATA_DEPTH} levels deep`, 'metadata');
    }
    meta = text;
    if (meta.length > MAX_METADATA_BYTES / 4 && Buffer.byteLength(meta) > MAX_METADATA_BYTES) {
      return reject('validation_failed', `\`metadata\` exceeds ${MAX_METADATA_BYTES} bytes as JSON`, 'metadata');
    }
  }

  const uid = e.user_id ?? stringField(m, 'user_id');
  const anon = e.anonymous_id ?? stringField(m, 'anonymous_id');
  const out: NormalizedEvent = {
    kind,
    agentKey: e.agent_key,
    id,
    type: kind === 'action' ? (e as ActionEvent).action_type : (e as OutcomeEvent).outcome_type,
    ts,
    uid: uid ?? '',
    anon: anon ?? '',
    meta,
    model: '',
    tin: 0,
    tout: 0,
    ttot: 0,
    val: '',
  };
  if (kind === 'outcome') {
    const v = (e as OutcomeEvent).value;
    const val = typeof v === 'number' ? decimalString(v) : v;
    if (!OUTCOME_VALUE.test(val) || exceedsMaxValue(val)) {
      return reject('validation_failed', '`value` must be a decimal from 0 to 10^18 with at most 9 decimal places (a number, or a string such as "123456789.123456789")', 'value');
    }
    out.val = canonicalValue(val);
    return { ok: true, value: out };
  }
  if (m !== undefined) {
    // Checked on the client's digits: a number a double changed is checked as its exact text.
    const exact = exactNumbersOf(m);
    const costProblem = costInputsProblem(exact ? (withExactTexts(m, exact) as Record<string, unknown>) : m);
    if (costProblem !== undefined) return reject('validation_failed', costProblem.message, costProblem.path);
    const usage = isObject(m['usage']) ? (m['usage'] as Record<string, unknown>) : undefined;
    const tin = tokenField(m, usage, 'input_tokens', 'prompt_tokens');
    const tout = tokenField(m, usage, 'output_tokens', 'completion_tokens');
    const ttot = tokenField(m, usage, 'total_tokens', undefined);
    if (tin === null) return badTokens('input_tokens');
    if (tout === null) return badTokens('output_tokens');
    if (ttot === null) return badTokens('total_tokens');
    out.tin = tin ?? 0;
    out.tout = tout ?? 0;
    out.ttot = ttot ?? out.tin + out.tout;
    const classProblem = tokenClassProblem(m, usage, out);
    if (classProblem !== undefined) return reject('validation_failed', classProblem.message, classProblem.path);
    out.model = stringField(m, 'model') ?? stringField(m, 'model_name') ?? '';
  }
  return { ok: true, value: out };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Opening brackets in a JSON text (strings included: an upper bound of its depth). Native scans, one step a bracket. */
function bracketCount(json: string): number {
  let n = 0;
  for (let i = json.indexOf('{'); i !== -1; i = json.indexOf('{', i + 1)) n++;
  for (let i = json.indexOf('['); i !== -1; i = json.indexOf('[', i + 1)) n++;
  return n;
}

/** Deeper than {@link MAX_METADATA_DEPTH}: a walk without recursion, so no depth can overflow the stack. */
function tooDeep(root: unknown): boolean {
  const stack: [unknown, number][] = [[root, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_METADATA_DEPTH) return true;
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, depth + 1]);
  }
  return false;
}

/**
 * Metadata as JSON text; undefined when it is nested too deep to serialize (the
 * serializer's stack ran out). A msgpack integer beyond 2^53 (a BigInt) is kept as its
 * decimal text; a JSON number a double changed keeps the client's digits (exact-values.ts).
 */
function metadataText(m: Record<string, unknown>): string | undefined {
  try {
    const exact = exactNumbersOf(m);
    return exact ? exactMetadataJson(m, exact) : JSON.stringify(m);
  } catch (err) {
    if (err instanceof RangeError || tooDeep(m)) return undefined;
    return JSON.stringify(m, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
  }
}

function stringField(m: Record<string, unknown> | undefined, key: string): string | undefined {
  const v = m?.[key];
  return typeof v === 'string' && v.length > 0 && v.length <= 256 ? v : undefined;
}

/** undefined: absent; null: present but not a non-negative integer. The first name found wins. */
function tokenField(m: Record<string, unknown>, usage: Record<string, unknown> | undefined, name: string, alias: string | undefined): number | undefined | null {
  let v = m[name] ?? usage?.[name];
  if (v === undefined && alias !== undefined) v = m[alias] ?? usage?.[alias];
  if (v === undefined) return undefined;
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : null;
}

/**
 * The first problem of the token classes (shared/events/token-classes.ts): each a
 * non-negative integer, and no more than the count it is part of when that count is sent
 * (cache reads and writes together at most `input_tokens`, reasoning at most
 * `output_tokens`). Anthropic's `input_tokens` leaves the cached tokens out: send their
 * sum as `input_tokens`, as the OpenTelemetry GenAI conventions and OpenAI count it.
 */
function tokenClassProblem(m: Record<string, unknown>, usage: Record<string, unknown> | undefined, n: NormalizedEvent): { path: string; message: string } | undefined {
  let cached = 0;
  let cachedPath = '';
  for (const c of TOKEN_CLASSES) {
    const v = tokenField(m, usage, c.field, undefined);
    if (v === null) return { path: `metadata.${c.field}`, message: `\`metadata.${c.field}\` must be a non-negative integer` };
    if (v === undefined) continue;
    if (c.base === 'input_tokens') {
      cached += v;
      cachedPath ||= `metadata.${c.field}`;
    } else if (v > n.tout && tokenField(m, usage, 'output_tokens', 'completion_tokens') !== undefined) {
      return { path: `metadata.${c.field}`, message: `\`metadata.${c.field}\` (${v}) is part of \`output_tokens\` (${n.tout}) and cannot exceed it` };
    }
  }
  if (cached > n.tin && tokenField(m, usage, 'input_tokens', 'prompt_tokens') !== undefined) {
    return {
      path: cachedPath,
      message: `cached tokens (${cached}) are part of \`input_tokens\` (${n.tin}) and cannot exceed it; Anthropic counts them apart: send input_tokens + cache_read_input_tokens + cache_creation_input_tokens as \`input_tokens\``,
    };
  }
  return undefined;
}

const badTokens = (name: string) => reject('validation_failed', `\`metadata.${name}\` must be a non-negative integer`, `metadata.${name}`);

/** A given id that is not the event's id. */
const differs = (given: string | undefined, id: string): boolean => given !== undefined && given !== id;

/** The shortest decimal text of a JSON number, without exponent (1e-7 -> "0.0000001"). */
export function decimalString(n: number): string {
  return plainDecimal(String(n));
}

/** An outcome value's text: digits, at most 9 decimals (a JSON number -0 reads as "-0"). */
const OUTCOME_VALUE = /^-?\d{1,40}(?:\.\d{1,9})?$/;
const MAX_VALUE = '1000000000000000000';

/** Above 10^18 (or below 0, other than -0). */
function exceedsMaxValue(val: string): boolean {
  if (val.startsWith('-')) return /[1-9]/.test(val);
  const [whole, fraction = ''] = val.split('.') as [string, string | undefined];
  const w = whole.replace(/^0+(?=\d)/, '');
  if (w.length !== MAX_VALUE.length) return w.length > MAX_VALUE.length;
  return w > MAX_VALUE || (w === MAX_VALUE && /[1-9]/.test(fraction));
}

/** Without a sign, leading zeros or trailing fraction zeros ("007.50" -> "7.5", "-0" -> "0"). */
function canonicalValue(val: string): string {
  let t = val.replace(/^-/, '').replace(/^0+(?=\d)/, '');
  if (t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '');
  return t;
}
