/**
 * The billing metrics on GET /metrics of a whole stack: the billing role's scheduler
 * generates (and, past grace, finalizes) an invoice, rating it on the worker pool; its
 * invoice.created goes out through the dispatcher to a receiver that takes it and to one
 * that refuses it; the cost rollup's steps keep its lag gauge current. Then, on an
 * api-only stack (no scheduler running), the invoices the API, a bill run, a correction
 * and a scheduler pass generate and finalize, each under its own `source`.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';
import { createInvoicing, parseInvoicingConfig, runSchedulerPass } from './invoicing/index.ts';

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

/** POSTs as the development admin of `on` (the whole stack unless told); any status of 300 or more fails the test. */
const post = async (path: string, body?: unknown, on: TestStack = stack) => {
  const r = await call(on, 'POST', path, { key: on.keys.development.admin, ...(body !== undefined ? { body } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  return r.body;
};

/** Every sample of the exposition as `name{labels}` → value (one registry per process: every stack of this file shows the same). */
async function scrape(on: TestStack = stack): Promise<Map<string, number>> {
  const r = await call<string>(on, 'GET', '/metrics');
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
    // Kept by the cost rollup's steps; exposed from the start.
    expect(m.has('tally_billing_cost_rollup_lag_seconds')).toBe(true);
  });

  it('keep the cost rollup lag current: each step of the billing role\'s rollup (every 5 s) brings it back under a second', async () => {
    // Zero would mean no step ever reported; a value stuck above a second, steps that stopped reporting.
    const lag = async () => (await scrape()).get('tally_billing_cost_rollup_lag_seconds') ?? 0;
    await waitFor(lag, (s) => s > 0 && s < 1, 15_000);
  });
});

/** The first day (ISO) of the UTC month `back` months before this one, and its YYYY-MM label. */
function monthBefore(back: number): { start: string; label: string } {
  const now = new Date();
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1)).toISOString();
  return { start, label: start.slice(0, 7) };
}

describe('invoice metrics by source', () => {
  let api: TestStack;
  beforeAll(async () => {
    api = await startTestStack({ roles: ['api'], env: { TALLY_INVOICE_GRACE_HOURS: '1' } });
  });
  afterAll(async () => {
    await api?.cleanup();
  });

  it('count what the API, a bill run, a correction and the scheduler\'s finalization of drafts generate and finalize', async () => {
    const typeId = (await post('/api/v1/agent_type/create', { name: 't' }, api)).id;
    const productId = (await post('/api/v1/products', { name: 'p', agent_type_id: typeId }, api)).id;
    const plan = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly' }, api)).id;
    const flat = (await post('/api/v1/charge_models', { name: 'fee', description: 'fee', type: 'flat-fee', pricing_strategy: { amount: 10 } }, api)).id;
    await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring' }, api);
    const account = (await post('/api/v1/account/create', { name: 'Sources' }, api)).id;
    const agentId = (await createAgent(api, 'development', { accountId: account })).id;
    // Billable since the start of the month before last: two ended periods.
    const [older, current] = [monthBefore(2), monthBefore(0)];
    const subId = (await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan, agent_instance_ids: [agentId] }, api)).id;
    await api.tally.db!.transaction().execute(async (tx) => {
      await tx.updateTable('subscription_events').set({ effective_at: new Date(older.start) }).where('subscription_id', '=', subId).execute();
      await tx.updateTable('subscriptions').set({ contract_effective_date: new Date(older.start) }).where('id', '=', subId).execute();
    });
    const counted = async (since: Map<string, number>) => {
      const m = await scrape(api);
      const delta = (name: string, source: string) => {
        const key = `tally_billing_invoices_${name}_total{source="${source}"}`;
        return (m.get(key) ?? 0) - (since.get(key) ?? 0);
      };
      return Object.fromEntries(['api', 'bill_run', 'scheduler', 'correction'].map((s) => [s, [delta('generated', s), delta('finalized', s)]]));
    };
    const nothing = { api: [0, 0], bill_run: [0, 0], scheduler: [0, 0], correction: [0, 0] };
    const before = await scrape(api);

    // The API generates the older period: past its grace, it is issued at once (generated and finalized).
    const generated = await post('/v1/invoices/generate', { billing_period: older.label, account_id: account }, api);
    const issued = generated.invoices.find((i: { subscription_id: string }) => i.subscription_id === subId);
    expect(issued.status).toBe('finalized');
    expect(await counted(before)).toEqual({ ...nothing, api: [1, 1] });
    // Finalizing or generating it again counts nothing.
    await post(`/api/v1/invoice/invoices/${issued.id}/finalize`, undefined, api);
    await post('/v1/invoices/generate', { billing_period: older.label, account_id: account }, api);
    expect(await counted(before)).toEqual({ ...nothing, api: [1, 1] });

    // A bill run dated the first of this month makes last month's invoice (issued too: its grace of an hour is over).
    const run = await post('/api/v1/invoice/bill-runs/create', { billing_date: current.start }, api);
    expect(run.invoices_created).toBe(1);
    expect(await counted(before)).toEqual({ ...nothing, api: [1, 1], bill_run: [1, 1] });

    // Voided, the older invoice is corrected by a replacement alone: an invoice issued finalized.
    await post(`/api/v1/invoice/invoices/${issued.id}/void`, undefined, api);
    const correction = await post(`/api/v1/invoice/invoices/${issued.id}/correct`, {}, api);
    expect(correction.credit_note).toBeNull();
    expect(correction.invoice.status).toBe('finalized');
    expect(await counted(before)).toEqual({ ...nothing, api: [1, 1], bill_run: [1, 1], correction: [1, 1] });

    // The scheduler (none runs in this stack; passes on a clock of their own): half an hour into this month
    // a second subscription's last month is generated as a draft; two hours in, past its grace, finalized.
    const second = (await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan, agent_instance_ids: [] }, api)).id;
    await api.tally.db!.transaction().execute(async (tx) => {
      await tx.updateTable('subscription_events').set({ effective_at: new Date(monthBefore(1).start) }).where('subscription_id', '=', second).execute();
      await tx.updateTable('subscriptions').set({ contract_effective_date: new Date(monthBefore(1).start) }).where('id', '=', second).execute();
    });
    let clock = new Date(Date.parse(current.start) + 30 * 60_000);
    const inv = createInvoicing({ db: api.tally.db!, usage: api.tally.usage!, config: parseInvoicingConfig(api.env), inline: true, now: () => clock });
    try {
      expect(await runSchedulerPass(inv)).toMatchObject({ generated: 1, finalized: 0, skipped: 0, failures: 0 });
      clock = new Date(Date.parse(current.start) + 2 * 3_600_000);
      expect(await runSchedulerPass(inv)).toMatchObject({ generated: 0, finalized: 1, skipped: 0, failures: 0 });
    } finally {
      await inv.rater.close();
    }
    expect(await counted(before)).toEqual({ api: [1, 1], bill_run: [1, 1], scheduler: [1, 1], correction: [1, 1] });
  });
});
