import { STATUS_CODES } from 'node:http';
import type { Principal } from '../../../shared/auth/keys.ts';
import { AppError, errorBody, retryHeaders, toAppError, type ErrorCode } from '../../../shared/errors.ts';
import { MAX_EVENT_BODY_BYTES } from '../../../shared/events/limits.ts';
import { credentialsOf } from '../../../shared/http/request.ts';
import type { HttpRequest, HttpResponse, Route } from '../../../shared/http/types.ts';
import { logger } from '../../../shared/log.ts';
import type { EventKind } from '../pipeline/normalize.ts';
import { runPipeline, type IngestDeps } from '../pipeline/run.ts';
import { sendsEvents } from '../events-handler.ts';
import { inflatedBody, parsedBodyCost } from '../../../shared/http/encoding.ts';
import { decodeCloudEvents, type DecodedCloudEvents } from './decode.ts';
import { cloudEventMessage, cloudEventToTally, type MappedCloudEvent } from './mapping.ts';

const CLOUDEVENTS_PATH = '/api/v1/events';

/** What became of one CloudEvent of a request. */
export type CloudEventResult =
  | { index: number; id: string; status: 'processed' }
  | { index: number; id?: string; status: 'rejected'; error: { code: ErrorCode; message: string } };

const log = logger('cloudevents');

/** POST /api/v1/events: OpenMeter's ingest API (CloudEvents), as Tally actions and outcomes. */
export function cloudEventRoutes(deps: IngestDeps): Route[] {
  return [
    {
      method: 'POST',
      path: CLOUDEVENTS_PATH,
      maxBodyBytes: MAX_EVENT_BODY_BYTES,
      bodyCost: parsedBodyCost,
      authenticate: (headers) => sendsEvents(deps, headers),
      summary: 'OpenMeter-compatible ingest: one CloudEvent or a batch, metered as actions and outcomes',
      handler: (req) => handleCloudEvents(deps, req),
    },
  ];
}

/**
 * Authenticates as POST /v1/actions does (`send_events`), decodes, maps each CloudEvent
 * (mapping.ts) and runs it through the event pipeline. Answers as OpenMeter does: 204
 * when every event was accepted; otherwise an `application/problem+json` error (which
 * @openmeter/sdk throws as an HTTPError with its `detail`), with Tally's error object and,
 * when events were rejected, the per-event results. Accepted events of such a batch are
 * stored: resending the batch is safe, as their ids are counted once.
 */
async function handleCloudEvents(deps: IngestDeps, req: HttpRequest): Promise<HttpResponse> {
  try {
    const principal = await credentialsOf(req, (headers) => sendsEvents(deps, headers));
    const body = req.headers['content-encoding'] === undefined ? req.body : await inflatedBody(req, MAX_EVENT_BODY_BYTES);
    const results = await ingestCloudEvents(deps, principal, decodeCloudEvents(body, req.headers['content-type'], req.memory));
    return answer(results, req.requestId);
  } catch (err) {
    const appErr = toAppError(err);
    // Bugs go to the server's handler (logged, answered 500 without internals).
    if (appErr.code === 'internal_error') throw err;
    if (appErr.status >= 500) log.warn('CloudEvents ingest failed', { requestId: req.requestId, err: appErr.cause ?? appErr });
    return problem(appErr, req.requestId);
  }
}

/**
 * Maps each event and hands the actions and the outcomes to the pipeline (`runPipeline`,
 * one call per kind); the results are merged back in the request's order. Throws an
 * AppError (503) when the events could not be stored.
 */
async function ingestCloudEvents(deps: IngestDeps, principal: Principal, decoded: DecodedCloudEvents): Promise<CloudEventResult[]> {
  const mapped = decoded.events.map((e, i) => cloudEventToTally(e, { valueText: decoded.valueTexts[i], checkText: decoded.mayHoldUnsafeText }));
  const indexes: Record<EventKind, number[]> = { action: [], outcome: [] };
  mapped.forEach((m, i) => indexes[m.kind].push(i));
  const results: CloudEventResult[] = new Array(mapped.length);
  await Promise.all(
    (['action', 'outcome'] as const).map(async (kind) => {
      const at = indexes[kind];
      if (at.length === 0) return;
      const out = await runPipeline(deps, kind, principal, at.map((i) => mapped[i]!.item));
      out.results.forEach((r, j) => {
        const i = at[j]!;
        results[i] = r.status === 'processed' ? { index: i, id: r.id, status: 'processed' } : rejected(i, mapped[i]!, r.error);
      });
    }),
  );
  return results;
}

/** A rejected event's result: its id, and the pipeline's message in CloudEvents' attribute names. */
function rejected(index: number, m: MappedCloudEvent, error: { code: ErrorCode; message: string }): CloudEventResult {
  const message = m.item.ok ? cloudEventMessage(error.message) : error.message;
  return { index, ...(m.id === undefined ? {} : { id: m.id }), status: 'rejected', error: { code: error.code, message } };
}

/** 204 when every event was accepted; else the first rejection's status, naming it, with every event's result. */
function answer(results: CloudEventResult[], requestId: string): HttpResponse {
  let accepted = 0;
  let first: Extract<CloudEventResult, { status: 'rejected' }> | undefined;
  for (const r of results) {
    if (r.status === 'processed') accepted++;
    else first ??= r;
  }
  if (!first) return { status: 204 };
  const rejectedCount = results.length - accepted;
  const which = `event ${first.index}${first.id === undefined ? '' : ` (id ${JSON.stringify(first.id)})`}: ${first.error.message}`;
  const detail =
    results.length === 1
      ? `the event was rejected: ${which}`
      : accepted === 0
        ? `all ${rejectedCount} events were rejected; first ${which}`
        : `${rejectedCount} of ${results.length} events were rejected and ${accepted} accepted (resending the batch is safe: accepted ids are counted once); first ${which}`;
  return problem(new AppError(first.error.code, detail), requestId, { accepted, rejected: rejectedCount, results });
}

/**
 * An error as RFC 9457 problem details (what OpenMeter answers, and what @openmeter/sdk
 * reads the `detail` of) beside Tally's own error object.
 */
function problem(err: AppError, requestId: string, extra: Record<string, unknown> = {}): HttpResponse {
  const headers = retryHeaders(err);
  const body = { type: 'about:blank', title: STATUS_CODES[err.status] ?? 'Error', status: err.status, detail: err.message, ...errorBody(err, requestId), ...extra };
  return { status: err.status, body, contentType: 'application/problem+json', headers };
}
