import { AppError, codeToStatus, errorBody } from '../../shared/errors.ts';
import { MAX_EVENT_BODY_BYTES } from '../../shared/events/limits.ts';
import { inflatedBody, parsedBodyCost } from '../../shared/http/encoding.ts';
import type { Principal } from '../../shared/auth/keys.ts';
import { credentialsOf } from '../../shared/http/request.ts';
import type { HttpRequest, HttpResponse, Route } from '../../shared/http/types.ts';
import { decodeEvents } from './pipeline/decode.ts';
import type { EventKind } from './pipeline/normalize.ts';
import { runPipeline, type Accepted, type IngestDeps, type Rejected } from './pipeline/run.ts';

/** POST /v1/actions and POST /v1/outcomes. */
export function ingestRoutes(deps: IngestDeps): Route[] {
  const route = (kind: EventKind, path: string): Route => ({
    method: 'POST',
    path,
    maxBodyBytes: MAX_EVENT_BODY_BYTES,
    bodyCost: parsedBodyCost,
    authenticate: (headers) => sendsEvents(deps, headers),
    summary: `Send one ${kind} event or a batch (JSON, NDJSON or msgpack)`,
    handler: (req) => handleEvents(deps, kind, req),
  });
  return [route('action', '/v1/actions'), route('outcome', '/v1/outcomes')];
}

/**
 * One request: authenticate, inflate a gzip body (up to the same limit), decode it into items, run them through the pipeline
 * (pipeline/run.ts: validate, normalize, resolve the agent, to wire, publish and wait for
 * JetStream's acknowledgement), and answer each event. A rejected event never stops the
 * others; a publish failure answers 503 for the request and acknowledges nothing.
 */
async function handleEvents(deps: IngestDeps, kind: EventKind, req: HttpRequest): Promise<HttpResponse> {
  const checked = credentialsOf(req, (headers) => sendsEvents(deps, headers));
  const principal = checked instanceof Promise ? await checked : checked;
  const body = req.headers['content-encoding'] === undefined ? req.body : await inflatedBody(req, MAX_EVENT_BODY_BYTES);
  const { single, items } = decodeEvents(body, req.headers['content-type'], kind === 'outcome', req.memory);
  const { results, createdAt } = await runPipeline(deps, kind, principal, items, { single, headerId: single ? req.headers['idempotency-key'] : undefined });
  return respond(single, results, createdAt, req.requestId);
}

/** The principal of a request's credentials, which must be allowed to send events; counted against its rate limit (once per request: `credentialsOf`). */
export function sendsEvents(deps: IngestDeps, headers: Readonly<Record<string, string>>): Principal | Promise<Principal> {
  return deps.auth.requireCached(headers, 'send_events') ?? deps.auth.require(headers, 'send_events');
}

function respond(single: boolean, results: (Accepted | Rejected)[], createdAt: string, requestId: string): HttpResponse {
  if (single) {
    const r = results[0]!;
    if (r.status === 'processed') {
      // `{id, status, created_at}` as text: the id is checked like batchJson's, the time is ISO.
      const id = NEEDS_ESCAPE.test(r.id) ? JSON.stringify(r.id) : '"' + r.id + '"';
      return { status: 200, raw: '{"id":' + id + ',"status":"processed","created_at":"' + createdAt + '"}', contentType: 'application/json' };
    }
    const body = errorBody(singleEventError(r), requestId);
    // 402: which limit, its value and when it resets, beside the usual error fields.
    return { status: codeToStatus(r.error.code), body: r.error.limit ? { error: { ...body.error, limit: r.error.limit } } : body };
  }
  let accepted = 0;
  let firstRejected: Rejected | undefined;
  for (const r of results) {
    if (r.status === 'processed') accepted++;
    else firstRejected ??= r;
  }
  const rejected = results.length - accepted;
  if (accepted > 0) return { status: rejected === 0 ? 200 : 207, raw: batchJson(accepted, rejected, createdAt, results), contentType: 'application/json' };
  const body: Record<string, unknown> = { accepted, rejected, created_at: createdAt, results };
  const err = new AppError(firstRejected!.error.code, `all ${rejected} events were rejected; see results`);
  return { status: codeToStatus(firstRejected!.error.code), body: { ...errorBody(err, requestId), ...body } };
}

/** A single event's rejection as an error: the field at fault, when one is, in `details` (`[{path, message}]`). */
export function singleEventError(r: Rejected): AppError {
  const details = r.path === undefined ? undefined : [{ path: r.path, message: r.error.message }];
  return new AppError(r.error.code, r.error.message, details ? { details } : {});
}

/**
 * The answer to a batch as JSON text, the same as JSON.stringify of
 * `{accepted, rejected, created_at, results}`, written by hand: a thousand results'
 * objects cost JSON.stringify several times more.
 */
export function batchJson(accepted: number, rejected: number, createdAt: string, results: readonly (Accepted | Rejected)[]): string {
  let s = `{"accepted":${accepted},"rejected":${rejected},"created_at":${JSON.stringify(createdAt)},"results":[`;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (i > 0) s += ',';
    if (r.status !== 'processed') s += JSON.stringify({ index: r.index, status: r.status, error: r.error });
    else if (NEEDS_ESCAPE.test(r.id)) s += `{"index":${r.index},"id":${JSON.stringify(r.id)},"status":"processed"}`;
    else s += '{"index":' + r.index + ',"id":"' + r.id + '","status":"processed"}';
  }
  return s + ']}';
}

// What JSON.stringify escapes in an id: quotes, backslashes, control characters, surrogates.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
