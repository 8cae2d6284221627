/**
 * `npm run console:size`: the console's compressed size (gzip, as served) and the time to
 * its first screen (the sign-in form, interactive) in Chromium over loopback.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HttpRequest } from '../shared/http/types.ts';
import { buildConsole } from './build.ts';
import { consoleRoutes } from './server.ts';

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const started = performance.now();
const bundle = await buildConsole();
console.log(`build: ${(performance.now() - started).toFixed(0)} ms`);
console.log(`script: ${kb(bundle.js.body.length)} (${kb(bundle.js.gzip.length)} gzip); style sheet: ${kb(bundle.css.body.length)} (${kb(bundle.css.gzip.length)} gzip); page: ${kb(bundle.html.gzip.length)} gzip`);
console.log(`JavaScript loaded, compressed: ${kb(bundle.js.gzip.length)} (limit 300 KB)`);

const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium'].find((p): p is string => !!p && existsSync(p));
if (!chromium) {
  console.log('first screen: not measured (no chromium)');
  process.exit(0);
}
const routes = new Map(consoleRoutes(bundle).map((r) => [r.path, r]));
const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x');
  const route = routes.get(url.pathname);
  if (!route) return res.writeHead(404).end();
  const out = await route.handler({ method: 'GET', path: url.pathname, headers: req.headers as Record<string, string>, params: {}, query: url.searchParams, body: Buffer.alloc(0), requestId: 'size', receivedAt: 0 } as HttpRequest);
  res.writeHead(out.status, { 'content-type': out.contentType ?? 'text/plain', ...out.headers }).end(out.raw);
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const { port } = server.address() as AddressInfo;
const { chromium: driver } = await import('playwright-core');
const browser = await driver.launch({ executablePath: chromium, args: ['--no-sandbox'] });
const times: number[] = [];
for (let i = 0; i < 5; i++) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const t = performance.now();
  await page.goto(`http://127.0.0.1:${port}/console`);
  await page.getByLabel('API key').fill('x');
  times.push(performance.now() - t);
  await page.close();
}
await browser.close();
server.close();
times.sort((a, b) => a - b);
console.log(`first screen interactive (navigation to the sign-in form taking input), 5 cold page loads: median ${times[2]!.toFixed(0)} ms, worst ${times[4]!.toFixed(0)} ms`);
