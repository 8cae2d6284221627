import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { RETRY_SCHEDULE_MS, WebhookDispatcher } from './dispatcher.ts';
import { emitWebhookEvent } from './outbox.ts';

/** A receiver that checks every delivery's signature the way the spec tells receivers to. */
interface Received {
  path: string;
  body: string;
  headers: http.IncomingHttpHeaders;
  signatureValid: boolean;
}
let stack: TestStack;
let receiver: http.Server;
let base: string;
const received: Received[] = [];
const secrets = new Map<string, string>(); // path -> secret
let failFirst = new Map<string, number>(); // path -> failures left

function verify(body: string, secret: string, signature: string | undefined): boolean {
  // Spec: HMAC with SHA-256 over the payload with the webhook secret, hex digest, constant-time compare.
  if (!signature) return false;
  const expected = Buffer.from(createHmac('sha256', secret).update(body).digest('hex'));
  const got = Buffer.from(signature);
  return got.length === expected.length && timingSafeEqual(got, expected);
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (path.startsWith('/hang')) return; // never answers
      received.push({ path, body, headers: req.headers, signatureValid: verify(body, secrets.get(path) ?? '', req.headers['x-tally-signature'] as string) });
      const left = failFirst.get(path) ?? 0;
      if (path.startsWith('/fail') || left > 0) {
        failFirst.set(path, left - 1);
        res.writeHead(500).end('no');
      } else res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  // No billing role: the tests drive their own dispatchers with their own clocks.
  stack = await startTestStack({ roles: ['api'] });
});
afterAll(async () => {
  await stack?.cleanup();
  receiver?.closeAllConnections();
  receiver?.close();
});

// Each test starts clean: earlier tests' endpoints no longer receive, nothing is pending.
beforeEach(async () => {
  const db = stack.tally.db!;
  await db.updateTable('webhook_endpoints').set({ is_active: false }).execute();
  await db.deleteFrom('webhook_deliveries').where('status', '=', 'pending').execute();
});

const admin = () => stack.keys.development.admin;
async function endpoint(path: string, events: string[] = ['*']) {
  const res = await call(stack, 'POST', '/api/v1/webhooks', { key: admin(), body: { url: base + path, events } });
  expect(res.status).toBe(201);
  secrets.set(path, res.body.secret);
  return res.body as { id: string; secret: string };
}
async function b(method: string, path: string, body?: unknown) {
  const res = await call(stack, method, `/api/v1${path}`, { key: admin(), ...(body !== undefined ? { body } : {}) });
  expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
  return res.body;
}
async function newSubscription() {
  const account = await b('POST', '/account/create', { name: `acct-${Math.random()}` });
  const type = await b('POST', '/agent_type/create', { name: `type-${Math.random()}` });
  const product = await b('POST', '/products', { name: `p-${Math.random()}`, agent_type_id: type.id });
  const plan = await b('POST', `/products/${product.id}/rateplans`, { name: 'Standard', billing_cycle_code: 'monthly', currency: 'USD' });
  return b('POST', '/subscription/create', { account_id: account.id, rate_plan_id: plan.id });
}
const at = (path: string) => received.filter((r) => r.path === path);

