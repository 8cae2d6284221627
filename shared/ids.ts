import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz';

/** Random string of `length` characters from a URL-safe alphabet (~5.75 bits each). */
export function randomToken(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomByte() % ALPHABET.length];
  return out;
}

/** Cryptographically random bytes drawn from a pool refilled 4 KiB at a time (as Node's randomUUID does). */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;
function randomByte(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]!;
}

/**
 * A time-ordered identifier with a type prefix, e.g. `ai_01JD...`: 10 characters of
 * millisecond time (Crockford base32) then 16 random characters.
 */
export function newId(prefix: string, nowMs = Date.now()): string {
  return `${prefix}_${encodeTime(nowMs)}${randomToken(16)}`;
}

let seqPrefix = '';
let seqPrefixMs = 0;
let seq = 0;

/**
 * A unique, time-ordered id for high-volume records (server-assigned event ids): the
 * millisecond time and 10 random characters drawn once per millisecond, then a
 * counter. No random draw per id on the hot path.
 */
export function newSequentialId(prefix: string, nowMs = Date.now()): string {
  if (nowMs !== seqPrefixMs) {
    seqPrefixMs = nowMs;
    seqPrefix = `${prefix}_${encodeTime(nowMs)}${randomToken(10)}`;
    seq = 0;
  }
  return seqPrefix + (seq++).toString(36).padStart(4, '0');
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** Hex SHA-256 of a credential: keys and secrets are stored only in this form. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time equality of two hex digests of equal length. */
export function digestsEqual(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}
