import { afterAll, describe, expect, it } from 'vitest';
import { HttpServer } from './server.ts';

const server = new HttpServer();
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
    const s = new HttpServer();
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
