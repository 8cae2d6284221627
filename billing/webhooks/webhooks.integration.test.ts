import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import dns from 'node:dns';
import http from 'node:http';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { RETRY_SCHEDULE_MS, WebhookDispatcher } from './dispatcher.ts';
import { emitWebhookEvent } from './outbox.ts';
import { deliveryBodySchema, sampleEventData, webhookBodyProblems } from './payloads.ts';
import { isForbiddenAddress } from './targets.ts';
import { WEBHOOK_EVENTS, type WebhookEvent } from './endpoints.ts';

/** A receiver that checks every delivery's signature the way the spec tells receivers to. */
interface Received {
  path: string;
  body: string;
  headers: http.IncomingHttpHeaders;
  signatureValid: boolean;
  /** Verified by the `standardwebhooks` package, the documented receiver side (null: not verifiable). */
  standard: unknown;
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

/**
 * The receiver side as the README documents it: a `whsec_` secret (the generated ones) is
 * passed to the `standardwebhooks` package as is; a secret of your own without the prefix
 * is passed with `{ format: 'raw' }`.
 */
function receiverWebhook(secret: string): Webhook {
  return secret.startsWith('whsec_') ? new Webhook(secret) : new Webhook(secret, { format: 'raw' });
}

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const path = req.url ?? '';
      if (path.startsWith('/hang')) return; // never answers
      let standard: unknown = null;
      try {
        standard = receiverWebhook(secrets.get(path) ?? 'x').verify(body, req.headers as Record<string, string>);
      } catch {
        standard = null;
      }
      received.push({ path, body, headers: req.headers, signatureValid: verify(body, secrets.get(path) ?? '', req.headers['x-tally-signature'] as string), standard });
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
/** The receivers of these tests listen on 127.0.0.1. */
const local = { allowPrivateTargets: true };

describe('webhook deliveries', () => {
  it('delivers subscription.created, .updated and .cancelled, signed, with {event, timestamp, data}', async () => {
    await endpoint('/subs', ['subscription.created', 'subscription.updated', 'subscription.cancelled']);
    const sub = await newSubscription();
    await b('POST', `/subscription/${sub.id}/activate`);
    await b('POST', `/subscription/${sub.id}/cancel`, { cancel_date: '2030-01-01', reason: 'moving on' });
    await new WebhookDispatcher(stack.tally.db!, local).runOnce();
    // Deliveries are not ordered (receivers order by `timestamp`): sort by it.
    const got = at('/subs').sort((x, y) => JSON.parse(x.body).timestamp.localeCompare(JSON.parse(y.body).timestamp));
    expect(got.map((r) => JSON.parse(r.body).event).sort()).toEqual(['subscription.cancelled', 'subscription.created', 'subscription.updated']);
    for (const r of got) {
      expect(r.signatureValid).toBe(true);
      expect(r.standard).toEqual(JSON.parse(r.body));
      expect(r.headers['webhook-id']).toBe(r.headers['x-tally-event-id']);
      expect(webhookBodyProblems(JSON.parse(r.body).event, JSON.parse(r.body))).toEqual([]);
      const body = JSON.parse(r.body);
      expect(Object.keys(body).sort()).toEqual(['data', 'event', 'timestamp']);
      expect(body.data.subscription_id).toBe(sub.id);
      expect(r.headers['x-tally-event-id']).toMatch(/^whe_/);
    }
    expect(JSON.parse(got.find((r) => JSON.parse(r.body).event === 'subscription.cancelled')!.body).data).toMatchObject({
      status: 'cancelled',
      previous_status: 'active',
      change: 'cancelled',
      reason: 'moving on',
      cancel_date: '2030-01-01T00:00:00.000Z',
      effective_at: '2030-01-01T00:00:00.000Z',
    });
  });

  it('sends only the events an endpoint subscribed to, and nothing for a change that rolled back', async () => {
    await endpoint('/only-created', ['subscription.created']);
    const db = stack.tally.db!;
    await db
      .transaction()
      .execute(async (tx) => {
        await emitWebhookEvent(tx, stack.keys.development.id, 'subscription.created', { ...sampleEventData('subscription.created'), subscription_id: 'rolled-back' });
        throw new Error('rollback');
      })
      .catch(() => {});
    const sub = await newSubscription();
    await b('POST', `/subscription/${sub.id}/activate`);
    await new WebhookDispatcher(db, local).runOnce();
    const bodies = at('/only-created').map((r) => JSON.parse(r.body));
    expect(bodies.map((x) => x.event)).toEqual(['subscription.created']);
    expect(bodies.some((x) => x.data.subscription_id === 'rolled-back')).toBe(false);
  });

  it('retries a failing receiver at 1 min, 5 min, 15 min, 1 h, 6 h, 24 h, then marks the delivery failed', async () => {
    const ep = await endpoint('/fail', ['subscription.created']);
    let now = new Date(Date.now() + 1000);
    const d = new WebhookDispatcher(stack.tally.db!, { ...local, now: () => now });
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
    await new WebhookDispatcher(stack.tally.db!, { ...local, now: () => now, timeoutMs: 300 }).runOnce();
    const h = (await b('GET', `/webhooks/${hang.id}/deliveries`)).deliveries[0];
    expect(h).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null });
    expect(h.last_error).toBe('timeout');
    expect(Date.parse(h.next_attempt_at) - now.getTime()).toBe(RETRY_SCHEDULE_MS[0]);
    const r = (await b('GET', `/webhooks/${refused.id}/deliveries`)).deliveries[0];
    expect(r.last_error).toBe('refused');
    expect(r.status).toBe('pending');
  });

