/**
 * docs/analytics.md runs as written: every SQL example is sent to POST /v1/sql as an
 * analyst would (or run on Postgres, for `$1`), with a second environment's events and
 * rules present that no answer may show, and its cost query gives exactly what
 * GET /v1/costs gives.
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { COST_LINES_SQL } from '../costs/cost-query.ts';

let stack: TestStack;
let stagingAgents: string[] = [];
const doc = readFileSync(new URL('../../docs/analytics.md', import.meta.url), 'utf8');
const examples = [...doc.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1]!.trim().replace(/;$/, ''));

const day = new Date().toISOString().slice(0, 10);
const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' } });
  const admin = stack.keys.development.admin;
  const since = { effective_from: `${day}T00:00:00Z`, reallocate: true };
  for (const body of [
    { name: 'input', category: 'llm', currency: 'USD', basis: 'per_input_token', model_rates: { 'gpt-4o': '0.000005' }, rate: '0.000001', ...since },
    { name: 'calls', category: 'api', currency: 'USD', basis: 'per_api_call', rate: '0.01', action_type: 'tool_call', ...since },
    { name: 'units', category: 'infrastructure', currency: 'EUR', basis: 'per_unit', rate: '2', ...since },
  ]) {
    expect((await call(stack, 'POST', '/v1/cost_rules', { key: admin, body })).status).toBe(201);
  }
  const [a1, a2] = [await createAgent(stack), await createAgent(stack)];
  const events = [
    { agent_key: a1.id, action_type: 'llm_call', id: 'c1', metadata: { model: 'gpt-4o', input_tokens: 1000 } },
    { agent_key: a1.id, action_type: 'llm_call', id: 'c2', metadata: { model: 'other', input_tokens: 300, units: '1.5' } },
    { agent_key: a2.id, action_type: 'tool_call', id: 'c3', metadata: { api_calls: 3 } },
    { agent_key: a2.id, action_type: 'llm_call', id: 'c4', metadata: { cost: { amount: '0.25', currency: 'GBP', category: 'llm' } } },
  ];
  expect((await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: events })).status).toBe(200);
  // The second environment: its own rule and three actions of its own agents.
  const staging = stack.keys.staging;
  const rule = { name: 'staging input', category: 'llm', currency: 'USD', basis: 'per_input_token', rate: '1', ...since };
  expect((await call(stack, 'POST', '/v1/cost_rules', { key: staging.admin, body: rule })).status).toBe(201);
  const [s1, s2] = [await createAgent(stack, 'staging'), await createAgent(stack, 'staging')];
  stagingAgents = [s1.id, s2.id];
  const stagingEvents = [
    { agent_key: s1.id, action_type: 'llm_call', id: 's1', metadata: { model: 'gpt-4o', input_tokens: 7 } },
    { agent_key: s1.id, action_type: 'tool_call', id: 's2', metadata: { api_calls: 2 } },
    { agent_key: s2.id, action_type: 'llm_call', id: 's3', metadata: { input_tokens: 9 } },
  ];
  expect((await call(stack, 'POST', '/v1/actions', { key: staging.sdk, body: stagingEvents })).status).toBe(200);
  for (const [env, n] of [['development', 4], ['staging', 3]] as const) {
    await waitFor(
      () => call(stack, 'GET', `/v1/usage?start_date=${day}&end_date=${next}`, { key: stack.keys[env].sdk }),
      (r) => (r.body.usage ?? []).reduce((sum: number, u: { actions: string }) => sum + Number(u.actions), 0) === n,
    );
  }
});
afterAll(async () => {
  await stack?.cleanup();
});

/** An example as an analyst runs it: POST /v1/sql with the environment's admin key (Postgres for `$1`). */
async function run(query: string, env: 'development' | 'staging' = 'development'): Promise<Record<string, unknown>[]> {
  if (query.includes('$1')) {
    const client = new pg.Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    try {
      return (await client.query(query, [stack.keys[env].id])).rows;
    } finally {
      await client.end();
    }
  }
  const params = query.includes('{from:') ? { from: `${day} 00:00:00`, to: `${next} 00:00:00` } : {};
  const res = await fetch(`${stack.baseUrl}/v1/sql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.keys[env].admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, params }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${res.status} ${text}`);
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('docs/analytics.md', () => {
  it('has examples, and every one runs as written', async () => {
    expect(examples.length).toBeGreaterThanOrEqual(5);
    for (const q of examples) {
      const rows = await run(q);
      // Nothing of the other environment shows, whatever the example reads.
      for (const agent of stagingAgents) expect(JSON.stringify(rows), q.slice(0, 80)).not.toContain(agent);
    }
  });

  it('answers each environment with its own rows only', async () => {
    const counting = examples.find((q) => q.includes('sum(tin) AS input_tokens'))!;
    expect(await run(counting)).toEqual([{ actions: 4, input_tokens: 1300 }]);
    expect(await run(counting, 'staging')).toEqual([{ actions: 3, input_tokens: 16 }]);
    const costQuery = examples.find((q) => q.includes('FROM cost_rules) AS rules'))!;
    const staging = (await run(costQuery, 'staging')) as { agent_instance_id: string; category: string; amount: string }[];
    expect(staging.map((r) => `${r.agent_instance_id} ${r.category} ${r.amount}`).sort()).toEqual([`${stagingAgents[0]} llm 7`, `${stagingAgents[1]} llm 9`].sort());
  });

  it('its cost query holds the cost lines as the code defines them (COST_LINES_SQL), spaces aside', () => {
    const costQuery = examples.find((q) => q.includes('FROM cost_rules) AS rules'))!;
    const flat = (sql: string) => sql.replace(/\s+/g, ' ');
    expect(flat(costQuery)).toContain(flat(COST_LINES_SQL));
  });

  it('its cost query gives what GET /v1/costs gives', async () => {
    const costQuery = examples.find((q) => q.includes('FROM cost_rules) AS rules'))!;
    const rows = (await run(costQuery)) as { agent_instance_id: string; category: string; currency: string; amount: string }[];
    const api = await call(stack, 'GET', `/v1/costs?start_date=${day}&end_date=${next}`, { key: stack.keys.development.admin });
    const fromApi = api.body.costs.map((c: { agent_id: string; cost_type: string; currency: string; amount: string }) => `${c.agent_id} ${c.cost_type} ${c.currency} ${c.amount}`).sort();
    expect(rows.map((r) => `${r.agent_instance_id} ${r.category} ${r.currency} ${r.amount}`).sort()).toEqual(fromApi);
    expect(fromApi).toHaveLength(6); // a1: llm USD 0.0053, infrastructure EUR 3; a2: llm USD 0, api USD 0.03, infrastructure EUR 0, llm GBP 0.25
    expect(fromApi.map((r: string) => r.split(' ').slice(1).join(' ')).sort()).toEqual(['api USD 0.03', 'infrastructure EUR 0', 'infrastructure EUR 3', 'llm GBP 0.25', 'llm USD 0', 'llm USD 0.0053']);
  });
});
