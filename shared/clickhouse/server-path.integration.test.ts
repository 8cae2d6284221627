/**
 * Tally on its ClickHouse server code path (CLICKHOUSE_URL), end to end: every role
 * talks to ClickHouse through @clickhouse/client over HTTP, with a user and password —
 * migrations, the sink's streamed TabSeparated inserts (tsv-insert.ts, the
 * `client.insert` branch), the derived-outcomes view, usage, the cost rollup and
 * cost reports.
 *
 * The server is test/clickhouse-http/server.ts: ClickHouse's HTTP protocol answered by
 * chDB, the same engine, in a child process. It is not clickhouse-server (none can be
 * installed on this machine); server.ts lists what it does not cover.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '@clickhouse/client';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { startClickHouseHttp, type ClickHouseHttp } from '../../test/clickhouse-http/start.ts';
import { startTally } from '../../app/start.ts';
import { chdbRawOf } from './client.ts';
import { clickhouseMigrations } from './schema.ts';

const USER = 'tally';
const PASSWORD = 'p@ss:word/with spaces';

let server: ClickHouseHttp;
let stack: TestStack | undefined;
let admin: string;
let sdk: string;
let agent: string;

const env = () => stack!.env;
const db = () => env().CLICKHOUSE_DATABASE!;
const post = (path: string, body: unknown, key = admin) => call(stack!, 'POST', path, { key, body });
const get = (path: string, key = admin) => call(stack!, 'GET', path, { key });
/** A client of the test server of its own (not Tally's). */
const direct = () => createClient({ url: server.url, username: USER, password: PASSWORD });

beforeAll(async () => {
  server = await startClickHouseHttp({ user: USER, password: PASSWORD });
  stack = await startTestStack({
    env: {
      CLICKHOUSE_URL: server.url,
      CLICKHOUSE_USER: USER,
      CLICKHOUSE_PASSWORD: PASSWORD,
      TALLY_OUTCOME_POLL_INTERVAL_MS: '100',
      TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000',
      TALLY_INGEST_LINGER_MS: '1',
    },
  });
  admin = stack.keys.development.admin;
  sdk = stack.keys.development.sdk;
});
afterAll(async () => {
  await stack?.cleanup();
  await server?.stop();
});

