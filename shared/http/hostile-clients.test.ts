import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpServer, type HttpServerKind } from './server.ts';
import { loadUws } from './uws-server.ts';

// Broken and hostile clients on raw sockets (loopback, bounded in count and time), against
// each server Tally can run: Node's HTTP stack always, uWebSockets.js where its binary
// loads on this runtime. What uWS cannot do (HTTP/1.0, pipelining behind a pending
// answer, closing idle connections) is documented in the README ("HTTP server") and
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
