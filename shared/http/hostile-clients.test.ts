import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServer, type HttpServerKind } from './server.ts';
import { loadUws } from './uws-server.ts';

// Broken and hostile clients on raw sockets (loopback, bounded in count and time), against
// each server Tally can run: Node's HTTP stack always, uWebSockets.js where its binary
// loads on this runtime. What uWS cannot do (HTTP/1.0, pipelining behind a pending
// answer, closing idle connections) is documented in the docs/architecture.md ("HTTP server") and
// checked here as what it does instead: nothing is carried out that is not answered.

const uws = loadUws();
const kinds: HttpServerKind[] = uws.ok ? ['node', 'uws'] : ['node'];
if (!uws.ok) console.log(`hostile-clients: uWebSockets.js not tested on this runtime: ${uws.reason}`);

interface RawResult {
  text: string;
  closed: boolean;
}

/** Sends bytes on a new connection; resolves with what came back once it closes or after `waitMs`. */
function raw(port: number, payload: string | string[], waitMs = 1500): Promise<RawResult> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let text = '';
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, closed });
    };
    socket.on('data', (d) => (text += d.toString('latin1')));
    socket.on('error', () => {});
    socket.on('close', () => settle(true));
    const parts = Array.isArray(payload) ? payload : [payload];
    socket.on('connect', async () => {
      for (const p of parts) {
        socket.write(p);
        if (parts.length > 1) await new Promise((r) => setTimeout(r, 50));
      }
    });
    const timer = setTimeout(() => settle(false), waitMs);
  });
}