describe('CLICKHOUSE_URL: Tally through the ClickHouse HTTP protocol', () => {
  it('uses the HTTP client (not chDB in-process) and applied every migration on the server', async () => {
    const ch = stack!.tally.ch!;
    expect(chdbRawOf(ch)).toBeUndefined(); // so the sink inserts TabSeparated through client.insert
    const rs = await ch.query({ query: `SELECT id FROM ${db()}.schema_migrations ORDER BY id`, format: 'JSONEachRow' });
    expect(rs.response_headers['x-clickhouse-server-display-name']).toBe('chdb-http-test');
    expect((await rs.json<{ id: string }>()).map((r) => r.id)).toEqual(expect.arrayContaining(clickhouseMigrations.map((m) => m.id)));
    const tables = await (await ch.query({ query: `SELECT name FROM system.tables WHERE database = {d:String} ORDER BY name`, query_params: { d: db() }, format: 'JSONEachRow' })).json<{ name: string }>();
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['actions', 'outcomes', 'cost_events', 'costs_daily', 'derived_outcomes_mv', 'sink_inserted']));
    // Migration 0005: the event tables merge in wider steps (bench/sink-merges.ts).
    for (const table of ['actions', 'outcomes']) {
      const create = await (await ch.query({ query: `SHOW CREATE TABLE ${db()}.${table}`, format: 'JSONEachRow' })).json<{ statement: string }>();
      expect(create[0]!.statement, table).toMatch(/merge_selector_base = 20\b/);
    }
  });

  it('stores actions and outcomes sent over HTTP, counts each event once, derives outcomes and reports costs', async () => {
    const from = new Date(Date.now() - 3_600_000).toISOString();
    const rule = await post('/v1/cost_rules', { name: 'per action', category: 'infrastructure', currency: 'USD', basis: 'per_action', rate: '0.125', effective_from: from, reallocate: true });
    expect(rule.status).toBe(201);
    expect((await post('/api/v1/outcome_rules', { name: 'hire', action_type: 'hire_step', metadata_match: { stage: 'hired' }, outcome_type: 'successful_hire', value: '2.5' })).status).toBe(201);
    agent = (await createAgent(stack!)).id;
    // Text that TabSeparated must escape on its way through the HTTP body.
    const metadata = { stage: 'hired', note: 'tab\there\nnewline \\ backslash "quote" ünïcode' };
    const actions = [
      { agent_key: agent, action_type: 'hire_step', id: 'a1', metadata },
      { agent_key: agent, action_type: 'hire_step', id: 'a1', metadata }, // a duplicate
      { agent_key: agent, action_type: 'llm_call', id: 'a2', metadata: { model: 'gpt-4o', input_tokens: 1200, output_tokens: 300 } },
      { agent_key: agent, action_type: 'llm_call', id: 'a3' },
    ];
    expect((await post('/v1/actions', actions, sdk)).status).toBe(200);
    expect((await post('/v1/outcomes', [{ agent_key: agent, outcome_type: 'successful_hire', id: 'o1', value: '0.25' }], sdk)).status).toBe(200);
    expect((await post('/v1/actions', [actions[2]], sdk)).status).toBe(200); // resent later

    const range = `start_date=${from}&end_date=${new Date(Date.now() + 3_600_000).toISOString()}`;
    const usage = await waitFor(
      () => call(stack!, 'GET', `/v1/usage?${range}&agent_id=${agent}`, { key: sdk }).then((r) => r.body.usage?.[0]),
      (u) => u?.actions === '3' && u?.outcomes === '2',
    );
    // a1 derives 2.5 (the view ran on the server's insert), o1 is 0.25.
    expect(usage).toMatchObject({ actions: '3', outcomes: '2', outcome_value: '2.75', input_tokens: '1200', output_tokens: '300' });

    const [stored] = await (await stack!.tally.ch!.query({ query: `SELECT metadata FROM ${db()}.actions WHERE agent_instance_id = {a:String} AND event_id = 'a1' LIMIT 1`, query_params: { a: agent }, format: 'JSONEachRow' })).json<{ metadata: string }>();
    expect(JSON.parse(stored!.metadata)).toEqual(metadata);

    // Three distinct actions at 0.125 USD each, folded by the cost rollup over the server.
    const costs = await waitFor(
      () => get(`/v1/costs?${range}&agent_id=${agent}`),
      (r) => r.body.total?.USD === '0.375',
      30_000,
    );
    expect(costs.body.costs.map((c: any) => [c.agent_id, c.cost_type, c.currency, c.amount])).toEqual([[agent, 'infrastructure', 'USD', '0.375']]);
  });

  it('answers analysts\' SQL (POST /v1/sql: exec with parameters and settings) in text and binary formats', async () => {
    // Raw rows (docs/analytics.md): a query counts each event once by its id.
    const query = 'SELECT action_type, uniqExact(event_id) AS n FROM actions WHERE agent_instance_id = {agent:String} GROUP BY action_type ORDER BY action_type';
    const ask = (format: string) =>
      fetch(`${stack!.baseUrl}/v1/sql`, { method: 'POST', headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' }, body: JSON.stringify({ query, params: { agent }, format }) });
    const tsv = await ask('TSV');
    expect(await tsv.text()).toBe('hire_step\t1\nllm_call\t2\n');
    const parquet = Buffer.from(await (await ask('Parquet')).arrayBuffer());
    expect([parquet.subarray(0, 4).toString(), parquet.subarray(-4).toString()]).toEqual(['PAR1', 'PAR1']);
  });

  it('refuses to start with a wrong password, or an unreachable server, naming ClickHouse and not the password', async () => {
    const wrong = startTally({ roles: ['sink'], env: { ...env(), CLICKHOUSE_PASSWORD: 'not-the-password' } });
    const err = await wrong.then(() => undefined, (e: Error) => e);
    expect(err?.message).toMatch(new RegExp(`^ClickHouse at ${server.url.replace(/[.]/g, '\\.')} \\(user tally\\): .*Authentication failed`));
    expect(err?.message).not.toContain('not-the-password');

    const closed = await startTally({ roles: ['sink'], env: { ...env(), CLICKHOUSE_URL: 'http://127.0.0.1:1' } }).then(() => undefined, (e: Error) => e);
    expect(closed?.message).toMatch(/^ClickHouse at http:\/\/127\.0\.0\.1:1 \(user tally\): .*ECONNREFUSED/);
  });

  it("the harness's cleanup drops the database on the server", async () => {
    const name = db();
    await stack!.cleanup();
    stack = undefined;
    const ch = direct();
    const rs = await ch.query({ query: 'SELECT count() AS n FROM system.databases WHERE name = {d:String}', query_params: { d: name }, format: 'JSONEachRow' });
    expect(await rs.json()).toEqual([{ n: 0 }]);
    await ch.close();
  });
});
