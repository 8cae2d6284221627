/**
 * Each token is priced once: a cache or reasoning class priced by a rule of its own leaves
 * the count of every per-token base rule (input, output, total) of the action, whatever the
 * category or currency of either rule. The same figures from GET /v1/costs, the raw-event
 * query, the daily rollup (costs_daily) and P&L, on the real stack.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { queryCosts } from './cost-query.ts';

let stack: TestStack;
let admin: string;
let sdk: string;

const day = new Date().toISOString().slice(0, 10);
const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const RANGE = `start_date=${day}&end_date=${next}`;

/** Rules of each case, kept apart by action type (a rule applies to its action type only). */
const rule = (action_type: string, name: string, category: string, currency: string, basis: string, rate: string) => ({
  name, category, currency, basis, action_type, model_rates: { 'mix3-x': rate } as Record<string, string>, effective_from: `${day}T00:00:00Z`, reallocate: true,
});

/** Each case: its rules, one call's metadata, and what the call costs as `category currency amount` lines. */
const CASES: Record<string, { rules: ReturnType<typeof rule>[]; metadata: Record<string, unknown>; costs: string[] }> = {
  // The tester's case: 200 x 0.001 + 800 x 0.0005 (it was 1000 x 0.001 + 800 x 0.0005 = 1.4).
  total_and_cache_read: {
    rules: [rule('total_and_cache_read', 't', 'llm', 'USD', 'per_total_token', '0.001'), rule('total_and_cache_read', 'c', 'llm', 'USD', 'per_cache_read_token', '0.0005')],
    metadata: { model: 'mix3-x', input_tokens: 1000, cache_read_input_tokens: 800, output_tokens: 0 },
    costs: ['llm USD 0.6'],
  },
  // Input in llm, cache reads in api: 200 x 0.001 + 800 x 0.0005 (was 1 + 0.4).
  cache_read_other_category: {
    rules: [rule('cache_read_other_category', 'i', 'llm', 'USD', 'per_input_token', '0.001'), rule('cache_read_other_category', 'c', 'api', 'USD', 'per_cache_read_token', '0.0005')],
    metadata: { model: 'mix3-x', input_tokens: 1000, cache_read_input_tokens: 800 },
    costs: ['api USD 0.4', 'llm USD 0.2'],
  },
  // Input in USD, cache reads in EUR: 0.2 USD + 0.4 EUR (was 1 USD + 0.4 EUR).
  cache_read_other_currency: {
    rules: [rule('cache_read_other_currency', 'i', 'llm', 'USD', 'per_input_token', '0.001'), rule('cache_read_other_currency', 'c', 'llm', 'EUR', 'per_cache_read_token', '0.0005')],
    metadata: { model: 'mix3-x', input_tokens: 1000, cache_read_input_tokens: 800 },
    costs: ['llm EUR 0.4', 'llm USD 0.2'],
  },
  // Total with all three classes priced apart, the reasoning rule in infrastructure EUR:
  // (500 - 100 - 40 - 50) x 0.001 + 40 x 0.0005 + 100 x 0.002 (USD) and 50 x 0.003 (EUR).
  total_and_every_class: {
    rules: [
      rule('total_and_every_class', 't', 'llm', 'USD', 'per_total_token', '0.001'),
      rule('total_and_every_class', 'r', 'llm', 'USD', 'per_cache_read_token', '0.0005'),
      rule('total_and_every_class', 'w', 'llm', 'USD', 'per_cache_write_token', '0.002'),
      rule('total_and_every_class', 'z', 'infrastructure', 'EUR', 'per_reasoning_token', '0.003'),
    ],
    metadata: { model: 'mix3-x', usage: { input_tokens: 300, cache_read_input_tokens: 40, cache_creation_input_tokens: 100, output_tokens: 200, reasoning_tokens: 50 } },
    costs: ['infrastructure EUR 0.15', 'llm USD 0.53'],
  },
  // Output with reasoning priced in another category: (200 - 50) x 0.001 + 50 x 0.003.
  output_and_reasoning_other_category: {
    rules: [rule('output_and_reasoning_other_category', 'o', 'llm', 'USD', 'per_output_token', '0.001'), rule('output_and_reasoning_other_category', 'z', 'api', 'USD', 'per_reasoning_token', '0.003')],
    metadata: { model: 'mix3-x', output_tokens: 200, reasoning_tokens: 50 },
    costs: ['api USD 0.15', 'llm USD 0.15'],
  },
  // A class rule without a rate for the call's model does not apply: the class stays in its base.
  class_rule_not_for_this_model: {
    rules: [rule('class_rule_not_for_this_model', 't', 'llm', 'USD', 'per_total_token', '0.001'), { ...rule('class_rule_not_for_this_model', 'c', 'llm', 'USD', 'per_cache_read_token', '0.0005'), model_rates: { other: '0.0005' } }],
    metadata: { model: 'mix3-x', input_tokens: 1000, cache_read_input_tokens: 800 },
    costs: ['llm USD 1'],
  },
};

