import { deferred, setTransportFactory } from '@nats-io/transport-node';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport.js';
import { createConnection, type Socket } from 'node:net';

/** The least room a read is given (Node's own reads take 64 KiB). */
export const READ_BYTES = 1 << 20;
/** Reads go one after another into slabs of this size: a new slab when one has less than READ_BYTES left. */
const SLAB_BYTES = 4 * READ_BYTES;

/**
 * The NATS client's Node transport, reading its socket into large slabs.
 *
 * Node reads a socket 64 KiB at a time, each read into a buffer of its own. A message
 * larger than that (the sink's pulls bring micro-batches of ~80 KB) arrives in pieces,
 * which the client's parser joins by copying into buffers it grows by doubling: such a
 * message is allocated and copied two to three times over. Here each read takes up to
 * what is left of a 4 MiB slab (at least 1 MiB), and its bytes are handed on where they
 * were read, so most messages arrive whole and nothing is copied or allocated a read. A
 * slab is never written twice: the next starts fresh, and a slab lives as long as a
 * message still refers to it. The sink's CPU to receive and acknowledge its messages
 * fell by about half (`node --import tsx bench/nats-receive.ts`).
 *
 * Only the plain TCP connection is made here; the rest (the server's INFO, an upgrade to
 * TLS, reconnects) is nats.js's own, and a TLS socket reads as Node's do.
 */
export class LargeReadTransport extends NodeTransport {
  override dial(hp: { hostname: string; port: number }): Promise<Socket> {
    const d = deferred<Socket>();
    let dialError: Error | undefined;
    let slab = Buffer.allocUnsafe(SLAB_BYTES);
    let at = 0;
    // Node asks for the room of each next read, and calls back with what was read there.
    const buffer = (): Buffer => {
      if (slab.length - at < READ_BYTES) (slab = Buffer.allocUnsafe(SLAB_BYTES)), (at = 0);
      return slab.subarray(at);
    };
    // What was read goes to 'data' listeners as Node's own reads do (nats.js listens
    // there); true: go on reading.
    const callback = (n: number, buf: Uint8Array): boolean => {
      at += n;
      socket.emit('data', (buf as Buffer).subarray(0, n));
      return true;
    };
    const socket = createConnection({ port: hp.port, host: hp.hostname, onread: { buffer, callback } }, () => {
      d.resolve(socket);
      socket.removeAllListeners();
    });
    socket.on('error', (err) => (dialError = err));
    socket.on('close', () => {
      socket.removeAllListeners();
      d.reject(dialError);
    });
    socket.setNoDelay(true);
    return d;
  }
}

/** Makes the connections opened from now on (and their reconnects) use {@link LargeReadTransport}. */
export function useLargeReads(): void {
  setTransportFactory({ factory: () => new LargeReadTransport(), dnsResolveFn: nodeResolveHost });
}
