/**
 * The TypeScript SDK's credits methods (`tally.credits`) against a real Tally stack (real
 * Postgres, NATS, chDB): grants (idempotent, also when a retry follows an answer lost on
 * the way back), list/get/void, balance, ledger entries paged and filtered, adjustments,
 * the low-balance threshold, top-ups (create/list/cancel), the agent's own balance read
 * with its secret, and errors as TallyApiError. sdk/python.integration.test.ts runs the
 * same through the Python SDK.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, type TestStack } from '../test/harness.ts';
import { Tally, TallyApiError, type TallyOptions } from './src/index.ts';

let stack: TestStack;
const clients: Tally[] = [];

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await stack?.cleanup();
});

function client(o: Partial<TallyOptions> = {}): Tally {
  const c = new Tally({ apiKey: stack.keys.development.admin, baseUrl: stack.baseUrl, flushOnExit: false, retryBaseMs: 10, retryMaxMs: 50, ...o });
  clients.push(c);
  return c;
}
async function account(name: string): Promise<string> {
  const res = await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}
async function apiError(p: Promise<unknown>): Promise<TallyApiError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TallyApiError);
  return e as TallyApiError;
}

describe('tally.credits', () => {
  it('grants once per Idempotency-Key, lists, reads, adjusts, voids, and keeps the balance', async () => {
    const tally = client();
    const acct = await account('SDK credits');
    const input = { account_id: acct, currency: 'USD', kind: 'free' as const, amount: '100.00', priority: 10, metadata: { campaign: 'welcome' } };
    const g = await tally.credits.grant(input, { idempotencyKey: 'sdk-welcome-1' });
    expect(g).toMatchObject({ account_id: acct, currency: 'USD', kind: 'free', amount: '100.00', remaining: '100.00', priority: 10, status: 'active' });
    expect((await tally.credits.grant(input, { idempotencyKey: 'sdk-welcome-1' })).id).toBe(g.id);
    const other = await tally.credits.grant({ ...input, amount: 7, metadata: {} });
    expect(other.amount).toBe('7.00');

    const page = await tally.credits.listGrants({ account_id: acct, limit: 1 });
    expect(page.total).toBe(2);
    expect(page.grants).toHaveLength(1);
    expect((await tally.credits.getGrant(g.id)).remaining).toBe('100.00');

    const adj = await tally.credits.adjust({ grant_id: g.id, amount: '-10.50', reason: 'goodwill correction' });
    expect(adj).toMatchObject({ type: 'adjustment', amount: '-10.50', reason: 'goodwill correction', grant_id: g.id });
    const b = await tally.credits.balance(acct);
    expect(b.balances).toEqual([expect.objectContaining({ currency: 'USD', granted: '107.00', available: '96.50', pending: '0.00' })]);
    const past = await tally.credits.balance(acct, { at: new Date(Date.now() - 86400_000) });
    expect(past.balances.find((x) => x.currency === 'USD')?.available ?? '0.00').toBe('0.00');

    const all = await tally.credits.listEntries({ account_id: acct });
    expect(all.entries.map((e) => e.type).sort()).toEqual(['adjustment', 'grant', 'grant']);
    const adjustments = await tally.credits.listEntries({ account_id: acct, type: 'adjustment', limit: 10, offset: 0 });
    expect(adjustments.total).toBe(1);
    expect((await tally.credits.listEntries({ account_id: acct, limit: 1, offset: 2 })).entries).toHaveLength(1);
    expect((await tally.credits.listEntries({ account_id: acct, to: new Date(Date.now() - 86400_000) })).total).toBe(0);

    const voided = await tally.credits.voidGrant(g.id, 'test');
    expect(voided).toMatchObject({ status: 'void', remaining: '0.00' });
    const again = await apiError(tally.credits.voidGrant(g.id));
    expect([again.status, again.code, again.retryable]).toEqual([409, 'conflict', false]);
    expect((await tally.credits.balance(acct)).balances[0]!.available).toBe('7.00');
  });

  it('keeps every digit: the largest KWD grant (10^15, 3 decimals) and a JPY grant without decimals', async () => {
    const tally = client();
    const acct = await account('SDK big money');
    const kwd = await tally.credits.grant({ account_id: acct, currency: 'KWD', kind: 'free', amount: '1000000000000000' });
    expect(kwd.amount).toBe('1000000000000000.000');
    expect((await tally.credits.adjust({ grant_id: kwd.id, amount: '-0.001', reason: 'one fils' })).amount).toBe('-0.001');
    const jpy = await tally.credits.grant({ account_id: acct, currency: 'JPY', kind: 'free', amount: 12345 });
    expect(jpy.amount).toBe('12345');
    const b = await tally.credits.balance(acct);
    expect(Object.fromEntries(b.balances.map((x) => [x.currency, x.available]))).toEqual({ KWD: '999999999999999.999', JPY: '12345' });
    for (const amount of ['1.5', '-1', '1000000000000001']) {
      const bad = await apiError(tally.credits.grant({ account_id: acct, currency: 'JPY', kind: 'free', amount }));
      expect([bad.status, bad.code, bad.retryable]).toEqual([400, 'validation_failed', false]);
    }
    expect((await tally.credits.listGrants({ account_id: acct })).total).toBe(2);
  });

  it('sets the low-balance threshold and creates, lists and cancels top-ups', async () => {
    const tally = client();
    const acct = await account('SDK top-ups');
    expect(await tally.credits.setLowBalanceThreshold(acct, 'USD', '20.00')).toEqual({ account_id: acct, currency: 'USD', low_balance_threshold: '20.00' });
    expect((await tally.credits.settings(acct)).settings).toEqual([{ account_id: acct, currency: 'USD', low_balance_threshold: '20.00' }]);
    expect((await tally.credits.setLowBalanceThreshold(acct, 'USD', null)).low_balance_threshold).toBeNull();

    const rule = await tally.credits.createTopup({ account_id: acct, currency: 'USD', type: 'recurring', interval: 'month', amount: '50.00', kind: 'free' });
    expect(rule).toMatchObject({ account_id: acct, type: 'recurring', kind: 'free', status: 'active' });
    // A threshold rule created below its line (no grant yet: balance 0) tops up at once.
    const threshold = await tally.credits.createTopup({ account_id: acct, currency: 'USD', type: 'threshold', threshold: '10', target_balance: '75.00', kind: 'free' });
    const listed = await tally.credits.listTopups({ account_id: acct });
    expect(listed.topups.map((t) => t.id).sort()).toEqual([rule.id, threshold.id].sort());
    expect((await tally.credits.getTopup(threshold.id)).type).toBe('threshold');
    expect((await tally.credits.cancelTopup(rule.id)).status).toBe('disabled');
    const cancelled = await apiError(tally.credits.cancelTopup(rule.id));
    expect(cancelled.status).toBe(409);
    const grants = await tally.credits.listGrants({ account_id: acct });
    expect(grants.grants.map((g) => g.metadata)).toContainEqual(expect.objectContaining({ topup_id: threshold.id }));

    const bad = await apiError(tally.credits.createTopup({ account_id: acct, currency: 'USD', type: 'threshold', amount: '-1', threshold: '5' }));
    expect(bad.status).toBe(400);
    expect(bad.details.length).toBeGreaterThan(0);
  });

  it('reads the calling agent’s available balance with its secret alone', async () => {
    const acct = await account('SDK agent');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    await client().credits.grant({ account_id: acct, currency: 'USD', kind: 'free', amount: '42.00' });
    const own = await client({ apiKey: undefined, agentKey: agent.secret }).credits.agentBalance();
    expect(own).toMatchObject({ agent_instance_id: agent.id, account_id: acct, balances: [{ currency: 'USD', available: '42.00' }] });

    // An agent secret may not grant, nor an API key read as an agent.
    const asAgent = await apiError(client({ apiKey: undefined, agentKey: agent.secret }).credits.grant({ account_id: acct, currency: 'USD', kind: 'free', amount: '1' }));
    expect(asAgent.code).toBe('missing_credentials');
    const noSecret = await apiError(client().credits.agentBalance());
    expect(noSecret.code).toBe('missing_credentials');
    const wrong = await apiError(client({ apiKey: undefined, agentKey: 'as_not_a_secret' }).credits.agentBalance());
    expect(wrong.status).toBe(401);
    const unknown = await apiError(client().credits.getGrant('cgr_unknown'));
    expect([unknown.status, unknown.code]).toEqual([404, 'not_found']);
  });

  it('retries a grant whose answer was lost with the same Idempotency-Key: granted once', async () => {
    // A front that passes the first grant through to Tally but answers 503 in its place.
    let grants = 0;
    const front = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
        const body = chunks.length ? Buffer.concat(chunks) : undefined;
        void fetch(stack.baseUrl + req.url, { method: req.method, headers, body }).then(async (answer) => {
          const text = await answer.text();
          const lost = req.url === '/v1/credits/grants' && grants++ === 0;
          res.writeHead(lost ? 503 : answer.status, { 'content-type': 'application/json' });
          res.end(lost ? '{"error":{"code":"service_unavailable","message":"lost"}}' : text);
        });
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    try {
      const acct = await account('SDK retried grant');
      const tally = client({ baseUrl: `http://127.0.0.1:${(front.address() as net.AddressInfo).port}` });
      const g = await tally.credits.grant({ account_id: acct, currency: 'USD', kind: 'free', amount: '5.00' });
      expect(grants).toBe(2);
      const listed = await tally.credits.listGrants({ account_id: acct });
      expect(listed.grants.map((x) => x.id)).toEqual([g.id]);
      // Without retries the lost answer surfaces as a retryable error.
      grants = 0;
      const once = client({ baseUrl: `http://127.0.0.1:${(front.address() as net.AddressInfo).port}`, maxRetries: 0 });
      const lost = await apiError(once.credits.grant({ account_id: acct, currency: 'USD', kind: 'free', amount: '5.00' }));
      expect([lost.status, lost.code, lost.retryable]).toEqual([503, 'service_unavailable', true]);
    } finally {
      await new Promise((r) => front.close(r));
    }
  });
  it('runs the credits example of docs/sdk.md as it is (plain JavaScript)', async () => {
    const readme = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../docs/sdk.md'), 'utf8');
    const example = /\*\*Credits\.\*\* `tally\.credits`[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)![1]!;
    const acct = await account('SDK docs credits');
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const env = { TALLY_API_KEY: stack.keys.development.admin, TALLY_AGENT_SECRET: agent.secret };
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => (...a: unknown[]) => Promise<any>;
    const run = new AsyncFunction('Tally', 'accountId', 'process', `${example.replaceAll('http://localhost:8080', stack.baseUrl)}\nreturn { balances, entries, total, own, clients: [admin, agent] };`);
    const out = await run(Tally, acct, { env });
    for (const c of out.clients) clients.push(c);
    expect(out.balances).toEqual([expect.objectContaining({ currency: 'USD', granted: '100.00', pending: '0.00', available: '89.50' })]);
    expect([out.entries.length, out.total]).toEqual([1, 1]);
    expect(out.own.balances).toEqual([{ currency: 'USD', available: '89.50' }]);
  });
});
