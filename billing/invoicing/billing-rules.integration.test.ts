/**
 * Billing rules found wrong when tried as a customer would (issue "every figure exact"):
 * discounts must target a real charge, one subscription that cannot be rated never
 * stops the others, bill runs refuse future dates and print totals in minor units, and
 * currencies round with their ISO 4217 minor units. Real Postgres, NATS and ClickHouse.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { failedPaths } from '../../test/api-support.ts';

let stack: TestStack;
let admin: string;
let accountId: string;
let product: string;
let flat: string;

const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: admin, ...(body !== undefined ? { body } : {}) });

async function plan(currency: string, price: string | number) {
  const res = await post(`/api/v1/products/${product}/rateplans`, { name: `plan ${currency} ${price}`, billing_cycle_code: 'monthly', currency });
  expect(res.status).toBe(201);
  const c = await post(`/api/v1/products/rateplans/${res.body.id}/charges`, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: price } });
  expect(c.status).toBe(201);
  return { id: res.body.id as string, chargeId: c.body.id as string };
}

/** A subscription active since 2026-10-01 (its recorded activation dated back). */
async function subscription(planId: string) {
  const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId, agent_instance_ids: [] });
  expect(res.status).toBe(201);
  const db = stack.tally.db!;
  await db.updateTable('subscription_events').set({ effective_at: new Date('2026-10-01T00:00:00Z') }).where('subscription_id', '=', res.body.id).execute();
  await db.updateTable('subscriptions').set({ contract_effective_date: new Date('2026-10-01T00:00:00Z') }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' } });
  admin = stack.keys.development.admin;
  accountId = (await post('/v1/accounts', { name: 'Acme', email: 'ap@acme.test' })).body.id;
  const agentType = (await post('/api/v1/agent_type/create', { name: 'sdr' })).body.id;
  product = (await post('/api/v1/products', { name: 'Agents', agent_type_id: agentType })).body.id;
  flat = (await post('/api/v1/charge_models', { name: 'flat', description: 'flat', type: 'flat', pricing_strategy: {} })).body.id;
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('billing rules', () => {
  it('a discount must target a charge of its rate plan; a subscription that cannot be rated is reported, the others invoiced', async () => {
    const usd = await plan('USD', 16);
    const discount = (await post('/api/v1/charge_models', { name: 'ten off', description: 'd', type: 'discount', pricing_strategy: { percent: 10 } })).body.id;
    const bad = await post(`/api/v1/products/rateplans/${usd.id}/charges`, { name: 'Promo', charge_model_id: discount, charge_type_code: 'recurring', pricing: { applies_to: 'ch_nope' } });
    expect(bad.status).toBe(400);
    expect(failedPaths(bad)).toEqual(['pricing.applies_to']);
    const good = await post(`/api/v1/products/rateplans/${usd.id}/charges`, { name: 'Promo', charge_model_id: discount, charge_type_code: 'recurring', pricing: { applies_to: 'Platform' } });
    expect(good.status).toBe(201);

    // A plan stored before this check, with a discount aimed at no charge: it cannot be rated.
    const broken = await plan('USD', 5);
    const promo = await post(`/api/v1/products/rateplans/${broken.id}/charges`, { name: 'Promo', charge_model_id: discount, charge_type_code: 'recurring', pricing: { applies_to: broken.chargeId } });
    expect(promo.status).toBe(201);
    await stack.tally.db!.updateTable('charges').set({ resolved_pricing: JSON.stringify({ ...promo.body.resolved_pricing, applies_to: 'ch_gone' }) }).where('id', '=', promo.body.id).execute();

    const ok = await subscription(usd.id);
    const unrateable = await subscription(broken.id);
    const gen = await post('/v1/invoices/generate', { billing_period: '2026-10' });
    expect(gen.status).toBe(200);
    expect(gen.body.invoices.map((i: { subscription_id: string }) => i.subscription_id)).toEqual([ok]);
    expect(gen.body.invoices[0].total).toBe('14.40');
    expect(gen.body.failures).toEqual([{ subscription_id: unrateable, code: expect.any(String), message: expect.stringContaining('ch_gone') }]);

    const run = await post('/api/v1/invoice/bill-runs/create', { billing_date: '2026-11-02' });
    expect(run.status).toBe(201);
    expect(run.body.failures).toEqual([{ subscription_id: unrateable, code: expect.any(String), message: expect.stringContaining('ch_gone') }]);
    // Totals keep the currency's minor units, as the invoices do ("16" before).
    expect(run.body.totals).toEqual({ USD: '14.40' });
  });

  it('a bill run refuses a billing_date in the future, as generate refuses a future period', async () => {
    const future = new Date(Date.now() + 40 * 86400_000).toISOString().slice(0, 10);
    const res = await post('/api/v1/invoice/bill-runs/create', { billing_date: future });
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual(['billing_date']);
    expect((await post('/v1/invoices/generate', { billing_period: future.slice(0, 7) })).status).toBe(400);
  });

  it('a plan change, pause or resume takes effect no earlier than activation, the last change or the last issued period', async () => {
    const a = await plan('EUR', 100);
    const b = await plan('EUR', 200);
    const sub = await subscription(a.id); // active since 2026-10-01
    const move = (action: string, body: Record<string, unknown>) => post(`/api/v1/subscription/${sub}/${action}`, body);
    const before = await move('change-plan', { rate_plan_id: b.id, effective_date: '2026-09-15' });
    expect(before.status).toBe(400);
    expect(failedPaths(before)).toEqual(['effective_date']);
    expect((await move('pause', { effective_date: '2026-09-30' })).status).toBe(400);

    // October invoiced and finalized: no change may reach back into it.
    const gen = await post('/v1/invoices/generate', { billing_period: '2026-10', account_id: accountId });
    const invoice = gen.body.invoices.find((i: { subscription_id: string }) => i.subscription_id === sub);
    expect((await post(`/api/v1/invoice/invoices/${invoice.id}/finalize`)).status).toBe(200);
    expect((await move('change-plan', { rate_plan_id: b.id, effective_date: '2026-10-20' })).status).toBe(400);
    const ok = await move('change-plan', { rate_plan_id: b.id, effective_date: '2026-11-16' });
    expect(ok.status).toBe(200);
    // Nor before the change just made.
    expect((await move('pause', { effective_date: '2026-11-10' })).status).toBe(400);
    expect((await move('pause', { effective_date: '2026-11-20' })).status).toBe(200);
  });

  it('without an effective_date (now), a change is refused before a future activation', async () => {
    const a = await plan('EUR', 300);
    const b = await plan('EUR', 400);
    const start = new Date(Date.now() + 10 * 86400_000).toISOString();
    const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: a.id, agent_instance_ids: [], contract_effective_date: start });
    expect(res.status).toBe(201);
    const change = await post(`/api/v1/subscription/${res.body.id}/change-plan`, { rate_plan_id: b.id });
    expect(change.status).toBe(400);
    expect(failedPaths(change)).toEqual(['effective_date']);
    expect((await post(`/api/v1/subscription/${res.body.id}/pause`)).status).toBe(400);
    expect((await post(`/api/v1/subscription/${res.body.id}/change-plan`, { rate_plan_id: b.id, effective_date: start })).status).toBe(200);
  });

  it('a pause and resume do not grant the included units again (10 per period, not 10 per segment)', async () => {
    const planRes = await post(`/api/v1/products/${product}/rateplans`, { name: 'overage plan', billing_cycle_code: 'monthly', currency: 'USD' });
    const overage = (await post('/api/v1/charge_models', { name: 'overage', description: 'o', type: 'overage', pricing_strategy: { base_fee: 0, included_units: 10, overage_unit_price: 1, unit_of_measure: '@action' } })).body.id;
    expect((await post(`/api/v1/products/rateplans/${planRes.body.id}/charges`, { name: 'Actions', charge_model_id: overage, charge_type_code: 'usage' })).status).toBe(201);
    const agent = await createAgent(stack, 'development', { accountId });
    const sub = (await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planRes.body.id, agent_instance_ids: [agent.id] })).body.id;
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms).toISOString();
    const send = (n: number, ts: string, tag: string) =>
      call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: Array.from({ length: n }, (_, i) => ({ agent_key: agent.id, action_type: 'x', id: `${tag}-${i}`, timestamp: ts })) });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await send(8, at(1000), 'before')).status).toBe(200);
    expect((await post(`/api/v1/subscription/${sub}/pause`, { effective_date: at(2000) })).status).toBe(200);
    expect((await post(`/api/v1/subscription/${sub}/resume`, { effective_date: at(3000) })).status).toBe(200);
    expect((await send(12, at(4000), 'after')).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + 4500 - Date.now())));
    const preview = await waitFor(
      () => call(stack, 'GET', `/api/v1/subscription/${sub}/invoice-preview`, { key: admin }),
      (r) => r.body.lines?.reduce((n: number, l: { quantity: string }) => n + Number(l.quantity), 0) === 20,
    );
    // 20 actions in the period, 10 included: 10 billed (the allowance was granted twice before: 2 billed).
    expect(preview.body.total).toBe('10.00');
  });

  it('rounds with ISO 4217 minor units (CLP 0, LYD 3) and refuses codes that are not currencies', async () => {
    for (const code of ['XYZ', 'QQQ', 'XAU']) {
      const res = await post(`/api/v1/products/${product}/rateplans`, { name: `bad ${code}`, billing_cycle_code: 'monthly', currency: code });
      expect(res.status, code).toBe(400);
      expect(failedPaths(res), code).toEqual(['currency']);
    }
    const clp = await plan('CLP', '4.5');
    const badCharge = await post(`/api/v1/products/rateplans/${clp.id}/charges`, { name: 'Other', charge_model_id: flat, charge_type_code: 'recurring', currency: 'QQQ', pricing: { unit_price: 1 } });
    expect(badCharge.status).toBe(400);
    expect(failedPaths(badCharge)).toEqual(['currency']);
    const lyd = await plan('LYD', '1.2345');
    const subs = [await subscription(clp.id), await subscription(lyd.id)];
    const gen = await post('/v1/invoices/generate', { billing_period: '2026-10' });
    const totals = subs.map((s) => gen.body.invoices.find((i: { subscription_id: string }) => i.subscription_id === s)?.total);
    expect(totals).toEqual(['5', '1.235']);
  });
});
