import { performance } from 'node:perf_hooks';
import { AppError, errorBody, retryHeaders, toAppError } from '../errors.ts';
import { logger } from '../log.ts';
import { httpMetrics } from '../metrics.ts';
import type { AuthFailureLimiter } from '../auth/auth-failures.ts';
import { nodeTransport } from './node-server.ts';
import { Router } from './router.ts';
import { findUnsafeText, jsonMayHoldUnsafeText, unsafeText } from './safe-text.ts';
import type { CredentialCheck, HttpRequest, HttpResponse, Route } from './types.ts';
import type { BlockList } from 'node:net';
import { BodyBudget, defaultBodyBudgetBytes } from './body-budget.ts';
import { clientAddress } from './client-address.ts';
import { DEFAULT_TIMEOUTS, requestIdOf, type HttpTimeouts } from './request.ts';
import { loadUws, uwsTransport } from './uws-server.ts';

const log = logger('http');
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** A hook run on every answered response (e.g. rate-limit headers). */
export type ResponseHook = (req: HttpRequest | undefined, res: HttpResponse) => void;

/**
 * Which server speaks HTTP: `node` (Node's HTTP stack, every Node.js line; the default)
 * or `uws` (uWebSockets.js, where a binary fits the runtime: docs/architecture.md "HTTP server").
 */
export type HttpServerKind = 'node' | 'uws';

/** A transport's side of one request: whether its client is gone, and how to answer it (once). */
export interface Reply {
  /** Set once the request is answered (by {@link HttpServer.answer}): a request is answered once. */
  answered: boolean;
  readonly aborted: boolean;
  remoteAddress(): string;
  end(status: number, contentType: string, requestIdHeader: string | undefined, extra: Record<string, string> | undefined, body: string | Uint8Array, close: boolean): void;
}

/** A listener of one kind: it reads requests and hands them to the server's {@link HttpServer.route}. */
export interface Transport {
  listen(host: string, port: number): Promise<number>;
  close(): void;
}

/** A routed request whose body is still to be read. */
export interface Routed {
  route: Route;
  params: Record<string, string>;
  requestId: string;
  /** Largest accepted body. */
  limit: number;
  /** Set when the declared Content-Length is over the limit: the body is read, discarded, and this answered. */
  tooLarge: AppError | undefined;
}

/**
 * The process's one HTTP listener. Routes of every role in the process are added to one
 * router; a transport (Node's HTTP stack, or uWebSockets.js where chosen and a binary
 * fits) reads each request's headers, asks {@link route} where it goes, buffers its body
 * up to the route's limit, and {@link run}s it; the handler's result or error is written once.
 */
export class HttpServer {
  readonly router = new Router();
  /** The server that speaks HTTP in this process (`uws` only when asked for and a binary loads). */
  readonly kind: HttpServerKind;
  /** The process's budget of request-body memory, shared with its other listeners (OTLP/gRPC). */
  readonly bodies: BodyBudget;
  readonly #transport: Transport;
  #authFailures: AuthFailureLimiter | undefined;
  #trustedProxies: BlockList | undefined;
  #hooks: ResponseHook[] = [];
  /** Until every role has added its routes, an unknown path is "not yet", not "never". */
  #starting = true;

  constructor(opts: { server?: HttpServerKind; timeouts?: Partial<HttpTimeouts>; bodies?: BodyBudget } = {}) {
    this.bodies = opts.bodies ?? new BodyBudget(defaultBodyBudgetBytes());
    if (opts.server === 'uws') {
      const uws = loadUws();
      if (uws.ok) {
        this.kind = 'uws';
        this.#transport = uwsTransport(this, uws.module);
        return;
      }
      log.warn(`TALLY_HTTP_SERVER=uws, but ${uws.reason}: serving HTTP with Node's HTTP stack instead`);
    }
    this.kind = 'node';
    this.#transport = nodeTransport(this, { ...DEFAULT_TIMEOUTS, ...opts.timeouts });
  }

  add(...routes: Route[]): void {
    for (const r of routes) this.router.add(r);
  }

  /** Every role's routes are in: from now on an unknown path is a 404. */
  started(): void {
    this.#starting = false;
  }

  /**
   * Counts 401 answers per client address (from `trusted` proxies' forwarding headers, else
   * the TCP peer) and answers an address's failures 429 once it is over the limit.
   */
  limitFailedAuthentication(limiter: AuthFailureLimiter, trusted?: BlockList): void {
    this.#authFailures = limiter;
    this.#trustedProxies = trusted;
  }

  onResponse(hook: ResponseHook): void {
    this.#hooks.push(hook);
  }

  /** Starts listening; resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number> {
    return this.#transport.listen(host, port);
  }

  /** Stops listening and closes every connection. */
  close(): void {
    this.#transport.close();
  }

