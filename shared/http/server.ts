import uWS from 'uWebSockets.js';
import { performance } from 'node:perf_hooks';
import { STATUS_CODES } from 'node:http';
import { AppError, errorBody, retryHeaders, toAppError } from '../errors.ts';
import { logger } from '../log.ts';
import { httpMetrics } from '../metrics.ts';
import type { AuthFailureLimiter } from '../auth/auth-failures.ts';
import { Router } from './router.ts';
import { findUnsafeText, jsonMayHoldUnsafeText, unsafeText } from './safe-text.ts';
import type { HttpRequest, HttpResponse, Route } from './types.ts';

const log = logger('http');
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** How much of an oversized body is read and discarded before the 413 closes the connection instead. */
const MAX_DRAIN_BYTES = 64 * 1024 * 1024;

/** A hook run on every answered response (e.g. rate-limit headers). */
export type ResponseHook = (req: HttpRequest | undefined, res: HttpResponse) => void;

const statusLine = new Map<number, string>();
function statusText(status: number): string {
  let s = statusLine.get(status);
  if (!s) statusLine.set(status, (s = `${status} ${STATUS_CODES[status] ?? ''}`.trim()));
  return s;
}

let requestCounter = 0;
const requestPrefix = `req_${Date.now().toString(36)}${process.pid.toString(36)}_`;
function newRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return requestPrefix + requestCounter.toString(36);
}

/**
 * The process's one HTTP listener (uWebSockets.js). Routes of every role in the process
 * are added to one router; each request's headers are read synchronously, its body
 * buffered up to the route's limit, and its handler's result or error written once.
 */
export class HttpServer {
  readonly router = new Router();
  readonly #app = uWS.App();
  #authFailures: AuthFailureLimiter | undefined;
  #listenSocket: uWS.us_listen_socket | undefined;
  #hooks: ResponseHook[] = [];
  /** Until every role has added its routes, an unknown path is "not yet", not "never". */
  #starting = true;

  constructor() {
    this.#app.any('/*', (res, req) => this.#onRequest(res, req));
  }

  add(...routes: Route[]): void {
    for (const r of routes) this.router.add(r);
  }

  /** Every role's routes are in: from now on an unknown path is a 404. */
  started(): void {
    this.#starting = false;
  }

  /** Counts 401 answers per client address and answers 429 to an address over the limit. */
  limitFailedAuthentication(limiter: AuthFailureLimiter): void {
    this.#authFailures = limiter;
  }

