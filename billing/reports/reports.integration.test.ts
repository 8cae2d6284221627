/**
 * Costs, revenue and P&L end to end on the real Postgres, NATS JetStream and ClickHouse:
 * a known data set with hand-computed costs, revenue and margin per grouping and
 * granularity; reconciliation with invoices and cost records; rule changes over time;
 * isolation across environments; key types.
 *
 * Cost rules (USD unless said), set up from 2026-10-01 (backdated with reallocate):
 *   R1 llm  per_input_token  gpt-4o 0.000005 (from 2026-11-10: 0.00001), llm_call only
 *   R2 llm  per_output_token gpt-4o 0.000015, llm_call only
 *   R3 api  per_api_call     0.01 (metadata.api_calls, default 1), tool_call only
 *   R4 infrastructure per_action 0.001 EUR, every action
 * Actions (a1 of Acme, a2 of Globex):
 *   a1 o1  Oct 25 llm_call gpt-4o in 100 out 100 -> R1 0.0005 + R2 0.0015 = 0.002 USD; R4 0.001 EUR
 *   a1 n1  Nov 02 llm_call gpt-4o in 1000 out 200 (sent twice) -> 0.005 + 0.003 = 0.008 USD; 0.001 EUR
 *   a1 n2  Nov 03 tool_call api_calls 3 -> api 0.03 USD; 0.001 EUR
 *   a1 n3  Nov 04 llm_call with metadata.cost 0.25 USD llm -> 0.25 USD only
 *   a1 n4  Nov 15 llm_call gpt-4o in 1000 -> R1 (new rate) 0.01 + R2 0 USD; 0.001 EUR
 *   a2 m1  Nov 12 llm_call model claude in 500 -> no USD rate; 0.001 EUR
 *   a2 m2  Nov 12 llm_call gpt-4o in 2000 -> 0.02 USD; 0.001 EUR
 * Costs: Oct USD llm 0.002, EUR 0.001; Nov USD llm 0.288 (a1 0.268, a2 0.02), api 0.03,
 * EUR 0.005 (a1 0.003, a2 0.002). Total USD 0.32, EUR 0.006.
 * Invoices: Acme plan USD (100/month + 0.5 per @action) with a1: Oct 100.50, Nov 102.00;
 * Globex plan EUR (50/month) with a2: Oct 50.00, Nov 50.00.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, clockFrom, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let acme: string;
let globex: string;
let a1: string;
let a2: string;
let planUsd: string;
let planEur: string;
let productA: string;
let productB: string;
let typeA: string;
let r1: string;
let r3: string;

const post = (path: string, body?: unknown, key = dev.admin) => call(stack, 'POST', path, { key, ...(body !== undefined ? { body } : {}) });
const put = (path: string, body: unknown, key = dev.admin) => call(stack, 'PUT', path, { key, body });
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const RANGE = 'start_date=2026-10-01&end_date=2026-12-01';

async function model(name: string, type: string, pricing_strategy: Record<string, unknown>) {
  const res = await post('/api/v1/charge_models', { name, description: name, type, pricing_strategy });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function subscription(planId: string, agentIds: string[], account: string) {
  const res = await post('/v1/subscriptions', { account_id: account, rate_plan_id: planId, agent_instance_ids: agentIds });
  expect(res.status).toBe(201);
  await stack.tally.db!.updateTable('subscription_events').set({ effective_at: new Date('2026-10-01T00:00:00Z') }).where('subscription_id', '=', res.body.id).execute();
  await stack.tally.db!.updateTable('subscriptions').set({ contract_effective_date: new Date('2026-10-01T00:00:00Z') }).where('id', '=', res.body.id).execute();
  return res.body.id as string;
}

async function landed(agentId: string, n: number) {
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?${RANGE}&agent_id=${agentId}`, { key: dev.sdk }),
    (r) => (r.body.usage?.[0]?.actions ?? '0') === String(n),
  );
}

beforeAll(async () => {
  // November 23, 2026 (the date this data set was written for), with a 30-day grace: October's invoices take its events.
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' }, now: clockFrom('2026-11-23T12:00:00Z') });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  typeA = (await post('/api/v1/agent_type/create', { name: 'recruiter' })).body.id;
  const typeB = (await post('/api/v1/agent_type/create', { name: 'support' })).body.id;
  productA = (await post('/api/v1/products', { name: 'Recruiter', agent_type_id: typeA })).body.id;
  productB = (await post('/api/v1/products', { name: 'Support', agent_type_id: typeB })).body.id;
  planUsd = (await post(`/api/v1/products/${productA}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  planEur = (await post(`/api/v1/products/${productB}/rateplans`, { name: 'eu', billing_cycle_code: 'monthly', currency: 'EUR' })).body.id;
  const flat = await model('Platform fee', 'flat', {});
  const perAction = await model('Per action', 'per_unit', { unit_of_measure: '@action' });
  for (const [plan, body] of [
    [planUsd, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 100 } }],
    [planUsd, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: '0.5' } }],
    [planEur, { name: 'Platform', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: 50 } }],
  ] as const) {
    expect((await post(`/api/v1/products/rateplans/${plan}/charges`, body)).status).toBe(201);
  }
  acme = (await post('/v1/accounts', { name: 'Acme', email: 'ap@acme.test' })).body.id;
  globex = (await post('/v1/accounts', { name: 'Globex', email: 'ap@globex.test' })).body.id;
  a1 = (await createAgent(stack, 'development', { accountId: acme })).id;
  a2 = (await createAgent(stack, 'development', { accountId: globex })).id;
  await stack.tally.db!.updateTable('agent_instances').set({ agent_type_id: typeA }).where('id', '=', a1).execute();
  await subscription(planUsd, [a1], acme);
  await subscription(planEur, [a2], globex);
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('cost rules', () => {
  it('are created per environment with decimal rates; bad rules are 400; SDK and read-only keys may not write', async () => {
    const since = { effective_from: '2026-10-01T00:00:00Z', reallocate: true };
    const c1 = await post('/v1/cost_rules', { name: 'gpt-4o input', category: 'llm', currency: 'usd', basis: 'per_input_token', model_rates: { 'gpt-4o': '0.000005' }, action_type: 'llm_call', ...since });
    expect(c1.status).toBe(201);
    expect(c1.body).toMatchObject({ category: 'llm', currency: 'USD', basis: 'per_input_token', rate: null, model_rates: { 'gpt-4o': '0.000005' }, effective_from: '2026-10-01T00:00:00.000Z', effective_to: null, is_active: true });
    r1 = c1.body.id;
    expect((await post('/v1/cost_rules', { name: 'gpt-4o output', category: 'llm', currency: 'USD', basis: 'per_output_token', model_rates: { 'gpt-4o': 0.000015 }, action_type: 'llm_call', ...since })).status).toBe(201);
    r3 = (await post('/v1/cost_rules', { name: 'search API', category: 'api', currency: 'USD', basis: 'per_api_call', rate: '0.01', action_type: 'tool_call', ...since })).body.id;
    expect((await post('/v1/cost_rules', { name: 'compute', category: 'infrastructure', currency: 'EUR', basis: 'per_action', rate: '0.001', ...since })).status).toBe(201);

    // A past effective time without reallocate would rewrite allocated costs: refused.
    const past = await post('/v1/cost_rules', { name: 'x', category: 'llm', currency: 'USD', basis: 'per_action', rate: 1, effective_from: '2026-10-01T00:00:00Z' });
    expect(past.status).toBe(400);
    for (const bad of [
      { name: 'x', category: 'food', currency: 'USD', basis: 'per_action', rate: 1 },
      { name: 'x', category: 'llm', currency: 'USD', basis: 'per_action' },
      { name: 'x', category: 'llm', currency: 'USD', basis: 'per_action', rate: '-1' },
      { name: 'x', category: 'llm', currency: 'USD', basis: 'per_action', rate: '0.0000000000001' },
      { name: 'x', category: 'llm', currency: 'USD', basis: 'per_action', model_rates: { a: 1 } },
    ]) {
      expect((await post('/v1/cost_rules', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const body = { name: 'x', category: 'llm', currency: 'USD', basis: 'per_action', rate: 1 };
    expect(await statuses(stack, 'POST', '/v1/cost_rules', [dev.sdk, dev.readOnly], body)).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/v1/cost_rules', [dev.sdk, dev.readOnly, dev.readWrite])).toEqual([403, 200, 200]);
    expect((await get('/v1/cost_rules')).body.total).toBe(4);
    expect((await get('/v1/cost_rules', staging.admin)).body.total).toBe(0);
    expect((await get(`/v1/cost_rules/${r1}`, staging.admin)).status).toBe(404);
  });

  it('a change applies from its effective time: a backdated change needs reallocate; versions are kept', async () => {
    expect((await put(`/v1/cost_rules/${r1}`, { model_rates: { 'gpt-4o': '0.00001' }, effective_from: '2026-11-10T00:00:00Z' })).status).toBe(400);
    const res = await put(`/v1/cost_rules/${r1}`, { model_rates: { 'gpt-4o': '0.00001' }, effective_from: '2026-11-10T00:00:00Z', reallocate: true });
    expect(res.status).toBe(200);
    expect(res.body.model_rates).toEqual({ 'gpt-4o': '0.00001' });
    expect(res.body.versions).toEqual([
      { effective_from: '2026-10-01T00:00:00.000Z', effective_to: '2026-11-10T00:00:00.000Z', rate: null, model_rates: { 'gpt-4o': '0.000005' } },
      { effective_from: '2026-11-10T00:00:00.000Z', effective_to: null, rate: null, model_rates: { 'gpt-4o': '0.00001' } },
    ]);
  });
});

describe('costs, revenue and P&L over a known data set', () => {
  it('allocates costs per action, once per event, per currency; cost records reconcile with the total', async () => {
    const act = (agent: string, id: string, ts: string, action_type: string, metadata: Record<string, unknown>) => ({ agent_key: agent, id, timestamp: ts, action_type, metadata });
    const events = [
      act(a1, 'o1', '2026-10-25T10:00:00Z', 'llm_call', { model: 'gpt-4o', input_tokens: 100, output_tokens: 100 }),
      act(a1, 'n1', '2026-11-02T10:00:00Z', 'llm_call', { model: 'gpt-4o', input_tokens: 1000, output_tokens: 200 }),
      act(a1, 'n1', '2026-11-02T10:00:00Z', 'llm_call', { model: 'gpt-4o', input_tokens: 1000, output_tokens: 200 }),
      act(a1, 'n2', '2026-11-03T10:00:00Z', 'tool_call', { api_calls: 3 }),
      act(a1, 'n3', '2026-11-04T10:00:00Z', 'llm_call', { model: 'gpt-4o', input_tokens: 100, cost: { amount: '0.25', currency: 'USD', category: 'llm' } }),
      act(a1, 'n4', '2026-11-15T10:00:00Z', 'llm_call', { model: 'gpt-4o', input_tokens: 1000 }),
      act(a2, 'm1', '2026-11-12T10:00:00Z', 'llm_call', { model: 'claude', input_tokens: 500 }),
      act(a2, 'm2', '2026-11-12T11:00:00Z', 'llm_call', { model: 'gpt-4o', input_tokens: 2000 }),
    ];
    expect((await post('/v1/actions', events, dev.sdk)).status).toBe(200);
    expect((await post('/v1/actions', [events[1]], dev.sdk)).status).toBe(200); // resent later
    // The same actions in staging: isolated (no rules there).
    const s1 = (await createAgent(stack, 'staging')).id;
    expect((await post('/v1/actions', events.map((e) => ({ ...e, agent_key: s1 })), staging.sdk)).status).toBe(200);
    await landed(a1, 5);
    await landed(a2, 2);

    const res = await get(`/v1/costs?${RANGE}`);
    expect(res.status).toBe(200);
    const recs = res.body.costs.map((c: any) => [c.agent_id, c.customer_id, c.period, c.cost_type, c.currency, c.amount]);
    expect(recs).toEqual(
      expect.arrayContaining([
        [a1, acme, '2026-10', 'llm', 'USD', '0.002'],
        [a1, acme, '2026-10', 'infrastructure', 'EUR', '0.001'],
        [a1, acme, '2026-11', 'llm', 'USD', '0.268'],
        [a1, acme, '2026-11', 'api', 'USD', '0.03'],
        [a1, acme, '2026-11', 'infrastructure', 'EUR', '0.003'],
        [a2, globex, '2026-11', 'llm', 'USD', '0.02'],
        [a2, globex, '2026-11', 'infrastructure', 'EUR', '0.002'],
      ]),
    );
    expect(recs).toHaveLength(7);
    expect(res.body.total).toEqual({ EUR: '0.006', USD: '0.32' });
    for (const c of res.body.costs) expect(c.id).toMatch(/^cost_[0-9a-f]{24}$/);

    const byAgent = await get(`/v1/costs?${RANGE}&agent_id=${a2}`);
    expect(byAgent.body.total).toEqual({ EUR: '0.002', USD: '0.02' });
    const byCustomer = await get(`/v1/costs?start_date=2026-11-01&end_date=2026-12-01&customer_id=${acme}`);
    expect(byCustomer.body.total).toEqual({ EUR: '0.003', USD: '0.298' });

    // Staging has no rules: only the explicit cost of its copy of n3.
    const st = await get(`/v1/costs?${RANGE}`, staging.admin);
    expect(st.body.costs.map((c: any) => [c.agent_id, c.cost_type, c.amount, c.currency])).toEqual([[s1, 'llm', '0.25', 'USD']]);
    expect(st.body.total).toEqual({ USD: '0.25' });
    expect(await statuses(stack, 'GET', `/v1/costs?${RANGE}`, [dev.sdk, dev.readOnly])).toEqual([403, 200]);
  });

  it('a rule change effective now leaves past costs as they were', async () => {
    const before = (await get(`/v1/costs?${RANGE}`)).body;
    const res = await put(`/v1/cost_rules/${r3}`, { rate: '0.5' });
    expect(res.status).toBe(200);
    expect(res.body.rate).toBe('0.5');
    const after = (await get(`/v1/costs?${RANGE}`)).body;
    expect(after).toEqual(before);
  });

  it('revenue: every grouping and granularity, totals per currency equal to the sum of the invoices', async () => {
    for (const period of ['2026-10', '2026-11']) expect((await post('/v1/invoices/generate', { billing_period: period })).status).toBe(200);
    const invoices = (await get('/v1/invoices?limit=100')).body.invoices as { total: string; currency: string; period_start: string; account_id: string }[];
    expect(invoices.map((i) => [i.account_id, i.period_start.slice(0, 7), i.currency, i.total]).sort()).toEqual(
      [
        [acme, '2026-10', 'USD', '100.50'],
        [acme, '2026-11', 'USD', '102.00'],
        [globex, '2026-10', 'EUR', '50.00'],
        [globex, '2026-11', 'EUR', '50.00'],
      ].sort(),
    );

    const none = (await get(`/v1/reports/revenue?${RANGE}`)).body;
    expect(none.total).toEqual({ EUR: '100.00', USD: '202.50' });
    expect(none.invoice_count).toBe(4);
    expect(none.breakdown.map((b: any) => [b.period, b.currency, b.revenue])).toEqual([
      ['2026-10', 'EUR', '50.00'],
      ['2026-10', 'USD', '100.50'],
      ['2026-11', 'EUR', '50.00'],
      ['2026-11', 'USD', '102.00'],
    ]);

    const customer = (await get(`/v1/reports/revenue?${RANGE}&group_by=customer&granularity=quarter`)).body;
    expect(customer.breakdown.map((b: any) => [b.period, b.customer_id, b.currency, b.revenue])).toEqual(
      [
        ['2026-Q4', acme, 'USD', '202.50'],
        ['2026-Q4', globex, 'EUR', '100.00'],
      ].sort((x, y) => String(x[1]).localeCompare(String(y[1]))),
    );

    const agent = (await get(`/v1/reports/revenue?${RANGE}&group_by=agent`)).body;
    expect(agent.breakdown.map((b: any) => [b.period, b.agent_id, b.currency, b.revenue])).toEqual(
      expect.arrayContaining([
        ['2026-10', null, 'USD', '100.00'],
        ['2026-10', a1, 'USD', '0.50'],
        ['2026-10', null, 'EUR', '50.00'],
        ['2026-11', null, 'USD', '100.00'],
        ['2026-11', a1, 'USD', '2.00'],
        ['2026-11', null, 'EUR', '50.00'],
      ]),
    );
    expect(agent.breakdown).toHaveLength(6);

    const product = (await get(`/v1/reports/revenue?${RANGE}&group_by=product&granularity=quarter`)).body;
    expect(product.breakdown.map((b: any) => [b.product_id, b.currency, b.revenue]).sort()).toEqual([
      [productA, 'USD', '202.50'],
      [productB, 'EUR', '100.00'],
    ].sort());
    const plan = (await get(`/v1/reports/revenue?${RANGE}&group_by=rate_plan&granularity=month`)).body;
    expect(plan.breakdown.filter((b: any) => b.rate_plan_id === planUsd).map((b: any) => [b.period, b.revenue])).toEqual([
      ['2026-10', '100.50'],
      ['2026-11', '102.00'],
    ]);
    const week = (await get(`/v1/reports/revenue?${RANGE}&granularity=week`)).body;
    // Oct 1 2026 is a Thursday (ISO week 40, from Monday Sep 28); Nov 1 a Sunday (week 44).
    expect(week.breakdown.map((b: any) => [b.period, b.period_start.slice(0, 10), b.currency, b.revenue])).toEqual([
      ['2026-W40', '2026-09-28', 'EUR', '50.00'],
      ['2026-W40', '2026-09-28', 'USD', '100.50'],
      ['2026-W44', '2026-10-26', 'EUR', '50.00'],
      ['2026-W44', '2026-10-26', 'USD', '102.00'],
    ]);

    // Reconciliation: each grouping's breakdown sums to the total, which is the sum of the invoices.
    const sum = (rows: { currency: string; revenue: string }[], cur: string) => rows.filter((r) => r.currency === cur).reduce((s, r) => s + Math.round(Number(r.revenue) * 100), 0);
    for (const r of [none, customer, agent, product, plan, week]) {
      expect(sum(r.breakdown, 'USD')).toBe(20250);
      expect(sum(r.breakdown, 'EUR')).toBe(10000);
    }
    expect((await get(`/v1/reports/revenue?${RANGE}`, staging.admin)).body.total).toEqual({});
    expect((await get(`/v1/reports/revenue?${RANGE}&group_by=color`)).status).toBe(400);
    expect((await get('/v1/reports/revenue?start_date=2026-12-01&end_date=2026-11-01')).status).toBe(400);
    expect(await statuses(stack, 'GET', `/v1/reports/revenue?${RANGE}`, [dev.sdk, dev.readOnly])).toEqual([403, 200]);
  });

  it('P&L: revenue, costs blended or itemized, margin and margin percent per period and currency', async () => {
    const month = (await get(`/v1/reports/pnl?${RANGE}`)).body;
    expect(month.breakdown.map((b: any) => [b.period, b.currency, b.revenue, b.costs, b.margin, b.margin_percent])).toEqual([
      ['2026-10', 'EUR', '50', '0.001', '49.999', '100.00'],
      ['2026-10', 'USD', '100.5', '0.002', '100.498', '100.00'],
      ['2026-11', 'EUR', '50', '0.005', '49.995', '99.99'],
      ['2026-11', 'USD', '102', '0.318', '101.682', '99.69'],
    ]);
    expect(month.breakdown[3].costs_by_category).toEqual({ llm: '0.288', api: '0.03', infrastructure: '0' });
    expect(month.totals).toEqual([
      { currency: 'EUR', revenue: '100', costs: '0.006', costs_by_category: { llm: '0', api: '0', infrastructure: '0.006' }, margin: '99.994', margin_percent: '99.99' },
      { currency: 'USD', revenue: '202.5', costs: '0.32', costs_by_category: { llm: '0.29', api: '0.03', infrastructure: '0' }, margin: '202.18', margin_percent: '99.84' },
    ]);
    // Cost totals equal the sum of the cost records; revenue totals the revenue report's.
    const costs = (await get(`/v1/costs?${RANGE}`)).body.total;
    expect(Object.fromEntries(month.totals.map((t: any) => [t.currency, t.costs]))).toEqual(costs);

    const blended = (await get(`/v1/reports/pnl?${RANGE}&granularity=quarter&costs=blended`)).body;
    expect(blended.breakdown).toEqual([
      { period: '2026-Q4', period_start: '2026-10-01T00:00:00.000Z', period_end: '2027-01-01T00:00:00.000Z', currency: 'EUR', revenue: '100', costs: '0.006', margin: '99.994', margin_percent: '99.99' },
      { period: '2026-Q4', period_start: '2026-10-01T00:00:00.000Z', period_end: '2027-01-01T00:00:00.000Z', currency: 'USD', revenue: '202.5', costs: '0.32', margin: '202.18', margin_percent: '99.84' },
    ]);

    const byAgent = (await get(`/v1/reports/pnl?${RANGE}&granularity=quarter&group_by=agent`)).body;
    expect(byAgent.breakdown.map((b: any) => [b.agent_id, b.currency, b.revenue, b.costs, b.margin, b.margin_percent])).toEqual(
      expect.arrayContaining([
        [a1, 'USD', '2.5', '0.3', '2.2', '88.00'],
        [a1, 'EUR', '0', '0.004', '-0.004', null],
        [a2, 'USD', '0', '0.02', '-0.02', null],
        [a2, 'EUR', '0', '0.002', '-0.002', null],
        [null, 'USD', '200', '0', '200', '100.00'],
        [null, 'EUR', '100', '0', '100', '100.00'],
      ]),
    );
    const byCustomer = (await get(`/v1/reports/pnl?start_date=2026-11-01&end_date=2026-12-01&group_by=customer&granularity=week`)).body;
    // Revenue in the week of its period start (Nov 1 -> W44); costs in the weeks of the actions.
    expect(byCustomer.breakdown.map((b: any) => [b.period, b.customer_id, b.currency, b.revenue, b.costs])).toEqual(
      expect.arrayContaining([
        ['2026-W44', acme, 'USD', '102', '0'],
        ['2026-W45', acme, 'USD', '0', '0.288'],
        ['2026-W46', acme, 'USD', '0', '0.01'],
        ['2026-W46', globex, 'USD', '0', '0.02'],
        ['2026-W44', globex, 'EUR', '50', '0'],
      ]),
    );
    expect((await get(`/v1/reports/pnl?${RANGE}`, staging.admin)).body.totals.map((t: any) => [t.currency, t.revenue, t.costs])).toEqual([['USD', '0', '0.25']]);
    expect(await statuses(stack, 'GET', `/v1/reports/pnl?${RANGE}`, [dev.sdk, dev.readOnly])).toEqual([403, 200]);
  });

  it('a P&L analysis runs in the background: pending, then completed with the result', async () => {
    const res = await post('/api/v1/pnl', { analysis_type: 'agent', agent_instance_id: a1, start_date: '2026-10-01', end_date: '2026-12-01' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'pending', analysis_type: 'agent', agent_instance_id: a1 });
    const done = await waitFor(
      () => get(`/api/v1/pnl/${res.body.id}`),
      (r) => r.body.status === 'completed' || r.body.status === 'failed',
    );
    expect(done.body.status).toBe('completed');
    expect(done.body.result.totals).toEqual([
      { currency: 'EUR', revenue: '0', costs: '0.004', costs_by_category: { llm: '0', api: '0', infrastructure: '0.004' }, margin: '-0.004', margin_percent: null },
      { currency: 'USD', revenue: '2.5', costs: '0.3', costs_by_category: { llm: '0.27', api: '0.03', infrastructure: '0' }, margin: '2.2', margin_percent: '88.00' },
    ]);
    const cust = await post('/api/v1/pnl', { analysis_type: 'customer', account_id: globex, start_date: '2026-11-01', end_date: '2026-12-01' });
    const c = await waitFor(() => get(`/api/v1/pnl/${cust.body.id}`), (r) => r.body.status === 'completed');
    expect(c.body.result.totals.map((t: any) => [t.currency, t.revenue, t.costs, t.margin])).toEqual([
      ['EUR', '50', '0.002', '49.998'],
      ['USD', '0', '0.02', '-0.02'],
    ]);
    expect((await post('/api/v1/pnl', { analysis_type: 'agent', agent_instance_id: 'ai_nope', start_date: '2026-10-01', end_date: '2026-12-01' })).status).toBe(404);
    expect((await post('/api/v1/pnl', { analysis_type: 'agent', start_date: '2026-10-01', end_date: '2026-12-01' })).status).toBe(400);
    expect((await get(`/api/v1/pnl/${res.body.id}`, staging.admin)).status).toBe(404);
    expect(await statuses(stack, 'POST', '/api/v1/pnl', [dev.sdk], { analysis_type: 'agent', agent_instance_id: a1, start_date: '2026-10-01', end_date: '2026-12-01' })).toEqual([403]);
  });

  it('an analysis its process abandoned (crashed while pending or running) is finished when it is read', async () => {
    const db = stack.tally.db!;
    const base = { environment_id: stack.keys.development.id, analysis_type: 'agent' as const, agent_instance_id: a1, account_id: null, start_date: new Date('2026-10-01'), end_date: new Date('2026-12-01'), granularity: 'month' };
    await db.insertInto('pnl_analyses').values([
      { ...base, id: 'pnl_orphan_pending', created_at: new Date(Date.now() - 5 * 60_000) },
      { ...base, id: 'pnl_orphan_running', status: 'running', started_at: new Date(Date.now() - 60 * 60_000) },
      // Running for a minute: its process may well be alive; left alone.
      { ...base, id: 'pnl_busy', status: 'running', started_at: new Date(Date.now() - 60_000) },
    ]).execute();
    for (const id of ['pnl_orphan_pending', 'pnl_orphan_running']) {
      const done = await waitFor(() => get(`/api/v1/pnl/${id}`), (r) => r.body.status === 'completed');
      expect(done.body.result.totals.map((t: any) => t.currency)).toEqual(['EUR', 'USD']);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect((await get('/api/v1/pnl/pnl_busy')).body.status).toBe('running');
  });

  it('embeds: per-day actions, outcomes, cost, revenue and margin of one instance', async () => {
    const res = await get(`/api/v1/embeds/${a1}?duration=30days`);
    expect(res.status).toBe(200);
    expect(res.body.days).toHaveLength(30);
    const nov2 = res.body.days.find((d: any) => d.date === '2026-11-02');
    // Revenue: the 2.00 usage line of November spread over its 30 days.
    expect(nov2).toEqual({
      date: '2026-11-02',
      actions: 1,
      outcomes: 0,
      outcome_value: '0',
      money: [
        { currency: 'EUR', revenue: '0', cost: '0.001', margin: '-0.001' },
        { currency: 'USD', revenue: '0.066667', cost: '0.008', margin: '0.058667' },
      ],
    });
    expect((await get(`/api/v1/embeds/${a1}?duration=7days`)).body.days).toHaveLength(7);
    expect((await get(`/api/v1/embeds/${a1}?duration=week`)).status).toBe(400);
    expect((await get(`/api/v1/embeds/${a1}`, staging.admin)).status).toBe(404);
    expect(await statuses(stack, 'GET', `/api/v1/embeds/${a1}`, [dev.sdk, dev.readOnly])).toEqual([403, 200]);
  });

  it('per-unit rules read the quantity from metadata (fractional), only in their environment', async () => {
    const rule = await post('/v1/cost_rules', { name: 'storage', category: 'infrastructure', currency: 'USD', basis: 'per_unit', unit_field: 'gb_hours', rate: '0.02', effective_from: '2026-11-01T00:00:00Z', reallocate: true }, staging.admin);
    expect(rule.status).toBe(201);
    const s2 = (await createAgent(stack, 'staging')).id;
    const evs = [
      { agent_key: s2, action_type: 'store', id: 'u1', timestamp: '2026-11-05T00:00:00Z', metadata: { gb_hours: 2.5 } },
      { agent_key: s2, action_type: 'store', id: 'u2', timestamp: '2026-11-06T00:00:00Z', metadata: { gb_hours: '10' } },
      { agent_key: s2, action_type: 'store', id: 'u3', timestamp: '2026-11-07T00:00:00Z', metadata: {} },
    ];
    expect((await post('/v1/actions', evs, staging.sdk)).status).toBe(200);
    await waitFor(() => call(stack, 'GET', `/v1/usage?${RANGE}&agent_id=${s2}`, { key: staging.sdk }), (r) => r.body.usage?.[0]?.actions === '3');
    const res = await get(`/v1/costs?${RANGE}&agent_id=${s2}`, staging.admin);
    expect(res.body.costs.map((c: any) => [c.cost_type, c.amount, c.currency, c.period, c.actions])).toEqual([['infrastructure', '0.25', 'USD', '2026-11', 3]]);
    // Development is untouched by the staging rule.
    expect((await get(`/v1/costs?${RANGE}`)).body.total).toEqual({ EUR: '0.006', USD: '0.32' });
  });
});
