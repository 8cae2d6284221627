import { createHmac } from 'node:crypto';

/** `X-Tally-Signature`: hex HMAC-SHA256 of the raw body with the endpoint's secret (the spec's scheme). */
export function signBody(body: string, secret: string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/**
 * `webhook-signature` (Standard Webhooks): `v1,` and the base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the secret's bytes as written
 * (receivers: `new Webhook(secret, { format: 'raw' })` of the `standardwebhooks` package).
 */
export function standardSignature(id: string, timestamp: number, body: string, secret: string): string {
  return 'v1,' + createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
}
