import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { keySet, statuses, type KeySet } from '../../test/api-support.ts';

/** Lists the spec leaves open page like the other Family B lists: skip/limit, total always. */
let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let planId: string;
let subId: string;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  const post = async (path: string, body?: unknown) => {
    const res = await call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });
    if (res.status >= 300) throw new Error(`${path}: ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const type = await post('/api/v1/agent_type/create', { name: 'Pager' });
  const product = await post('/api/v1/products', { name: 'Paged', agent_type_id: type.id });
  const plan = await post(`/api/v1/products/${product.id}/rateplans`, { name: 'P', billing_cycle_code: 'monthly' });
  planId = plan.id;
  const model = await post('/api/v1/charge_models', { name: 'Flat', description: 'flat', type: 'flat', pricing_strategy: { amount: 10 } });
  for (const name of ['c1', 'c2', 'c3']) await post(`/api/v1/products/rateplans/${planId}/charges`, { name, charge_model_id: model.id, charge_type_code: 'recurring' });
  const account = await post('/api/v1/account/create', { name: 'Paged Co' });
  const sub = await post('/api/v1/subscription/create', { account_id: account.id, rate_plan_id: planId, contract_effective_date: '2026-01-01' });
  subId = sub.id;
  await post(`/api/v1/subscription/${subId}/activate`);
  await post(`/api/v1/subscription/${subId}/pause`);
  await post(`/api/v1/subscription/${subId}/resume`);
});
afterAll(async () => {
  await stack?.cleanup();
});

const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });

describe.each([
  ['a rate plan\'s charges', () => `/api/v1/products/rateplans/${planId}/charges`, 'charges', 3],
  ['a subscription\'s state changes', () => `/api/v1/subscription/${subId}/events`, 'events', 4],
])('%s', (_label, path, name, count) => {
  it('pages with skip/limit (default 100) and always answers total', async () => {
    const all = await get(path());
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: count, skip: 0, limit: 100 });
    expect(all.body[name]).toHaveLength(count);
    const page = await get(`${path()}?skip=1&limit=2`);
    expect(page.body).toMatchObject({ total: count, skip: 1, limit: 2 });
    expect(page.body[name]).toEqual(all.body[name].slice(1, 3));
    expect((await get(`${path()}?skip=${count}`)).body).toMatchObject({ total: count, [name]: [] });
    for (const q of ['limit=0', 'limit=101', 'skip=-1', 'limit=x']) expect((await get(`${path()}?${q}`)).status, q).toBe(400);
  });

  it('read keys may list, SDK keys may not; another environment gets 404', async () => {
    expect(await statuses(stack, 'GET', path(), [dev.readOnly, dev.sdk, staging.admin])).toEqual([200, 403, 404]);
  });
});
