import http, { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { AppError, errorBody, type ErrorCode } from '../errors.ts';
import { IncomingRequest, MAX_DRAIN_BYTES, requestIdOf, type HttpTimeouts } from './request.ts';
import type { HttpServer, Reply, Transport } from './server.ts';

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
  srv.on('clientError', (err: NodeJS.ErrnoException & { reason?: string }, socket: Duplex) => onClientError(err, socket, timeouts));
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

// No named closures in this per-request path (see uws-server.ts: tsx's keepNames).
function onRequest(server: HttpServer, req: IncomingMessage, res: ServerResponse): void {
  const receivedAt = performance.now();
  const method = req.method ?? 'GET';
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const headers = req.headers as Record<string, string>;
  const reply = new NodeReply(req, res);
  // A connection reset mid-body destroys the request with an error: nothing to answer.
  req.on('error', ignore);
  if (headers.host === undefined && req.httpVersionMinor === 1) {
    // RFC 9112 §3.2 (Node's own check would answer without a body).
    req.resume();
    server.refuse(reply, new AppError('bad_request', 'an HTTP/1.1 request must have a Host header'), requestIdOf(headers), 'unmatched', receivedAt, true);
    return;
  }
  const routed = server.route(reply, method, path, rawQuery, headers, receivedAt);
  if (!routed) {
    req.resume();
    return;
  }
  const { route, params, requestId, limit } = routed;
  let tooLarge = routed.tooLarge;
  if (!tooLarge && (method === 'GET' || method === 'DELETE' || method === 'HEAD')) {
    // Bodies of these methods are ignored (read and discarded).
    req.resume();
    server.run(reply, new IncomingRequest(method, path, params, rawQuery, headers, EMPTY, requestId, receivedAt), route);
    return;
  }
  let chunks: Buffer[] = [];
  let size = 0;
  let drained = 0;
  req.on('data', (chunk: Buffer) => {
    if (reply.answered) return;
    if (tooLarge) {
      drained += chunk.byteLength;
      // Past MAX_DRAIN_BYTES the 413 is sent at once and the connection closed.
      if (drained > MAX_DRAIN_BYTES) server.refuse(reply, tooLarge, requestId, route.path, receivedAt, true);
      return;
    }
    size += chunk.byteLength;
    if (size > limit) {
      tooLarge = new AppError('payload_too_large', `request body exceeds the limit of ${limit} bytes`);
      chunks = [];
      return;
    }
    chunks.push(chunk);
  });
  req.on('end', () => {
    if (reply.answered) return;
    if (tooLarge) {
      server.refuse(reply, tooLarge, requestId, route.path, receivedAt);
      return;
    }
    const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
    chunks = [];
    server.run(reply, new IncomingRequest(method, path, params, rawQuery, headers, body, requestId, receivedAt), route);
  });
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
  const appErr = new AppError(code, message);
  const requestId = requestIdOf({});
  const body = JSON.stringify(errorBody(appErr, requestId));
  const status = appErr.status;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${requestId}\r\nconnection: close\r\n\r\n${body}`,
  );
}