  it('never delivers twice with several dispatchers at once', async () => {
    await endpoint('/many', ['subscription.created']);
    for (let i = 0; i < 8; i++) await newSubscription();
    const db = stack.tally.db!;
    await Promise.all([0, 1, 2].map(() => new WebhookDispatcher(db, { ...local, batchSize: 2 }).runOnce()));
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

  it('test deliveries of every event have the shape of real ones (the published schema), and both signatures verify', async () => {
    const ep = await endpoint('/shapes', ['subscription.created']);
    const { body: doc } = await call(stack, 'GET', '/v1/openapi.json');
    for (const event of WEBHOOK_EVENTS) {
      const res = await call(stack, 'POST', '/v1/webhooks/test', { key: admin(), body: { webhook_id: ep.id, event } });
      expect(res.body).toMatchObject({ status: 'delivered', error: null });
      const r = at('/shapes').at(-1)!;
      const body = JSON.parse(r.body);
      expect(body.event).toBe(event);
      expect(webhookBodyProblems(event as WebhookEvent, body), event).toEqual([]);
      expect(r.standard).toEqual(body);
      // Published: the OpenAPI document's webhooks section holds the very schema.
      const published = doc.webhooks[event].post.requestBody.content['application/json'].schema;
      expect(Object.keys(published.properties.data.properties).sort(), event).toEqual(Object.keys(body.data).concat(published.properties.data.properties.derived_from ? ['derived_from'] : []).sort());
      expect(published, event).toEqual(JSON.parse(JSON.stringify(deliveryBodySchema(event as WebhookEvent))));
      // ... with the headers receivers verify.
      const headers = doc.webhooks[event].post.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name);
      expect(headers, event).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'X-Tally-Signature', 'X-Tally-Event-Id', 'X-Tally-Timestamp']));
    }
    // Real deliveries of this file's subscriptions matched the same schemas.
    const rows = await stack.tally.db!.selectFrom('webhook_events').select(['event', 'body']).execute();
    expect(rows.flatMap((r) => webhookBodyProblems(r.event as WebhookEvent, JSON.parse(r.body)))).toEqual([]);
  });

  it('a replayed delivery with an old timestamp is refused by the Standard Webhooks verifier', async () => {
    const ep = await endpoint('/replay', ['subscription.created']);
    await call(stack, 'POST', '/v1/webhooks/test', { key: admin(), body: { webhook_id: ep.id, event: 'subscription.created' } });
    const r = at('/replay').at(-1)!;
    const old = { ...(r.headers as Record<string, string>), 'webhook-timestamp': String(Number(r.headers['webhook-timestamp']) - 600) };
    expect(r.standard).toEqual(JSON.parse(r.body));
    expect(() => new Webhook(ep.secret).verify(r.body, old)).toThrow(/timestamp|signature/i);
  });

  it('Standard Webhooks signatures verify with the secret as issued: whsec_ secrets base64-decoded (generated or given), others as their bytes', async () => {
    const generated = await endpoint('/std-generated', ['subscription.created']);
    expect(generated.secret).toMatch(/^whsec_/);
    // A given whsec_ secret with every base64 character (+, / and padding).
    const givenKey = Buffer.from('fb'.repeat(31) + 'ff', 'hex').toString('base64');
    expect(givenKey).toMatch(/[+/=]/);
    const given = await b('POST', '/webhooks', { url: base + '/std-given', events: ['subscription.created'], secret: `whsec_${givenKey}` });
    secrets.set('/std-given', given.secret);
    const plain = await b('POST', '/webhooks', { url: base + '/std-plain', events: ['subscription.created'], secret: 'my-own-secret-without-prefix' });
    secrets.set('/std-plain', plain.secret);
    await newSubscription();
    await new WebhookDispatcher(stack.tally.db!, local).runOnce();
    for (const path of ['/std-generated', '/std-given', '/std-plain']) {
      const r = at(path).at(-1)!;
      expect(r, path).toBeDefined();
      expect(r.standard, path).toEqual(JSON.parse(r.body));
      expect(r.signatureValid, path).toBe(true); // X-Tally-Signature: keyed with the secret's characters, as before
    }
    // The key is the decoded bytes, not the characters: a verifier given the raw characters of a whsec_ secret fails.
    const r = at('/std-generated').at(-1)!;
    expect(() => new Webhook(generated.secret, { format: 'raw' }).verify(r.body, r.headers as Record<string, string>)).toThrow();
  });

  it('a disabled endpoint gets no more attempts; re-enabled, its pending deliveries go out', async () => {
    const ep = await endpoint('/flaky', ['subscription.created']);
    failFirst.set('/flaky', 1);
    let now = new Date(Date.now() + 1000);
    const d = new WebhookDispatcher(stack.tally.db!, { ...local, now: () => now });
    await newSubscription();
    expect(await d.runOnce()).toBe(1); // fails once
    await b('PUT', `/webhooks/${ep.id}`, { is_active: false });
    now = new Date(now.getTime() + RETRY_SCHEDULE_MS[0] + 1000);
    expect(await d.runOnce()).toBe(0);
    now = new Date(now.getTime() + 24 * 3600_000);
    expect(await d.runOnce()).toBe(0);
    expect(at('/flaky')).toHaveLength(1);
    await b('PUT', `/webhooks/${ep.id}`, { is_active: true });
    expect(await d.runOnce()).toBe(1);
    expect(at('/flaky')).toHaveLength(2);
    expect((await b('GET', `/webhooks/${ep.id}/deliveries`)).deliveries[0]).toMatchObject({ status: 'delivered', attempt_count: 2 });
  });
});

