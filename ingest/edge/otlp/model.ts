/**
 * The part of an OTLP ExportTraceServiceRequest that Tally reads, decoded from either
 * OTLP/HTTP encoding (JSON or protobuf) into one shape. Attribute values become plain
 * JSON values: int64 as a number when exact (else its decimal text), bytes as base64.
 */
export type OtlpAnyValue = string | number | boolean | null | OtlpAnyValue[] | { [key: string]: OtlpAnyValue };
export type OtlpAttributes = Record<string, OtlpAnyValue>;

export interface OtlpSpan {
  /** Lower-case hex. */
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeMs: number;
  endTimeMs: number;
  attributes: OtlpAttributes;
  /** Status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
  /** Instrumentation scope name. */
  scope: string;
}

/** One resource's spans, scopes flattened. */
export interface OtlpResourceSpans {
  resource: OtlpAttributes;
  spans: OtlpSpan[];
}

export interface OtlpTraceRequest {
  resourceSpans: OtlpResourceSpans[];
}
