import type { HttpRequest, HttpResponse, Route } from '../shared/http/types.ts';
import type { ConsoleAsset, ConsoleBundle } from './build.ts';

/**
 * The console's Content-Security-Policy: scripts and styles only from this origin (no
 * inline script or style, no eval), API calls only to this origin, nothing embeds it.
 * The invoice preview is a sandboxed same-origin frame without scripts.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cache-control': 'no-cache',
};

/** What a versioned script or style sheet is cached with: its address changes with its content. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * One asset. The page is `no-cache` (revalidated with its ETag each load); a script or style
 * sheet asked for with its current `?v=` (the address the page names) is cached for a year as
 * immutable, without it or with another version `no-cache`.
 */
function serve(a: ConsoleAsset, req: HttpRequest, versioned: boolean): HttpResponse {
  const headers: Record<string, string> = { ...SECURITY_HEADERS, etag: a.etag, vary: 'accept-encoding' };
  if (versioned && req.query.get('v') === a.version) headers['cache-control'] = IMMUTABLE;
  if (req.headers['if-none-match'] === a.etag) return { status: 304, raw: '', headers };
  const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
  if (gzip) headers['content-encoding'] = 'gzip';
  return { status: 200, raw: gzip ? a.gzip : a.body, contentType: a.contentType, headers };
}

/**
 * The console's routes (served by the api role): the page at `/console`, its script and
 * style sheet. No credential: the page signs in with an API key the person types, kept in
 * the tab's sessionStorage and sent as `Authorization: Bearer` to the API.
 */
export function consoleRoutes(bundle: ConsoleBundle): Route[] {
  const get = (path: string, a: ConsoleAsset, summary: string, versioned = true): Route => ({ method: 'GET', path, summary, handler: (req) => serve(a, req, versioned) });
  return [
    get('/console', bundle.html, 'The console (HTML page)', false),
    get('/console/app.js', bundle.js, "The console's script"),
    get('/console/app.css', bundle.css, "The console's style sheet"),
  ];
}
