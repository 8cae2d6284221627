/**
 * Sequences of subscription moves billed through the real API, Postgres, NATS and
 * ClickHouse, on a clock the test moves (issue 37's cases, each of which billed wrong
 * money before): a cancel dated before the activation, a pending move after an earlier
 * cancel, a renew while a pause is pending, paying a draft, the issue date of an invoice
 * that leaves draft after it was generated, and late events after the grace period.
 *
 * Plan A: 100/month flat (prorated by time) + 0.5 per action. Plan B: 200/month flat.
 * Plan Q: 300/quarter flat.
 * November has 30 days: a day of plan A's fee is 100/30.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';
import { createInvoicing, parseInvoicingConfig, runSchedulerPass } from './index.ts';

const T0 = Date.parse('2026-11-10T00:00:00Z');
const DAY = 86_400_000;
let clock = T0;
const at = (days: number) => new Date(T0 + days * DAY).toISOString();

let stack: TestStack;
let dev: KeySet;
let planA: string;
let planB: string;
let planQ: string;
const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: dev.admin });

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' }, now: () => new Date(clock) });
  dev = await keySet(stack, 'development');
  const model = async (name: string, type: string, pricing_strategy: Record<string, unknown>) => (await post('/api/v1/charge_models', { name, description: name, type, pricing_strategy })).body.id as string;
  const typeId = (await post('/api/v1/agent_type/create', { name: 'lifecycle' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'Lifecycle', agent_type_id: typeId })).body.id;
  planA = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'A', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  planB = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'B', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  const flat = await model('Fee', 'flat', {});
  const perAction = await model('Per action', 'per_unit', { unit_of_measure: '@action' });
  for (const [plan, fee] of [[planA, 100], [planB, 200]] as const) {
    expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: fee } })).status).toBe(201);
  }
  expect((await post(`/api/v1/products/rateplans/${planA}/charges`, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: '0.5' } })).status).toBe(201);
  planQ = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'Q', billing_cycle_code: 'quarterly', currency: 'USD' })).body.id;
  expect((await post(`/api/v1/products/rateplans/${planQ}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 300 } })).status).toBe(201);
});
afterAll(async () => {
  await stack?.cleanup();
});

/** A new account, agent and subscription to plan A, active from the clock's now (Family A). */
async function activeSubscription(): Promise<{ sub: string; account: string; agent: string }> {
  clock = T0;
  const account = (await post('/v1/accounts', { name: 'Lifecycle customer' })).body.id as string;
  const agent = (await createAgent(stack, 'development', { accountId: account })).id;
  const res = await post('/v1/subscriptions', { account_id: account, rate_plan_id: planA, agent_instance_ids: [agent], contract_effective_date: '2026-10-01T00:00:00Z' });
  expect(res.status).toBe(201);
  return { sub: res.body.id, account, agent };
}