describe('webhook deliveries', () => {
  it('delivers subscription.created, .updated and .cancelled, signed, with {event, timestamp, data}', async () => {
    await endpoint('/subs', ['subscription.created', 'subscription.updated', 'subscription.cancelled']);
    const sub = await newSubscription();
    await b('POST', `/subscription/${sub.id}/activate`);
    await b('POST', `/subscription/${sub.id}/cancel`, { cancel_date: '2030-01-01', reason: 'moving on' });
    await new WebhookDispatcher(stack.tally.db!).runOnce();
    // Deliveries are not ordered (receivers order by `timestamp`): sort by it.
    const got = at('/subs').sort((x, y) => JSON.parse(x.body).timestamp.localeCompare(JSON.parse(y.body).timestamp));
    expect(got.map((r) => JSON.parse(r.body).event).sort()).toEqual(['subscription.cancelled', 'subscription.created', 'subscription.updated']);
    for (const r of got) {
      expect(r.signatureValid).toBe(true);
      const body = JSON.parse(r.body);
      expect(Object.keys(body).sort()).toEqual(['data', 'event', 'timestamp']);
      expect(body.data.subscription_id).toBe(sub.id);
      expect(r.headers['x-tally-event-id']).toMatch(/^whe_/);
    }
    expect(JSON.parse(got.find((r) => JSON.parse(r.body).event === 'subscription.cancelled')!.body).data).toMatchObject({ status: 'cancelled', reason: 'moving on' });
  });

  it('sends only the events an endpoint subscribed to, and nothing for a change that rolled back', async () => {
    await endpoint('/only-created', ['subscription.created']);
    const db = stack.tally.db!;
    await db
      .transaction()
      .execute(async (tx) => {
        await emitWebhookEvent(tx, stack.keys.development.id, 'subscription.created', { rolled: 'back' });
        throw new Error('rollback');
      })
      .catch(() => {});
    const sub = await newSubscription();
    await b('POST', `/subscription/${sub.id}/activate`);
    await new WebhookDispatcher(db).runOnce();
    const bodies = at('/only-created').map((r) => JSON.parse(r.body));
    expect(bodies.map((x) => x.event)).toEqual(['subscription.created']);
    expect(bodies.some((x) => x.data.rolled)).toBe(false);
  });

  it('retries a failing receiver at 1 min, 5 min, 15 min, 1 h, 6 h, 24 h, then marks the delivery failed', async () => {
    const ep = await endpoint('/fail', ['subscription.created']);
    let now = new Date(Date.now() + 1000);
    const d = new WebhookDispatcher(stack.tally.db!, { now: () => now });
    await newSubscription();
    expect(await d.runOnce()).toBe(1);
    for (const wait of RETRY_SCHEDULE_MS) {
      now = new Date(now.getTime() + wait - 1000);
      expect(await d.runOnce()).toBe(0); // not yet due
      now = new Date(now.getTime() + 1000);
      expect(await d.runOnce()).toBe(1);
    }
    now = new Date(now.getTime() + 7 * 24 * 3600_000);
    expect(await d.runOnce()).toBe(0); // failed: no more attempts
    const list = await b('GET', `/webhooks/${ep.id}/deliveries`);
    expect(list.total).toBe(1);
    const delivery = list.deliveries[0];
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 7, last_status_code: 500, next_attempt_at: null });
    expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 500, 500, 500, 500]);
    const ids = new Set(at('/fail').map((r) => r.headers['x-tally-event-id']));
    expect(ids.size).toBe(1); // the same event id on every retry
    expect(new Set(at('/fail').map((r) => r.body)).size).toBe(1); // and the same signed body

    // Resent by hand: delivered once the receiver works again.
    failFirst = new Map([['/fail', 0]]);
    const receiverOk = http.createServer((_q, s) => s.writeHead(200).end());
    await new Promise<void>((r) => receiverOk.listen(0, '127.0.0.1', r));
    await stack.tally.db!.updateTable('webhook_endpoints').set({ url: `http://127.0.0.1:${(receiverOk.address() as AddressInfo).port}/` }).where('id', '=', ep.id).execute();
    const resent = await b('POST', `/webhook_deliveries/${delivery.id}/resend`);
    expect(resent).toMatchObject({ status: 'delivered', status_code: 200 });
    receiverOk.close();
  });

  it('records a receiver that times out and one that refuses the connection, and retries both', async () => {
    const hang = await endpoint('/hang', ['subscription.created']);
    const refusedServer = http.createServer();
    await new Promise<void>((r) => refusedServer.listen(0, '127.0.0.1', r));
    const closedPort = (refusedServer.address() as AddressInfo).port;
    refusedServer.close();
    const refused = await b('POST', '/webhooks', { url: `http://127.0.0.1:${closedPort}/x`, events: ['subscription.created'] });
    const now = new Date(Date.now() + 1000);
    await newSubscription();
    await new WebhookDispatcher(stack.tally.db!, { now: () => now, timeoutMs: 300 }).runOnce();
    const h = (await b('GET', `/webhooks/${hang.id}/deliveries`)).deliveries[0];
    expect(h).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null });
    expect(h.last_error).toMatch(/timed out/);
    expect(Date.parse(h.next_attempt_at) - now.getTime()).toBe(RETRY_SCHEDULE_MS[0]);
    const r = (await b('GET', `/webhooks/${refused.id}/deliveries`)).deliveries[0];
    expect(r.last_error).toMatch(/ECONNREFUSED/);
    expect(r.status).toBe('pending');
  });

  it('never delivers twice with several dispatchers at once', async () => {
    await endpoint('/many', ['subscription.created']);
    for (let i = 0; i < 8; i++) await newSubscription();
    const db = stack.tally.db!;
    await Promise.all([0, 1, 2].map(() => new WebhookDispatcher(db, { batchSize: 2 }).runOnce()));
    const ids = at('/many').map((r) => r.headers['x-tally-event-id']);
    expect(ids).toHaveLength(8);
    expect(new Set(ids).size).toBe(8);
  });

  it('POST /v1/webhooks/test sends a signed test delivery of the named event', async () => {
    const ep = await endpoint('/test-hook', ['subscription.created']);
    const res = await call(stack, 'POST', '/v1/webhooks/test', { key: admin(), body: { webhook_id: ep.id, event: 'invoice.created' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'delivered', status_code: 204, attempt: 1 });
    const r = at('/test-hook').at(-1)!;
    expect(r.signatureValid).toBe(true);
    const body = JSON.parse(r.body);
    expect(body.event).toBe('invoice.created');
    expect(body.data).toMatchObject({ test: true, invoice_id: expect.any(String), account_id: expect.any(String), amount: expect.any(Number), currency: 'USD' });
    const bad = await call(stack, 'POST', '/v1/webhooks/test', { key: admin(), body: { webhook_id: ep.id, event: 'invoice.exploded' } });
    expect(bad.status).toBe(400);
    const missing = await call(stack, 'POST', '/v1/webhooks/test', { key: admin(), body: { webhook_id: 'wh_nope', event: 'invoice.paid' } });
    expect(missing.status).toBe(404);
    const other = await call(stack, 'POST', '/v1/webhooks/test', { key: stack.keys.staging.admin, body: { webhook_id: ep.id, event: 'invoice.paid' } });
    expect(other.status).toBe(404);
    const sdk = await call(stack, 'POST', '/v1/webhooks/test', { key: stack.keys.development.sdk, body: { webhook_id: ep.id, event: 'invoice.paid' } });
    expect(sdk.status).toBe(403);
  });
});
