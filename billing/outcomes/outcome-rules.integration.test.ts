/**
 * Outcome rules end to end: actions matching a rule become @outcome rows (materialized
 * view, deterministic ids) counted once by usage (what invoicing reads), next to direct
 * outcomes; rule changes apply from their time; outcome.completed is recorded once per
 * outcome; environments are isolated.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let agent: string;
let ruleId: string;

const post = (path: string, body?: unknown, key = dev.admin) => call(stack, 'POST', path, { key, ...(body !== undefined ? { body } : {}) });
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const range = () => `start_date=${new Date(Date.now() - 3_600_000).toISOString()}&end_date=${new Date(Date.now() + 3_600_000).toISOString()}`;
const usage = async (agentId: string, key = dev.sdk) => (await call(stack, 'GET', `/v1/usage?${range()}&agent_id=${agentId}`, { key })).body.usage?.[0] ?? { actions: '0', outcomes: '0', outcome_value: '0' };
const send = async (events: Record<string, unknown>[], kind = 'actions', key = dev.sdk) => expect((await post(`/v1/${kind}`, events, key)).status).toBe(200);

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_OUTCOME_POLL_INTERVAL_MS: '100', TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' } });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  agent = (await createAgent(stack)).id;
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('outcome rules', () => {
  it('are validated and kept per environment; SDK and read-only keys may not write', async () => {
    const res = await post('/api/v1/outcome_rules', { name: 'hire', action_type: 'hire_step', metadata_match: { stage: 'hired' }, outcome_type: 'successful_hire' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ action_type: 'hire_step', metadata_match: { stage: 'hired' }, outcome_type: 'successful_hire', value: '1', value_field: null, effective_to: null, is_active: true });
    ruleId = res.body.id;
    expect((await post('/api/v1/outcome_rules', { name: 'lead', action_type: 'crm_update', metadata_match: { converted: true }, outcome_type: 'converted_lead', value_field: 'deal_size' })).status).toBe(201);
    for (const bad of [{ name: 'x', action_type: 'a' }, { name: 'x', action_type: 'a', outcome_type: 'o', value: -1 }, { name: 'x', action_type: 'a', outcome_type: 'o', metadata_match: { a: { b: 1 } } }]) {
      expect((await post('/api/v1/outcome_rules', bad)).status, JSON.stringify(bad)).toBe(400);
    }
    const body = { name: 'x', action_type: 'a', outcome_type: 'o' };
    expect(await statuses(stack, 'POST', '/api/v1/outcome_rules', [dev.sdk, dev.readOnly], body)).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/outcome_rules', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    expect((await get('/api/v1/outcome_rules')).body.total).toBe(2);
    expect((await get('/api/v1/outcome_rules', staging.admin)).body.total).toBe(0);
    expect((await get(`/api/v1/outcome_rules/${ruleId}`, staging.admin)).status).toBe(404);
  });

  it('derive outcomes from matching actions, counted once next to direct outcomes (usage, as invoicing reads it)', async () => {
    await send([
      { agent_key: agent, action_type: 'hire_step', id: 'h1', metadata: { stage: 'hired' } },
      { agent_key: agent, action_type: 'hire_step', id: 'h1', metadata: { stage: 'hired' } }, // duplicate
      { agent_key: agent, action_type: 'hire_step', id: 'h2', metadata: { stage: 'screened' } },
      { agent_key: agent, action_type: 'hire_step', id: 'h3', metadata: { stage: 'hired', extra: 1 } },
      { agent_key: agent, action_type: 'crm_update', id: 'c1', metadata: { converted: true, deal_size: '1200.5' } },
      { agent_key: agent, action_type: 'crm_update', id: 'c2', metadata: { converted: false, deal_size: 99 } },
    ]);
    await send([{ agent_key: agent, outcome_type: 'successful_hire', id: 'd1', value: 2 }], 'outcomes');
    await send([{ agent_key: agent, action_type: 'hire_step', id: 'h1', metadata: { stage: 'hired' } }]); // resent
    const u = await waitFor(() => usage(agent), (x) => x.actions === '5' && x.outcomes === '4');
    // h1, h3 (1 each), c1 (1200.5), d1 (2)
    expect(u.outcome_value).toBe('1204.5');
    // The same actions in staging derive nothing (no rules there).
    const s = (await createAgent(stack, 'staging')).id;
    await send([{ agent_key: s, action_type: 'hire_step', id: 'h1', metadata: { stage: 'hired' } }], 'actions', staging.sdk);
    const su = await waitFor(() => usage(s, staging.sdk), (x) => x.actions === '1');
    expect(su.outcomes).toBe('0');
  });

  it('records outcome.completed once per outcome, derived or direct', async () => {
    const db = stack.tally.db!;
    const events = await waitFor(
      () => db.selectFrom('webhook_events').select(['environment_id', 'body']).where('event', '=', 'outcome.completed').execute(),
      (rows) => rows.length >= 4,
    );
    await new Promise((r) => setTimeout(r, 500)); // later polls add nothing
    const again = await db.selectFrom('webhook_events').select('body').where('event', '=', 'outcome.completed').execute();
    expect(again).toHaveLength(4);
    const data = events.map((e) => JSON.parse(e.body).data).sort((a, b) => a.event_id.localeCompare(b.event_id));
    expect(data.map((d) => [d.event_id, d.outcome_type, d.value_exact, d.agent_instance_id])).toEqual([
      ['d1', 'successful_hire', '2', agent],
      [expect.stringMatching(/^drv_or_.*_c1$/), 'converted_lead', '1200.5', agent],
      [`drv_${ruleId}_h1`, 'successful_hire', '1', agent],
      [`drv_${ruleId}_h3`, 'successful_hire', '1', agent],
    ].sort((a, b) => String(a[0]).localeCompare(String(b[0]))) as unknown[]);
    expect(data.find((d) => d.event_id === `drv_${ruleId}_h1`).derived_from).toEqual({ rule_id: ruleId, action_event_id: 'h1' });
    expect(events.every((e) => e.environment_id === stack.keys.development.id)).toBe(true);
  });

  it('a change applies from its time on; an ended rule derives nothing more; past outcomes stay', async () => {
    const res = await call(stack, 'PUT', `/api/v1/outcome_rules/${ruleId}`, { key: dev.admin, body: { value: 5 } });
    expect(res.status).toBe(200);
    expect(res.body.value).toBe('5');
    await send([{ agent_key: agent, action_type: 'hire_step', id: 'h4', metadata: { stage: 'hired' } }]);
    let u = await waitFor(() => usage(agent), (x) => x.actions === '6');
    expect([u.outcomes, u.outcome_value]).toEqual(['5', '1209.5']);
    const del = await call(stack, 'DELETE', `/api/v1/outcome_rules/${ruleId}`, { key: dev.admin });
    expect(del.body.is_active).toBe(false);
    await send([{ agent_key: agent, action_type: 'hire_step', id: 'h5', metadata: { stage: 'hired' } }]);
    u = await waitFor(() => usage(agent), (x) => x.actions === '7');
    expect([u.outcomes, u.outcome_value]).toEqual(['5', '1209.5']);
    expect((await get('/api/v1/outcome_rules')).body.total).toBe(1);
    expect((await get('/api/v1/outcome_rules?include_inactive=true')).body.total).toBe(2);
  });
});

describe('an outcome comes from the counted copy of its action', () => {
  const db = () => stack.env.CLICKHOUSE_DATABASE!;
  const chQuery = async <T>(query: string, params: Record<string, unknown> = {}) =>
    (await stack.tally.ch!.query({ query, query_params: params, format: 'JSONEachRow' })).json<T>();

  it('a later copy that matches derives nothing billed or announced; a first copy that matches does, whatever follows', async () => {
    const a = (await createAgent(stack)).id;
    const rule = await post('/api/v1/outcome_rules', { name: 'won', action_type: 'hire', metadata_match: { stage: 'won' }, outcome_type: 'won_hire', value_field: 'amount' });
    expect(rule.status).toBe(201);
    await send([
      { agent_key: a, action_type: 'hire', id: 'k1', metadata: { stage: 'lost', amount: 5 } },
      { agent_key: a, action_type: 'hire', id: 'k2', metadata: { stage: 'won', amount: 7 } },
    ]);
    await waitFor(() => usage(a), (x) => x.actions === '2');
    // Copies sent again, each with the other metadata: the first copies stay the counted ones.
    await send([
      { agent_key: a, action_type: 'hire', id: 'k1', metadata: { stage: 'won', amount: 5 } },
      { agent_key: a, action_type: 'hire', id: 'k2', metadata: { stage: 'lost', amount: 7 } },
    ]);
    await waitFor(
      () => chQuery<{ n: string }>(`SELECT toString(count()) AS n FROM ${db()}.actions WHERE agent_instance_id = {a:String}`, { a }),
      (r) => r[0]?.n === '4',
    );
    const u = await usage(a);
    expect([u.actions, u.outcomes, u.outcome_value]).toEqual(['2', '1', '7']);
    // outcome.completed: k2's outcome only, once.
    const announced = async () =>
      (await stack.tally.db!.selectFrom('webhook_events').select('body').where('event', '=', 'outcome.completed').execute())
        .map((e) => JSON.parse(e.body).data)
        .filter((d) => d.agent_instance_id === a);
    await waitFor(announced, (rows) => rows.length >= 1);
    await new Promise((r) => setTimeout(r, 500));
    expect((await announced()).map((d) => [d.event_id, d.value_exact])).toEqual([[`drv_${rule.body.id}_k2`, '7']]);
    // The per-day embed counts the same.
    const embed = await get(`/api/v1/embeds/${a}?duration=1days`);
    expect(embed.status).toBe(200);
    expect(JSON.stringify(embed.body)).toMatch(/"outcomes":1\b/);
  });

  it('a redelivered copy ingested earlier than the stored one decides, even when it arrives last', async () => {
    const a = (await createAgent(stack)).id;
    await send([{ agent_key: a, action_type: 'hire', id: 'k3', metadata: { stage: 'won', amount: '11.5' } }]);
    await waitFor(() => usage(a), (x) => x.outcomes === '1' && x.outcome_value === '11.5');
    // A copy of k3 ingested a minute before the stored one (a message redelivered late),
    // which the rule does not match, as the sink would insert it.
    const [stored] = await chQuery<Record<string, string>>(
      `SELECT environment_id, organization_id, agent_instance_id, account_id, event_id, id_source, action_type, toString(ts) AS ts,
         toString(ingested_at - INTERVAL 1 MINUTE) AS ingested_at, user_id, anonymous_id, model, metadata
       FROM ${db()}.actions WHERE agent_instance_id = {a:String} AND event_id = 'k3'`,
      { a },
    );
    await stack.tally.ch!.insert({ table: `${db()}.actions`, values: [{ ...stored, metadata: '{"stage":"lost","amount":"11.5"}' }], format: 'JSONEachRow' });
    const u = await waitFor(() => usage(a), (x) => x.outcomes === '0');
    expect([u.actions, u.outcome_value]).toEqual(['1', '0']);
  });
});

describe('value_field reads the client\'s digits', () => {
  it('a JSON number a double would change is read as written; a value with more than 9 decimals gives 0, never a cut value', async () => {
    const a = (await createAgent(stack)).id;
    const rule = await post('/api/v1/outcome_rules', { name: 'deal', action_type: 'deal', outcome_type: 'deal_value', value_field: 'amount' });
    expect(rule.status).toBe(201);
    // A raw body: JSON.parse reads 123456789.123456789 as 123456789.12345679.
    const raw = `{"agent_key":"${a}","action_type":"deal","id":"v1","metadata":{"amount":123456789.123456789}}`;
    const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: raw, headers: { 'content-type': 'application/json' } });
    expect(res.status).toBe(200);
    const u = await waitFor(() => usage(a), (x) => x.outcomes === '1');
    expect(u.outcome_value).toBe('123456789.123456789');
    await send([
      { agent_key: a, action_type: 'deal', id: 'v2', metadata: { amount: '1.0000000001' } },
      { agent_key: a, action_type: 'deal', id: 'v3', metadata: { amount: '0.000000001' } },
    ]);
    const after = await waitFor(() => usage(a), (x) => x.outcomes === '3');
    expect(after.outcome_value).toBe('123456789.12345679');
  });

  /** Values as JSON texts (raw bodies, so numbers keep their digits), and what a derived outcome is worth. */
  const VALUES: [string, string][] = [
    ['"1000000000000000000"', '1000000000000000000'], // 10^18 counts
    ['1000000000000000000.0', '1000000000000000000'],
    ['1000000000000000000', '1000000000000000000'],
    ['"1000000000000000000.000000001"', '0'], // above 10^18
    ['"1e3"', '0'], // not plain decimal digits
    ['"+12"', '0'],
    ['" 12"', '0'],
    ['"1.0000000001"', '0'], // more than 9 decimals
    ['"007.50"', '7.5'],
    ['"12"', '12'],
    ['1e3', '1000'], // a JSON number is a number, in any notation
    ['1e-7', '0.0000001'],
    ['true', '0'],
  ];

  describe('as /v1/outcomes takes a value', () => {
    beforeAll(async () => {
      const rule = await post('/api/v1/outcome_rules', { name: 'range', action_type: 'deal_range', outcome_type: 'deal_range', value_field: 'amount' });
      expect(rule.status).toBe(201);
    });

    it.each(VALUES)('metadata value %s derives %s, as /v1/outcomes takes the same value (or refuses it: 0)', async (json, derived) => {
      const [a, b] = [(await createAgent(stack)).id, (await createAgent(stack)).id];
      const raw = (body: string) => ({ key: dev.sdk, body, headers: { 'content-type': 'application/json' } });
      expect((await call(stack, 'POST', '/v1/actions', raw(`{"agent_key":"${a}","action_type":"deal_range","id":"r1","metadata":{"amount":${json}}}`))).status).toBe(200);
      const u = await waitFor(() => usage(a), (x) => x.outcomes === '1');
      expect(u.outcome_value).toBe(derived);
      // The same value sent directly: refused (400) where the rule derives 0 (no value here is a
      // valid 0), else accepted with the same value.
      const direct = await call(stack, 'POST', '/v1/outcomes', raw(`{"agent_key":"${b}","outcome_type":"deal_range","id":"d1","value":${json}}`));
      expect(direct.status).toBe(derived === '0' ? 400 : 200);
      if (direct.status === 200) expect((await waitFor(() => usage(b), (x) => x.outcomes === '1')).outcome_value).toBe(derived);
    });
  });
});
