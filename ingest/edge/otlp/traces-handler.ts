import { AppError, errorBody, retryHeaders } from '../../../shared/errors.ts';
import { logger } from '../../../shared/log.ts';
import { MAX_EVENTS_PER_REQUEST } from '../../../shared/events/limits.ts';
import { agentPrincipal } from '../../../shared/auth/authenticator.ts';
import type { Principal } from '../../../shared/auth/keys.ts';
import { BodyBudgetExhausted } from '../../../shared/http/body-budget.ts';
import { inflatedBody, parsedBodyCost, parseMemory } from '../../../shared/http/encoding.ts';
import { findUnsafeText } from '../../../shared/http/safe-text.ts';
import type { RawItem } from '../pipeline/decode.ts';
import type { StepResult } from '../pipeline/normalize.ts';
import { runPipeline, type IngestDeps } from '../pipeline/run.ts';
import { credentialsOf } from '../../../shared/http/request.ts';
import type { HttpRequest, HttpResponse, Route } from '../../../shared/http/types.ts';
import { decodeTraceRequestJson, OtlpJsonError } from './json.ts';
import { AGENT_KEY_ATTRIBUTES, resourceAgentKey, spanToAction, type SpanRules } from './mapping.ts';
import type { OtlpAttributes, OtlpTraceRequest } from './model.ts';
import { decodeTraceRequest, encodeStatus, encodeTraceResponse, ProtobufError, retryInfoJson, type DecodeMeter } from './proto.ts';

/** Where the span rules of an environment come from (tagged actions), owned by this route. */
export interface SpanRuleSource {
  rules(environmentId: string): Promise<SpanRules>;
}

export interface OtlpDeps extends IngestDeps {
  spanRules: SpanRuleSource;
  /** TALLY_OTLP_TRUST_RESOURCE_AGENT: exports without credentials are authenticated by their resource's agent id. */
  trustResourceAgent: boolean;
}

const log = logger('otlp');

/**
 * Largest OTLP/HTTP trace body, and largest after gzip. Instrumentations that capture
 * message contents send ~25 KB a span, so a default 512-span batch is ~13 MB: the bound
 * is set for such batches (contents are read and dropped, never stored).
 */
export const MAX_TRACE_BODY_BYTES = 64 * 1024 * 1024;
const MAX_INFLATED_BYTES = 2 * MAX_TRACE_BODY_BYTES;

type Encoding = 'json' | 'protobuf';

/** POST /v1/traces: OTLP/HTTP trace export, spans metered as actions. */
export function otlpRoutes(deps: OtlpDeps): Route[] {
  return [
    {
      method: 'POST',
      path: '/v1/traces',
      maxBodyBytes: MAX_TRACE_BODY_BYTES,
      bodyCost: parsedBodyCost,
      authenticate: (headers) => exportPrincipal(deps, headers),
      summary: 'OTLP/HTTP trace export (JSON or protobuf): GenAI spans and tagged spans become actions',
      handler: (req) => handleTraces(deps, req),
    },
  ];
}

/**
 * OTLP/HTTP: decode by Content-Type (and gzip), export ({@link exportTraces}), and answer
 * per OTLP: 200 with `partial_success` counting rejected spans; failures as
 * google.rpc.Status in the request's encoding, 503 with Retry-After when the events could
 * not be stored.
 */
async function handleTraces(deps: OtlpDeps, req: HttpRequest): Promise<HttpResponse> {
  const encoding = encodingOf(req.headers['content-type']);
  try {
    if (!encoding) {
      throw new AppError('unsupported_media_type', 'Content-Type must be application/json or application/x-protobuf (OTLP/HTTP)');
    }
    // Credentials first (checked once, as the body arrived): nothing is inflated for a client
    // without them (a 401, counted toward the failed-authentication limit), and inflating
    // runs off the event loop.
    const shared = await credentialsOf(req, (headers) => exportPrincipal(deps, headers));
    // The body, what it inflates to and what parsing it takes are counted against the
    // process's body budget (503 with Retry-After when they do not fit): trace "bombs"
    // (small gzip bodies inflating to MAX_INFLATED_BYTES) count for what they inflate to.
    const body = await inflatedBody(req, MAX_INFLATED_BYTES);
    // What a JSON body's objects and arrays will take before parsing, a protobuf body's
    // messages as they are decoded (503, 413).
    const memory = req.memory;
    if (encoding === 'json') memory?.takeMemory(parseMemory(body, 'json'));
    const result = await exportTraces(deps, req.headers, decode(encoding, body, memory && ((bytes) => memory.takeMemory(bytes))), shared);
    return success(encoding, result);
  } catch (err) {
    // Bugs go to the server's handler (logged, answered 500 without internals).
    if (!(err instanceof AppError)) throw err;
    if (err.status >= 500 && !(err instanceof BodyBudgetExhausted)) log.warn('trace export failed', { requestId: req.requestId, err: err.cause ?? err });
    return failure(encoding ?? 'json', err, req.requestId);
  }
}

