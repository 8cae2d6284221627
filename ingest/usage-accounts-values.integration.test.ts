/**
 * From ingest to invoices, on the real Postgres, NATS and ClickHouse engine:
 * - events authenticated by X-Agent-Secret alone (no agent_key), by the event endpoints
 *   and by an OTLP export, belong to the agent's account exactly as with agent_key: usage
 *   by account, an account-wide subscription's invoice preview and costs by customer
 *   count them (they were stored with account_id '' before);
 * - outcome values keep the client's digits into an invoice's @outcome quantity.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';

let stack: TestStack;
let admin: string;
let sdk: string;

const post = (path: string, body: unknown) => call(stack, 'POST', path, { key: admin, body });

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000' } });
  admin = stack.keys.development.admin;
  sdk = stack.keys.development.sdk;
});
afterAll(async () => {
  await stack?.cleanup();
});

/** A subscription to a plan billing 1.00 per unit of `unit` (account-wide without agent instances). */
async function perUnitPlan(accountId: string, unit: '@action' | '@outcome', agentInstanceIds: string[] = []): Promise<string> {
  const agentType = (await post('/api/v1/agent_type/create', { name: `sdr ${unit}` })).body.id;
  const product = (await post('/api/v1/products', { name: `Agents ${unit}`, agent_type_id: agentType })).body.id;
  const perUnit = (await post('/api/v1/charge_models', { name: `per ${unit}`, description: 'per unit', type: 'per_unit', pricing_strategy: { unit_of_measure: unit, unit_price: 1 } })).body.id;
  const plan = (await post(`/api/v1/products/${product}/rateplans`, { name: `per ${unit}`, billing_cycle_code: 'monthly', currency: 'USD' })).body.id;
  expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Usage', charge_model_id: perUnit, charge_type_code: 'usage' })).status).toBe(201);
  const sub = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: plan, agent_instance_ids: agentInstanceIds });
  expect(sub.status).toBe(201);
  return sub.body.id;
}

/** One OTLP/HTTP JSON export of one chat span. */
const otlpSpan = (spanId: string) => ({
  resourceSpans: [
    {
      resource: { attributes: [] },
      scopeSpans: [
        {
          scope: { name: 's' },
          spans: [
            {
              traceId: '0af7651916cd43dd8448eb211c80319c',
              spanId,
              name: 'chat',
              kind: 3,
              startTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
              endTimeUnixNano: String(BigInt(Date.now()) * 1_000_000n),
              attributes: [{ key: 'gen_ai.operation.name', value: { stringValue: 'chat' } }],
            },
          ],
        },
      ],
    },
  ],
});

describe('events sent with X-Agent-Secret alone', () => {
  it('carry the agent\'s account: usage by account, the account-wide invoice preview and costs by customer count them', async () => {
    const account = (await post('/v1/accounts', { name: 'Secret Co', email: 'ap@secret.test' })).body.id;
    const agent = await createAgent(stack, 'development', { accountId: account });
    const sub = await perUnitPlan(account, '@action');
    const bySecret = { 'x-agent-secret': agent.secret };
    const cost = { amount: '0.25', currency: 'USD', category: 'llm' };

    // Two actions by the secret alone, one with agent_key, one span exported by the secret alone.
    expect((await call(stack, 'POST', '/v1/actions', { headers: bySecret, body: { action_type: 'x', id: 's-1', metadata: { cost } } })).status).toBe(200);
    expect((await call(stack, 'POST', '/v1/actions', { headers: bySecret, body: [{ action_type: 'x', id: 's-2', metadata: { cost } }] })).status).toBe(200);
    expect((await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.id, action_type: 'x', id: 'k-1', metadata: { cost } } })).status).toBe(200);
    const otlp = await call(stack, 'POST', '/v1/traces', { headers: bySecret, body: otlpSpan('a1b2c3d4e5f60718') });
    expect(otlp.status).toBe(200);
    expect(otlp.body).toEqual({});

    const now = Date.now();
    const range = `start_date=${new Date(now - 86400_000).toISOString()}&end_date=${new Date(now + 86400_000).toISOString()}`;
    const usage = await waitFor(
      () => call(stack, 'GET', `/v1/usage?${range}&group_by=account`, { key: sdk }),
      (r) => r.body.usage?.reduce((n: number, u: { actions: string }) => n + Number(u.actions), 0) === 4,
    );
    // One row, the account's: no row with account_id ''.
    expect(usage.body.usage.map((u: { account_id: string; actions: string }) => [u.account_id, u.actions])).toEqual([[account, '4']]);

    const preview = await call(stack, 'GET', `/api/v1/subscription/${sub}/invoice-preview`, { key: admin });
    expect(preview.status).toBe(200);
    expect(preview.body.total).toBe('4.00');

    const costs = await waitFor(
      () => call(stack, 'GET', `/v1/costs?${range}&customer_id=${account}`, { key: admin }),
      (r) => r.body.costs?.reduce((n: number, c: { actions: number }) => n + c.actions, 0) >= 3,
    );
    expect(costs.body.costs).toEqual([expect.objectContaining({ customer_id: account, amount: '0.75', actions: 3 })]);
  });
});

describe('outcome values', () => {
  it('keep the client\'s digits into an invoice\'s @outcome quantity', async () => {
    const account = (await post('/v1/accounts', { name: 'Exact Co', email: 'ap@exact.test' })).body.id;
    const agent = await createAgent(stack, 'development', { accountId: account });
    const sub = await perUnitPlan(account, '@outcome', [agent.id]);
    // A JSON number JSON.parse reads as 123456789.12345679, and a decimal string.
    const raw = `[{"agent_key":"${agent.id}","outcome_type":"hire","value":123456789.123456789},{"agent_key":"${agent.id}","outcome_type":"hire","value":"0.00000001"}]`;
    expect((await call(stack, 'POST', '/v1/outcomes', { key: sdk, body: raw, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    const preview = await waitFor(
      () => call(stack, 'GET', `/api/v1/subscription/${sub}/invoice-preview`, { key: admin }),
      (r) => r.body.lines?.some((l: { quantity: string }) => l.quantity !== '0'),
    );
    expect(preview.body.lines.map((l: { quantity: string }) => l.quantity)).toEqual(['123456789.123456799']);
    expect(preview.body.total).toBe('123456789.12');
  });
});
