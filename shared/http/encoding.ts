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
 * The memory V8 takes for one object or array a parse creates, whatever it holds: 64 bytes
 * measured for an empty object with its slot in an array (40 for an empty array; the same
 * on Node 20 and 26, JSON.parse and msgpackr alike). {@link PARSE_COST} covers ordinary
 * bodies; a body of nothing but containers (`[[],[],…]`, a msgpack array of empty maps)
 * makes 13 to 64 times its bytes of them, so they are counted before parsing ({@link parseMemory}).
 */
export const CONTAINER_COST = 64;
/** The memory of one element of a msgpack array (its slot) or one entry of a map (its key's and value's slots), beyond the container's own. */
const MSGPACK_ELEMENT_COST = 8;
const MSGPACK_ENTRY_COST = 16;

/** An upper bound of the objects and arrays parsing a JSON text makes: its `{` and `[` bytes (those inside strings only over-count). */
export function jsonContainers(body: Buffer): number {
  return count(body, 123 /* { */) + count(body, 91 /* [ */);
}

function count(body: Buffer, byte: number): number {
  let n = 0;
  for (let i = body.indexOf(byte); i >= 0; i = body.indexOf(byte, i + 1)) n++;
  return n;
}

/**
 * An upper bound of the memory the containers of a msgpack body take once unpacked
 * (beyond {@link PARSE_COST}): each map, array and extension ({@link CONTAINER_COST}) and
 * the slots of their elements, read from the headers by one walk over the body (strings
 * and binaries skipped, never decoded). A count beyond the bytes left is capped by them
 * (each element takes a byte at least): a malformed body is refused by the decoder.
 */
export function msgpackContainerBytes(b: Uint8Array): number {
  let bytes = 0;
  const end = b.length;
  const slots = (count: number, at: number, per: number): number => CONTAINER_COST + Math.min(count, end - at) * per;
  let i = 0;
  while (i < end) {
    const t = b[i++]!;
    if (t < 0x80 || t >= 0xe0) continue; // fixint
    if (t <= 0x8f) bytes += slots(t & 0x0f, i, MSGPACK_ENTRY_COST); // fixmap
    else if (t <= 0x9f) bytes += slots(t & 0x0f, i, MSGPACK_ELEMENT_COST); // fixarray
    else if (t <= 0xbf) i += t & 0x1f; // fixstr
    else {
      switch (t) {
        case 0xc4: case 0xd9: i += 1 + b[i]!; break; // bin 8, str 8
        case 0xc5: case 0xda: i += 2 + ((b[i]! << 8) | b[i + 1]!); break; // bin 16, str 16
        case 0xc6: case 0xdb: i += 4 + u32(b, i); break; // bin 32, str 32
        case 0xc7: bytes += CONTAINER_COST; i += 2 + b[i]!; break; // ext 8
        case 0xc8: bytes += CONTAINER_COST; i += 3 + ((b[i]! << 8) | b[i + 1]!); break; // ext 16
        case 0xc9: bytes += CONTAINER_COST; i += 5 + u32(b, i); break; // ext 32
        case 0xcc: case 0xd0: i += 1; break;
        case 0xcd: case 0xd1: i += 2; break;
        case 0xca: case 0xce: case 0xd2: i += 4; break;
        case 0xcb: case 0xcf: case 0xd3: i += 8; break;
        case 0xd4: case 0xd5: case 0xd6: case 0xd7: case 0xd8: bytes += CONTAINER_COST; i += 1 + (1 << (t - 0xd4)); break; // fixext
        case 0xdc: bytes += slots((b[i]! << 8) | b[i + 1]!, i + 2, MSGPACK_ELEMENT_COST); i += 2; break; // array 16
        case 0xdd: bytes += slots(u32(b, i), i + 4, MSGPACK_ELEMENT_COST); i += 4; break; // array 32
        case 0xde: bytes += slots((b[i]! << 8) | b[i + 1]!, i + 2, MSGPACK_ENTRY_COST); i += 2; break; // map 16
        case 0xdf: bytes += slots(u32(b, i), i + 4, MSGPACK_ENTRY_COST); i += 4; break; // map 32
        default: break; // nil, false, true, never used
      }
    }
  }
  return bytes;
}

/** How many items a msgpack body's top-level array holds (undefined when it is not an array), read from its header. */
export function msgpackArrayLength(b: Uint8Array): number | undefined {
  const t = b[0];
  if (t === undefined) return undefined;
  if (t >= 0x90 && t <= 0x9f) return t & 0x0f;
  if (t === 0xdc) return (b[1]! << 8) | b[2]!;
  if (t === 0xdd) return u32(b, 1);
  return undefined;
}

function u32(b: Uint8Array, i: number): number {
  return (b[i]! * 0x1000000 + ((b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!)) || 0;
}

/**
 * What parsing `body` takes beyond {@link PARSE_COST}, for the containers it makes: taken
 * from the request's share of the body budget before parsing (`BodyReservation.takeMemory`:
 * 503 when it does not fit now, 413 when it never can).
 */
export function parseMemory(body: Buffer, format: 'json' | 'ndjson' | 'msgpack'): number {
  if (format === 'msgpack') return msgpackContainerBytes(body);
  // NDJSON: each line is a string of its own too.
  return (jsonContainers(body) + (format === 'ndjson' ? count(body, 10 /* \n */) : 0)) * CONTAINER_COST;
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
