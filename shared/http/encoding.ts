import { createGunzip } from 'node:zlib';
import { AppError } from '../errors.ts';
import type { HttpRequest } from './types.ts';

/**
 * What parsing a body costs in memory, as a multiple of its bytes. Measured on a 60 MiB
 * OTLP JSON export of plain spans: its text and JSON tree took 2.8 times the body, the
 * decoded request 0.8 times more; protobuf and msgpack have no text and a tree of about
 * the same size.
 */
export const PARSE_COST = Object.freeze({ json: 4, binary: 2 });

/**
 * The memory a request takes per byte of its body while it runs, by its Content-Type:
 * the body itself and what parsing it takes ({@link PARSE_COST}). A route's `bodyCost`.
 */
export function parsedBodyCost(headers: Readonly<Record<string, string>>): number {
  const t = headers['content-type'] ?? '';
  return 1 + (/protobuf|msgpack/i.test(t) ? PARSE_COST.binary : PARSE_COST.json);
}

/**
 * A request body as it was before its Content-Encoding: `identity` (or none) as is, `gzip`
 * inflated on libuv's thread pool (not the event loop), each inflated chunk taken from the
 * request's share of the process's body budget at the route's cost per byte (503 once it
 * has no room: a small body that inflates to `maxBytes` counts as what it inflates to and
 * what parsing that takes), and stopped at `maxBytes`
 * (413); a body that is not gzip is a 400 `invalid_body`, any other encoding a 415. Call
 * it after authenticating, so that nobody without a key makes the process inflate anything.
 */
export async function inflatedBody(req: HttpRequest, maxBytes: number): Promise<Buffer> {
  const ce = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (ce === '' || ce === 'identity') return req.body;
  if (ce !== 'gzip' && ce !== 'x-gzip') throw new AppError('unsupported_media_type', `Content-Encoding ${ce} is not supported; use gzip or none`);
  return gunzipWithin(req, maxBytes);
}

function gunzipWithin(req: HttpRequest, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const gz = createGunzip({ chunkSize: 64 * 1024 });
    const chunks: Buffer[] = [];
    let size = 0;
    let failed: AppError | undefined;
    const stop = (err: AppError): void => {
      failed = err;
      chunks.length = 0;
      gz.destroy();
      reject(err);
    };
    gz.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.byteLength;
      if (size > maxBytes) return stop(new AppError('payload_too_large', `the body inflates to more than ${maxBytes} bytes`));
      const memory = req.memory;
      if (memory && !memory.tryTake(chunk.byteLength)) return stop(memory.refusal(chunk.byteLength));
      chunks.push(chunk);
    });
    gz.on('error', () => {
      if (!failed) stop(new AppError('invalid_body', 'the body is not valid gzip (Content-Encoding: gzip)'));
    });
    gz.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks, size));
    });
    gz.end(req.body);
  });
}
