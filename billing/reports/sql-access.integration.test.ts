/**
 * POST /v1/sql and `tally sql` (issue 15, analysts): read-only SQL over the key's
 * environment on the running process's chDB, every output format, and every way out of
 * the environment or into a write refused with a 400 naming why.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';

let stack: TestStack;
let devAgent: string;
let stagingAgent: string;
const day = new Date().toISOString().slice(0, 10);
const next = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
const bin = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/tally.js');

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1' } });
  devAgent = (await createAgent(stack)).id;
  stagingAgent = (await createAgent(stack, 'staging')).id;
  const dev = [
    { agent_key: devAgent, action_type: 'llm_call', id: 'd1', metadata: { model: 'gpt-4o', input_tokens: 10 } },
    { agent_key: devAgent, action_type: 'tool_call', id: 'd2' },
  ];
  expect((await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: dev })).status).toBe(200);
  const staging = [{ agent_key: stagingAgent, action_type: 'llm_call', id: 's1', metadata: { input_tokens: 500 } }];
  expect((await call(stack, 'POST', '/v1/actions', { key: stack.keys.staging.sdk, body: staging })).status).toBe(200);
  for (const [env, n] of [['development', 2], ['staging', 1]] as const) {
    await waitFor(
      () => call(stack, 'GET', `/v1/usage?start_date=${day}&end_date=${next}`, { key: stack.keys[env].sdk }),
      (r) => (r.body.usage ?? []).reduce((sum: number, u: { actions: string }) => sum + Number(u.actions), 0) === n,
    );
  }
});
afterAll(async () => {
  await stack?.cleanup();
});

/** POST /v1/sql; the answer's status, content type and bytes. */
async function sql(body: unknown, opts: { key?: string; contentType?: string; query?: string } = {}) {
  const res = await fetch(`${stack.baseUrl}/v1/sql${opts.query ?? ''}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${opts.key ?? stack.keys.development.admin}`, 'content-type': opts.contentType ?? 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const bytes = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type'), bytes, text: bytes.toString('utf8') };
}

/** `tally sql ...` as a user runs it, against this stack. */
function tally(args: string[], env: Record<string, string>, input?: string): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sql', ...args], { cwd: os.tmpdir(), env: { ...process.env, TALLY_API_KEY: '', TALLY_URL: stack.baseUrl, ...env } });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout: Buffer.concat(out), stderr: err }));
    child.stdin.end(input ?? '');
  });
}

