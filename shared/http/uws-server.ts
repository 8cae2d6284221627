import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { STATUS_CODES } from 'node:http';
import type * as uWS from 'uWebSockets.js';
import { AppError } from '../errors.ts';
import { BodyReader } from './body-reader.ts';
import { IncomingRequest, requestIdOf } from './request.ts';
import type { HttpServer, Reply, Transport } from './server.ts';
import type { HttpRequest, Route } from './types.ts';

type UwsModule = typeof uWS;
const require = createRequire(import.meta.url);

/**
 * uWebSockets.js's binary for this runtime (platform, architecture and Node.js ABI), loaded
 * directly: never the package's own "fallback" (a partial Node.js implementation that
 * fails at the first request), and never a binary built for another runtime. Fails, with
 * the reason, where the package has no binary for this Node.js line (it has Node 16, 18
 * and 20) or the binary does not load (e.g. a C library older than it needs).
 */
export function loadUws(): { ok: true; module: UwsModule; version: string } | { ok: false; reason: string } {
  let dir: string;
  try {
    dir = path.dirname(require.resolve('uWebSockets.js/package.json'));
  } catch {
    return { ok: false, reason: 'the uWebSockets.js package is not installed' };
  }
  const version = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  const runtime = `Node.js ${process.version} (ABI ${process.versions.modules}) on ${process.platform}-${process.arch}`;
  const file = path.join(dir, 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  if (!existsSync(file)) return { ok: false, reason: `uWebSockets.js ${version} has no binary for ${runtime}` };
  try {
    return { ok: true, module: require(file) as UwsModule, version };
  } catch (err) {
    return { ok: false, reason: `uWebSockets.js ${version}'s binary for ${runtime} does not load (${(err as Error).message.split('\n')[0]})` };
  }
}

/**
 * The uWebSockets.js listener. uWS answers only HTTP/1.1, refuses a request pipelined
 * behind one still being handled by closing the connection (by design), and leaves idle
 * keep-alive connections open: it is for deployments behind a proxy that speaks HTTP/1.1
 * to Tally (docs/architecture.md "HTTP server"). What it can be made to do here: ambiguous framing is
 * refused with a 400 and a closed connection, and a request with side effects runs only
 * if its connection is still open once the bytes received with it are parsed, so a
 * request whose connection uWS closed is never carried out unanswered.
 */
export function uwsTransport(server: HttpServer, uws: UwsModule): Transport {
  const app = uws.App();
  let listenSocket: uWS.us_listen_socket | undefined;
  app.any('/*', (res, req) => onRequest(server, res, req));
  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        app.listen(host, port, (socket) => {
          if (!socket) return reject(new Error(`cannot listen on ${host}:${port} (in use?)`));
          listenSocket = socket;
          resolve(uws.us_socket_local_port(socket as unknown as uWS.us_socket));
        });
      });
    },
    close() {
      if (listenSocket) uws.us_listen_socket_close(listenSocket);
      listenSocket = undefined;
    },
  };
}

const statusLine = new Map<number, string>();
function statusText(status: number): string {
  let s = statusLine.get(status);
  if (!s) statusLine.set(status, (s = `${status} ${STATUS_CODES[status] ?? ''}`.trim()));
  return s;
}

const EMPTY = Buffer.alloc(0);

class UwsReply implements Reply {
  answered = false;
  aborted = false;
  /** A HEAD request: the answer's headers without its body. */
  head = false;
  constructor(readonly res: uWS.HttpResponse) {}

  remoteAddress(): string {
    return Buffer.from(this.res.getRemoteAddressAsText()).toString();
  }

  end(status: number, contentType: string, requestIdHeader: string | undefined, extra: Record<string, string> | undefined, body: string | Uint8Array, close: boolean): void {
    const res = this.res;
    res.cork(() => {
      res.writeStatus(statusText(status));
      res.writeHeader('content-type', contentType);
      if (requestIdHeader !== undefined) res.writeHeader('x-request-id', requestIdHeader);
      if (extra) for (const k in extra) res.writeHeader(k, extra[k]!);
      if (this.head) res.endWithoutBody(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength, close);
      else res.end(body, close);
    });
  }
}

// TRICKY: no named closures (`const f = () => …`) in this per-request path: run through
// tsx, each is wrapped in a call that sets its name (esbuild's keepNames), a property
// definition per request that cost single events ~8% of ingest's CPU.
function onRequest(server: HttpServer, res: uWS.HttpResponse, req: uWS.HttpRequest): void {
  const receivedAt = performance.now();
  const method = req.getCaseSensitiveMethod().toUpperCase();
  const path = req.getUrl();
  const rawQuery = req.getQuery() ?? '';
  const headers: Record<string, string> = {};
  let framing: string | undefined;
  req.forEach((k, v) => {
    if (k === 'content-length' && headers[k] !== undefined && headers[k] !== v) framing = 'two differing Content-Length headers';
    headers[k] = v;
  });
  if (headers['transfer-encoding'] !== undefined && headers['content-length'] !== undefined) framing = 'both Transfer-Encoding and Content-Length';
  const reply = new UwsReply(res);
  res.onAborted(() => {
    reply.aborted = true;
  });
  if (framing !== undefined) {
    // RFC 9112 §6.3: a message whose length is ambiguous is answered 400 and its connection
    // closed. Answered once the bytes that came with it are parsed: a request smuggled
    // behind it finds this one pending, and uWS closes the connection without running it.
    res.onData(() => {});
    const err = new AppError('bad_request', `the request's length is ambiguous (${framing}); send one Content-Length or chunked encoding`);
    setImmediate(refuseIfOpen, server, reply, err, requestIdOf(headers), receivedAt);
    return;
  }
  const routed = server.route(reply, method, path, rawQuery, headers, receivedAt);
  if (!routed) return;
  const { route, params, requestId } = routed;
  reply.head = method === 'HEAD';

  if (!routed.tooLarge && (method === 'GET' || method === 'DELETE' || method === 'HEAD')) {
    // Bodies of these methods are ignored; uWS still needs onData for keep-alive correctness.
    res.onData(() => {});
    const request = new IncomingRequest(method, path, params, rawQuery, headers, EMPTY, requestId, receivedAt);
    if (method === 'DELETE') setImmediate(runIfOpen, server, reply, request, route);
    else server.run(reply, request, route);
    return;
  }
  const reader = new BodyReader(server, reply, routed, { method, path, rawQuery, headers, receivedAt }, server.preauthenticate(route, headers));
  // A client gone before its request ran gives its body's memory back (after it ran, the answer does).
  res.onAborted(() => {
    reply.aborted = true;
    reader.abort();
  });
  res.onData((chunk, isLast) => {
    if (reply.answered) return;
    // uWS reuses the chunk's memory after this callback returns: copy it.
    reader.push(Buffer.from(new Uint8Array(chunk)));
    // The request runs once the bytes that came with its body are parsed: uWS closes a
    // connection that pipelines a request behind this one, and then nothing is done.
    if (isLast) setImmediate(endIfOpen, reader, reply);
  });
}

function runIfOpen(server: HttpServer, reply: UwsReply, req: HttpRequest, route: Route): void {
  if (!reply.aborted) server.run(reply, req, route);
}

function endIfOpen(reader: BodyReader, reply: UwsReply): void {
  if (!reply.aborted) reader.end();
}

function refuseIfOpen(server: HttpServer, reply: UwsReply, err: AppError, requestId: string, receivedAt: number): void {
  if (!reply.aborted) server.refuse(reply, err, requestId, 'unmatched', receivedAt, true);
}

