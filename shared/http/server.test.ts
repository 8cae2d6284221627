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