  onResponse(hook: ResponseHook): void {
    this.#hooks.push(hook);
  }

  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (in use?)`));
        this.#listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket as unknown as uWS.us_socket));
      });
    });
  }

  close(): void {
    if (this.#listenSocket) uWS.us_listen_socket_close(this.#listenSocket);
    this.#listenSocket = undefined;
  }

  #onRequest(res: uWS.HttpResponse, req: uWS.HttpRequest): void {
    const receivedAt = performance.now();
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const incomingId = headers['x-request-id'];
    const requestId = incomingId && /^[A-Za-z0-9_.:-]{1,128}$/.test(incomingId) ? incomingId : newRequestId();
    const state = { aborted: false, done: false };
    res.onAborted(() => {
      state.aborted = true;
    });

    const blockedFor = this.#authFailures?.active ? this.#authFailures.retryAfter(remoteAddress(res)) : undefined;
    if (blockedFor !== undefined) {
      const err = new AppError('rate_limited', `too many failed authentications from this address; retry in ${blockedFor} s`, { retryAfterSeconds: blockedFor });
      this.#write(res, state, undefined, errorResponse(err, requestId), 'unmatched', receivedAt);
      return;
    }

    const match = this.router.match(method, path);
    if (match.kind !== 'found' && this.#starting) {
      // The listener opens before the roles' routes are added (so /readyz answers while
      // dependencies connect): a client must retry, not drop its request as a 404.
      const err = new AppError('service_unavailable', 'Tally is starting; retry shortly', { retryAfterSeconds: 1 });
      this.#write(res, state, undefined, errorResponse(err, requestId), 'unmatched', receivedAt);
      return;
    }
    if (match.kind !== 'found') {
      const err =
        match.kind === 'not_found'
          ? new AppError('not_found', `no route for ${method} ${path}`)
          : new AppError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${match.allowed.join(', ')}`);
      const out = errorResponse(err, requestId);
      if (match.kind === 'method_not_allowed') out.headers = { ...out.headers, allow: match.allowed.join(', ') };
      this.#write(res, state, undefined, out, 'unmatched', receivedAt);
      return;
    }
    const { route, params } = match;
    const unsafe = unsafeParameter(params, rawQuery);
    if (unsafe) {
      const err = new AppError('validation_failed', unsafe.message, { details: [unsafe] });
      this.#write(res, state, undefined, errorResponse(err, requestId), route.path, receivedAt);
      return;
    }
    const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const declared = Number(headers['content-length'] ?? '0');
    // An oversized body is read and discarded before the 413 is written (RFC 9112 §9.6):
    // a client still sending would otherwise see its connection reset, not the answer.
    let tooLarge: AppError | undefined =
      declared > limit ? new AppError('payload_too_large', `request body of ${declared} bytes exceeds the limit of ${limit} bytes`) : undefined;
    let drained = 0;
    // TRICKY: no named closures (`const f = () => …`) in this per-request path: run
    // through tsx, each is wrapped in a call that sets its name (esbuild's keepNames), a
    // property definition per request that cost single events ~8% of ingest's CPU.

    if (!tooLarge && (method === 'GET' || method === 'DELETE' || method === 'HEAD')) {
      // Bodies of these methods are ignored; uWS still needs onData for keep-alive correctness.
      res.onData(() => {});
      this.#run(res, state, new IncomingRequest(method, path, params, rawQuery, headers, Buffer.alloc(0), requestId, receivedAt), route);
      return;
    }
    let chunks: Buffer[] | undefined;
    let size = 0;
    res.onData((chunk, isLast) => {
      if (state.done) return;
      if (tooLarge) {
        drained += chunk.byteLength;
        this.#refuse(res, state, tooLarge, requestId, route.path, receivedAt, isLast, drained);
        return;
      }
      size += chunk.byteLength;
      if (size > limit) {
        tooLarge = new AppError('payload_too_large', `request body exceeds the limit of ${limit} bytes`);
        chunks = undefined;
        this.#refuse(res, state, tooLarge, requestId, route.path, receivedAt, isLast, drained);
        return;
      }
      // uWS reuses the chunk's memory after this callback returns: copy it.
      const copy = Buffer.from(new Uint8Array(chunk));
      if (isLast) {
        const body = chunks ? Buffer.concat([...chunks, copy]) : copy;
        chunks = undefined;
        this.#run(res, state, new IncomingRequest(method, path, params, rawQuery, headers, body, requestId, receivedAt), route);
      } else {
        (chunks ??= []).push(copy);
      }
    });
  }

  /** Answers 413 to an oversized body once it is read (`isLast`), or at once, closing, once more than MAX_DRAIN_BYTES were discarded. */
  #refuse(res: uWS.HttpResponse, state: { aborted: boolean; done: boolean }, tooLarge: AppError, requestId: string, routePath: string, receivedAt: number, isLast: boolean, drained: number): void {
    const out = errorResponse(tooLarge, requestId);
    if (isLast) this.#write(res, state, undefined, out, routePath, receivedAt);
    else if (drained > MAX_DRAIN_BYTES) this.#write(res, state, undefined, out, routePath, receivedAt, true);
  }

  #run(res: uWS.HttpResponse, state: { aborted: boolean; done: boolean }, req: HttpRequest, route: Route): void {
    let result: Promise<HttpResponse> | HttpResponse;
    try {
      result = route.handler(req);
    } catch (err) {
      this.#write(res, state, req, this.#fail(err, req), route.path, req.receivedAt);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (r) => this.#write(res, state, req, r, route.path, req.receivedAt),
        (err) => this.#write(res, state, req, this.#fail(err, req), route.path, req.receivedAt),
      );
    } else {
      this.#write(res, state, req, result, route.path, req.receivedAt);
    }
  }

  #fail(err: unknown, req: HttpRequest): HttpResponse {
    const appErr = toAppError(err);
    if (appErr.status >= 500) {
      log.error('request failed', { requestId: req.requestId, method: req.method, path: req.path, err: appErr.cause ?? appErr });
    }
    return errorResponse(appErr, req.requestId);
  }

  #write(
    res: uWS.HttpResponse,
    state: { aborted: boolean; done: boolean },
    req: HttpRequest | undefined,
    out: HttpResponse,
    routeLabel: string,
    receivedAt: number,
    closeAfter = false,
  ): void {
    if (state.done) return;
    state.done = true;
    httpMetrics.observe(routeLabel, out.status, (performance.now() - receivedAt) / 1000);
    if (state.aborted) return;
    if (out.status === 401 && this.#authFailures) this.#authFailures.failed(remoteAddress(res));
    for (const h of this.#hooks) h(req, out);
    const body = out.raw ?? (out.body === undefined ? '' : JSON.stringify(out.body));
    const contentType = out.contentType ?? (out.raw !== undefined ? 'text/plain; charset=utf-8' : 'application/json');
    res.cork(() => {
      res.writeStatus(statusText(out.status));
      res.writeHeader('content-type', contentType);
      // The request id on errors (where it is logged, and in the body), and echoed to a
      // client that sent its own: not on every 2xx, where it names nothing kept (and an
      // extra header line is a measurable cost per event for high-rate senders).
      if (out.status >= 400 || (req !== undefined && req.headers['x-request-id'] === req.requestId)) {
        res.writeHeader('x-request-id', req?.requestId ?? (out.body as { error?: { request_id?: string } })?.error?.request_id ?? '');
      }
      const extra = out.headers;
      if (extra) for (const k in extra) res.writeHeader(k, extra[k]!);
      res.end(body, closeAfter);
    });
  }
}

function remoteAddress(res: uWS.HttpResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}

/** A request as handlers see it; its query is parsed when first read. */
class IncomingRequest implements HttpRequest {
  #query: URLSearchParams | undefined;
  constructor(
    readonly method: string,
    readonly path: string,
    readonly params: Record<string, string>,
    private readonly rawQuery: string,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    readonly requestId: string,
    readonly receivedAt: number,
  ) {}

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }
}

