import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { failedPaths, keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let accountId: string;
let planId: string;
let plan2Id: string;
let gbpPlanId: string;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  const typeId = (await post('/api/v1/agent_type/create', { name: 't' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'p', agent_type_id: typeId })).body.id;
  planId = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'basic', billing_cycle_code: 'monthly' })).body.id;
  plan2Id = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'pro', billing_cycle_code: 'monthly' })).body.id;
  gbpPlanId = (await post(`/api/v1/products/${productId}/rateplans`, { name: 'uk', billing_cycle_code: 'monthly', currency: 'GBP' })).body.id;
  accountId = (await post('/api/v1/account/create', { name: 'Acme' })).body.id;
});
afterAll(async () => {
  await stack?.cleanup();
});

function post(path: string, body?: unknown, key = dev.admin) {
  return call(stack, 'POST', path, { key, ...(body !== undefined ? { body } : {}) });
}
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const draft = async (extra: Record<string, unknown> = {}) =>
  (await post('/api/v1/subscription/create', { account_id: accountId, rate_plan_id: planId, contract_effective_date: '2026-01-01', ...extra })).body;
const events = async (id: string) => (await get(`/api/v1/subscription/${id}/events`)).body.events as { type: string; from_status: string | null; to_status: string; rate_plan_id: string; effective_at: string; data: Record<string, unknown> }[];

