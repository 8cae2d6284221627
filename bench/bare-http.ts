// A bare HTTP endpoint for the benchmarks' baselines and references, on either server Tally
// can run: uWebSockets.js (where its binary loads) or Node's HTTP stack. It reads each
// POST body whole and answers what `handle` returns; nothing else.
import http from 'node:http';
import { loadUws } from '../shared/http/uws-server.ts';

export type BareKind = 'uws' | 'node';
type Handle = (body: Buffer) => Promise<number> | number;

/** Serves `handle` on 127.0.0.1:port with the given server; resolves once listening. */
export function serveBare(kind: BareKind, port: number, handle: Handle): Promise<void> {
  return kind === 'uws' ? serveUws(port, handle) : serveNode(port, handle);
}

const STATUS: Record<number, string> = { 202: '202 Accepted', 503: '503 Service Unavailable' };

function serveUws(port: number, handle: Handle): Promise<void> {
  const uws = loadUws();
  if (!uws.ok) throw new Error(`bare uWS: ${uws.reason}`);
  return new Promise((resolve, reject) => {
    uws.module
      .App()
      .post('/*', (res) => {
        let aborted = false;
        res.onAborted(() => (aborted = true));
        const chunks: Buffer[] = [];
        res.onData((chunk, isLast) => {
          chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
          if (!isLast) return;
          const answer = (status: number) => {
            if (!aborted) res.cork(() => res.writeStatus(STATUS[status]!).writeHeader('content-type', 'application/json').end('{"ok":true}'));
          };
          const status = handle(Buffer.concat(chunks));
          if (typeof status === 'number') answer(status);
          else void status.then(answer);
        });
      })
      .listen('127.0.0.1', port, (s) => (s ? resolve() : reject(new Error(`cannot listen on ${port}`))));
  });
}

function serveNode(port: number, handle: Handle): Promise<void> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number) => {
        res.writeHead(status, { 'content-type': 'application/json', 'content-length': 11 });
        res.end('{"ok":true}');
      };
      const status = handle(Buffer.concat(chunks));
      if (typeof status === 'number') answer(status);
      else void status.then(answer);
    });
  });
  server.keepAliveTimeout = 10_000;
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
}