/** The one error response shape. */
function errorResponse(err: AppError, requestId: string): HttpResponse {
  return { status: err.status, body: errorBody(err, requestId), headers: retryHeaders(err) };
}

/** Deepest nesting of objects and arrays a JSON request body may have. */
const MAX_JSON_DEPTH = 64;

/**
 * Parses a JSON request body; malformed JSON is a 400 `invalid_json`, and a body nested
 * deeper than {@link MAX_JSON_DEPTH} a 400 `invalid_body` (checked on the text before
 * parsing, so no recursive code ever sees it).
 */
export function jsonBody(req: HttpRequest): unknown {
  if (req.body.length === 0) throw new AppError('invalid_body', 'request body is empty; send a JSON object');
  const text = req.body.toString('utf8');
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw new AppError('invalid_body', `request body is nested more than ${MAX_JSON_DEPTH} levels deep`);
  let value: unknown;
  try {
    value = POLLUTING.test(text) ? JSON.parse(text, dropPollutingKeys) : JSON.parse(text);
  } catch (err) {
    throw new AppError('invalid_json', `request body is not valid JSON: ${(err as Error).message}`);
  }
  const unsafe = jsonMayHoldUnsafeText(text) ? findUnsafeText(value) : undefined;
  if (unsafe) throw new AppError('validation_failed', `request body is invalid: ${unsafe.message}`, { details: [unsafe] });
  return value;
}

/** A path or query parameter holding text no store accepts (a NUL; lone surrogates cannot survive URL decoding). */
function unsafeParameter(params: Record<string, string>, rawQuery: string): { path: string; message: string } | undefined {
  for (const k in params) {
    const why = unsafeText(params[k]!);
    if (why) return { path: k, message: `path parameter ${k} ${why}` };
  }
  if (!rawQuery.includes('%00')) return undefined;
  for (const [k, v] of new URLSearchParams(rawQuery)) {
    const why = unsafeText(k) ?? unsafeText(v);
    if (why) return { path: k, message: `query parameter ${k} ${why}` };
  }
  return undefined;
}

const POLLUTING = /"(?:__proto__|constructor|prototype)"/;
/** Keys that could reach an object's prototype are dropped from request bodies. */
function dropPollutingKeys(key: string, value: unknown): unknown {
  return key === '__proto__' || key === 'constructor' || key === 'prototype' ? undefined : value;
}

/** The deepest nesting of `{`/`[` outside strings in a JSON text (one pass, no recursion). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) max = depth;
    } else if (c === 125 || c === 93) depth--;
  }
  return max;
}
