import { deferred, setTransportFactory } from '@nats-io/transport-node';
import { NodeTransport, nodeResolveHost } from '@nats-io/transport-node/lib/node_transport.js';
import { createConnection, type Socket } from 'node:net';

/** The most one read of the socket takes in (Node's own reads take 64 KiB). */
export const READ_BYTES = 1 << 20;

/**
 * The NATS client's Node transport, reading its socket up to 1 MiB at a time.
 *
 * Node reads a socket 64 KiB at a time, each read into a buffer of its own. A message
 * larger than that (the sink's pulls bring micro-batches of ~80 KB, ~270 KB at full load)
 * arrives in pieces, which the client's parser joins by copying into buffers it grows by
 * doubling: such a message was allocated and copied two to three times over. Here the
 * socket reads into one 1 MiB buffer kept for the connection, and each read is copied out
 * once into a buffer of its size, so most messages arrive whole. The sink's CPU to receive
 * and acknowledge its messages fell by about 40% (`node --import tsx bench/nats-receive.ts`).
 * (Reading into fresh 4 MiB slabs instead, handing the bytes on without a copy, measured
 * the same, and a slab stays alive as long as any message read into it.)
 *
 * Only the plain TCP connection is made here; the rest (the server's INFO, an upgrade to
 * TLS, reconnects) is nats.js's own, and a TLS socket reads as Node's do.
 */
export class LargeReadTransport extends NodeTransport {
  override dial(hp: { hostname: string; port: number }): Promise<Socket> {
    const d = deferred<Socket>();
    let dialError: Error | undefined;
    const buffer = Buffer.allocUnsafe(READ_BYTES);
    // Each read, copied out of the kept buffer (the next read overwrites it), goes to
    // 'data' listeners as Node's own reads do (nats.js listens there); true: go on reading.
    const callback = (n: number, buf: Uint8Array): boolean => {
      socket.emit('data', Buffer.from(buf.subarray(0, n)));
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
