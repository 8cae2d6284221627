/**
 * The billing scheduler on the real Postgres/NATS/ClickHouse with an injected clock:
 * generation at the cycle's end, late events landing on the draft until the grace
 * period ends, finalized invoices never changing, and one scheduler at a time.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clockFrom, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { parseInvoicingConfig } from './config.ts';
import { createInvoicing } from './index.ts';
import { schedulerTick, SCHEDULER_LOCK_KEY } from './scheduler.ts';
import { runBillRun } from './bill-runs.ts';
import type { Invoicing } from './context.ts';

let stack: TestStack;
let admin: string;
let sdk: string;
let agentId: string;
let subId: string;
let clock = new Date('2026-12-01T00:30:00Z');
let inv: Invoicing;
let plan: string;

/** Dates a subscription's recorded activation (and contract) back to `at`. */
async function backdate(sub: string, at: string) {
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: new Date(at) }).where('subscription_id', '=', sub).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: new Date(at) }).where('id', '=', sub).execute();
}

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: admin });

async function sendAction(id: string, timestamp: string, expectedInNov: number) {
  expect((await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agentId, action_type: 'llm_call', id, timestamp } })).status).toBe(200);
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?start_date=2026-11-01&end_date=2026-12-01&agent_id=${agentId}`, { key: sdk }),
    (r) => r.body.usage?.[0]?.actions === String(expectedInNov),
  );
}
const novInvoice = async () => (await get(`/api/v1/invoice/invoices?subscription_id=${subId}`)).body.invoices.find((i: any) => i.billing_period === '2026-11');

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000' } });
  admin = stack.keys.development.admin;
  sdk = stack.keys.development.sdk;
  const typeId = (await post('/api/v1/agent_type/create', { name: 't' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'p', agent_type_id: typeId })).body.id;
  plan = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly' })).body.id;
  const flat = (await post('/api/v1/charge_models', { name: 'fee', description: 'fee', type: 'flat-fee', pricing_strategy: { amount: 10 } })).body.id;
  const per = (await post('/api/v1/charge_models', { name: 'per', description: 'per', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action', unit_price: 1 } })).body.id;
  await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring' });
  await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Actions', charge_model_id: per, charge_type_code: 'usage' });
  const account = (await post('/api/v1/account/create', { name: 'Sched' })).body.id;
  agentId = (await createAgent(stack, 'development', { accountId: account })).id;
  subId = (await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan, agent_instance_ids: [agentId] })).body.id;
  // Billable since October 1 (the API activates "now"; see invoicing.integration.test.ts).
  await backdate(subId, '2026-10-01T00:00:00Z');
  inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({ TALLY_INVOICE_GRACE_HOURS: '48' }), now: () => clock, inline: true });
});
afterAll(async () => {
  await inv?.rater.close();
  await stack?.cleanup();
});

describe('billing scheduler', () => {
  it('generates the ended period as a draft, re-rates it with late events at the end of grace, then never changes it', async () => {
    await sendAction('a1', '2026-11-05T00:00:00Z', 1);
    await sendAction('a2', '2026-11-06T00:00:00Z', 2);
    clock = new Date('2026-12-01T00:30:00Z');
    // October (billable since the 1st, never invoiced: caught up, finalized as its grace is over) and November.
    const first = await schedulerTick(inv);
    expect(first).toMatchObject({ ran: true, generated: 2, finalized: 0, failures: 0 });
    expect(await novInvoice()).toMatchObject({ status: 'draft', total: '12.00', grace_until: '2026-12-03T00:00:00.000Z', issue_date: '2026-12-01T00:30:00.000Z' });

    // An event of November arriving after generation (inside the grace period), then a tick before the grace ends: still a draft.
    await sendAction('late-1', '2026-11-20T23:00:00Z', 3);
    clock = new Date('2026-12-02T12:00:00Z');
    expect(await schedulerTick(inv)).toMatchObject({ ran: true, generated: 0, finalized: 0 });
    expect((await novInvoice()).status).toBe('draft');

    // Grace over: re-rated (the late event lands) and finalized.
    clock = new Date('2026-12-03T00:00:01Z');
    expect(await schedulerTick(inv)).toMatchObject({ ran: true, generated: 0, finalized: 1 });
    const fin = await novInvoice();
    expect(fin).toMatchObject({ status: 'finalized', total: '13.00', finalized_at: '2026-12-03T00:00:01.000Z' });

    // Later events never change a finalized invoice.
    await sendAction('late-2', '2026-11-19T00:00:00Z', 4);
    clock = new Date('2026-12-04T00:00:00Z');
    expect(await schedulerTick(inv)).toMatchObject({ ran: true, generated: 0, finalized: 0 });
    expect(await novInvoice()).toMatchObject({ id: fin.id, status: 'finalized', total: '13.00', updated_at: fin.updated_at });
  });

  it('runs in one process at a time (Postgres advisory lock)', async () => {
    await stack.tally.db!.connection().execute(async (conn) => {
      await sql`SELECT pg_advisory_lock(${SCHEDULER_LOCK_KEY})`.execute(conn);
      try {
        expect(await schedulerTick(inv)).toEqual({ ran: false, generated: 0, finalized: 0, skipped: 0, failures: 0, commitments: 0, expired: 0, topups: 0, watched: 0 });
      } finally {
        await sql`SELECT pg_advisory_unlock(${SCHEDULER_LOCK_KEY})`.execute(conn);
      }
    });
    expect((await schedulerTick(inv)).ran).toBe(true);
  });

  it("the billing role's own scheduler (its process's clock) invoices the ended periods, finalized once past grace", async () => {
    const account = (await post('/api/v1/account/create', { name: 'Role' })).body.id;
    const sub = (await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan })).body.id;
    await backdate(sub, '2026-10-01T00:00:00Z');
    const billing = await stack.startAnother(['billing'], { env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '200', TALLY_INVOICE_GRACE_HOURS: '1' }, now: clockFrom('2026-11-25T12:00:00Z') });
    try {
      const oct = await waitFor(
        async () => (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.invoices.find((i: any) => i.billing_period === '2026-10'),
        (i) => i !== undefined,
      );
      // October ended more than an hour before the process's clock, so it is finalized at once.
      expect(oct).toMatchObject({ status: 'finalized', total: '10.00' });
      expect((await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.total).toBe(1);
    } finally {
      await billing.stop();
    }
  });
  it('catches up every period that ended while the billing role was down, in order, once each', async () => {
    const account = (await post('/api/v1/account/create', { name: 'Outage' })).body.id;
    const sub = (await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan })).body.id;
    await backdate(sub, '2026-10-31T00:00:00Z');
    // The billing role was down from October 31 to January 5.
    clock = new Date('2027-01-05T00:00:00Z');
    expect((await schedulerTick(inv)).failures).toBe(0);
    const invoices = async () => (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.invoices.map((i: any) => [i.billing_period, i.status, i.total]).sort();
    // October: 1 day of 31 of the 10 fee; November and December whole.
    expect(await invoices()).toEqual([
      ['2026-10', 'finalized', '0.32'],
      ['2026-11', 'finalized', '10.00'],
      ['2026-12', 'finalized', '10.00'],
    ]);
    expect((await schedulerTick(inv)).failures).toBe(0);
    expect(await invoices()).toHaveLength(3);
    // A bill run for the same date (on the same clock) makes none again.
    await runBillRun(inv, stack.keys.development.id, new Date('2027-01-05T00:00:00Z'));
    expect(await invoices()).toHaveLength(3);
  });
});
