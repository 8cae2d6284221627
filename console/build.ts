import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

/** One built file of the console, with its gzip form (served to clients that accept it). */
export interface ConsoleAsset {
  readonly body: Buffer;
  readonly gzip: Buffer;
  readonly contentType: string;
  /** Strong ETag (content hash). */
  readonly etag: string;
  /** The `?v=` the page asks for it with (the hash's first 8 characters): a new build, a new address. */
  readonly version: string;
}

/** The console as served: its page, script and style sheet. */
export interface ConsoleBundle {
  readonly html: ConsoleAsset;
  readonly js: ConsoleAsset;
  readonly css: ConsoleAsset;
}

const ENTRY = fileURLToPath(new URL('./src/main.tsx', import.meta.url));

function asset(body: Buffer, contentType: string): ConsoleAsset {
  const hash = createHash('sha256').update(body).digest('base64url');
  return { body, gzip: gzipSync(body, { level: 9 }), contentType, etag: `"${hash.slice(0, 22)}"`, version: hash.slice(0, 8) };
}

/**
 * The page: no inline script or style (the Content-Security-Policy forbids both). Its icon is
 * an empty `data:` one (the policy's `img-src` allows `data:`), so the browser asks no
 * `/favicon.ico` (a 404 on every load).
 */
function page(jsTag: string, cssTag: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Tally console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/app.css?v=${cssTag}">
<script type="module" src="/console/app.js?v=${jsTag}"></script>
</head>
<body><div id="app"><noscript>The Tally console needs JavaScript.</noscript></div></body>
</html>
`;
}

/**
 * Builds the console from console/src with esbuild, in memory (a few hundred
 * milliseconds): the api role builds it as it starts, so what is served is always the
 * source of this checkout, with no build step to forget.
 */
export async function buildConsole(): Promise<ConsoleBundle> {
  const out = await build({
    entryPoints: [ENTRY],
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    entryNames: 'app',
    write: false,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const file = (ext: string) => {
    const f = out.outputFiles.find((o) => o.path.endsWith(ext));
    if (!f) throw new Error(`console build produced no ${ext}`);
    return Buffer.from(f.contents);
  };
  const js = asset(file('.js'), 'text/javascript; charset=utf-8');
  const css = asset(file('.css'), 'text/css; charset=utf-8');
  const html = asset(Buffer.from(page(js.version, css.version)), 'text/html; charset=utf-8');
  return { html, js, css };
}