describe('subscriptions (Family B)', () => {
  it('create makes a draft; activate makes it active, sets activated_at and records both', async () => {
    const res = await post('/api/v1/subscription/create', { account_id: accountId, rate_plan_id: planId, contract_effective_date: '2026-01-01' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ account_id: accountId, rate_plan_id: planId, status: 'draft', activated_at: null, contract_effective_date: '2026-01-01T00:00:00.000Z', agent_instance_ids: [] });
    const before = Date.now();
    const act = await post(`/api/v1/subscription/${res.body.id}/activate`);
    expect(act.status).toBe(200);
    expect(act.body.status).toBe('active');
    expect(Date.parse(act.body.activated_at)).toBeGreaterThanOrEqual(before - 1000);
    expect((await get(`/api/v1/subscription/${res.body.id}`)).body.status).toBe('active');
    const ev = await events(res.body.id);
    expect(ev.map((e) => [e.type, e.from_status, e.to_status])).toEqual([
      ['created', null, 'draft'],
      ['activated', 'draft', 'active'],
    ]);
    expect(ev[0]!.effective_at).toBe('2026-01-01T00:00:00.000Z');
    // Activating twice is a conflict, not a silent success.
    const again = await post(`/api/v1/subscription/${res.body.id}/activate`);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/active/);
  });

  it('pause, resume, change plan, renew and cancel are recorded with their effective times', async () => {
    // Effective dates after the activation (now): a change may not reach back before it.
    const sub = await draft();
    await post(`/api/v1/subscription/${sub.id}/activate`);
    const paused = await post(`/api/v1/subscription/${sub.id}/pause`, { effective_date: '2027-02-10T00:00:00Z' });
    // Shown as it stands now (active), the pause scheduled.
    expect(paused.body).toMatchObject({ status: 'active', paused_at: '2027-02-10T00:00:00.000Z', scheduled_changes: [{ type: 'paused', effective_at: '2027-02-10T00:00:00.000Z', status: 'paused', rate_plan_id: planId }] });
    expect((await post(`/api/v1/subscription/${sub.id}/pause`)).status).toBe(409);
    const resumed = await post(`/api/v1/subscription/${sub.id}/resume`, { effective_date: '2027-02-20T00:00:00Z' });
    expect(resumed.body).toMatchObject({ status: 'active', paused_at: null });
    const changed = await post(`/api/v1/subscription/${sub.id}/change-plan`, { rate_plan_id: plan2Id, effective_date: '2027-03-16T00:00:00Z' });
    expect(changed.status).toBe(200);
    // The plan in force now is still the first; the change is scheduled.
    expect(changed.body.rate_plan_id).toBe(planId);
    expect(changed.body.scheduled_changes.map((c: { type: string; status: string; rate_plan_id: string }) => [c.type, c.status, c.rate_plan_id])).toEqual([
      ['paused', 'paused', planId],
      ['resumed', 'active', planId],
      ['plan_changed', 'active', plan2Id],
    ]);
    const renewed = await post(`/api/v1/subscription/${sub.id}/renew`);
    expect(renewed.body.status).toBe('active');
    expect(renewed.body.renewed_at).not.toBeNull();
    const cancelled = await post(`/api/v1/subscription/${sub.id}/cancel`, { cancel_date: '2027-06-30', reason: 'budget' });
    expect(cancelled.body).toMatchObject({ status: 'active', rate_plan_id: planId, cancel_date: '2027-06-30T00:00:00.000Z', cancel_reason: 'budget' });
    expect(cancelled.body.scheduled_changes.at(-1)).toEqual({ type: 'cancelled', effective_at: '2027-06-30T00:00:00.000Z', status: 'cancelled', rate_plan_id: plan2Id });
    expect((await get(`/api/v1/subscription/${sub.id}`)).body).toMatchObject({ status: 'active', rate_plan_id: planId, scheduled_changes: cancelled.body.scheduled_changes });
    const refused = await post(`/api/v1/subscription/${sub.id}/pause`);
    expect(refused.body.error.message).toMatch(/cannot pause a subscription that is cancelled from 2027-06-30T00:00:00.000Z/);
    const ev = await events(sub.id);
    expect(ev.map((e) => e.type)).toEqual(['created', 'activated', 'paused', 'resumed', 'plan_changed', 'renewed', 'cancelled']);
    const change = ev.find((e) => e.type === 'plan_changed')!;
    expect(change).toMatchObject({ rate_plan_id: plan2Id, effective_at: '2027-03-16T00:00:00.000Z', data: { from_rate_plan_id: planId, to_rate_plan_id: plan2Id } });
    expect(ev.find((e) => e.type === 'paused')!.effective_at).toBe('2027-02-10T00:00:00.000Z');
    expect(ev.find((e) => e.type === 'cancelled')).toMatchObject({ effective_at: '2027-06-30T00:00:00.000Z', from_status: 'active', to_status: 'cancelled', data: { reason: 'budget' } });
    for (const a of ['activate', 'pause', 'resume', 'renew', 'cancel']) expect((await post(`/api/v1/subscription/${sub.id}/${a}`)).status, a).toBe(409);
  });

  it.each([
    ['a draft cannot be paused', 'pause'],
    ['a draft cannot be resumed', 'resume'],
    ['a draft cannot be renewed', 'renew'],
  ])('%s (409)', async (_l, action) => {
    const sub = await draft();
    const res = await post(`/api/v1/subscription/${sub.id}/${action}`);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('conflict');
    expect((await get(`/api/v1/subscription/${sub.id}`)).body.status).toBe('draft');
  });

  it('a draft can be cancelled; cancel_date before the contract start is refused', async () => {
    const sub = await draft();
    const bad = await post(`/api/v1/subscription/${sub.id}/cancel`, { cancel_date: '2025-12-01', reason: 'x' });
    expect(bad.status).toBe(400);
    expect(failedPaths(bad)).toEqual(['cancel_date']);
    expect((await post(`/api/v1/subscription/${sub.id}/cancel`, { cancel_date: '2026-01-15', reason: 'never started' })).body.status).toBe('cancelled');
  });

  it.each([
    ['missing account_id', { rate_plan_id: '$plan' }, 'account_id'],
    ['unknown account_id', { account_id: 'acct_nope', rate_plan_id: '$plan' }, 'account_id'],
    ['unknown rate_plan_id', { account_id: '$acct', rate_plan_id: 'rp_nope' }, 'rate_plan_id'],
    ['bad contract_effective_date', { account_id: '$acct', rate_plan_id: '$plan', contract_effective_date: 'soon' }, 'contract_effective_date'],
    ['impossible contract_effective_date', { account_id: '$acct', rate_plan_id: '$plan', contract_effective_date: '2026-02-30' }, 'contract_effective_date'],
    ['unknown agent instance', { account_id: '$acct', rate_plan_id: '$plan', agent_instance_ids: ['ai_nope'] }, 'agent_instance_ids[0]'],
    ['agent_instance_ids not an array', { account_id: '$acct', rate_plan_id: '$plan', agent_instance_ids: 'ai_1' }, 'agent_instance_ids'],
  ])('create rejects %s', async (_l, body, path) => {
    const b = JSON.parse(JSON.stringify(body).replace('$plan', planId).replace('$acct', accountId));
    const res = await post('/api/v1/subscription/create', b);
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual([path]);
  });

  it('change-plan validates the new plan (exists, differs, same currency)', async () => {
    const sub = await draft();
    expect(failedPaths(await post(`/api/v1/subscription/${sub.id}/change-plan`, {}))).toEqual(['rate_plan_id']);
    expect(failedPaths(await post(`/api/v1/subscription/${sub.id}/change-plan`, { rate_plan_id: 'rp_nope' }))).toEqual(['rate_plan_id']);
    expect(failedPaths(await post(`/api/v1/subscription/${sub.id}/change-plan`, { rate_plan_id: planId }))).toEqual(['rate_plan_id']);
    expect(failedPaths(await post(`/api/v1/subscription/${sub.id}/change-plan`, { rate_plan_id: gbpPlanId }))).toEqual(['rate_plan_id']);
    expect((await post(`/api/v1/subscription/${sub.id}/pause`, { effective_date: 'tomorrow' })).status).toBe(400);
  });

  it('lists with skip/limit and total; permissions; isolation', async () => {
    const sub = await draft();
    const all = await get('/api/v1/subscription/all?limit=100');
    expect(all.body.total).toBe(all.body.subscriptions.length);
    const page = await get('/api/v1/subscription/all?skip=1&limit=1');
    expect(page.body).toMatchObject({ skip: 1, limit: 1, total: all.body.total });
    expect(page.body.subscriptions[0].id).toBe(all.body.subscriptions[1].id);
    expect((await get('/api/v1/subscription/all?limit=101')).status).toBe(400);
    // One account's, on both families; another account's list leaves it out.
    const other = (await post('/api/v1/account/create', { name: 'other account' })).body.id;
    const mine = all.body.subscriptions.filter((s: any) => s.account_id === accountId).map((s: any) => s.id);
    expect(mine).toContain(sub.id);
    for (const [path, key] of [['/api/v1/subscription/all?limit=100', 'subscriptions'], ['/v1/subscriptions?limit=100', 'subscriptions']] as const) {
      const one = await get(`${path}&account_id=${accountId}`);
      expect(one.body[key].map((s: any) => s.id), path).toEqual(mine);
      expect(one.body.total).toBe(mine.length);
      expect((await get(`${path}&account_id=${other}`)).body).toMatchObject({ total: 0, [key]: [] });
    }
    const create = { account_id: accountId, rate_plan_id: planId };
    expect(await statuses(stack, 'POST', '/api/v1/subscription/create', [dev.readOnly, dev.sdk], create)).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/subscription/all', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    for (const a of ['activate', 'cancel', 'renew', 'pause', 'resume', 'change-plan']) {
      expect(await statuses(stack, 'POST', `/api/v1/subscription/${sub.id}/${a}`, [dev.readOnly, dev.sdk], {}), a).toEqual([403, 403]);
    }
    expect((await get(`/api/v1/subscription/${sub.id}`, staging.admin)).status).toBe(404);
    expect((await get(`/api/v1/subscription/${sub.id}/events`, staging.admin)).status).toBe(404);
    expect((await post(`/api/v1/subscription/${sub.id}/activate`, undefined, staging.admin)).status).toBe(404);
    expect((await get(`/api/v1/subscription/${sub.id}`)).body.status).toBe('draft');
    expect((await get('/api/v1/subscription/all', staging.admin)).body.total).toBe(0);
    // Another environment's account or plan is unknown here.
    const stAcct = (await post('/api/v1/account/create', { name: 'st' }, staging.admin)).body.id;
    expect(failedPaths(await post('/api/v1/subscription/create', { account_id: stAcct, rate_plan_id: planId }))).toEqual(['account_id']);
  });
});