  /**
   * A request whose headers are read: its route, or undefined when it is already answered
   * (503 while starting, 404, 405, a 400 for an unsafe parameter).
   */
  route(reply: Reply, method: string, path: string, rawQuery: string, headers: Record<string, string>, receivedAt: number): Routed | undefined {
    const requestId = requestIdOf(headers);
    const match = this.router.match(method, path);
    if (match.kind !== 'found' && this.#starting) {
      // The listener opens before the roles' routes are added (so /readyz answers while
      // dependencies connect): a client must retry, not drop its request as a 404.
      const err = new AppError('service_unavailable', 'Tally is starting; retry shortly', { retryAfterSeconds: 1 });
      this.answer(reply, undefined, errorResponse(err, requestId), 'unmatched', receivedAt);
      return undefined;
    }
    if (match.kind !== 'found') {
      const err =
        match.kind === 'not_found'
          ? new AppError('not_found', `no route for ${method} ${path}`)
          : new AppError('method_not_allowed', `${method} is not allowed on ${path}; allowed: ${match.allowed.join(', ')}`);
      const out = errorResponse(err, requestId);
      if (match.kind === 'method_not_allowed') out.headers = { ...out.headers, allow: match.allowed.join(', ') };
      this.answer(reply, undefined, out, 'unmatched', receivedAt);
      return undefined;
    }
    const { route, params } = match;
    const unsafe = unsafeParameter(params, rawQuery);
    if (unsafe) {
      const err = new AppError('validation_failed', unsafe.message, { details: [unsafe] });
      this.answer(reply, undefined, errorResponse(err, requestId), route.path, receivedAt);
      return undefined;
    }
    const limit = route.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const declared = Number(headers['content-length'] ?? '0');
    // An oversized body is read and discarded before the 413 is written (RFC 9112 §9.6):
    // a client still sending would otherwise see its connection reset, not the answer.
    const tooLarge = declared > limit ? new AppError('payload_too_large', `request body of ${declared} bytes exceeds the limit of ${limit} bytes`) : undefined;
    return { route, params, requestId, limit, tooLarge };
  }

  /** Answers an error that is not a handler's (a refused body, a malformed request), optionally closing the connection after it. */
  refuse(reply: Reply, err: AppError, requestId: string, routeLabel: string, receivedAt: number, close = false): void {
    this.answer(reply, undefined, errorResponse(err, requestId), routeLabel, receivedAt, close);
  }

  /** Runs a request's handler and answers with its result or error (closing the connection after it with `close`). */
  run(reply: Reply, req: HttpRequest, route: Route, close = false): void {
    let result: Promise<HttpResponse> | HttpResponse;
    try {
      result = route.handler(req);
    } catch (err) {
      this.answer(reply, req, this.#fail(err, req), route.path, req.receivedAt, close);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (r) => this.answer(reply, req, r, route.path, req.receivedAt, close),
        (err) => this.answer(reply, req, this.#fail(err, req), route.path, req.receivedAt, close),
      );
    } else {
      this.answer(reply, req, result, route.path, req.receivedAt, close);
    }
  }

  /**
   * A route's credential check before its body is read (`Route.authenticate`), run once
   * per request: its principal, or its error (the handler answers it, from
   * `HttpRequest.credentials`), or a promise of either; undefined when the route has none.
   */
  preauthenticate(route: Route, headers: Readonly<Record<string, string>>): CredentialCheck | Promise<CredentialCheck> | undefined {
    if (!route.authenticate) return undefined;
    let check: unknown;
    try {
      check = route.authenticate(headers);
    } catch (error) {
      return { ok: false, error };
    }
    return check instanceof Promise ? check.then(passed, failed) : { ok: true, principal: check };
  }

  #countFailure(reply: Reply, req: HttpRequest | undefined, out: HttpResponse): HttpResponse {
    const address = clientAddress(reply.remoteAddress(), req?.headers ?? {}, this.#trustedProxies);
    return failureAnswer(this.#authFailures!, address, out, req?.requestId ?? requestIdOf({}));
  }

  #fail(err: unknown, req: HttpRequest): HttpResponse {
    const appErr = toAppError(err);
    if (appErr.status >= 500) {
      log.error('request failed', { requestId: req.requestId, method: req.method, path: req.path, err: appErr.cause ?? appErr });
    }
    return errorResponse(appErr, req.requestId);
  }

  /** Writes an answer through its transport: metrics, failed-authentication counts and hooks first. */
  answer(reply: Reply, req: HttpRequest | undefined, out: HttpResponse, routeLabel: string, receivedAt: number, close = false): void {
    if (reply.answered) return;
    reply.answered = true;
    req?.memory?.release();
    if (out.status === 401 && this.#authFailures) out = this.#countFailure(reply, req, out);
    httpMetrics.observe(routeLabel, out.status, (performance.now() - receivedAt) / 1000);
    if (reply.aborted) return;
    for (const h of this.#hooks) h(req, out);
    const body = out.raw ?? (out.body === undefined ? '' : JSON.stringify(out.body));
    const contentType = out.contentType ?? (out.raw !== undefined ? 'text/plain; charset=utf-8' : 'application/json');
    // The request id on errors (where it is logged, and in the body), and echoed to a
    // client that sent its own: not on every 2xx, where it names nothing kept (and an
    // extra header line is a measurable cost per event for high-rate senders).
    const requestIdHeader =
      out.status >= 400 || (req !== undefined && req.headers['x-request-id'] === req.requestId)
        ? (req?.requestId ?? (out.body as { error?: { request_id?: string } })?.error?.request_id ?? '')
        : undefined;
    reply.end(out.status, contentType, requestIdHeader, out.headers, body, close);
  }
}

/** A failed authentication's answer: the 401 itself, or 429 once its address is over the limit. */
function failureAnswer(limiter: AuthFailureLimiter, address: string, out: HttpResponse, requestId: string): HttpResponse {
  const wait = limiter.failed(address);
  if (wait === undefined) return out;
  return errorResponse(new AppError('rate_limited', `too many failed authentications from this address; retry in ${wait} s`, { retryAfterSeconds: wait }), requestId);
}

function passed(principal: unknown): CredentialCheck {
  return { ok: true, principal };
}
function failed(error: unknown): CredentialCheck {
  return { ok: false, error };
}

/** The one error response shape. */
export function errorResponse(err: AppError, requestId: string): HttpResponse {
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
