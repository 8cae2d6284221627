// The benchmark's baseline: a bare uWebSockets.js endpoint that reads the body,
// JSON-parses it and answers 202. Tally's ingest is measured as a ratio to this.
import uWS from 'uWebSockets.js';

const port = Number(process.argv[2] ?? 18_999);
uWS
  .App()
  .post('/*', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (!isLast) return;
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!aborted) res.cork(() => res.writeStatus('202 Accepted').writeHeader('content-type', 'application/json').end('{"ok":true}'));
    });
  })
  .listen('127.0.0.1', port, (s) => {
    if (!s) process.exit(1);
    process.stdout.write('ready\n');
  });