describe('POST /v1/sql', () => {
  it("answers the key's environment only, in every format", async () => {
    const q = 'SELECT action_type, count() AS n, sum(input_tokens) AS tokens FROM actions GROUP BY action_type ORDER BY action_type';
    const rows = await sql({ query: q });
    expect(rows.status, rows.text).toBe(200);
    expect(rows.type).toBe('application/x-ndjson');
    expect(rows.text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
      { action_type: 'llm_call', n: 1, tokens: 10 },
      { action_type: 'tool_call', n: 1, tokens: 0 },
    ]);
    const staging = await sql({ query: q, format: 'CSV' }, { key: stack.keys.staging.admin });
    expect(staging.text).toBe('"llm_call",1,500\n');
    expect((await sql({ query: q, format: 'CSVWithNames' })).text).toBe('"action_type","n","tokens"\n"llm_call",1,10\n"tool_call",1,0\n');
    expect((await sql({ query: q, format: 'TSV' })).text).toBe('llm_call\t1\t10\ntool_call\t1\t0\n');
    expect((await sql({ query: q, format: 'TSVWithNames' })).text.split('\n')[0]).toBe('action_type\tn\ttokens');
    const json = await sql({ query: q, format: 'JSON' });
    expect(json.type).toBe('application/json');
    expect(JSON.parse(json.text)).toMatchObject({ rows: 2, data: [{ action_type: 'llm_call' }, { action_type: 'tool_call' }] });
    const parquet = await sql({ query: q, format: 'Parquet' });
    expect(parquet.type).toBe('application/vnd.apache.parquet');
    expect(parquet.bytes.subarray(0, 4).toString()).toBe('PAR1');
    expect(parquet.bytes.subarray(-4).toString()).toBe('PAR1');
  });

  it('takes parameters, and the query as text/plain', async () => {
    const q = 'SELECT count() AS n FROM actions WHERE ts >= {from:DateTime64(3)} AND agent_instance_id = {agent:String}';
    const json = await sql({ query: q, params: { from: `${day} 00:00:00`, agent: devAgent } });
    expect(json.text).toBe('{"n":2}\n');
    const plain = await sql(q, { contentType: 'text/plain', query: `?format=CSV&param_from=${day}&param_agent=${devAgent}` });
    expect(plain.status, plain.text).toBe(200);
    expect(plain.text).toBe('2\n');
    // Another environment's agent is simply absent.
    expect((await sql({ query: q, params: { from: `${day} 00:00:00`, agent: stagingAgent } })).text).toBe('{"n":0}\n');
  });

  it('refuses writes, other tables, table functions, files, settings and second statements with a 400', async () => {
    const db = stack.env.CLICKHOUSE_DATABASE!;
    const outfile = path.join(os.tmpdir(), `tally-sql-outfile-${process.pid}`);
    const refused: [string, RegExp][] = [
      [`INSERT INTO actions (environment_id, event_id) VALUES ('x', 'y')`, /only a SELECT query/],
      [`INSERT INTO ${db}.actions SELECT * FROM ${db}.actions`, /only a SELECT query/],
      [`DROP TABLE ${db}.actions`, /only a SELECT query/],
      [`ALTER TABLE actions DELETE WHERE 1`, /only a SELECT query/],
      [`SET readonly = 0`, /only a SELECT query/],
      ['SELECT 1; DROP TABLE actions', /Multi-statements are not allowed/],
      [`SELECT 1; INSERT INTO ${db}.actions (environment_id) VALUES ('x')`, /Multi-statements are not allowed/],
      ['SELECT name FROM system.tables', /tables are named without a database/],
      [`SELECT count() FROM ${db}.actions`, /tables are named without a database/],
      ['SELECT 1 WHERE 1 IN system.tables', /IN takes a list or a subquery/],
      ['SELECT count() FROM sink_dead_letters', /Unknown table expression identifier/],
      ['SELECT count() FROM schema_migrations', /Unknown table expression identifier/],
      ['SELECT count() FROM derived_outcomes_mv', /Unknown table expression identifier/],
      ["SELECT * FROM file('/etc/hostname', 'LineAsString')", /table functions are not accepted \(file\)/],
      ["SELECT file('/etc/hostname')", /function file is not available/],
      ["SELECT * FROM url('http://127.0.0.1:1/x', 'CSV', 'a String')", /table functions are not accepted \(url\)/],
      ["SELECT * FROM s3('http://127.0.0.1:1/b/x.csv')", /table functions are not accepted \(s3\)/],
      [`SELECT * FROM remote('127.0.0.1', ${db}.actions)`, /table functions are not accepted \(remote\)/],
      [`SELECT * FROM merge('${db}', '^actions$')`, /table functions are not accepted \(merge\)/],
      ["SELECT * FROM executable('id', 'TSV', 'a String')", /table functions are not accepted \(executable\)/],
      ["SELECT dictGet('d', 'v', 1)", /function dictGet is not available/],
      ['SELECT count() FROM actions SETTINGS readonly = 0', /SETTINGS are not accepted/],
      ['SELECT * FROM (SELECT count() FROM actions SETTINGS additional_table_filters = {})', /SETTINGS are not accepted/],
      ['SELECT count() FROM actions SETTINGS max_result_rows = 0', /SETTINGS are not accepted/],
      [`SELECT 1 INTO OUTFILE '${outfile}'`, /FORMAT and INTO OUTFILE are not accepted/],
      ['SELECT 1 FORMAT CSV', /FORMAT and INTO OUTFILE are not accepted/],
      ['SELECT count() FROM actions FINAL', /FINAL are not supported/],
      ['SELEC 1', /Syntax error/],
      ['SELECT {x:String}', /Substitution `x` is not set/],
    ];
    for (const [query, why] of refused) {
      const res = await sql({ query });
      expect(res.status, `${query}: ${res.text}`).toBe(400);
      const { error } = JSON.parse(res.text);
      expect(error.code, query).toBe('validation_failed');
      expect(error.request_id, query).toBeTruthy();
      expect(error.message, query).toMatch(why);
    }
    expect(existsSync(outfile)).toBe(false);
    // Nothing was written or dropped.
    expect((await sql({ query: 'SELECT count() AS n FROM actions' })).text).toBe('{"n":2}\n');
  });

  it('bounds the result, and refuses bad requests and other keys', async () => {
    const big = await sql({ query: 'SELECT number FROM system.one ARRAY JOIN range(2000000) AS number' });
    expect(big.status).toBe(400);
    expect(JSON.parse(big.text).error.message).toMatch(/Limit for result exceeded/);
    const atOnce = await Promise.all([1, 2, 3].map(() => sql({ query: 'SELECT sleep(1.5)' })));
    expect(atOnce.map((r) => r.status).sort()).toEqual([200, 200, 429]);
    expect((await sql({ query: 'SELECT 1', format: 'XML' })).status).toBe(400);
    expect((await sql({ query: '' })).status).toBe(400);
    expect((await sql({ query: 'SELECT 1', params: { 'bad name': 'x' } })).status).toBe(400);
    expect((await sql('SELECT 1', { contentType: 'text/plain', query: '?format=Pretty' })).status).toBe(400);
    expect((await sql('SELECT 1', { contentType: 'application/xml' })).status).toBe(415);
    expect((await sql({ query: 'SELECT 1' }, { key: stack.keys.development.sdk })).status).toBe(403);
    for (const permission of ['read-only', 'read-write']) {
      const minted = await call(stack, 'POST', '/api/v1/api_keys', { key: stack.keys.development.admin, body: { name: permission, permission } });
      expect(minted.status).toBe(201);
      expect((await sql({ query: 'SELECT 1' }, { key: minted.body.key })).status).toBe(403);
    }
    expect((await sql({ query: 'SELECT 1' }, { key: 'sk_api_' + 'x'.repeat(40) })).status).toBe(401);
  });
});

