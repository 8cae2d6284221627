/**
 * @user and @seat across plan changes and pauses (issue 35), through the real API,
 * Postgres, NATS and ClickHouse: a period's users are its distinct users over the time it
 * was billed, each counted once, in the segment of their first action, whatever plan that
 * segment was on; so user allowances, tiers and seat packages count from the start of the
 * period and a user active before and after a change or a pause counts once.
 *
 * Plans: S0 fee 30/month; S1 fee 30/month + seats in packages of 100 at 49; U1 and U2
 * users tiered (the first 2 free, then 10 a user). November has 30 days.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';

const T0 = Date.parse('2026-11-10T00:00:00Z');
const DAY = 86_400_000;
const at = (days: number) => new Date(T0 + days * DAY).toISOString();
let clock = T0;

let stack: TestStack;
let dev: KeySet;
const plans: Record<'S0' | 'S1' | 'U1' | 'U2', string> = { S0: '', S1: '', U1: '', U2: '' };
const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' }, now: () => new Date(clock) });
  dev = await keySet(stack, 'development');
  const model = async (name: string, type: string, pricing_strategy: Record<string, unknown>) => (await post('/api/v1/charge_models', { name, description: name, type, pricing_strategy })).body.id as string;
  const charge = async (plan: string, name: string, charge_model_id: string, extra: Record<string, unknown> = {}) =>
    expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name, charge_model_id, ...extra })).status).toBe(201);
  const typeId = (await post('/api/v1/agent_type/create', { name: 'users' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'Users', agent_type_id: typeId })).body.id;
  for (const name of Object.keys(plans) as (keyof typeof plans)[]) {
    plans[name] = (await post(`/api/v1/products/${productId}/rateplans`, { name, billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  }
  const fee = await model('Fee', 'flat', { amount: 30 });
  const seats = await model('Seats', 'package', { unit_of_measure: '@seat', package_size: 100, package_price: 49 });
  const users = await model('Users', 'tiered', { unit_of_measure: '@user', tiers: [{ price: 0, start: 0 }, { price: 10, start: 2 }] });
  await charge(plans.S0, 'Fee', fee, { charge_type_code: 'recurring' });
  await charge(plans.S1, 'Fee', fee, { charge_type_code: 'recurring' });
  await charge(plans.S1, 'Seats', seats, { charge_type_code: 'usage' });
  await charge(plans.U1, 'Users', users, { charge_type_code: 'usage' });
  await charge(plans.U2, 'Users', users, { charge_type_code: 'usage' });
});
afterAll(async () => {
  await stack?.cleanup();
});

/** An account, agent and subscription active from T0 on `plan`. */
async function subscription(plan: string) {
  clock = T0;
  const account = (await post('/v1/accounts', { name: 'Users customer' })).body.id as string;
  const agent = (await createAgent(stack, 'development', { accountId: account })).id;
  const res = await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan, agent_instance_ids: [agent], contract_effective_date: '2026-10-01T00:00:00Z' });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { sub: res.body.id as string, account, agent };
}

async function move(sub: string, action: string, body: Record<string, unknown>) {
  const res = await post(`/api/v1/subscription/${sub}/${action}`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** Actions of the agent by user at the given days after T0 (sent on December 2), and November's invoice lines by charge name. */
async function november(s: { sub: string; account: string; agent: string }, activity: [user: string, day: number][]) {
  clock = Date.parse('2026-12-02T00:00:00Z');
  const body = activity.map(([user, day], i) => ({ agent_key: s.agent, action_type: 'llm_call', id: `${s.sub}-${i}`, user_id: user, timestamp: at(day) }));
  expect((await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body })).status).toBe(200);
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?start_date=2026-11-01&end_date=2026-12-01&agent_id=${s.agent}`, { key: dev.sdk }),
    (r) => r.body.usage?.[0]?.actions === String(activity.length),
  );
  const res = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: s.account });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const inv = res.body.invoices.find((i: { subscription_id: string }) => i.subscription_id === s.sub);
  const full = (await call(stack, 'GET', `/api/v1/invoice/invoices/${inv.id}`, { key: dev.admin })).body;
  const by = (name: string) => (full.lines as { charge_name: string; amount: string; quantity: string }[]).filter((l) => l.charge_name === name);
  return { total: full.total as string, by };
}

describe('users and seats count once per period, across plan changes and pauses', () => {
  it('4 seats before a change to a plan with seat packages of 100 and the same 4 after bill no new package', async () => {
    const s = await subscription(plans.S0);
    await move(s.sub, 'change-plan', { rate_plan_id: plans.S1, effective_date: at(5) });
    const seats = ['ann', 'bob', 'cy', 'dee'];
    const inv = await november(s, [...seats.map((u): [string, number] => [u, 1]), ...seats.map((u): [string, number] => [u, 6])]);
    // Fee 30 x 21/30 = 21.00; the 4 seats were counted before the change (on S0, which has no seat charge): no new package.
    expect(inv.by('Seats').map((l) => [l.quantity, l.amount])).toEqual([['0', '0.00']]);
    expect(inv.total).toBe('21.00');
  });

  it('a fifth seat after the change still fits the package the period already started: nothing more', async () => {
    const s = await subscription(plans.S0);
    await move(s.sub, 'change-plan', { rate_plan_id: plans.S1, effective_date: at(5) });
    const inv = await november(s, [['ann', 1], ['bob', 1], ['ann', 6], ['eve', 7]]);
    expect(inv.by('Seats').map((l) => [l.quantity, l.amount])).toEqual([['1', '0.00']]);
    expect(inv.total).toBe('21.00');
  });

  it('a user active before and after a plan change and a pause counts once toward the tiers; users active only while paused count not', async () => {
    const s = await subscription(plans.U1);
    await move(s.sub, 'change-plan', { rate_plan_id: plans.U2, effective_date: at(5) });
    await move(s.sub, 'pause', { effective_date: at(10) });
    await move(s.sub, 'resume', { effective_date: at(15) });
    const inv = await november(s, [
      ['ann', 1], ['bob', 2], // on U1: 2 users, free
      ['ann', 6], ['bob', 6], ['cy', 7], // on U2: cy is the period's third user: 10
      ['dan', 12], // paused: not billed
      ['ann', 16], ['cy', 17], ['bob', 18], // after the resume: all counted already
    ]);
    expect(inv.by('Users').map((l) => [l.quantity, l.amount])).toEqual([['2', '0.00'], ['1', '10.00'], ['0', '0.00']]);
    expect(inv.total).toBe('10.00');
  });

  it('the period\'s distinct users decide the band, whichever segment they first appear in', async () => {
    const s = await subscription(plans.U1);
    await move(s.sub, 'pause', { effective_date: at(3) });
    await move(s.sub, 'resume', { effective_date: at(6) });
    const inv = await november(s, [['ann', 1], ['bob', 7], ['ann', 8], ['cy', 9], ['dan', 10], ['cy', 11]]);
    // ann, bob, cy, dan: 4 distinct, 2 free, 2 at 10.
    expect(inv.total).toBe('20.00');
  });
});