/**
 * The principal an export's credentials name (throws 401 without valid ones), or undefined
 * when none were sent and resources may authenticate themselves
 * (`TALLY_OTLP_TRUST_RESOURCE_AGENT=on`).
 */
export async function exportPrincipal(deps: OtlpDeps, headers: Readonly<Record<string, string>>): Promise<Principal | undefined> {
  const credentialSent = Boolean(headers['authorization'] || headers['api-key'] || headers['x-agent-secret']);
  return credentialSent || !deps.trustResourceAgent ? await deps.auth.require(headers, 'send_events') : undefined;
}

/** What became of an export's spans: OTLP's partial_success. */
export interface ExportResult {
  rejectedSpans: number;
  /** '' when every span was metered as sent; else what was rejected or left out. */
  message: string;
}

/**
 * One trace export, whatever its transport (OTLP/HTTP or OTLP/gRPC), its credentials
 * already checked (`shared`, from {@link exportPrincipal}): map each span to an action (or
 * ignore it), and hand the actions to the event pipeline (`runPipeline`: validate,
 * normalize, resolve the agent, to wire, publish, wait for JetStream). Throws an AppError
 * for the export as a whole (401, 503, ...).
 *
 * The agent of a span: a span or resource attribute naming it (`tally.agent_key`, ...,
 * `value.agent.id`), else the X-Agent-Secret sent beside an API key; authenticated by
 * X-Agent-Secret alone, spans belong to that instance. Without any credential, and only
 * with `TALLY_OTLP_TRUST_RESOURCE_AGENT=on`, each resource's agent id attribute
 * authenticates its spans (docs/opentelemetry.md).
 */
export async function exportTraces(
  deps: OtlpDeps,
  headers: Readonly<Record<string, string>>,
  request: OtlpTraceRequest,
  shared: Principal | undefined,
): Promise<ExportResult> {
  const headerAgent = headers['authorization'] || headers['api-key'] ? headers['x-agent-secret'] : undefined;

  const tally = new SpanTally();
  // Spans in groups of one principal each (one unless resources authenticate themselves).
  const groups = new Map<Principal, { actions: RawItem[]; spanIds: string[] }>();
  for (const rs of request.resourceSpans) {
    let principal = shared;
    if (!principal) {
      const resolved = await resourcePrincipal(deps, rs.resource);
      if (!resolved.ok) {
        tally.reject(rs.spans.length, resolved.code, `resource: ${resolved.message}`);
        continue;
      }
      principal = resolved.value;
    }
    const agentKey = resourceAgentKey(rs.resource) ?? headerAgent;
    let group = groups.get(principal);
    if (!group) groups.set(principal, (group = { actions: [], spanIds: [] }));
    const rules = await deps.spanRules.rules(principal.environmentId);
    for (const span of rs.spans) {
      tally.spans++;
      const mapped = spanToAction(span, rs.resource, rules, agentKey);
      if (!mapped) continue;
      for (const w of mapped.warnings) tally.warn(`span ${span.spanId}: ${w}`);
      const unsafe = findUnsafeText(mapped.action);
      group.actions.push(unsafe ? { ok: false, code: 'validation_failed', message: unsafe.message } : { ok: true, value: mapped.action });
      group.spanIds.push(span.spanId);
    }
  }
  for (const [principal, { actions, spanIds }] of groups) {
    for (let i = 0; i < actions.length; i += MAX_EVENTS_PER_REQUEST) {
      const { results } = await runPipeline(deps, 'action', principal, actions.slice(i, i + MAX_EVENTS_PER_REQUEST));
      results.forEach((r, j) => {
        if (r.status === 'rejected') tally.reject(1, r.error.code, `span ${spanIds[i + j]}: ${r.error.message}`);
      });
    }
  }
  // Every span refused by a reached spend limit: the export fails as a whole, permanently (HTTP 402, gRPC FAILED_PRECONDITION: neither is retried by OTLP exporters).
  const refused = tally.allRefusedBy('spend_limit_reached');
  if (refused) throw new AppError('spend_limit_reached', refused);
  return tally.result();
}

