/**
 * The one-time repair of events stored with an empty account_id (sent with X-Agent-Secret
 * alone before the credential's agent gave its account), on the real ClickHouse engine.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { LiveUsageCache } from '../live/usage-cache.ts';
import { REPAIR_ID, repairEmptyAccounts } from './repair-accounts.ts';

let stack: TestStack;
const db = () => stack.env.CLICKHOUSE_DATABASE!;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api', 'billing'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

async function select<T>(query: string): Promise<T[]> {
  return (await stack.tally.ch!.query({ query, format: 'JSONEachRow' })).json<T>();
}

describe('repairEmptyAccounts', () => {
  it('gives stored events, cost events and daily costs of agents with an account that account, once', async () => {
    const ch = stack.tally.ch!;
    const env = stack.keys.development.id;
    const account = (await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name: 'Acme', email: 'ap@acme.test' } })).body.id;
    const withAccount = await createAgent(stack, 'development', { accountId: account });
    const without = await createAgent(stack, 'development');
    // The billing role ran the repair at start (nothing to do); run it again on old rows.
    expect(await select<{ id: string }>(`SELECT id FROM ${db()}.schema_migrations WHERE id = '${REPAIR_ID}'`)).toHaveLength(1);
    await ch.command({ query: `DELETE FROM ${db()}.schema_migrations WHERE id = '${REPAIR_ID}'` });

    // The cost rollup's first step (it takes in every action ClickHouse holds) is done
    // before the old rows go in, or it folds them into cost_events too.
    await waitFor(
      () => stack.tally.db!.selectFrom('cost_rollup_state').select(['done_seq', 'planned_seq']).where('ch_database', '=', db()).executeTakeFirst(),
      (s) => s !== undefined && Number(s.done_seq) >= 0 && s.planned_seq === null,
      30_000,
    );

    const ts = new Date().toISOString().replace('T', ' ').replace('Z', '');
    const row = (agent: string, id: string) => ({ environment_id: env, organization_id: stack.init.organization_id, agent_instance_id: agent, account_id: '', event_id: id, ts, ingested_at: ts });
    await ch.insert({ table: `${db()}.actions`, values: [row(withAccount.id, 'a1'), row(withAccount.id, 'a2'), row(without.id, 'a3')], format: 'JSONEachRow' });
    await ch.insert({ table: `${db()}.outcomes`, values: [{ ...row(withAccount.id, 'o1'), value: '2.5' }], format: 'JSONEachRow' });
    await ch.insert({ table: `${db()}.cost_events`, values: [{ environment_id: env, agent_instance_id: withAccount.id, event_id: 'a1', rank: 1, folded_seq: 1, ts, account_id: '' }], format: 'JSONEachRow' });
    const day = ts.slice(0, 10);
    await ch.insert({
      table: `${db()}.costs_daily`,
      values: [
        { environment_id: env, day, agent_instance_id: withAccount.id, account_id: '', category: 'llm', currency: 'USD', amount: '1.25', actions: 2 },
        { environment_id: env, day, agent_instance_id: without.id, account_id: '', category: 'llm', currency: 'USD', amount: '0.5', actions: 1 },
      ],
      format: 'JSONEachRow',
    });

    expect(await repairEmptyAccounts(stack.tally.db!, ch, db())).toBeGreaterThan(0);
    const accounts = (table: string) => select<{ agent_instance_id: string; account_id: string }>(`SELECT agent_instance_id, account_id FROM ${db()}.${table} FINAL ORDER BY event_id`);
    expect((await accounts('actions')).map((r) => r.account_id)).toEqual([account, account, '']);
    expect((await accounts('outcomes')).map((r) => r.account_id)).toEqual([account]);
    expect((await accounts('cost_events')).map((r) => r.account_id)).toEqual([account]);
    const daily = await select<{ agent_instance_id: string; account_id: string; amount: string; actions: string }>(
      `SELECT agent_instance_id, account_id, toString(sum(c.amount)) AS amount, toString(sum(c.actions)) AS actions FROM ${db()}.costs_daily AS c
       GROUP BY agent_instance_id, account_id HAVING sum(c.actions) != 0 OR sum(c.amount) != 0 ORDER BY agent_instance_id = '${without.id}', account_id`,
    );
    expect(daily).toEqual([
      { agent_instance_id: withAccount.id, account_id: account, amount: '1.25', actions: '2' },
      { agent_instance_id: without.id, account_id: '', amount: '0.5', actions: '1' },
    ]);
    // Once: recorded, and a second run changes nothing.
    expect(await repairEmptyAccounts(stack.tally.db!, ch, db())).toBe(0);
  });

  it('runs once when two billing processes start together', async () => {
    const ch = stack.tally.ch!;
    const env = stack.keys.development.id;
    const account = (await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name: 'Twice', email: 'ap@twice.test' } })).body.id;
    const agent = await createAgent(stack, 'development', { accountId: account });
    await ch.command({ query: `DELETE FROM ${db()}.schema_migrations WHERE id = '${REPAIR_ID}'` });
    const day = new Date().toISOString().slice(0, 10);
    await ch.insert({
      table: `${db()}.costs_daily`,
      values: [{ environment_id: env, day, agent_instance_id: agent.id, account_id: '', category: 'llm', currency: 'USD', amount: '2', actions: 4 }],
      format: 'JSONEachRow',
    });

    const runs = await Promise.all([repairEmptyAccounts(stack.tally.db!, ch, db()), repairEmptyAccounts(stack.tally.db!, ch, db())]);
    expect(runs.filter((n) => n > 0)).toHaveLength(1);
    const daily = await select<{ account_id: string; amount: string; actions: string }>(
      `SELECT account_id, toString(sum(c.amount)) AS amount, toString(sum(c.actions)) AS actions FROM ${db()}.costs_daily AS c
       WHERE agent_instance_id = '${agent.id}' GROUP BY account_id HAVING sum(c.actions) != 0 OR sum(c.amount) != 0`,
    );
    expect(daily).toEqual([{ account_id: account, amount: '2', actions: '4' }]);
  });

  it('clears the live usage cache it is given once it moved events (no store names the account to drop its answer)', async () => {
    const ch = stack.tally.ch!;
    const env = stack.keys.development.id;
    const account = (await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name: 'Cached', email: 'ap@cached.test' } })).body.id;
    const agent = await createAgent(stack, 'development', { accountId: account });
    await ch.command({ query: `DELETE FROM ${db()}.schema_migrations WHERE id = '${REPAIR_ID}'` });
    const ts = new Date().toISOString().replace('T', ' ').replace('Z', '');
    const row = (id: string) => ({ environment_id: env, organization_id: stack.init.organization_id, agent_instance_id: agent.id, account_id: '', event_id: id, ts, ingested_at: ts });
    await ch.insert({ table: `${db()}.actions`, values: [row('c1'), row('c2'), row('c3')], format: 'JSONEachRow' });

    // The account's usage as the api role answers it before the repair: cached, without the three.
    const cache = new LiveUsageCache(stack.tally.usage!);
    const q = { environmentId: env, from: new Date(Date.now() - 86_400_000), to: new Date(Date.now() + 86_400_000), groupBy: 'account' as const, accountIds: [account] };
    const actions = async () => (await cache.query(q)).reduce((n, r) => n + Number(r.actions), 0);
    expect(await actions()).toBe(0);
    expect(cache.size).toBe(1);

    expect(await repairEmptyAccounts(stack.tally.db!, ch, db(), cache)).toBeGreaterThan(0);
    expect(await actions()).toBe(3);
  });
});
