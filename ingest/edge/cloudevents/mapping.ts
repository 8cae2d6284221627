/**
 * CloudEvents (OpenMeter's ingest format) as Tally events. One rule per attribute:
 *
 * | CloudEvent                         | Tally                                                        |
 * |------------------------------------|--------------------------------------------------------------|
 * | `specversion`                      | must be "1.0"                                                |
 * | `id` (required)                    | `id`: deduplicated per agent instance, as OpenMeter per id   |
 * | `source` (required)                | `metadata._source`                                           |
 * | `type` (required)                  | `action_type`; `outcome.<name>` is an outcome `<name>`       |
 * | `subject`                          | `agent_key` (the agent instance's id or secret)              |
 * | `time`                             | `timestamp` (absent or null: now)                            |
 * | `data` (a JSON object)             | `metadata` (model, token counts, cost, user_id... read as usual) |
 * | `data.value` (outcomes, required)  | `value`, exact (not kept in metadata)                        |
 * | `datacontenttype`                  | absent, null or application/json                             |
 * | `dataschema`, extension attributes | `metadata._<name>`                                           |
 *
 * A key `data` already has is never replaced by an attribute (`_source`, `_<name>`).
 */
import { findUnsafeText } from '../../../shared/http/safe-text.ts';
import type { RawItem } from '../pipeline/decode.ts';
import { plainDecimal } from '../pipeline/exact-values.ts';
import type { EventKind } from '../pipeline/normalize.ts';

/** A CloudEvent `type` with this prefix is an outcome; the rest of the type is its outcome type. */
const OUTCOME_TYPE_PREFIX = 'outcome.';

/** A CloudEvent as a Tally event of one kind, ready for the pipeline (`runPipeline`), or why it is refused. */
export interface MappedCloudEvent {
  kind: EventKind;
  item: RawItem;
  /** The CloudEvent's id, when it has one (named in the answer for rejected events too). */
  id: string | undefined;
}

/** Attributes read by the mapping; any other attribute is an extension. */
const MAPPED = new Set(['specversion', 'id', 'source', 'type', 'subject', 'time', 'datacontenttype', 'data']);
/** Extension attribute names (CloudEvents 1.0: lower-case ASCII letters and digits). */
const EXTENSION_NAME = /^[a-z0-9]+$/;

/**
 * One CloudEvent as a Tally action or outcome (the table above). `valueText` is the JSON
 * number text of its `data.value` (decode.ts), used when it is the parsed number's text;
 * `checkText` walks the event for text no store accepts (NUL, lone surrogates).
 */
export function cloudEventToTally(ce: unknown, opts: { valueText?: string | undefined; checkText?: boolean } = {}): MappedCloudEvent {
  if (ce === null || typeof ce !== 'object' || Array.isArray(ce)) return refused('action', undefined, 'each CloudEvent must be a JSON object');
  const e = ce as Record<string, unknown>;
  const id = typeof e['id'] === 'string' && e['id'] !== '' ? e['id'] : undefined;
  const type = typeof e['type'] === 'string' ? e['type'] : undefined;
  const kind: EventKind = type?.startsWith(OUTCOME_TYPE_PREFIX) ? 'outcome' : 'action';
  const problem = attributeProblem(e, opts.checkText ?? true);
  if (problem) return refused(kind, id, problem);

  const data = isObject(e['data']) ? e['data'] : {};
  const event: Record<string, unknown> = { id };
  if (kind === 'outcome') {
    event['outcome_type'] = type!.slice(OUTCOME_TYPE_PREFIX.length);
    event['value'] = exactValue(data['value'], opts.valueText);
  } else event['action_type'] = type;
  if (present(e['subject'])) event['agent_key'] = e['subject'];
  if (present(e['time'])) event['timestamp'] = e['time'];
  event['metadata'] = metadataOf(e, data, kind);
  return { kind, item: { ok: true, value: event }, id };
}

