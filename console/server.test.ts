import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest, Route } from '../shared/http/types.ts';
import { buildConsole, type ConsoleBundle } from './build.ts';
import { CONSOLE_CSP, consoleRoutes } from './server.ts';

let bundle: ConsoleBundle;
let routes: Route[];
beforeAll(async () => {
  bundle = await buildConsole();
  routes = consoleRoutes(bundle);
});

const get = async (path: string, headers: Record<string, string> = {}) => {
  const route = routes.find((r) => r.path === path)!;
  return route.handler({ method: 'GET', path, headers, params: {}, query: new URLSearchParams(), body: Buffer.alloc(0), requestId: 'r', receivedAt: 0 } as HttpRequest);
};

describe('console routes', () => {
  it('serve the page, script and style sheet with the CSP, no inline script or style in the page', async () => {
    for (const path of ['/console', '/console/app.js', '/console/app.css']) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers!['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers!['x-content-type-options']).toBe('nosniff');
    }
    expect(CONSOLE_CSP).not.toMatch(/unsafe-(inline|eval)/);
    const html = String((await get('/console')).raw);
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|style=/);
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('answer gzip to clients that take it, and 304 to a current ETag', async () => {
    const gz = await get('/console/app.js', { 'accept-encoding': 'gzip, br' });
    expect(gz.headers!['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.raw as Uint8Array).equals(bundle.js.body)).toBe(true);
    const plain = await get('/console/app.js');
    expect(plain.headers!['content-encoding']).toBeUndefined();
    expect((await get('/console/app.js', { 'if-none-match': bundle.js.etag })).status).toBe(304);
  });

  it('load no script from elsewhere and stay under 300 KB compressed', () => {
    const js = bundle.js.body.toString('utf8');
    expect(js).not.toMatch(/\bimport\s*\(\s*["']https?:/);
    expect(js).not.toMatch(/\beval\(|new Function\(/);
    expect(bundle.js.gzip.length + bundle.css.gzip.length).toBeLessThan(300 * 1024);
  });
});
