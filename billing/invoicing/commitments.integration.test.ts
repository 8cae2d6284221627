/**
 * Minimum commitments through the API (docs/credits.md "Commitments"), against real Postgres,
 * NATS and ClickHouse: the minimum on a rate plan (Family B create, shown on both
 * families' reads) and per subscription (both families' create), validated against the
 * plan's currency; November invoices under, over and exactly at the minimum, with a
 * discount, a mid-period start, a cancel, a pause, a plan change and overrides, in USD,
 * JPY (0 decimals) and BHD (3 decimals); simulate and the invoice preview show the true-up.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { failedPaths } from '../../test/api-support.ts';

const PS = Date.parse('2026-11-01T00:00:00Z');
const PE = Date.parse('2026-12-01T00:00:00Z');
const DAY = 86_400_000;
const iso = (t: number) => new Date(t).toISOString();

let clock = PS;
let stack: TestStack;
let admin: string;
let product: string;
const models: Record<string, string> = {};
const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: admin });

/** A monthly plan (Family B) with a recurring fee, a per-action price and optional discount percent. */
async function plan(name: string, opts: { currency?: string; fee: string; perAction?: string; discountPercent?: string; minimum?: string | number | null }) {
  const res = await post(`/api/v1/products/${product}/rateplans`, {
    name,
    billing_cycle_code: 'monthly',
    currency: opts.currency ?? 'USD',
    ...(opts.minimum !== undefined ? { minimum_commitment: opts.minimum } : {}),
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const id = res.body.id as string;
  const charge = async (body: Record<string, unknown>) => expect((await post(`/api/v1/products/rateplans/${id}/charges`, body)).status).toBe(201);
  await charge({ name: 'Fee', charge_model_id: models.flat, charge_type_code: 'recurring', pricing: { unit_price: opts.fee } });
  if (opts.perAction) await charge({ name: 'Actions', charge_model_id: models.perAction, charge_type_code: 'usage', pricing: { unit_price: opts.perAction } });
  if (opts.discountPercent) await charge({ name: 'Promo', charge_model_id: models.discount, charge_type_code: 'recurring', pricing: { percent: opts.discountPercent } });
  return { id, body: res.body };
}

interface Sub {
  id: string;
  agent: string;
  actions: number;
}

/** An account with one agent and a subscription created active on the clock's now (Family A) or as a draft then activated (Family B). */
async function subscribe(ratePlanId: string, opts: { family?: 'A' | 'B'; contract?: number; minimum?: string | number | null; actions?: number } = {}): Promise<Sub> {
  const account = (await post('/v1/accounts', { name: `acct ${ratePlanId} ${Math.random()}` })).body.id as string;
  const agent = (await createAgent(stack, 'development', { accountId: account })).id;
  const body = {
    account_id: account,
    rate_plan_id: ratePlanId,
    agent_instance_ids: [agent],
    ...(opts.contract !== undefined ? { contract_effective_date: iso(opts.contract) } : {}),
    ...(opts.minimum !== undefined ? { minimum_commitment: opts.minimum } : {}),
  };
  const res = await post(opts.family === 'B' ? '/api/v1/subscription/create' : '/v1/subscriptions', body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  if (opts.family === 'B') expect((await post(`/api/v1/subscription/${res.body.id}/activate`)).status).toBe(200);
  return { id: res.body.id, agent, actions: opts.actions ?? 0 };
}

interface Line {
  charge_id: string;
  model: string;
  charge_type: string;
  amount: string;
  proration: string | null;
  rate_plan_id: string;
  minimum_commitment?: { minimum: string | null; prorated_minimum: string; billed: string; true_up: string; parts: { minimum: string | null; proration: string }[] };
}

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' }, now: () => new Date(clock) });
  admin = stack.keys.development.admin;
  const agentType = (await post('/api/v1/agent_type/create', { name: 'sdr' })).body.id;
  product = (await post('/api/v1/products', { name: 'Agents', agent_type_id: agentType })).body.id;
  const model = async (name: string, type: string, pricing_strategy: Record<string, unknown>) => (await post('/api/v1/charge_models', { name, description: name, type, pricing_strategy })).body.id as string;
  models.flat = await model('Fee', 'flat', {});
  models.perAction = await model('Per action', 'per_unit', { unit_of_measure: '@action' });
  models.discount = await model('Half off', 'discount', { percent: 50 });
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('minimum commitment on rate plans and subscriptions', () => {
  it('is set at create, shown on both families, and refused with a 400 naming the field when invalid', async () => {
    const p = await plan('shown', { fee: '1', minimum: '1000' });
    expect(p.body.minimum_commitment).toBe('1000.00');
    expect((await get(`/api/v1/products/rateplans/${p.id}`)).body.minimum_commitment).toBe('1000.00');
    expect((await get(`/v1/pricing/rate-plans/${p.id}`)).body.minimum_commitment).toBe('1000.00');
    const none = await plan('none', { fee: '1' });
    expect(none.body.minimum_commitment).toBeNull();
    expect((await plan('kwd max', { currency: 'KWD', fee: '1', minimum: '999999999999999.999' })).body.minimum_commitment).toBe('999999999999999.999');
    expect((await plan('jpy number', { currency: 'JPY', fee: '1', minimum: 5000 })).body.minimum_commitment).toBe('5000');

    const bad = async (body: Record<string, unknown>) => {
      const res = await post(`/api/v1/products/${product}/rateplans`, { name: `bad ${Math.random()}`, billing_cycle_code: 'monthly', ...body });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(failedPaths(res)).toEqual(['minimum_commitment']);
      return res.body.error.message as string;
    };
    expect(await bad({ currency: 'USD', minimum_commitment: '-1' })).toMatch(/must not be negative/);
    expect(await bad({ currency: 'USD', minimum_commitment: -5 })).toMatch(/must not be negative/);
    expect(await bad({ currency: 'USD', minimum_commitment: '10.001' })).toMatch(/more than 2 decimals, the minor units of USD/);
    expect(await bad({ currency: 'JPY', minimum_commitment: '10.5' })).toMatch(/more than 0 decimals/);
    expect(await bad({ currency: 'BHD', minimum_commitment: '1.0001' })).toMatch(/more than 3 decimals/);
    expect(await bad({ currency: 'USD', minimum_commitment: '1000000000000000' })).toMatch(/below 10\^15/);
    expect(await bad({ currency: 'USD', minimum_commitment: 'lots' })).toMatch(/non-negative decimal/);
    expect(await bad({ currency: 'USD', minimum_commitment: {} })).toMatch(/non-negative decimal/);
    // Nothing was created by the refused requests.
    const plans = (await get(`/api/v1/products/${product}/rateplans?limit=100`)).body.rate_plans as { name: string }[];
    expect(plans.filter((x) => x.name.startsWith('bad '))).toEqual([]);

    // Per subscription, in the plan's currency, on both families.
    const a = await subscribe(p.id, { minimum: '2500.5' });
    expect((await get(`/v1/subscriptions/${a.id}`)).body.minimum_commitment).toBe('2500.50');
    const b = await subscribe(p.id, { family: 'B', minimum: 0 });
    expect((await get(`/api/v1/subscription/${b.id}`)).body.minimum_commitment).toBe('0.00');
    const plain = await subscribe(p.id);
    expect((await get(`/api/v1/subscription/${plain.id}`)).body.minimum_commitment).toBeNull();
    const jpyPlan = await plan('jpy sub', { currency: 'JPY', fee: '1' });
    const account = (await post('/v1/accounts', { name: 'refused' })).body.id;
    for (const [path, minimum, message] of [
      ['/v1/subscriptions', '12.5', /more than 0 decimals, the minor units of JPY/],
      ['/api/v1/subscription/create', '-3', /must not be negative/],
    ] as const) {
      const res = await post(path, { account_id: account, rate_plan_id: jpyPlan.id, minimum_commitment: minimum });
      expect(res.status).toBe(400);
      expect(failedPaths(res)).toEqual(['minimum_commitment']);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await get('/v1/subscriptions?limit=100')).body.subscriptions.filter((s: { account_id: string }) => s.account_id === account)).toEqual([]);
  });
});

describe('November invoices with a minimum commitment', () => {
  it('true-up under the minimum; none over or exactly at it; prorated by billed time; across plan changes; after discounts; overrides; JPY and BHD', async () => {
    clock = PS;
    const commit = await plan('commit', { fee: '100', perAction: '100', minimum: '1000' });
    const big = await plan('big', { fee: '0', minimum: '3000' });
    const halfOff = await plan('half off', { fee: '600', discountPercent: '50', minimum: '1000' });
    const yen = await plan('yen', { currency: 'JPY', fee: '1000', minimum: '5000' });
    const dinar = await plan('dinar', { currency: 'BHD', fee: '1.5', minimum: '10.125' });

    const subs = {
      under: await subscribe(commit.id, { actions: 2 }), // 100 + 200 = 300: true-up 700
      over: await subscribe(commit.id, { actions: 10 }), // 1100: none
      exact: await subscribe(commit.id, { family: 'B', actions: 9 }), // 1000: none
      discount: await subscribe(halfOff.id), // 600 - 300 = 300: true-up 700
      start: await subscribe(commit.id, { contract: PS + 10 * DAY }), // from Nov 11: 666.67 owed, fee 66.67
      cancel: await subscribe(commit.id), // to Nov 16: 500 owed, fee 50
      pause: await subscribe(commit.id), // paused Nov 11-21: 666.67 owed, fee 66.67
      change: await subscribe(commit.id), // commit to Nov 11, then big: 333.33.. + 2000 = 2333.33 owed
      overrideZero: await subscribe(commit.id, { minimum: '0' }), // no line
      overrideUp: await subscribe(commit.id, { family: 'B', minimum: '2500.5' }), // true-up 2400.50
      yen: await subscribe(yen.id), // 5000 - 1000 = 4000
      dinar: await subscribe(dinar.id), // 10.125 - 1.5 = 8.625
    };
    const move = async (sub: Sub, action: string, body: Record<string, unknown>) => expect((await post(`/api/v1/subscription/${sub.id}/${action}`, body)).status).toBe(200);
    await move(subs.cancel, 'cancel', { cancel_date: '2026-11-16' });
    await move(subs.pause, 'pause', { effective_date: '2026-11-11' });
    await move(subs.pause, 'resume', { effective_date: '2026-11-21' });
    await move(subs.change, 'change-plan', { rate_plan_id: big.id, effective_date: '2026-11-11' });

    // Mid-November, the preview already shows the true-up of the whole period with the usage so far.
    clock = PS + 14 * DAY;
    const preview = await get(`/api/v1/subscription/${subs.discount.id}/invoice-preview`);
    expect(preview.status).toBe(200);
    expect(preview.body.total).toBe('1000.00');
    expect(preview.body.lines.at(-1)).toMatchObject({ charge_id: 'minimum_commitment', amount: '700.00', minimum_commitment: { billed: '300.00', prorated_minimum: '1000.00' } });

    // Events on November 5 (inside every subscription's billed time), sent on December 2.
    clock = PE + DAY;
    const events = Object.values(subs).flatMap((s) => Array.from({ length: s.actions }, (_, i) => ({ agent_key: s.agent, action_type: 'llm_call', id: `${s.id}-${i}`, timestamp: iso(PS + 4 * DAY + i * 60_000) })));
    expect((await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: events })).status).toBe(200);
    await waitFor(
      () => call(stack, 'GET', '/v1/usage?start_date=2026-11-01&end_date=2026-12-01&group_by=none', { key: stack.keys.development.sdk }),
      (r) => (r.body.usage?.[0]?.actions ?? '0') === String(events.length),
      30_000,
    );

    const gen = await post('/v1/invoices/generate', { billing_period: '2026-11' });
    expect(gen.status).toBe(200);
    expect(gen.body.failures).toEqual([]);
    const invoiceOf = async (s: Sub) => {
      const i = gen.body.invoices.find((x: { subscription_id: string }) => x.subscription_id === s.id);
      const full = (await get(`/api/v1/invoice/invoices/${i.id}`)).body;
      return { total: full.total as string, subtotal: full.subtotal as string, lines: full.lines as Line[] };
    };
    const trueUp = (lines: Line[]) => lines.filter((l) => l.model === 'minimum_commitment');

    const under = await invoiceOf(subs.under);
    expect(under.total).toBe('1000.00');
    expect(trueUp(under.lines)).toEqual([
      expect.objectContaining({
        charge_id: 'minimum_commitment',
        charge_type: 'recurring',
        amount: '700.00',
        proration: null,
        rate_plan_id: commit.id,
        minimum_commitment: { minimum: '1000.00', prorated_minimum: '1000.00', billed: '300.00', true_up: '700.00', parts: [{ from: iso(PS), to: iso(PE), minimum: '1000.00', proration: '1' }] },
      }),
    ]);
    // The true-up is the last line; the invoice's total is the sum of its lines.
    expect(under.lines.at(-1)!.model).toBe('minimum_commitment');

    const over = await invoiceOf(subs.over);
    expect([over.total, trueUp(over.lines)]).toEqual(['1100.00', []]);
    const exact = await invoiceOf(subs.exact);
    expect([exact.total, trueUp(exact.lines)]).toEqual(['1000.00', []]);

    const discount = await invoiceOf(subs.discount);
    expect(discount.total).toBe('1000.00');
    expect(trueUp(discount.lines)[0]).toMatchObject({ amount: '700.00', minimum_commitment: { billed: '300.00' } });
    expect(discount.lines.find((l) => l.model === 'discount')!.amount).toBe('-300.00');

    const start = await invoiceOf(subs.start);
    expect(start.total).toBe('666.67');
    expect(trueUp(start.lines)[0]).toMatchObject({ amount: '600.00', proration: '0.6666666666666666666666666666666666666667', minimum_commitment: { prorated_minimum: '666.67', billed: '66.67' } });

    const cancel = await invoiceOf(subs.cancel);
    expect(cancel.total).toBe('500.00');
    expect(trueUp(cancel.lines)[0]).toMatchObject({ amount: '450.00', proration: '0.5' });

    const pause = await invoiceOf(subs.pause);
    expect(pause.total).toBe('666.67');
    expect(trueUp(pause.lines)[0]!.minimum_commitment).toMatchObject({ prorated_minimum: '666.67', billed: '66.67', true_up: '600.00' });
    expect(trueUp(pause.lines)[0]!.minimum_commitment!.parts.map((p) => p.proration)).toEqual(['0.3333333333333333333333333333333333333333', '0.3333333333333333333333333333333333333333']);

    const change = await invoiceOf(subs.change);
    expect(change.total).toBe('2333.33');
    expect(trueUp(change.lines)[0]).toMatchObject({ amount: '2300.00', proration: null, rate_plan_id: big.id });
    expect(trueUp(change.lines)[0]!.minimum_commitment).toMatchObject({ minimum: null, prorated_minimum: '2333.33', billed: '33.33' });
    expect(trueUp(change.lines)[0]!.minimum_commitment!.parts.map((p) => p.minimum)).toEqual(['1000.00', '3000.00']);

    const zero = await invoiceOf(subs.overrideZero);
    expect([zero.total, trueUp(zero.lines)]).toEqual(['100.00', []]);
    const up = await invoiceOf(subs.overrideUp);
    expect(up.total).toBe('2500.50');
    expect(trueUp(up.lines)[0]).toMatchObject({ amount: '2400.50', minimum_commitment: { minimum: '2500.50' } });

    const jpy = await invoiceOf(subs.yen);
    expect(jpy.total).toBe('5000');
    expect(trueUp(jpy.lines)[0]!.amount).toBe('4000');
    const bhd = await invoiceOf(subs.dinar);
    expect(bhd.total).toBe('10.125');
    expect(trueUp(bhd.lines)[0]!.amount).toBe('8.625');
  });

  it('is in the OpenAPI document: rate plan and subscription requests and answers, invoice lines, simulation', async () => {
    const doc = (await get('/v1/openapi.json')).body;
    const text = JSON.stringify(doc);
    const requestOf = (path: string) => JSON.stringify(doc.paths[path].post.requestBody);
    expect(requestOf('/api/v1/products/{product_id}/rateplans')).toContain('minimum_commitment');
    expect(requestOf('/api/v1/subscription/create')).toContain('minimum_commitment');
    expect(requestOf('/v1/subscriptions')).toContain('minimum_commitment');
    for (const schema of ['RatePlan', 'Subscription', 'InvoiceLine']) expect(JSON.stringify(doc.components.schemas[schema]), schema).toContain('minimum_commitment');
    expect(text).toContain('prorated_minimum');
  });

  it('simulate shows the true-up on both families', async () => {
    clock = PS;
    const p = await plan('simulated', { fee: '100', perAction: '1', minimum: '250' });
    const a = await post('/v1/pricing/simulate', { rate_plan_id: p.id, usage: { '@action': 100 }, billing_period: '2026-11' });
    expect(a.status).toBe(200);
    expect(a.body.total).toBe('250.00');
    expect(a.body.minimum_commitment).toMatchObject({ minimum: '250.00', billed: '200.00', true_up: '50.00' });
    expect(a.body.charges.at(-1)).toMatchObject({ charge_id: 'minimum_commitment', amount: '50.00' });
    const b = await post('/api/v1/simulation/charges', { rate_plan_id: p.id, usage_data: { '@action': 200 }, billing_period: '2026-11' });
    expect(b.status).toBe(200);
    expect(b.body.total).toBe('300.00');
    expect(b.body.minimum_commitment).toBeNull();
  });
});
