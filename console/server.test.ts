import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import type { HttpRequest, Route } from '../shared/http/types.ts';
import { buildConsole, type ConsoleBundle } from './build.ts';
import { CONSOLE_CSP, IMMUTABLE, consoleRoutes } from './server.ts';

let bundle: ConsoleBundle;
let routes: Route[];
beforeAll(async () => {
  bundle = await buildConsole();
  routes = consoleRoutes(bundle);
});

const get = async (url: string, headers: Record<string, string> = {}) => {
  const [path, search] = url.split('?') as [string, string | undefined];
  const route = routes.find((r) => r.path === path)!;
  return route.handler({ method: 'GET', path, headers, params: {}, query: new URLSearchParams(search ?? ''), body: Buffer.alloc(0), requestId: 'r', receivedAt: 0 } as HttpRequest);
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

  it('cache the versioned script and style sheet for a year (immutable), the page and unversioned addresses no-cache', async () => {
    const html = String((await get('/console')).raw);
    expect((await get('/console')).headers!['cache-control']).toBe('no-cache');
    for (const [path, asset] of [['/console/app.js', bundle.js], ['/console/app.css', bundle.css]] as const) {
      // The page names the current version.
      expect(html).toContain(`${path}?v=${asset.version}`);
      const versioned = await get(`${path}?v=${asset.version}`);
      expect(versioned.status).toBe(200);
      expect(versioned.headers!['cache-control']).toBe(IMMUTABLE);
      expect(IMMUTABLE).toBe('public, max-age=31536000, immutable');
      expect(versioned.headers!['content-security-policy']).toBe(CONSOLE_CSP);
      expect((await get(path)).headers!['cache-control']).toBe('no-cache');
      expect((await get(`${path}?v=stale000`)).headers!['cache-control']).toBe('no-cache');
    }
  });

  it('name an icon the policy allows, so the browser asks no /favicon.ico', async () => {
    const html = String((await get('/console')).raw);
    expect(html).toContain('<link rel="icon" href="data:,">');
    expect(CONSOLE_CSP).toMatch(/img-src 'self' data:/);
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
