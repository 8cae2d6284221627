import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { BodyBudget } from './body-budget.ts';
import { HttpServer, type HttpServerKind } from './server.ts';
import { loadUws } from './uws-server.ts';

// Every server Tally can run: Node's HTTP stack, and uWebSockets.js where its binary loads.
const kinds: HttpServerKind[] = loadUws().ok ? ['node', 'uws'] : ['node'];

describe.each(kinds)('the %s server', (kind) => {
  const server = new HttpServer({ server: kind });
  afterAll(() => server.close());

  describe('HttpServer while starting', () => {
    it('answers a path no role has added yet with a retryable 503, then 404 once started', async () => {
      const port = await server.listen('127.0.0.1', 0);
      const get = (p: string) => fetch(`http://127.0.0.1:${port}${p}`);
      const early = await get('/v1/actions');
      expect(early.status).toBe(503);
      expect(early.headers.get('retry-after')).toBe('1');
      expect(((await early.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
      server.add({ method: 'GET', path: '/v1/actions', handler: () => ({ status: 200, body: { ok: true } }) });
      expect((await get('/v1/actions')).status).toBe(200);
      server.started();
      expect((await get('/v1/nothing')).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/v1/actions`, { method: 'DELETE' })).status).toBe(405);
    });
  });

  describe('X-Request-Id', () => {
    it('comes with every error (the id of its body) and echoes a client id, but is left off a plain 2xx', async () => {
      const s = new HttpServer({ server: kind });
      try {
        const port = await s.listen('127.0.0.1', 0);
        s.add({ method: 'GET', path: '/ok', handler: () => ({ status: 200, body: { ok: true } }) });
        s.started();
        const url = `http://127.0.0.1:${port}`;
        const ok = await fetch(`${url}/ok`);
        expect(ok.status).toBe(200);
        expect(ok.headers.get('x-request-id')).toBeNull();
        const echoed = await fetch(`${url}/ok`, { headers: { 'x-request-id': 'trace-42' } });
        expect(echoed.headers.get('x-request-id')).toBe('trace-42');
        const missing = await fetch(`${url}/nothing`);
        expect(missing.status).toBe(404);
        const id = missing.headers.get('x-request-id');
        expect(id).toMatch(/^req_/);
        expect(((await missing.json()) as { error: { request_id: string } }).error.request_id).toBe(id);
        // An id that is not a safe token is replaced, not echoed.
        const unsafe = await fetch(`${url}/ok`, { headers: { 'x-request-id': 'a b' } });
        expect(unsafe.headers.get('x-request-id')).toBeNull();
      } finally {
        s.close();
      }
    });
  });

  describe('an oversized body', () => {
    it('is read and discarded before the 413, so a client still sending reads the answer (declared or chunked)', async () => {
      const s = new HttpServer({ server: kind });
      try {
        const port = await s.listen('127.0.0.1', 0);
        s.add({ method: 'POST', path: '/in', maxBodyBytes: 1024 * 1024, handler: (req) => ({ status: 200, body: { bytes: req.body.length } }) });
        s.started();
        const url = `http://127.0.0.1:${port}/in`;
        const big = Buffer.alloc(11 * 1024 * 1024, 0x61);
        for (let i = 0; i < 10; i++) {
          const res = await fetch(url, { method: 'POST', body: big, headers: { 'content-type': 'application/json' } });
          expect(res.status).toBe(413);
          expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
        }
        // Without a Content-Length: the limit is found while reading.
        const chunked = new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < 12; i++) c.enqueue(new Uint8Array(big.subarray(0, 1024 * 1024)));
            c.close();
          },
        });
        const res = await fetch(url, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit);
        expect(res.status).toBe(413);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
        // The connection is still good for the next request.
        const small = await fetch(url, { method: 'POST', body: '{}' });
        expect(await small.json()).toEqual({ bytes: 2 });
      } finally {
        s.close();
      }
    });

    it('refuses a path or query parameter holding a NUL with a 400 naming it', async () => {
      const s = new HttpServer({ server: kind });
      try {
        const port = await s.listen('127.0.0.1', 0);
        s.add({ method: 'GET', path: '/things/:id', handler: (req) => ({ status: 200, body: { id: req.params.id } }) });
        s.started();
        const url = `http://127.0.0.1:${port}`;
        const inPath = await fetch(`${url}/things/abc%00def`);
        expect(inPath.status).toBe(400);
        expect(((await inPath.json()) as { error: { message: string } }).error.message).toMatch(/path parameter id contains a NUL/);
        const inQuery = await fetch(`${url}/things/abc?customer_id=%00`);
        expect(inQuery.status).toBe(400);
        expect(((await inQuery.json()) as { error: { message: string } }).error.message).toMatch(/query parameter customer_id/);
        expect((await fetch(`${url}/things/abc?customer_id=%2500`)).status).toBe(200);
      } finally {
        s.close();
      }
    });
  });
  describe('the budget of body memory', () => {
    it('answers 503 with Retry-After to bodies beyond it (declared or chunked), keeps serving small ones, and takes back what answered or abandoned requests held', async () => {
      const MiB = 1024 * 1024;
      const bodies = new BodyBudget(16 * MiB); // large requests may hold up to 14 MiB
      const s = new HttpServer({ server: kind, bodies });
      let open: () => void = () => {};
      const gate = new Promise<void>((r) => (open = r));
      try {
        const port = await s.listen('127.0.0.1', 0);
        s.add(
          { method: 'POST', path: '/hold', maxBodyBytes: 64 * MiB, handler: async (req) => (await gate, { status: 200, body: { bytes: req.body.length } }) },
          { method: 'POST', path: '/in', maxBodyBytes: 64 * MiB, handler: (req) => ({ status: 200, body: { bytes: req.body.length } }) },
        );
        s.started();
        const url = `http://127.0.0.1:${port}`;
        const big = Buffer.alloc(10 * MiB, 0x61);
        const held = fetch(`${url}/hold`, { method: 'POST', body: big });
        await until(() => bodies.used >= 10 * MiB);
        const refused = await fetch(`${url}/in`, { method: 'POST', body: big });
        expect(refused.status).toBe(503);
        expect(refused.headers.get('retry-after')).toBe('1');
        expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'service_unavailable', message: expect.stringMatching(/TALLY_MAX_INFLIGHT_BODY_BYTES/) });
        // A body that could never fit, whatever is held, is a 413 (not worth retrying).
        const never = await fetch(`${url}/in`, { method: 'POST', body: Buffer.alloc(15 * MiB) });
        expect(never.status).toBe(413);
        expect(((await never.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');
        // Without a Content-Length the budget is found short while reading.
        const chunked = new ReadableStream<Uint8Array>({
          start(c) {
            for (let i = 0; i < 6; i++) c.enqueue(new Uint8Array(big.subarray(0, MiB)));
            c.close();
          },
        });
        expect((await fetch(`${url}/in`, { method: 'POST', body: chunked, duplex: 'half' } as RequestInit)).status).toBe(503);
        // Small requests still go through.
        const small = await fetch(`${url}/in`, { method: 'POST', body: Buffer.alloc(64 * 1024) });
        expect(await small.json()).toEqual({ bytes: 64 * 1024 });
        // What the refused chunked body held is garbage until collected (at most 2 s).
        await until(() => bodies.used === 10 * MiB);
        // A client that leaves mid-body gives its share back.
        const sock = net.connect(port, '127.0.0.1');
        sock.write(`POST /in HTTP/1.1\r\nhost: x\r\ncontent-length: ${2 * MiB}\r\n\r\n`);
        sock.write(big.subarray(0, MiB));
        await until(() => bodies.used === 12 * MiB);
        sock.destroy();
        await until(() => bodies.used === 10 * MiB);
        open();
        expect(await (await held).json()).toEqual({ bytes: 10 * MiB });
        await until(() => bodies.used === 0);
        expect(((await (await fetch(`${url}/in`, { method: 'POST', body: big })).json()) as { bytes: number }).bytes).toBe(10 * MiB);
        await until(() => bodies.used === 0);
      } finally {
        open();
        s.close();
      }
    });
  });
});

async function until(done: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}
