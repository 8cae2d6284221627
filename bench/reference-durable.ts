// The durable-publish reference of the batch benchmark: a bare uWebSockets.js endpoint
// that reads the body, JSON-parses it, publishes it once to a JetStream stream configured
// as Tally's events stream (file storage, work queue, duplicate window) with a
// Nats-Msg-Id, waits for the PubAck and answers 202. The cost of durability with no
// Tally code: Tally's batch throughput is reported as a ratio of it.
//   node --import tsx bench/reference-durable.ts <port> <stream prefix>
import uWS from 'uWebSockets.js';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { deleteEventsStream, ensureEventsStream } from '../shared/nats/connection.ts';
import { natsNames } from '../shared/nats/names.ts';

const port = Number(process.argv[2] ?? 18_998);
const names = natsNames(process.argv[3] ?? `REF${Date.now().toString(36)}_`);
const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
// Sized as Tally's default stream (4 GiB); the benchmark empties it before each round.
await ensureEventsStream(nc, names, { maxBytes: 4 * 1024 * 1024 * 1024, duplicateWindowMs: 120_000 });
const js = jetstream(nc);
let counter = 0;
const prefix = `ref-${process.pid}-`;

uWS
  .App()
  .post('/*', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(new Uint8Array(chunk).slice()));
      if (!isLast) return;
      const body = Buffer.concat(chunks);
      JSON.parse(body.toString('utf8'));
      js.publish(names.eventsSubject, body, { msgID: prefix + counter++ }).then(
        () => {
          if (!aborted) res.cork(() => res.writeStatus('202 Accepted').writeHeader('content-type', 'application/json').end('{"ok":true}'));
        },
        () => {
          if (!aborted) res.cork(() => res.writeStatus('503 Service Unavailable').end());
        },
      );
    });
  })
  .listen('127.0.0.1', port, (s) => {
    if (!s) process.exit(1);
    process.stdout.write('ready\n');
  });

const stop = async () => {
  await deleteEventsStream(nc, names).catch(() => {});
  await nc.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
