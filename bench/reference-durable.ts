// The durable-publish reference of the batch benchmark: a bare endpoint (uWebSockets.js or
// Node's HTTP stack, as the third argument says) that reads the body, JSON-parses it, publishes it once to a JetStream stream configured
// as Tally's events stream (file storage, work queue, duplicate window) with a
// Nats-Msg-Id, waits for the PubAck and answers 202. The cost of durability with no
// Tally code: Tally's batch throughput is reported as a ratio of it.
//   node --import tsx bench/reference-durable.ts <port> <stream prefix> <uws|node>
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { deleteEventsStream, ensureEventsStream } from '../shared/nats/connection.ts';
import { natsNames } from '../shared/nats/names.ts';
import { serveBare, type BareKind } from './bare-http.ts';

const port = Number(process.argv[2] ?? 18_998);
const names = natsNames(process.argv[3] ?? `REF${Date.now().toString(36)}_`);
const nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
// Sized as Tally's default stream (4 GiB); the benchmark empties it before each round.
await ensureEventsStream(nc, names, { maxBytes: 4 * 1024 * 1024 * 1024, duplicateWindowMs: 120_000 });
const js = jetstream(nc);
let counter = 0;
const prefix = `ref-${process.pid}-`;

await serveBare((process.argv[4] ?? 'uws') as BareKind, port, async (body) => {
  JSON.parse(body.toString('utf8'));
  try {
    await js.publish(names.eventsSubject, body, { msgID: prefix + counter++ });
    return 202;
  } catch {
    return 503;
  }
});
process.stdout.write('ready\n');

const stop = async () => {
  await deleteEventsStream(nc, names).catch(() => {});
  await nc.close();
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
