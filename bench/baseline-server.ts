// The benchmark's baseline: a bare endpoint (uWebSockets.js or Node's HTTP stack, as the
// second argument says) that reads the body, JSON-parses it and answers 202. Tally's
// ingest is measured as a ratio to this.
//   node --import tsx bench/baseline-server.ts <port> <uws|node>
import { serveBare, type BareKind } from './bare-http.ts';

const port = Number(process.argv[2] ?? 18_999);
const kind = (process.argv[3] ?? 'uws') as BareKind;
await serveBare(kind, port, (body) => {
  JSON.parse(body.toString('utf8'));
  return 202;
});
process.stdout.write('ready\n');
