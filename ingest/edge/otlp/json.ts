import type { OtlpAnyValue, OtlpAttributes, OtlpResourceSpans, OtlpSpan, OtlpTraceRequest } from './model.ts';

/** The OTLP/JSON body is not an ExportTraceServiceRequest. */
export class OtlpJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OtlpJsonError';
  }
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
/** OTLP/JSON field names are lowerCamelCase; the proto names (snake_case) are accepted too. */
const field = (o: Obj, camel: string, snake: string): unknown => o[camel] ?? o[snake];
const list = (v: unknown, what: string): unknown[] => {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw new OtlpJsonError(`${what} must be an array`);
  return v;
};

/**
 * Decodes an OTLP/JSON ExportTraceServiceRequest (trace and span ids as hex, times as
 * decimal strings or numbers of nanoseconds, enums as integers).
 */
export function decodeTraceRequestJson(body: unknown): OtlpTraceRequest {
  if (!isObj(body)) throw new OtlpJsonError('body must be a JSON object (ExportTraceServiceRequest)');
  const resourceSpans: OtlpResourceSpans[] = [];
  for (const rs of list(field(body, 'resourceSpans', 'resource_spans'), 'resourceSpans')) {
    if (!isObj(rs)) throw new OtlpJsonError('each resourceSpans item must be an object');
    const resource = isObj(rs['resource']) ? attributes(rs['resource']['attributes']) : {};
    const spans: OtlpSpan[] = [];
    for (const ss of list(field(rs, 'scopeSpans', 'scope_spans'), 'scopeSpans')) {
      if (!isObj(ss)) throw new OtlpJsonError('each scopeSpans item must be an object');
      const scope = isObj(ss['scope']) && typeof ss['scope']['name'] === 'string' ? ss['scope']['name'] : '';
      for (const s of list(ss['spans'], 'spans')) spans.push(span(s, scope));
    }
    resourceSpans.push({ resource, spans });
  }
  return { resourceSpans };
}

function span(s: unknown, scope: string): OtlpSpan {
  if (!isObj(s)) throw new OtlpJsonError('each span must be an object');
  const status = isObj(s['status']) ? s['status'] : {};
  return {
    traceId: hexId(field(s, 'traceId', 'trace_id')),
    spanId: hexId(field(s, 'spanId', 'span_id')),
    parentSpanId: hexId(field(s, 'parentSpanId', 'parent_span_id')),
    name: typeof s['name'] === 'string' ? s['name'] : '',
    kind: typeof s['kind'] === 'number' ? s['kind'] : 0,
    startTimeMs: nanosToMs(field(s, 'startTimeUnixNano', 'start_time_unix_nano')),
    endTimeMs: nanosToMs(field(s, 'endTimeUnixNano', 'end_time_unix_nano')),
    attributes: attributes(s['attributes']),
    statusCode: typeof status['code'] === 'number' ? status['code'] : 0,
    scope,
  };
}

function hexId(v: unknown): string {
  return typeof v === 'string' ? v.toLowerCase() : '';
}

function nanosToMs(v: unknown): number {
  if (typeof v === 'number') return Math.floor(v / 1e6);
  if (typeof v === 'string' && /^\d{1,20}$/.test(v)) return Number(BigInt(v) / 1_000_000n);
  return 0;
}

function attributes(v: unknown): OtlpAttributes {
  const out: OtlpAttributes = {};
  for (const kv of list(v, 'attributes')) {
    if (isObj(kv) && typeof kv['key'] === 'string') out[kv['key']] = anyValue(kv['value']);
  }
  return out;
}

function anyValue(v: unknown): OtlpAnyValue {
  if (!isObj(v)) return null;
  if ('stringValue' in v || 'string_value' in v) return String(field(v, 'stringValue', 'string_value'));
  if ('boolValue' in v || 'bool_value' in v) return field(v, 'boolValue', 'bool_value') === true;
  if ('intValue' in v || 'int_value' in v) {
    const n = field(v, 'intValue', 'int_value');
    if (typeof n === 'number') return n;
    if (typeof n === 'string' && /^-?\d{1,20}$/.test(n)) {
      const b = BigInt(n);
      return b >= BigInt(Number.MIN_SAFE_INTEGER) && b <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(b) : n;
    }
    return null;
  }
  if ('doubleValue' in v || 'double_value' in v) {
    const n = Number(field(v, 'doubleValue', 'double_value'));
    return Number.isFinite(n) ? n : null;
  }
  if ('arrayValue' in v || 'array_value' in v) {
    const a = field(v, 'arrayValue', 'array_value');
    return isObj(a) ? list(a['values'], 'arrayValue.values').map(anyValue) : [];
  }
  if ('kvlistValue' in v || 'kvlist_value' in v) {
    const a = field(v, 'kvlistValue', 'kvlist_value');
    return isObj(a) ? attributes(a['values']) : {};
  }
  if ('bytesValue' in v || 'bytes_value' in v) return String(field(v, 'bytesValue', 'bytes_value'));
  return null;
}
