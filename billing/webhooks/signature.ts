import { createHmac, timingSafeEqual } from 'node:crypto';

/** `X-Tally-Signature`: hex HMAC-SHA256 of the raw body with the endpoint's secret. */
export function signBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** What a receiver does: recompute and compare in constant time. */
export function verifySignature(body: string, secret: string, signature: string): boolean {
  const expected = Buffer.from(signBody(body, secret), 'hex');
  const got = Buffer.from(signature, 'hex');
  return got.length === expected.length && timingSafeEqual(got, expected);
}