describe('webhook payloads of real operations', () => {
  it('every operation that emits an event sends the data of its event’s schema (subscription moves, invoices, payments)', async () => {
    await endpoint('/all', ['*']);
    const sub = await newSubscription();
    const type = await b('POST', '/agent_type/create', { name: `type-${Math.random()}` });
    const product = await b('POST', '/products', { name: `p-${Math.random()}`, agent_type_id: type.id });
    const plan2 = await b('POST', `/products/${product.id}/rateplans`, { name: 'Pro', billing_cycle_code: 'monthly', currency: 'USD' });
    await b('POST', `/subscription/${sub.id}/change-plan`, { rate_plan_id: plan2.id });
    for (const move of ['activate', 'pause', 'resume', 'renew']) await b('POST', `/subscription/${sub.id}/${move}`);
    await b('POST', `/subscription/${sub.id}/cancel`);
    const draft = await newSubscription();
    await b('POST', `/subscription/${draft.id}/cancel`, { reason: 'never started' });

    // Family A: created active at once; billed for last month, then paid.
    const account = await b('POST', '/account/create', { name: `acct-${Math.random()}` });
    const a = await call(stack, 'POST', '/v1/subscriptions', { key: admin(), body: { account_id: account.id, rate_plan_id: plan2.id } });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    const now = new Date();
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
    const db = stack.tally.db!;
    await db.updateTable('subscription_events').set({ effective_at: lastMonth }).where('subscription_id', '=', a.body.id).execute();
    await db.updateTable('subscriptions').set({ contract_effective_date: lastMonth }).where('id', '=', a.body.id).execute();
    const generated = await call(stack, 'POST', '/v1/invoices/generate', { key: admin(), body: { billing_period: lastMonth.toISOString().slice(0, 7), account_id: account.id } });
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const invoice = generated.body.invoices.find((i: { subscription_id: string }) => i.subscription_id === a.body.id);
    expect((await call(stack, 'POST', `/v1/invoices/${invoice.id}/pay`, { key: admin(), body: {} })).status).toBe(200);

    await new WebhookDispatcher(db, local).runOnce();
    const bodies = at('/all').map((r) => {
      expect(r.standard).toEqual(JSON.parse(r.body));
      return JSON.parse(r.body);
    });
    for (const body of bodies) expect(webhookBodyProblems(body.event, body), body.event).toEqual([]);
    const changes = bodies.filter((x) => x.data.subscription_id === sub.id && x.event.startsWith('subscription.')).map((x) => `${x.event}:${x.data.change}`);
    expect(changes.sort()).toEqual(
      ['created', 'plan_changed', 'activated', 'paused', 'resumed', 'renewed'].map((c) => (c === 'created' ? 'subscription.created:created' : `subscription.updated:${c}`)).concat('subscription.cancelled:cancelled').sort(),
    );
    const cancelledDraft = bodies.find((x) => x.event === 'subscription.cancelled' && x.data.subscription_id === draft.id);
    expect(cancelledDraft.data).toMatchObject({ previous_status: 'draft', status: 'cancelled', reason: 'never started', cancel_date: expect.any(String) });
    const invoiceEvents = bodies.filter((x) => x.data.invoice_id === invoice.id);
    expect(invoiceEvents.map((x) => `${x.event}:${x.data.status}`).sort()).toEqual([`invoice.created:${invoice.status}`, 'invoice.paid:paid', 'payment.successful:paid']);
    for (const x of invoiceEvents) expect(x.data).toMatchObject({ total: invoice.total, amount: Number(invoice.total), subscription_id: a.body.id, currency: 'USD' });
  });
});