describe('subscriptions (Family A)', () => {
  it('create with agent_instance_ids is active at once; list with limit/offset; the instances cannot be deleted while included', async () => {
    const agent = (await post('/v1/agents', { name: 'a', type: 'custom', account_id: accountId })).body;
    const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId, agent_instance_ids: [agent.id] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'active', agent_instance_ids: [agent.id], account_id: accountId });
    expect(res.body.activated_at).not.toBeNull();
    expect((await events(res.body.id)).map((e) => e.type)).toEqual(['created', 'activated']);
    const list = await get('/v1/subscriptions?limit=1&offset=0');
    expect(list.body).toMatchObject({ limit: 1, offset: 0 });
    expect(list.body.subscriptions).toHaveLength(1);
    expect(list.body.total).toBeGreaterThanOrEqual(1);
    expect((await get(`/v1/subscriptions/${res.body.id}`)).body.agent_instance_ids).toEqual([agent.id]);
    const del = await call(stack, 'DELETE', `/api/v1/agent_instance/${agent.id}`, { key: dev.admin });
    expect(del.status).toBe(409);
    expect(del.body.error.message).toMatch(/subscription agent instances/);
  });

  it('an agent instance of another account is refused; permissions; isolation', async () => {
    const other = (await post('/api/v1/account/create', { name: 'Other' })).body.id;
    const agent = (await post('/v1/agents', { name: 'b', type: 'n8n', account_id: other })).body;
    const res = await post('/v1/subscriptions', { account_id: accountId, rate_plan_id: planId, agent_instance_ids: [agent.id] });
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual(['agent_instance_ids[0]']);
    expect(failedPaths(await post('/v1/subscriptions', { account_id: accountId }))).toEqual(['rate_plan_id']);
    expect(await statuses(stack, 'POST', '/v1/subscriptions', [dev.readOnly, dev.sdk], { account_id: accountId, rate_plan_id: planId })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/v1/subscriptions', [dev.sdk, dev.readOnly, staging.readOnly])).toEqual([403, 200, 200]);
    expect((await get('/v1/subscriptions', staging.admin)).body.total).toBe(0);
    expect((await get('/v1/subscriptions?offset=-1')).status).toBe(400);
  });
});
