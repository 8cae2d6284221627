import http, { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { AppError, errorBody, type ErrorCode } from '../errors.ts';
import { BodyReader, type RequestHead } from './body-reader.ts';
import { IncomingRequest, requestIdOf, type HttpTimeouts } from './request.ts';
import type { HttpServer, Reply, Routed, Transport } from './server.ts';
import type { CredentialCheck } from './types.ts';

/**
 * The listener on Node's HTTP stack (llhttp), on every Node.js line. Node's parser refuses
 * ambiguous framing (two differing Content-Lengths, Transfer-Encoding with
 * Content-Length) and answers pipelined requests in order; here every refused request
 * gets a JSON error body, an idle keep-alive connection is closed after `idleMs`, and a
 * request's headers and whole body must arrive within `headersMs` and `requestMs` (slow
 * clients are cut off with a 408, checked every second).
 */
export function nodeTransport(server: HttpServer, timeouts: HttpTimeouts): Transport {
  const srv = http.createServer({ requireHostHeader: false, connectionsCheckingInterval: Math.min(1000, timeouts.headersMs) }, (req, res) => onRequest(server, req, res));
  srv.keepAliveTimeout = timeouts.idleMs;
  srv.headersTimeout = timeouts.headersMs;
  srv.requestTimeout = timeouts.requestMs;
  // A client that half-closes after its request still gets the answer (then the connection closes).
  (srv as unknown as { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  srv.on('clientError', (err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => onClientError(err, socket, timeouts));
  srv.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => onRequest(server, req, res, true));
  srv.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const err = new AppError('bad_request', `Expect: ${req.headers.expect} is not supported (only 100-continue)`);
    server.refuse(new NodeReply(req, res), err, requestIdOf(req.headers as Record<string, string>), 'unmatched', performance.now(), true);
  });
  // CONNECT (a proxy's method): refused, not silently dropped.
  srv.on('connect', (_req: IncomingMessage, socket: Duplex) => endWithError(socket, new AppError('method_not_allowed', 'CONNECT is not supported: Tally is not a proxy')));
  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        const failed = (err: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${host}:${port} (${err.code ?? err.message})`));
        srv.once('error', failed);
        srv.listen(port, host, () => {
          srv.off('error', failed);
          resolve((srv.address() as AddressInfo).port);
        });
      });
    },
    close() {
      srv.close();
      srv.closeAllConnections();
    },
  };
}

class NodeReply implements Reply {
  answered = false;
  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
  ) {}

  get aborted(): boolean {
    return this.req.socket.destroyed;
  }

  remoteAddress(): string {
    return this.req.socket.remoteAddress ?? '';
  }

  end(status: number, contentType: string, requestIdHeader: string | undefined, extra: Record<string, string> | undefined, body: string | Uint8Array, close: boolean): void {
    const headers: OutgoingHttpHeaders = { 'content-type': contentType, 'content-length': typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength };
    if (requestIdHeader !== undefined) headers['x-request-id'] = requestIdHeader;
    if (extra) for (const k in extra) headers[k] = extra[k];
    if (close) headers['connection'] = 'close';
    this.res.writeHead(status, headers);
    this.res.end(body);
  }
}

function ignore(): void {}

/** The request's framing and version problems Node's parser lets through, as the message of a 400; undefined when there is none. */
function malformed(req: IncomingMessage, headers: Record<string, string>): string | undefined {
  if (req.httpVersionMajor !== 1) return `HTTP/${req.httpVersion} is not supported; send HTTP/1.1 (or 1.0)`;
  if (headers.host === undefined && req.httpVersionMinor === 1) return 'an HTTP/1.1 request must have a Host header';
  let hosts = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.length === 4 && req.rawHeaders[i]!.toLowerCase() === 'host') hosts++;
  if (hosts > 1) return 'a request must have one Host header';
  const te = headers['transfer-encoding'];
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked') return `Transfer-Encoding ${te} is not supported; send chunked, or a Content-Length (gzip goes in Content-Encoding)`;
  return undefined;
}

// No named closures in this per-request path (see uws-server.ts: tsx's keepNames).
function onRequest(server: HttpServer, req: IncomingMessage, res: ServerResponse, expectContinue = false): void {
  const receivedAt = performance.now();
  const method = req.method ?? 'GET';
  let url = req.url ?? '/';
  // An absolute-form target (a proxy's): its path and query.
  if (url.charCodeAt(0) !== 47 /* / */ && /^https?:\/\//i.test(url)) url = url.replace(/^https?:\/\/[^/?#]*/i, '') || '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const headers = req.headers as Record<string, string>;
  const reply = new NodeReply(req, res);
  // A connection reset mid-body destroys the request with an error: nothing to answer.
  req.on('error', ignore);
  const bad = malformed(req, headers);
  if (bad !== undefined) {
    req.resume();
    server.refuse(reply, new AppError('bad_request', bad), requestIdOf(headers), 'unmatched', receivedAt, true);
    return;
  }
  const routed = server.route(reply, method, path, rawQuery, headers, receivedAt);
  if (!routed) {
    req.resume();
    return;
  }
  const { route, params, requestId } = routed;
  if (!routed.tooLarge && (method === 'GET' || method === 'DELETE' || method === 'HEAD')) {
    // Bodies of these methods are ignored (read and discarded).
    if (expectContinue) res.writeContinue();
    req.resume();
    server.run(reply, new IncomingRequest(method, path, params, rawQuery, headers, EMPTY, requestId, receivedAt), route);
    return;
  }
  const head = { method, path, rawQuery, headers, receivedAt };
  // The route's credential check, run once: its outcome goes to the handler.
  const check = server.preauthenticate(route, headers);
  if (!expectContinue) {
    readBody(req, res, new BodyReader(server, reply, routed, head, check));
    return;
  }
  // Expect: 100-continue: the client waits for the go-ahead, given only to good credentials.
  if (check instanceof Promise) void check.then((c) => continueOrRefuse(server, req, res, reply, routed, head, c));
  else continueOrRefuse(server, req, res, reply, routed, head, check);
}

function continueOrRefuse(server: HttpServer, req: IncomingMessage, res: ServerResponse, reply: NodeReply, routed: Routed, head: RequestHead, check: CredentialCheck | undefined): void {
  if (check === undefined || check.ok) {
    res.writeContinue();
    readBody(req, res, new BodyReader(server, reply, routed, head, check));
    return;
  }
  // Without the go-ahead the body is never read: the handler answers the credentials, and the connection closes.
  req.resume();
  const request = new IncomingRequest(head.method, head.path, routed.params, head.rawQuery, head.headers, EMPTY, routed.requestId, head.receivedAt, undefined, check);
  server.run(reply, request, routed.route, true);
}

function readBody(req: IncomingMessage, res: ServerResponse, reader: BodyReader): void {
  req.on('data', (chunk: Buffer) => reader.push(chunk));
  req.on('end', () => reader.end());
  // A client gone before its request ran gives its body's memory back (after it ran, the answer does).
  res.once('close', () => reader.abort());
}

const EMPTY = Buffer.alloc(0);

/**
 * A request Node's parser refused (malformed, ambiguous length, headers too large) or one
 * too slow to arrive: a JSON error like every other, then the connection is closed.
 */
function onClientError(err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex, timeouts: HttpTimeouts): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  let code: ErrorCode = 'bad_request';
  let message = `the request is not valid HTTP/1.1: ${err.reason ?? err.message}`;
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    code = 'headers_too_large';
    message = 'the request headers are too large';
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    code = 'request_timeout';
    message = `the request did not arrive in time (headers within ${timeouts.headersMs / 1000} s, the whole request within ${timeouts.requestMs / 1000} s)`;
  } else if (err.code === 'HPE_UNEXPECTED_CONTENT_LENGTH' || err.code === 'HPE_INVALID_TRANSFER_ENCODING') {
    message = `the request's length is ambiguous (${err.reason ?? err.message}); send one Content-Length or chunked encoding`;
  }
  endWithError(socket, new AppError(code, message));
}

/** Writes a JSON error on a socket no request owns (a refused parse, CONNECT) and closes it. */
function endWithError(socket: Duplex, err: AppError): void {
  const requestId = requestIdOf({});
  const body = JSON.stringify(errorBody(err, requestId));
  const status = err.status;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
}
