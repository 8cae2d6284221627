/**
 * The test ClickHouse HTTP server (server.ts) answers as clickhouse-server does where
 * Tally's tests rely on it: authentication in each form, per-request settings,
 * exceptions with their codes and statuses, multi-statement refusal, read-only GET.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClickHouseLogLevel, createClient, type ClickHouseClient } from '@clickhouse/client';
import { startClickHouseHttp, type ClickHouseHttp } from './start.ts';

let server: ClickHouseHttp;
let ch: ClickHouseClient;
beforeAll(async () => {
  server = await startClickHouseHttp({ user: 'u', password: 'secret' });
  ch = createClient({ url: server.url, username: 'u', password: 'secret', log: { level: ClickHouseLogLevel.OFF } });
});
afterAll(async () => {
  await ch?.close();
  await server?.stop();
});

const raw = (query: string, init: RequestInit = {}, params = '') => fetch(`${server.url}/?query=${encodeURIComponent(query)}${params}`, init);
const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });

describe('test ClickHouse HTTP server', () => {
  it('authenticates by Basic, X-ClickHouse headers or URL parameters; refuses others with 516 and 403; /ping needs none', async () => {
    for (const init of [{ headers: basic('u', 'secret') }, { headers: { 'x-clickhouse-user': 'u', 'x-clickhouse-key': 'secret' } }]) {
      expect(await (await raw('SELECT 1', init)).text()).toBe('1\n');
    }
    expect(await (await raw('SELECT 1', {}, '&user=u&password=secret')).text()).toBe('1\n');
    for (const init of [{ headers: basic('u', 'wrong') }, { headers: basic('other', 'secret') }, {}]) {
      const res = await raw('SELECT 1', init);
      expect(res.status).toBe(403);
      expect(res.headers.get('x-clickhouse-exception-code')).toBe('516');
      expect(await res.text()).toMatch(/^Code: 516\. DB::Exception: .*Authentication failed.*\(AUTHENTICATION_FAILED\)/);
    }
    expect(await (await fetch(`${server.url}/ping`)).text()).toBe('Ok.\n');
  });

  it('applies URL settings to their request only', async () => {
    const setting = async (settings: Record<string, number>) =>
      (await (await ch.query({ query: "SELECT getSetting('max_threads') AS v", format: 'JSONEachRow', clickhouse_settings: settings })).json<{ v: number }>())[0]!.v;
    expect(await setting({ max_threads: 1 })).toBe(1);
    expect(await setting({})).not.toBe(1);
  });

  it('answers exceptions with their code and the server status; refuses several statements; GET is read-only', async () => {
    await expect(ch.query({ query: 'SELECT * FROM nowhere.nothing' })).rejects.toMatchObject({ code: '81', type: 'UNKNOWN_DATABASE' });
    const unknown = await raw('SELECT * FROM nowhere.nothing', { method: 'POST', headers: basic('u', 'secret') });
    expect(unknown.status).toBe(404);
    await expect(ch.command({ query: 'SELECT 1; SELECT 2' })).rejects.toMatchObject({ code: '62', message: expect.stringContaining('Multi-statements are not allowed') });
    const get = await raw('CREATE DATABASE get_is_read_only', { headers: basic('u', 'secret') });
    expect([get.status, get.headers.get('x-clickhouse-exception-code')]).toEqual([500, '164']);
  });

  it('takes an insert as the query in the URL and the rows in the body, and query parameters in text form', async () => {
    await ch.command({ query: 'CREATE DATABASE IF NOT EXISTS p' });
    await ch.command({ query: 'CREATE TABLE IF NOT EXISTS p.t (s String) ENGINE = MergeTree ORDER BY s' });
    const text = 'tab\there; new\nline \\ quote\' ünï';
    await ch.insert({ table: 'p.t', values: [{ s: text }], format: 'JSONEachRow' });
    const rows = await (await ch.query({ query: 'SELECT s FROM p.t WHERE s = {s:String}', query_params: { s: text }, format: 'JSONEachRow' })).json<{ s: string }>();
    expect(rows).toEqual([{ s: text }]);
  });
});