/** The status codes of the responses in a byte stream, in order. */
function statuses(text: string): number[] {
  return [...text.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}

const post = (body: string, extra = '') => `POST /in HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

describe.each(kinds)('the %s server against broken and hostile clients', (kind) => {
  let server: HttpServer;
  let port: number;
  const stored: string[] = [];
  const keyedBodies: number[] = [];
  beforeAll(async () => {
    server = new HttpServer({ server: kind, timeouts: { idleMs: 600, headersMs: 1000 } });
    expect(server.kind).toBe(kind);
    server.add(
      {
        method: 'POST',
        path: '/in',
        handler: async (req) => {
          // An event store would publish and wait here.
          await new Promise((r) => setTimeout(r, 20));
          stored.push(req.body.toString());
          return { status: 200, body: { stored: req.body.toString() } };
        },
      },
      { method: 'GET', path: '/readyz', handler: () => ({ status: 200, body: { ready: true } }) },
      {
        // A route that checks credentials before its body is read, as the event routes do.
        method: 'POST',
        path: '/keyed',
        maxBodyBytes: 8 * 1024 * 1024,
        authenticate: async (headers) => {
          await new Promise((r) => setTimeout(r, 5));
          if (headers['authorization'] !== 'Bearer good') throw new Error('bad key');
        },
        handler: (req) => {
          keyedBodies.push(req.body.length);
          return req.headers['authorization'] === 'Bearer good'
            ? { status: 200, body: { bytes: req.body.length } }
            : { status: 401, body: { error: { code: 'unauthorized', message: 'bad key', request_id: req.requestId } } };
        },
      },
    );
    server.started();
    port = await server.listen('127.0.0.1', 0);
  });
  afterAll(() => server.close());
  const reset = () => stored.splice(0);

  it('answers two differing Content-Length headers with a 400 and closes, running nothing smuggled behind them', async () => {
    reset();
    const alone = await raw(port, 'POST /in HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}');
    expect(statuses(alone.text)).toEqual([400]);
    expect(alone.text).toContain('"code":"bad_request"');
    expect(alone.closed).toBe(true);

    const smuggling = await raw(port, 'POST /in HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 70\r\n\r\n{}' + post('{"smuggled":1}'));
    expect(smuggling.closed).toBe(true);
    // Node's parser answers 400; uWS finds the smuggled request behind a pending one and closes first.
    expect(statuses(smuggling.text)).toEqual(kind === 'node' ? [400] : []);
    await new Promise((r) => setTimeout(r, 100));
    expect(stored).toEqual([]);
  });

  it('answers Transfer-Encoding beside Content-Length with a 400 and closes', async () => {
    reset();
    const r = await raw(port, 'POST /in HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n2\r\n{}\r\n0\r\n\r\n');
    // uWS reads 5 bytes of body and finds no request in the rest: it may close before the 400 is written.
    if (kind === 'node' || r.text !== '') expect(statuses(r.text)).toEqual([400]);
    expect(r.closed).toBe(true);
    await new Promise((r) => setTimeout(r, 100));
    expect(stored).toEqual([]);
  });

  it('answers pipelined requests in order (Node), or carries out none of them (uWS closes the connection)', async () => {
    reset();
    const two = await raw(port, post('{"n":1}') + post('{"n":2}'));
    const thenGet = await raw(port, post('{"n":3}') + 'GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n');
    await new Promise((r) => setTimeout(r, 100));
    if (kind === 'node') {
      expect(statuses(two.text)).toEqual([200, 200]);
      expect(two.text.indexOf('{\\"n\\":1}')).toBeLessThan(two.text.indexOf('{\\"n\\":2}'));
      expect(statuses(thenGet.text)).toEqual([200, 200]);
      expect(thenGet.text).toMatch(/stored[\s\S]*"ready":true/);
      expect(stored.sort()).toEqual(['{"n":1}', '{"n":2}', '{"n":3}']);
    } else {
      for (const r of [two, thenGet]) {
        expect(r.closed).toBe(true);
        expect(statuses(r.text)).toEqual([]);
      }
      expect(stored).toEqual([]);
    }
  });

  it('answers pipelined requests that are answered at once, in order', async () => {
    const r = await raw(port, 'GET /readyz HTTP/1.1\r\nHost: t\r\n\r\nGET /readyz HTTP/1.1\r\nHost: t\r\n\r\nGET /nothing HTTP/1.1\r\nHost: t\r\n\r\n');
    expect(statuses(r.text)).toEqual([200, 200, 404]);
  });

  it.skipIf(kind === 'uws')('answers HTTP/1.0 requests, with or without Host, and closes after each', async () => {
    reset();
    for (const req of ['GET /readyz HTTP/1.0\r\n\r\n', 'GET /readyz HTTP/1.0\r\nHost: t\r\n\r\n']) {
      const r = await raw(port, req);
      expect(statuses(r.text)).toEqual([200]);
      expect(r.closed).toBe(true);
    }
    const p = await raw(port, 'POST /in HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 7\r\n\r\n{"n":4}');
    expect(statuses(p.text)).toEqual([200]);
    expect(p.closed).toBe(true);
    expect(stored).toEqual(['{"n":4}']);
  });

  it.skipIf(kind === 'uws')('answers an HTTP/1.1 request without Host, or with garbage for a request line, with a JSON 400', async () => {
    for (const req of ['GET /readyz HTTP/1.1\r\n\r\n', 'HELLO\r\n\r\n', 'GET /readyz HTTP/1.1\r\nHost: t\r\nBad Header\r\n\r\n']) {
      const r = await raw(port, req);
      expect(statuses(r.text)).toEqual([400]);
      expect(r.text).toContain('"code":"bad_request"');
      expect(r.closed).toBe(true);
    }
  });

  it.skipIf(kind === 'uws')('closes an idle keep-alive connection after the idle timeout, and a slow client with a 408', async () => {
    const started = Date.now();
    const idle = await raw(port, 'GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n', 5000);
    expect(statuses(idle.text)).toEqual([200]);
    expect(idle.closed).toBe(true);
    expect(Date.now() - started).toBeLessThan(3000);
    const neverSent = await raw(port, '', 5000);
    expect(neverSent.closed).toBe(true);
    const slow = await raw(port, 'GET /readyz HTTP/1.1\r\nHost: t\r\n', 5000);
    expect(statuses(slow.text)).toEqual([408]);
    expect(slow.text).toContain('"code":"request_timeout"');
    expect(slow.closed).toBe(true);
  });

  it('reads no body behind bad credentials: the handler answers with an empty one, early, and the connection closes', async () => {
    keyedBodies.splice(0);
    const big = Buffer.alloc(3 * 1024 * 1024, 0x61).toString('latin1');
    const keyless = await raw(port, `POST /keyed HTTP/1.1\r\nHost: t\r\nContent-Length: ${big.length}\r\n\r\n${big}`, 5000);
    expect(statuses(keyless.text)).toEqual([401]);
    // (uWS sends Connection: close but keeps reading what the client still sends.)
    if (kind === 'node') expect(keyless.closed).toBe(true);
    const keyed = await raw(port, `POST /keyed HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer good\r\nContent-Length: ${big.length}\r\n\r\n${big}`, 5000);
    expect(statuses(keyed.text)).toEqual([200]);
    expect(keyed.text).toContain(`"bytes":${big.length}`);
    expect(keyedBodies).toEqual([0, big.length]);
  });

  it.skipIf(kind === 'uws')('answers a request its client half-closed after sending, then closes; nothing is done twice', async () => {
    reset();
    const answer = await new Promise<RawResult>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.on('data', (d) => (text += d.toString('latin1')));
      socket.on('error', () => {});
      socket.on('close', () => resolve({ text, closed: true }));
      socket.on('connect', () => socket.end(post('{"n":"half"}')));
      setTimeout(() => socket.destroy(), 3000);
    });
    expect(statuses(answer.text)).toEqual([200]);
    expect(stored).toEqual(['{"n":"half"}']);
  });

  it.skipIf(kind === 'uws')('gives Expect: 100-continue only to good credentials, and answers other expectations with a JSON 400', async () => {
    keyedBodies.splice(0);
    const refused = await raw(port, 'POST /keyed HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 20000000\r\n\r\n', 3000);
    expect(statuses(refused.text)).toEqual([401]);
    expect(refused.text).not.toContain('100 Continue');
    expect(refused.closed).toBe(true);
    const welcome = await raw(port, ['POST /keyed HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer good\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n', '{}'], 3000);
    expect(welcome.text).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(keyedBodies).toEqual([0, 2]);
    const odd = await raw(port, 'POST /in HTTP/1.1\r\nHost: t\r\nExpect: foo\r\nContent-Length: 2\r\n\r\n{}');
    expect(statuses(odd.text)).toEqual([400]);
    expect(odd.text).toContain('"code":"bad_request"');
  });

  it.skipIf(kind === 'uws')('refuses two Host headers, other transfer codings, other HTTP versions and CONNECT, in JSON; answers HEAD and absolute-form targets', async () => {
    for (const req of [
      'GET /readyz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n',
      'POST /in HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n',
      'GET /readyz\r\n\r\n',
      'GET /readyz HTTP/2.0\r\nHost: t\r\n\r\n',
    ]) {
      const r = await raw(port, req);
      expect(statuses(r.text), req).toEqual([400]);
      expect(r.text).toContain('"code":"bad_request"');
    }
    const connect = await raw(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(statuses(connect.text)).toEqual([405]);
    expect(connect.text).toContain('"code":"method_not_allowed"');
    const head = await raw(port, 'HEAD /readyz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
    expect(statuses(head.text)).toEqual([200]);
    expect(head.text).toMatch(/content-length: 14\r\n/i);
    expect(head.text.endsWith('\r\n\r\n')).toBe(true);
    const absolute = await raw(port, 'GET http://t/readyz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n');
    expect(statuses(absolute.text)).toEqual([200]);
  });

  it('keeps serving a well-behaved client while hundreds of connections idle, dribble headers or send garbage', async () => {
    const bad: net.Socket[] = [];
    for (let i = 0; i < 300; i++) {
      const s = net.connect(port, '127.0.0.1');
      s.on('error', () => {});
      if (i % 3 === 1) s.write('POST /in HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n');
      if (i % 3 === 2) s.write('\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03garbage');
      bad.push(s);
    }
    try {
      const latencies: number[] = [];
      for (let i = 0; i < 40; i++) {
        const t = Date.now();
        const res = await fetch(`http://127.0.0.1:${port}/in`, { method: 'POST', body: `{"good":${i}}` });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        latencies.push(Date.now() - t);
      }
      latencies.sort((a, b) => a - b);
      expect(latencies[latencies.length - 1]).toBeLessThan(1000);
    } finally {
      for (const s of bad) s.destroy();
    }
  });
});