const agents: Record<string, string> = {};

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' } });
  admin = stack.keys.development.admin;
  sdk = stack.keys.development.sdk;
  for (const [type, c] of Object.entries(CASES)) {
    for (const body of c.rules) {
      const r = await call(stack, 'POST', '/v1/cost_rules', { key: admin, body });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const agent = await createAgent(stack);
    agents[type] = agent.id;
    const sent = await call(stack, 'POST', '/v1/actions', { key: sdk, body: { agent_key: agent.secret, action_type: type, id: `${type}-1`, metadata: c.metadata } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
  }
});
afterAll(async () => {
  await stack?.cleanup();
});

type Line = { agent: string; category: string; currency: string; amount: string };
const lines = (rows: Line[], agent: string) => rows.filter((r) => r.agent === agent).map((r) => `${r.category} ${r.currency} ${r.amount}`).sort();

describe('token classes priced by a rule of their own', () => {
  it('are priced once, whatever the category or currency of the base rule: /v1/costs, the raw events, the rollup and P&L agree', async () => {
    const costs = await waitFor(
      () => call(stack, 'GET', `/v1/costs?${RANGE}`, { key: admin }),
      (r) => r.status !== 200 || new Set((r.body.costs ?? []).map((c: { agent_id: string }) => c.agent_id)).size === Object.keys(CASES).length,
    );
    expect(costs.status).toBe(200);
    const api: Line[] = costs.body.costs.map((c: { agent_id: string; cost_type: string; currency: string; amount: string }) => ({ agent: c.agent_id, category: c.cost_type, currency: c.currency, amount: c.amount }));

    const live = (await queryCosts(stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!, {
      environmentId: stack.keys.development.id, from: new Date(`${day}T00:00:00Z`), to: new Date(`${next}T00:00:00Z`), byAgent: true,
    })).map((r) => ({ agent: r.agent_instance_id!, category: r.category, currency: r.currency, amount: r.amount }));

    const rolled = await waitFor(
      async () => (await (await stack.tally.ch!.query({
        query: `SELECT agent_instance_id AS agent, toString(category) AS category, toString(currency) AS currency, toString(sum(amount)) AS total
                FROM ${stack.env.CLICKHOUSE_DATABASE}.costs_daily WHERE environment_id = {env:String}
                GROUP BY agent, category, currency HAVING sum(amount) != 0`,
        query_params: { env: stack.keys.development.id },
        format: 'JSONEachRow',
      })).json<Line & { total: string }>()).map((r) => ({ agent: r.agent, category: r.category, currency: r.currency, amount: r.total })),
      (rows) => new Set(rows.map((r) => r.agent)).size === Object.keys(CASES).length,
    );

    const pnl = await call(stack, 'GET', `/v1/reports/pnl?${RANGE}&group_by=agent`, { key: admin });
    expect(pnl.status).toBe(200);
    const pnlCosts = (agent: string) =>
      pnl.body.breakdown.filter((r: { agent_id: string }) => r.agent_id === agent).map((r: { currency: string; costs: string }) => `${r.currency} ${r.costs}`).sort();
    /** Per currency, the case's lines summed over categories (what P&L shows). */
    const byCurrency = (costLines: string[]) => {
      const sums = new Map<string, number>();
      for (const l of costLines) {
        const [, currency, amount] = l.split(' ') as [string, string, string];
        sums.set(currency, (sums.get(currency) ?? 0) + Math.round(Number(amount) * 1e6));
      }
      return [...sums].map(([currency, micros]) => `${currency} ${String(micros / 1e6)}`).sort();
    };

    for (const [type, c] of Object.entries(CASES)) {
      const agent = agents[type]!;
      expect(lines(api, agent), `/v1/costs ${type}`).toEqual(c.costs);
      expect(lines(live, agent), `raw events ${type}`).toEqual(c.costs);
      expect(lines(rolled, agent), `costs_daily ${type}`).toEqual(c.costs);
      expect(pnlCosts(agent), `P&L ${type}`).toEqual(byCurrency(c.costs));
    }
  });
});
