import { createHmac } from 'node:crypto';

/** `X-Tally-Signature`: hex HMAC-SHA256 of the raw body with the endpoint's secret (the spec's scheme). */
export function signBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

const STANDARD_PREFIX = 'whsec_';
/** Canonical base64 (padded), as Standard Webhooks libraries decode it. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Key sizes Standard Webhooks asks for. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;

/**
 * The HMAC key of the Standard Webhooks signature, as the spec's verifiers derive it: a
 * `whsec_` secret (every generated one) is `whsec_` and the base64 of the key; any other
 * secret (one given by the user without the prefix) is keyed with its characters.
 * Receivers pass a `whsec_` secret to their verifier as is, any other with `format: 'raw'`.
 */
function standardKey(secret: string): Buffer {
  return secret.startsWith(STANDARD_PREFIX) ? Buffer.from(secret.slice(STANDARD_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** Why a given secret cannot be used as a Standard Webhooks secret, or undefined (only `whsec_` ones are constrained). */
export function standardSecretProblem(secret: string): string | undefined {
  if (!secret.startsWith(STANDARD_PREFIX)) return undefined;
  const encoded = secret.slice(STANDARD_PREFIX.length);
  const bytes = BASE64.test(encoded) ? Buffer.from(encoded, 'base64').length : 0;
  if (bytes < MIN_KEY_BYTES || bytes > MAX_KEY_BYTES) {
    return `starting with whsec_ must go on with the base64 of a ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} byte key (Standard Webhooks)`;
  }
  return undefined;
}

/**
 * `webhook-signature` (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with {@link standardKey}.
 */
export function standardSignature(id: string, timestamp: number, body: string, secret: string): string {
  return 'v1,' + createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64');
}
