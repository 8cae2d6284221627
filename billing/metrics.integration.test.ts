/**
 * The billing metrics on GET /metrics of a whole stack: the billing role's scheduler
 * generates (and, past grace, finalizes) an invoice, rating it on the worker pool; its
 * invoice.created goes out through the dispatcher to a receiver that takes it and to one
 * that refuses it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';

let stack: TestStack;
let receiver: http.Server;
let base: string;
const hits: string[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      hits.push(req.url ?? '');
      res.writeHead(req.url === '/refuse' ? 500 : 204).end();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '200', TALLY_INVOICE_GRACE_HOURS: '1' } });
});
afterAll(async () => {
  await stack?.cleanup();
  receiver?.closeAllConnections();
  receiver?.close();
});

const post = async (path: string, body: unknown) => {
  const r = await call(stack, 'POST', path, { key: stack.keys.development.admin, body });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
};

/** Every sample of the exposition as `name{labels}` → value. */
async function scrape(): Promise<Map<string, number>> {
  const r = await call<string>(stack, 'GET', '/metrics');
  expect(r.status).toBe(200);
  const out = new Map<string, number>();
  for (const line of r.body.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe('billing metrics', () => {
  it('count generated and finalized invoices, webhook attempts by outcome, the rating queue wait and the scheduler lag', async () => {
    for (const path of ['/take', '/refuse']) await post('/api/v1/webhooks', { url: base + path, events: ['invoice.created'] });
    const typeId = (await post('/api/v1/agent_type/create', { name: 't' })).id;
    const productId = (await post('/api/v1/products', { name: 'p', agent_type_id: typeId })).id;
    const plan = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly' })).id;
    const flat = (await post('/api/v1/charge_models', { name: 'fee', description: 'fee', type: 'flat-fee', pricing_strategy: { amount: 10 } })).id;
    await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring' });
    const account = (await post('/api/v1/account/create', { name: 'Metrics' })).id;
    const agentId = (await createAgent(stack, 'development', { accountId: account })).id;
    const before = await scrape();
    // Billable since October 1 (the API activates "now"): October's invoice is due, past its grace.
    const subId = (await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan, agent_instance_ids: [agentId] })).id;
    await stack.tally.db!.transaction().execute(async (tx) => {
      await tx.updateTable('subscription_events').set({ effective_at: new Date('2026-10-01T00:00:00Z') }).where('subscription_id', '=', subId).execute();
      await tx.updateTable('subscriptions').set({ contract_effective_date: new Date('2026-10-01T00:00:00Z') }).where('id', '=', subId).execute();
    });
    await waitFor(async () => hits, (h) => h.includes('/take') && h.includes('/refuse'));

    const m = await scrape();
    expect(before.get('tally_billing_invoices_generated_total{source="scheduler"}') ?? 0).toBe(0);
    expect(m.get('tally_billing_invoices_generated_total{source="scheduler"}')).toBe(1);
    expect(m.get('tally_billing_invoices_finalized_total{source="scheduler"}')).toBe(1);
    expect(m.get('tally_billing_webhook_attempts_total{outcome="delivered"}')).toBe(1);
    expect(m.get('tally_billing_webhook_attempts_total{outcome="status"}')).toBe(1);
    // Rated on the worker pool: piscina recorded how long the task waited for a thread.
    expect(m.get('tally_billing_rating_queue_wait_seconds_count')).toBeGreaterThan(before.get('tally_billing_rating_queue_wait_seconds_count') ?? 0);
    expect(m.get('tally_billing_rating_queue_wait_seconds_sum')).toBeGreaterThan(0);
    expect(m.get('tally_billing_rating_queue_wait_seconds{quantile="0.99"}')).toBeGreaterThan(0);
    // The scheduler passes every 200 ms: it is never far behind.
    const lag = m.get('tally_billing_scheduler_lag_seconds')!;
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(5);
    // Set by the cost rollup (its owner wires it); exposed from the start.
    expect(m.has('tally_billing_cost_rollup_lag_seconds')).toBe(true);
  });
});