/** Rejections by code (a count and one example each) and warnings, for partial_success. */
class SpanTally {
  spans = 0;
  #rejected = 0;
  readonly #reasons = new Map<string, { count: number; example: string }>();
  readonly #warnings: string[] = [];
  #warningCount = 0;

  reject(count: number, code: string, example: string): void {
    this.#rejected += count;
    const seen = this.#reasons.get(code);
    if (seen) seen.count += count;
    else this.#reasons.set(code, { count, example });
  }

  /** The example message when every span was rejected with this code (and there were spans), else undefined. */
  allRefusedBy(code: string): string | undefined {
    const r = this.#reasons.get(code);
    return r && this.#reasons.size === 1 && this.#rejected === this.spans && this.spans > 0 ? `${r.count} spans refused: ${r.example}` : undefined;
  }

  warn(message: string): void {
    this.#warningCount++;
    if (this.#warnings.length < 3) this.#warnings.push(message);
  }

  result(): ExportResult {
    const parts: string[] = [];
    if (this.#rejected > 0) {
      parts.push(`${this.#rejected} of ${Math.max(this.spans, this.#rejected)} spans rejected: ` + [...this.#reasons].map(([code, r]) => `${r.count} ${code} (e.g. ${r.example})`).join('; '));
    }
    if (this.#warningCount > 0) {
      const more = this.#warningCount > this.#warnings.length ? `; and ${this.#warningCount - this.#warnings.length} more` : '';
      parts.push(`${this.#warningCount} attribute(s) left out of metered spans: ${this.#warnings.join('; ')}${more}`);
    }
    return { rejectedSpans: this.#rejected, message: parts.join('. ') };
  }
}

/** The agent principal a resource names by id, for exports without credentials (trust mode). */
async function resourcePrincipal(deps: OtlpDeps, resource: OtlpAttributes): Promise<StepResult<Principal>> {
  const id = resourceAgentKey(resource);
  if (id === undefined) {
    return { ok: false, code: 'unauthorized', message: `no credential and no agent id attribute (${AGENT_KEY_ATTRIBUTES.join(', ')}) on the resource` };
  }
  const agent = await deps.agents.resolveId(id);
  if (!agent) return { ok: false, code: 'unauthorized', message: `no agent instance with id ${JSON.stringify(id)}` };
  if (!agent.isActive) return { ok: false, code: 'agent_inactive', message: `agent instance ${agent.id} is inactive` };
  return { ok: true, value: agentPrincipal(agent) };
}

function encodingOf(contentType: string | undefined): Encoding | undefined {
  const t = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (t === 'application/json') return 'json';
  if (t === 'application/x-protobuf' || t === 'application/protobuf') return 'protobuf';
  return undefined;
}


function decode(encoding: Encoding, body: Buffer, meter: DecodeMeter | undefined): OtlpTraceRequest {
  try {
    if (encoding === 'protobuf') return decodeTraceRequest(body, meter);
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

function success(encoding: Encoding, { rejectedSpans, message }: ExportResult): HttpResponse {
  if (encoding === 'protobuf') return { status: 200, raw: encodeTraceResponse(rejectedSpans, message), contentType: 'application/x-protobuf' };
  return { status: 200, body: rejectedSpans === 0 && message === '' ? {} : { partialSuccess: { rejectedSpans, errorMessage: message } } };
}

/** gRPC status codes (google.rpc.Status, and OTLP/gRPC's own answers), by HTTP status. */
export function grpcCode(status: number): number {
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  // A spend limit is reached: FAILED_PRECONDITION, which no OTLP exporter retries (the Python,
  // JavaScript and Go exporters retry RESOURCE_EXHAUSTED, some even without a RetryInfo).
  if (status === 402) return 9; // FAILED_PRECONDITION
  if (status === 429) return 8; // RESOURCE_EXHAUSTED
  if (status === 503) return 14; // UNAVAILABLE
  if (status >= 500) return 13; // INTERNAL
  return 3; // INVALID_ARGUMENT
}

function failure(encoding: Encoding, err: AppError, requestId: string): HttpResponse {
  const headers = retryHeaders(err);
  const retry = err.retryAfterSeconds;
  const message = err.message;
  if (encoding === 'protobuf') return { status: err.status, raw: encodeStatus(grpcCode(err.status), message, retry), contentType: 'application/x-protobuf', headers };
  // JSON: the google.rpc.Status fields beside Tally's usual error object.
  const details = retry === undefined ? {} : { details: [retryInfoJson(retry)] };
  return { status: err.status, body: { code: grpcCode(err.status), message, ...details, ...errorBody(err, requestId) }, headers };
}