/** Sends `n` actions of the agent (dated T0, or `when`; they arrive at the clock's now) and waits until ClickHouse counts `total` of them. */
async function actions(agent: string, n: number, total = n, when = T0) {
  const ids = Array.from({ length: n }, () => `a-${Math.random().toString(36).slice(2)}`);
  const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: ids.map((id) => ({ agent_key: agent, action_type: 'llm_call', id, timestamp: new Date(when).toISOString() })) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?start_date=2026-11-01&end_date=2026-12-01&agent_id=${agent}`, { key: dev.sdk }),
    (r) => r.body.usage?.[0]?.actions === String(total),
  );
}

async function november(account: string, sub: string) {
  const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: account });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.invoices.find((i: { subscription_id: string }) => i.subscription_id === sub);
}

describe('sequences of moves', () => {
  it('refuses a cancel dated before the activation with a 400 naming the bound', async () => {
    const { sub } = await activeSubscription();
    const early = await post(`/api/v1/subscription/${sub}/cancel`, { cancel_date: '2026-10-15T00:00:00Z' });
    expect(early.status).toBe(400);
    expect(early.body.error.message).toBe(`cancel_date must not be before ${new Date(T0).toISOString()}, when the subscription became active`);
    expect(early.body.error.details).toEqual([{ path: 'cancel_date', message: early.body.error.message }]);
    expect((await post(`/api/v1/subscription/${sub}/cancel`, { cancel_date: at(0) })).status).toBe(200);
  });

  it('bills nothing of a pending plan change effective after an earlier cancel', async () => {
    const { sub, account, agent } = await activeSubscription();
    await actions(agent, 4);
    expect((await post(`/api/v1/subscription/${sub}/change-plan`, { rate_plan_id: planB, effective_date: at(2) })).status).toBe(200);
    expect((await post(`/api/v1/subscription/${sub}/cancel`, { cancel_date: at(1) })).status).toBe(200);
    const inv = await november(account, sub);
    // One day of A's fee (100/30 = 3.33) and the 4 actions (2.00); nothing of B.
    expect(inv.total).toBe('5.33');
  });

  it('bills nothing of a pending resume effective after a cancel', async () => {
    const { sub, account } = await activeSubscription();
    expect((await post(`/api/v1/subscription/${sub}/pause`, { effective_date: at(0) })).status).toBe(200);
    expect((await post(`/api/v1/subscription/${sub}/resume`, { effective_date: at(3) })).status).toBe(200);
    expect((await post(`/api/v1/subscription/${sub}/cancel`, { cancel_date: at(2) })).status).toBe(200);
    expect(await november(account, sub)).toBeUndefined();
  });

  it('keeps billing until a pending pause when the subscription is renewed meanwhile', async () => {
    const { sub, account, agent } = await activeSubscription();
    expect((await post(`/api/v1/subscription/${sub}/pause`, { effective_date: at(2) })).status).toBe(200);
    expect((await post(`/api/v1/subscription/${sub}/renew`)).status).toBe(200);
    await actions(agent, 4);
    const inv = await november(account, sub);
    // Two days of A's fee (6.67) and the 4 actions (2.00).
    expect(inv.total).toBe('8.67');
  });

  it('re-rates a draft before recording its payment, and issues it when it leaves draft', async () => {
    const { sub, account, agent } = await activeSubscription();
    await actions(agent, 1);
    const draft = await november(account, sub);
    // 21 days of A's fee (70.00: November 10 to December 1) and 1 action.
    expect(draft).toMatchObject({ status: 'draft', total: '70.50' });
    expect((await get(`/api/v1/invoice/invoices/${draft.id}`)).body.issue_date).toBe(new Date(T0).toISOString());
    await actions(agent, 5, 6);
    clock = T0 + 25 * DAY; // December 5, after the period and its grace
    const stale = await post(`/api/v1/invoice/invoices/${draft.id}/pay`, { amount: '70.50' });
    expect(stale.status).toBe(400);
    expect(stale.body.error.message).toMatch(/differs from the invoice total 73.00/);
    const paid = await post(`/api/v1/invoice/invoices/${draft.id}/pay`, { amount: '73.00' });
    expect(paid.status).toBe(200);
    expect(paid.body).toMatchObject({ status: 'paid', total: '73.00' });
    const shown = (await get(`/api/v1/invoice/invoices/${draft.id}`)).body;
    expect(shown.issue_date).toBe(new Date(clock).toISOString());
    expect(shown.due_date).toBe(new Date(clock + 30 * DAY).toISOString());
  });
  it('bills what had arrived when the grace period ended, whichever move first touches a draft after it', async () => {
    const { sub, account, agent } = await activeSubscription();
    await actions(agent, 1);
    clock = Date.parse('2026-12-01T01:00:00Z');
    const draft = await november(account, sub);
    expect(draft).toMatchObject({ status: 'draft', total: '70.50', grace_until: '2026-12-03T00:00:00.000Z' });
    // Inside the grace period a late event lands on the draft.
    await actions(agent, 1, 2, Date.parse('2026-11-20T00:00:00Z'));
    expect(await november(account, sub)).toMatchObject({ id: draft.id, status: 'draft', total: '71.00' });
    // After it, with no scheduler tick in between, a late event is not billed: generate finalizes the draft as it stood at grace_until.
    clock = Date.parse('2026-12-04T00:00:00Z');
    await actions(agent, 1, 3, Date.parse('2026-11-21T00:00:00Z'));
    const issued = await november(account, sub);
    expect(issued).toMatchObject({ id: draft.id, status: 'finalized', total: '71.00', issue_date: new Date(clock).toISOString() });
    expect(issued.number).toMatch(/^INV-/);
  });
  it('changes to a plan of another billing cycle at a start of both: each plan billed over its own periods, each day once', async () => {
    const { sub, account, agent } = await activeSubscription();
    for (const when of [undefined, '2026-12-01T00:00:00Z']) {
      const refused = await post(`/api/v1/subscription/${sub}/change-plan`, { rate_plan_id: planQ, ...(when ? { effective_date: when } : {}) });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/from a monthly to a quarterly plan takes effect at a start of both cycles: effective_date 2027-01-01T00:00:00.000Z/);
    }
    expect((await post(`/api/v1/subscription/${sub}/change-plan`, { rate_plan_id: planQ, effective_date: '2027-01-01T00:00:00Z' })).status).toBe(200);
    await actions(agent, 1);
    // November and December on the monthly plan (recorded change pending), then the first quarter on Q.
    expect(await november(account, sub)).toMatchObject({ billing_cycle: 'monthly', total: '70.50' });
    clock = Date.parse('2027-01-02T00:00:00Z');
    const dec = (await post('/v1/invoices/generate', { billing_period: '2026-12', account_id: account })).body.invoices[0];
    expect(dec).toMatchObject({ billing_cycle: 'monthly', period_start: '2026-12-01T00:00:00.000Z', total: '100.00' });
    clock = Date.parse('2027-04-02T00:00:00Z');
    const q1 = (await post('/v1/invoices/generate', { billing_period: '2027-01', account_id: account })).body.invoices[0];
    expect(q1).toMatchObject({ billing_cycle: 'quarterly', period_start: '2027-01-01T00:00:00.000Z', period_end: '2027-04-01T00:00:00.000Z', total: '300.00' });
    const all = (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.invoices.map((i: any) => [i.period_start, i.period_end]).sort();
    expect(all).toEqual([
      ['2026-11-01T00:00:00.000Z', '2026-12-01T00:00:00.000Z'],
      ['2026-12-01T00:00:00.000Z', '2027-01-01T00:00:00.000Z'],
      ['2027-01-01T00:00:00.000Z', '2027-04-01T00:00:00.000Z'],
    ]);
  });
  it("the scheduler catches up across a change of billing cycle, each period in its plan's cycle, once", async () => {
    const { sub } = await activeSubscription();
    expect((await post(`/api/v1/subscription/${sub}/change-plan`, { rate_plan_id: planQ, effective_date: '2027-01-01T00:00:00Z' })).status).toBe(200);
    const inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({}), now: () => new Date(clock), inline: true });
    try {
      clock = Date.parse('2027-04-02T00:00:00Z');
      expect((await runSchedulerPass(inv)).failures).toBe(0);
      expect((await runSchedulerPass(inv)).failures).toBe(0);
    } finally {
      await inv.rater.close();
    }
    const all = (await get(`/api/v1/invoice/invoices?subscription_id=${sub}`)).body.invoices.map((i: any) => [i.period_start.slice(0, 10), i.billing_cycle, i.total]).sort();
    expect(all).toEqual([
      ['2026-11-01', 'monthly', '70.00'],
      ['2026-12-01', 'monthly', '100.00'],
      ['2027-01-01', 'quarterly', '300.00'],
    ]);
  });
});