/** The first reason the event is not a CloudEvent Tally reads, named by attribute. */
function attributeProblem(e: Record<string, unknown>, checkText: boolean): string | undefined {
  if (e['specversion'] === undefined) return '`specversion` is required: "1.0"';
  if (e['specversion'] !== '1.0') return `\`specversion\` must be "1.0" (CloudEvents 1.0), not ${JSON.stringify(e['specversion'])}`;
  for (const name of ['id', 'source', 'type'] as const) {
    if (e[name] === undefined || e[name] === null) return `\`${name}\` is required`;
    if (typeof e[name] !== 'string' || e[name] === '') return `\`${name}\` must be a non-empty string`;
  }
  const type = e['type'] as string;
  if (type.startsWith(OUTCOME_TYPE_PREFIX)) {
    if (type.length === OUTCOME_TYPE_PREFIX.length) return `\`type\` ${JSON.stringify(type)} names no outcome type; use ${OUTCOME_TYPE_PREFIX}<outcome_type>`;
    if (!isObject(e['data']) || e['data']['value'] === undefined || e['data']['value'] === null) {
      return '`data.value` is required for an outcome (`type` outcome.*): a number or a decimal string';
    }
  }
  if (e['data_base64'] !== undefined) return '`data_base64` is not supported: send `data` as a JSON object';
  if (present(e['data']) && !isObject(e['data'])) return '`data` must be a JSON object';
  const dct = e['datacontenttype'];
  if (present(dct) && (typeof dct !== 'string' || dct.split(';')[0]!.trim().toLowerCase() !== 'application/json')) {
    return '`datacontenttype` must be application/json (or absent): `data` is read as a JSON object';
  }
  for (const name of Object.keys(e)) {
    if (!MAPPED.has(name) && !EXTENSION_NAME.test(name)) {
      return `unknown attribute \`${name}\`: extension attribute names are lower-case letters and digits (CloudEvents 1.0); put event fields in \`data\``;
    }
  }
  if (checkText) {
    const unsafe = findUnsafeText(e);
    if (unsafe) return unsafe.message;
  }
  return undefined;
}

/** `data` (less an outcome's `value`), then the unmapped attributes as `_<name>`, where data has no such key. */
function metadataOf(e: Record<string, unknown>, data: Record<string, unknown>, kind: EventKind): Record<string, unknown> {
  const meta: Record<string, unknown> = { ...data };
  if (kind === 'outcome') delete meta['value'];
  for (const name of Object.keys(e)) {
    if (name === 'source' || (!MAPPED.has(name) && present(e[name]))) {
      const key = '_' + name;
      if (!(key in data)) meta[key] = e[name];
    }
  }
  return meta;
}

/** A number `data.value` as the exact decimal its JSON text wrote (when the text is that number's). */
function exactValue(v: unknown, text: string | undefined): unknown {
  if (typeof v !== 'number' || text === undefined || Number(text) !== v) return v;
  return plainDecimal(text);
}

/** Pipeline messages name Tally's fields: the CloudEvents attributes they come from, for CloudEvents clients. */
const ATTRIBUTE_OF: Readonly<Record<string, string>> = {
  agent_key: 'subject',
  action_type: 'type',
  outcome_type: 'type',
  timestamp: 'time',
  value: 'data.value',
  metadata: 'data',
};

/** A message of the event pipeline (`runPipeline`) with Tally's field names given as CloudEvents attributes. */
export function cloudEventMessage(message: string): string {
  return message
    .replace(/`([A-Za-z0-9_.[\]]+)`/g, (_, field: string) => '`' + attributeOf(field) + '`')
    .replace(/\bwith this agent_key\b/, 'with this `subject` (agent instance id or secret)');
}

function attributeOf(field: string): string {
  if (field.startsWith('metadata.')) return 'data.' + field.slice('metadata.'.length);
  return ATTRIBUTE_OF[field] ?? field;
}

const refused = (kind: EventKind, id: string | undefined, message: string): MappedCloudEvent => ({
  kind,
  id,
  item: { ok: false, code: 'validation_failed', message },
});

/** CloudEvents: an optional attribute may be null, meaning absent. */
const present = (v: unknown): boolean => v !== undefined && v !== null;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
