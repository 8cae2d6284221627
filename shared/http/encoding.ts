import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { AppError } from '../errors.ts';
import type { HttpRequest } from './types.ts';

const gunzipAsync = promisify(gunzip);

/**
 * A request body as it was before its Content-Encoding: `identity` (or none) as is, `gzip`
 * inflated on libuv's thread pool (not the event loop) and stopped at `maxBytes` (413);
 * a body that is not gzip is a 400 `invalid_body`, any other encoding a 415. Call it
 * after authenticating, so that nobody without a key makes the process inflate anything.
 */
export async function inflatedBody(req: HttpRequest, maxBytes: number): Promise<Buffer> {
  const ce = (req.headers['content-encoding'] ?? '').trim().toLowerCase();
  if (ce === '' || ce === 'identity') return req.body;
  if (ce !== 'gzip' && ce !== 'x-gzip') throw new AppError('unsupported_media_type', `Content-Encoding ${ce} is not supported; use gzip or none`);
  try {
    return await gunzipAsync(req.body, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw new AppError('payload_too_large', `the body inflates to more than ${maxBytes} bytes`);
    throw new AppError('invalid_body', 'the body is not valid gzip (Content-Encoding: gzip)');
  }
}
