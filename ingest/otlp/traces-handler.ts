import { gunzipSync } from 'node:zlib';
import { AppError, errorBody } from '../../shared/errors.ts';
import { logger } from '../../shared/log.ts';
import { MAX_EVENT_BODY_BYTES, MAX_EVENTS_PER_REQUEST } from '../../shared/events/limits.ts';
import type { HttpRequest, HttpResponse, Route } from '../../shared/http/types.ts';
import { ingestEvents, type IngestDeps } from '../events-handler.ts';
import { decodeTraceRequestJson, OtlpJsonError } from './json.ts';
import { resourceAgentKey, spanToAction, type SpanRules } from './mapping.ts';
import type { OtlpTraceRequest } from './model.ts';
import { decodeTraceRequest, encodeStatus, encodeTraceResponse, ProtobufError } from './proto.ts';

/** Where the span rules of an environment come from (tagged actions), owned by this route. */
export interface SpanRuleSource {
  rules(environmentId: string): Promise<SpanRules>;
}

export interface OtlpDeps extends IngestDeps {
  spanRules: SpanRuleSource;
}

const log = logger('otlp');

/** Largest decompressed body of a gzip request. */
const MAX_INFLATED_BYTES = 4 * MAX_EVENT_BODY_BYTES;

type Encoding = 'json' | 'protobuf';

/** POST /v1/traces: OTLP/HTTP trace export, spans metered as actions. */
export function otlpRoutes(deps: OtlpDeps): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/traces',
      maxBodyBytes: MAX_EVENT_BODY_BYTES,
      summary: 'OTLP/HTTP trace export (JSON or protobuf): GenAI spans and tagged spans become actions',
      handler: (req) => handleTraces(deps, req),
    },
  ];
}

/**
 * Authenticate (like the event endpoints), decode, map each span to an action event (or
 * ignore it), then hand the actions to the event pipeline (`ingestEvents`: validate,
 * normalize, resolve the agent, publish, wait for JetStream) and answer per OTLP:
 * 200 with `partial_success` counting rejected spans; failures as google.rpc.Status in
 * the request's encoding, 503 with Retry-After when the events could not be stored.
 */
export async function handleTraces(deps: OtlpDeps, req: HttpRequest): Promise<HttpResponse> {
  const encoding = encodingOf(req.headers['content-type']);
  try {
    if (!encoding) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json or application/x-protobuf (OTLP/HTTP)');
    }
    const principal = await deps.auth.require(req.headers, 'send_events');
    const request = decode(encoding, inflate(req));
    // With an API key the agent comes from a resource attribute or the X-Agent-Secret header;
    // authenticated by X-Agent-Secret alone, events belong to that instance.
    const headerAgent = req.headers['authorization'] || req.headers['api-key'] ? req.headers['x-agent-secret'] : undefined;
    const rules = await deps.spanRules.rules(principal.environmentId);

    const actions: Record<string, unknown>[] = [];
    let spans = 0;
    for (const rs of request.resourceSpans) {
      const agentKey = resourceAgentKey(rs.resource) ?? headerAgent;
      for (const span of rs.spans) {
        spans++;
        const action = spanToAction(span, rs.resource, rules, agentKey);
        if (action) actions.push(action);
      }
    }

    let rejected = 0;
    const reasons = new Map<string, { count: number; example: string }>();
    for (let i = 0; i < actions.length; i += MAX_EVENTS_PER_REQUEST) {
      const chunk = actions.slice(i, i + MAX_EVENTS_PER_REQUEST);
      const { results } = await ingestEvents(deps, 'action', asEventsRequest(req, chunk));
      results.forEach((r, j) => {
        if (r.status !== 'rejected') return;
        rejected++;
        const code = r.error.code;
        const seen = reasons.get(code);
        if (seen) seen.count++;
        else reasons.set(code, { count: 1, example: `span ${String(chunk[j]!['id'])}: ${r.error.message}` });
      });
    }
    const message = rejected === 0 ? '' : `${rejected} of ${spans} spans rejected: ` + [...reasons].map(([code, r]) => `${r.count} ${code} (e.g. ${r.example})`).join('; ');
    return success(encoding, rejected, message);
  } catch (err) {
    // Bugs go to the server's handler (logged, answered 500 without internals).
    if (!(err instanceof AppError)) throw err;
    if (err.status >= 500) log.warn('trace export failed', { requestId: req.requestId, err: err.cause ?? err });
    return failure(encoding ?? 'json', err, req.requestId);
  }
}

function encodingOf(contentType: string | undefined): Encoding | undefined {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (t === 'application/json') return 'json';
  if (t === 'application/x-protobuf' || t === 'application/protobuf') return 'protobuf';
  return undefined;
}

function inflate(req: HttpRequest): Buffer {
  const ce = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (ce === 'identity' || ce === '') return req.body;
  if (ce !== 'gzip') throw new AppError('unsupported_media_type', `Content-Encoding ${ce} is not supported; use gzip or none`);
  try {
    return gunzipSync(req.body, { maxOutputLength: MAX_INFLATED_BYTES });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new AppError('payload_too_large', `decompressed body exceeds ${MAX_INFLATED_BYTES} bytes`);
    throw new AppError('invalid_body', 'body is not valid gzip');
  }
}

function decode(encoding: Encoding, body: Buffer): OtlpTraceRequest {
  try {
    if (encoding === 'protobuf') return decodeTraceRequest(body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch (err) {
      throw new AppError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
    }
    return decodeTraceRequestJson(parsed);
  } catch (err) {
    if (err instanceof ProtobufError) throw new AppError('invalid_body', `body is not an OTLP ExportTraceServiceRequest: ${err.message}`);
    if (err instanceof OtlpJsonError) throw new AppError('invalid_body', `body is not an OTLP ExportTraceServiceRequest: ${err.message}`);
    throw err;
  }
}

/** The actions as a JSON batch request to the event pipeline, with the caller's credentials. */
function asEventsRequest(req: HttpRequest, actions: Record<string, unknown>[]): HttpRequest {
  const headers: Record<string, string> = { ...req.headers, 'content-type': 'application/json' };
  delete headers['idempotency-key'];
  delete headers['content-encoding'];
  return { ...req, path: '/v1/actions', headers, body: Buffer.from(JSON.stringify(actions)), query: req.query, params: {} };
}

function success(encoding: Encoding, rejected: number, message: string): HttpResponse {
  if (encoding === 'protobuf') return { status: 200, raw: encodeTraceResponse(rejected, message), contentType: 'application/x-protobuf' };
  return { status: 200, body: rejected === 0 ? {} : { partialSuccess: { rejectedSpans: rejected, errorMessage: message } } };
}

/** gRPC status codes of google.rpc.Status, by HTTP status. */
function grpcCode(status: number): number {
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  if (status >= 500) return 13; // INTERNAL
  return 3; // INVALID_ARGUMENT
}

function failure(encoding: Encoding, err: AppError, requestId: string): HttpResponse {
  const headers: Record<string, string> = {};
  if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(1, Math.ceil(err.retryAfterSeconds)));
  const message = err.message;
  if (encoding === 'protobuf') return { status: err.status, raw: encodeStatus(grpcCode(err.status), message), contentType: 'application/x-protobuf', headers };
  // JSON: the google.rpc.Status fields beside Tally's usual error object.
  return { status: err.status, body: { code: grpcCode(err.status), message, ...errorBody(err, requestId) }, headers };
}
