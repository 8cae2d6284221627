/**
 * The fast pass of money limits (evaluator.ts `fastPass`, `measureMoneyBound`) against real
 * Postgres, NATS JetStream and ClickHouse, with ClickHouse answering seconds late (as busy
 * as a sink's backlog makes it) and no sink (the live tail holds every event): an account's
 * spend limit and available-balance limit of a per-unit plan are recorded reached from the
 * live usage's lower bound long before the pass's exact figure, while a volume-priced
 * account's spend limit (not monotonic in usage: monotone.ts) is left to the pass, which
 * records it only once ClickHouse has answered.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { perActionPlan } from '../../test/api-support.ts';
import { slowEvaluator } from '../../test/slow-evaluator.ts';

let stack: TestStack;

const post = async (path: string, body: unknown) => {
  const res = await call(stack, 'POST', path, { key: stack.keys.development.admin, body });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body.id as string;
};

let seq = 0;
const sendN = async (agentId: string, n: number) => {
  // No ids: ingest makes them, so none can be a copy, and the lower bound counts them (client ids it leaves to the pass).
  const body = Array.from({ length: n }, () => ({ agent_key: agentId, action_type: 'work' }));
  const res = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
};

/** A plan of one volume charge on @action: 1.00 an action up to 100, all at 0.10 from 101 (more actions can bill less). */
async function volumePlan(product: string): Promise<string> {
  const model = await post('/api/v1/charge_models', { name: 'volume', description: 'volume', type: 'volume', pricing_strategy: { unit_of_measure: '@action', tiers: [{ start: 1, price: '1' }, { start: 101, price: '0.1' }] } });
  const plan = await post(`/api/v1/products/${product}/rateplans`, { name: 'Volume', billing_cycle_code: 'monthly', currency: 'USD' });
  await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Actions', charge_model_id: model, charge_type_code: 'usage' });
  return plan;
}

/** An account of its own with an agent instance, subscribed to `plan` (from now). */
async function subscribed(plan: string, name: string) {
  const account = await post('/v1/accounts', { name });
  const agent = await createAgent(stack, 'development', { accountId: account });
  await post('/v1/subscriptions', { account_id: account, rate_plan_id: plan });
  return { account, agent };
}

beforeAll(async () => {
  // No sink and no billing role: the test's evaluator is the only one, and the tail holds every event.
  stack = await startTestStack({ roles: ['ingest', 'api'], env: { TALLY_INGEST_LINGER_MS: '1' } });
}, 60_000);

afterAll(async () => {
  await stack?.cleanup();
});

it('records account spend and available-balance limits reached from the lower bound while ClickHouse answers slowly; a volume-priced spend limit waits for the exact pass', async () => {
  const db = stack.tally.db!;
  const { plan: perUnit, product } = await perActionPlan(stack, stack.keys.development.admin, 'Per action'); // 1.00 USD an action
  const volume = await volumePlan(product);
  const spender = await subscribed(perUnit, 'Spender');
  const prepaid = await subscribed(perUnit, 'Prepaid');
  const bulk = await subscribed(volume, 'Bulk');
  await post('/v1/credits/grants', { account_id: prepaid.account, currency: 'USD', kind: 'free', amount: '3.00' });
  const limit = (account: string, metric: string, value: string) => post('/v1/limits', { scope: 'account', account_id: account, metric, currency: 'USD', value, thresholds: [50, 100], action: 'block' });
  const spendLimit = await limit(spender.account, 'spend', '5');
  const balanceLimit = await limit(prepaid.account, 'available_balance', '0');
  const volumeLimit = await limit(bulk.account, 'spend', '5');

  // ClickHouse as busy as a sink's backlog makes it: every answer SLOW_MS late.
  const SLOW_MS = 5000;
  const { evaluator, ...slow } = slowEvaluator(stack, SLOW_MS);
  const state = (id: string) => db.selectFrom('spend_limit_states').select(['reached', 'current']).where('limit_id', '=', id).executeTakeFirst();
  try {
    await slow.start();
    // The passes' first (full) evaluation of the three, at zero, waits SLOW_MS per ClickHouse answer: crossed meanwhile.
    await Promise.all([sendN(spender.agent.id, 6), sendN(prepaid.agent.id, 3), sendN(bulk.agent.id, 6)]);
    const acked = Date.now();
    await waitFor(async () => [(await state(spendLimit))?.reached, (await state(balanceLimit))?.reached], (r) => r.every((x) => x === true), SLOW_MS - 1000);
    console.log(`crossing -> spend and available-balance limits recorded reached by the fast pass: ${Date.now() - acked} ms (ClickHouse answers ${SLOW_MS} ms late)`);
    expect(evaluator.fastReached).toBe(2);
    // Rated as the invoice would from the bound (here every event is in the tail: the exact figures).
    expect(await state(spendLimit)).toMatchObject({ current: '6.00' });
    expect(await state(balanceLimit)).toMatchObject({ current: '0.00' });
    // 6 actions at volume prices bill 6.00, past the limit of 5: reached, but the fast pass does not decide it.
    expect((await state(volumeLimit))?.reached ?? false).toBe(false);
    await waitFor(async () => (await state(volumeLimit))?.reached, (r) => r === true, 6 * SLOW_MS);
    expect(await state(volumeLimit)).toMatchObject({ current: '6.00' });
    expect(Date.now() - acked).toBeGreaterThanOrEqual(SLOW_MS);
    expect(evaluator.fastReached).toBe(2);
  } finally {
    await slow.stop();
  }
}, 90_000);