describe('tally sql', () => {
  it('prints the answer of the running Tally, with the saved key of --env or TALLY_API_KEY', async () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'tally-sql-cli-'));
    onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }));
    writeFileSync(path.join(dataDir, 'credentials.json'), JSON.stringify({ organization_id: stack.init.organization_id, environments: stack.init.environments }), { mode: 0o600 });
    const q = 'SELECT action_type, count() AS n FROM actions GROUP BY action_type ORDER BY action_type';
    const dev = await tally([q, '--format', 'CSV'], { TALLY_DATA_DIR: dataDir });
    expect(dev.stderr).toBe('');
    expect(dev.code).toBe(0);
    expect(dev.stdout.toString()).toBe('"llm_call",1\n"tool_call",1\n');
    const staging = await tally(['-', '--env', 'staging', '--format', 'TSV', '--param', `from=${day} 00:00:00`], { TALLY_DATA_DIR: dataDir }, 'SELECT count() FROM actions WHERE ts >= {from:DateTime64(3)}');
    expect(staging.stdout.toString()).toBe('1\n');
    const byKey = await tally(['SELECT count() FROM actions', '--format', 'Parquet'], { TALLY_API_KEY: stack.keys.staging.admin, TALLY_DATA_DIR: path.join(dataDir, 'none') });
    expect(byKey.code).toBe(0);
    expect(byKey.stdout.subarray(0, 4).toString()).toBe('PAR1');
    const refused = await tally(['SELECT * FROM system.tables'], { TALLY_DATA_DIR: dataDir });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/validation_failed \(400\): tables are named without a database/);
    const usage = await tally([q, '--env', 'prod'], { TALLY_DATA_DIR: dataDir });
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--env must be one of development, staging, production/);
  });
});