describe('webhook targets (private addresses refused)', () => {
  it('refuses loopback, private and metadata URLs on create and update, and never connects to a name resolving to one', async () => {
    const api = await stack.startAnother(['api'], { env: { TALLY_HTTP_PORT: '0', TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: 'off' } });
    const strict = (method: string, path: string, body?: unknown) =>
      fetch(`http://127.0.0.1:${api.port}${path}`, { method, headers: { authorization: `Bearer ${admin()}`, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://[::ffff:169.254.169.254]/', 'http://2852039166/', 'http://127.0.0.1:9/', 'http://localhost:8080/', 'http://10.1.2.3/']) {
      const res = await strict('POST', '/api/v1/webhooks', { url, events: ['*'] });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details).toEqual([{ path: 'url', message: expect.stringMatching(/loopback, private/) }]);
    }
    const ok = await strict('POST', '/api/v1/webhooks', { url: 'https://hooks.example.com/tally', events: ['*'] });
    expect(ok.status).toBe(201);
    expect((await strict('PUT', `/api/v1/webhooks/${ok.body.id}`, { url: 'http://192.168.0.10/' })).status).toBe(400);

    // A name that resolves to loopback (this machine's name, from /etc/hosts) passes the
    // check on create, and is refused when resolved at delivery.
    failFirst = new Map();
    const port = new URL(base).port;
    const name = os.hostname();
    const resolved = await dns.promises.lookup(name, { all: true });
    expect(resolved.every((a) => isForbiddenAddress(a.address)), `${name} must resolve to a loopback address here: ${JSON.stringify(resolved)}`).toBe(true);
    const sneaky = await strict('POST', '/api/v1/webhooks', { url: `http://${name}:${port}/sneaky`, events: ['subscription.created'] });
    expect(sneaky.status).toBe(201);
    const tried = await strict('POST', '/v1/webhooks/test', { webhook_id: sneaky.body.id, event: 'subscription.created' });
    expect(tried.status).toBe(200);
    // A blocked address does not change by waiting: the delivery fails at once, no retry scheduled.
    expect(tried.body).toMatchObject({ status: 'failed', status_code: null, error: 'blocked_address', next_attempt_at: null });
    expect(at('/sneaky')).toHaveLength(0);
    // The dispatcher of a billing role with the default policy refuses it too.
    await newSubscription();
    const strictDispatcher = new WebhookDispatcher(stack.tally.db!, { now: () => new Date(Date.now() + 10 * 24 * 3600_000) });
    await strictDispatcher.runOnce();
    expect(at('/sneaky')).toHaveLength(0);
    const list = await strict('GET', `/api/v1/webhooks/${sneaky.body.id}/deliveries`);
    expect(list.body.deliveries.flatMap((d: any) => d.attempts.map((a: any) => a.error))).toEqual(expect.arrayContaining(['blocked_address']));
    expect(JSON.stringify(list.body)).not.toMatch(/ECONN|127\.0\.0\.1/);
    // Every delivery to it failed on its first attempt, with the reason on the record.
    const failed = await stack.tally.db!.selectFrom('webhook_deliveries').select(['status', 'attempts', 'last_error']).where('endpoint_id', '=', sneaky.body.id).execute();
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const d of failed) expect(d).toEqual({ status: 'failed', attempts: 1, last_error: 'blocked_address' });
  });

  it('with private targets allowed, refuses cloud metadata addresses (and their IPv6 forms) unless TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on', async () => {
    const urls = ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://[::ffff:169.254.169.254]/', 'http://[2002:a9fe:a9fe::]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://2852039166/'];
    // This stack allows private targets (its receivers are on 127.0.0.1).
    for (const url of urls) {
      const res = await call(stack, 'POST', '/api/v1/webhooks', { key: admin(), body: { url, events: ['*'] } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details).toEqual([{ path: 'url', message: expect.stringMatching(/cloud metadata.*TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on/) }]);
    }
    expect((await call(stack, 'POST', '/api/v1/webhooks', { key: admin(), body: { url: 'http://10.1.2.3/', events: ['*'] } })).status).toBe(201);
    const api = await stack.startAnother(['api'], { env: { TALLY_HTTP_PORT: '0', TALLY_WEBHOOK_ALLOW_METADATA_TARGETS: 'on' } });
    for (const url of urls) {
      const res = await fetch(`http://127.0.0.1:${api.port}/api/v1/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${admin()}`, 'content-type': 'application/json' }, body: JSON.stringify({ url, events: ['invoice.paid'], is_active: false }) });
      expect(res.status, url).toBe(201);
    }
  });

  it('reports a closed port as a short code, never the raw error', async () => {
    const ep = await b('POST', '/webhooks', { url: 'http://127.0.0.1:9/closed', events: ['subscription.created'] });
    const res = await call(stack, 'POST', '/v1/webhooks/test', { key: admin(), body: { webhook_id: ep.id, event: 'invoice.created' } });
    expect(res.body).toMatchObject({ status: 'pending', status_code: null, error: 'refused' });
  });
});
