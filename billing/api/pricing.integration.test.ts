import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';
import { failedPaths, keySet, statuses, type KeySet } from '../../test/api-support.ts';

let stack: TestStack;
let dev: KeySet;
let staging: KeySet;
let typeId: string;

beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
  dev = await keySet(stack, 'development');
  staging = await keySet(stack, 'staging');
  typeId = (await post('/api/v1/agent_type/create', { name: 'sdr' })).body.id;
});
afterAll(async () => {
  await stack?.cleanup();
});

function post(path: string, body: unknown, key = dev.admin) {
  return call(stack, 'POST', path, { key, body });
}
const get = (path: string, key = dev.admin) => call(stack, 'GET', path, { key });
const uniq = (s: string) => `${s}-${Math.random().toString(36).slice(2, 8)}`;
async function product(name = uniq('p')) {
  return (await post('/api/v1/products', { name, description: 'd', agent_type_id: typeId })).body;
}
async function plan(productId: string, extra: Record<string, unknown> = {}) {
  return (await post(`/api/v1/products/${productId}/rateplans`, { name: uniq('plan'), billing_cycle_code: 'monthly', currency: 'eur', ...extra })).body;
}
async function model(type: string, pricing_strategy: Record<string, unknown>) {
  return post('/api/v1/charge_models', { name: uniq(type), description: `${type} model`, type, pricing_strategy });
}

describe('products', () => {
  it('creates, lists (skip/limit, total), gets, updates; names unique per environment', async () => {
    const name = uniq('Recruiter Pro');
    const res = await post('/api/v1/products', { name, description: 'hiring agent', agent_type_id: typeId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name, description: 'hiring agent', agent_type_id: typeId });
    expect((await post('/api/v1/products', { name, agent_type_id: typeId })).status).toBe(409);
    expect((await get(`/api/v1/products/${res.body.id}`)).body.name).toBe(name);
    const list = await get('/api/v1/products?skip=0&limit=100');
    expect(list.body.total).toBe(list.body.products.length);
    expect(list.body.products.map((x: { id: string }) => x.id)).toContain(res.body.id);
    const upd = await call(stack, 'PUT', `/api/v1/products/${res.body.id}`, { key: dev.readWrite, body: { description: 'v2' } });
    expect(upd.body).toMatchObject({ name, description: 'v2' });
  });

  it('validation, permissions, isolation', async () => {
    expect(failedPaths(await post('/api/v1/products', { name: 'x' }))).toEqual(['agent_type_id']);
    expect(failedPaths(await post('/api/v1/products', { name: 'x', agent_type_id: 'at_nope' }))).toEqual(['agent_type_id']);
    expect(failedPaths(await post('/api/v1/products', { agent_type_id: typeId }))).toEqual(['name']);
    expect(await statuses(stack, 'POST', '/api/v1/products', [dev.readOnly, dev.sdk], { name: uniq('x'), agent_type_id: typeId })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/products', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    const p = await product();
    expect(await statuses(stack, 'GET', `/api/v1/products/${p.id}`, [staging.admin, dev.sdk])).toEqual([404, 403]);
    expect(await statuses(stack, 'PUT', `/api/v1/products/${p.id}`, [staging.admin, dev.readOnly], { name: 'x' })).toEqual([404, 403]);
    expect(await statuses(stack, 'DELETE', `/api/v1/products/${p.id}`, [staging.admin, dev.readOnly])).toEqual([404, 403]);
    expect((await get('/api/v1/products', staging.admin)).body.products.map((x: { id: string }) => x.id)).not.toContain(p.id);
    // A product with a rate plan may not be deleted; an empty one may.
    await plan(p.id);
    expect((await call(stack, 'DELETE', `/api/v1/products/${p.id}`, { key: dev.admin })).status).toBe(409);
    const empty = await product();
    expect((await call(stack, 'DELETE', `/api/v1/products/${empty.id}`, { key: dev.admin })).status).toBe(200);
  });
});

describe('rate plans', () => {
  it('creates with its own currency and cycle; reads on both families', async () => {
    const p = await product();
    const res = await post(`/api/v1/products/${p.id}/rateplans`, { name: 'Growth', billing_cycle_code: 'quarterly', currency: 'gbp' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ name: 'Growth', billing_cycle_code: 'quarterly', currency: 'GBP', product_id: p.id });
    const usd = await post(`/api/v1/products/${p.id}/rateplans`, { name: 'Default', billing_cycle_code: 'annual' });
    expect(usd.body.currency).toBe('USD');
    expect((await post(`/api/v1/products/${p.id}/rateplans`, { name: 'Growth', billing_cycle_code: 'monthly' })).status).toBe(409);
    expect((await get(`/api/v1/products/rateplans/${res.body.id}`)).body).toMatchObject({ id: res.body.id, charges: [] });
    expect((await get(`/v1/pricing/rate-plans/${res.body.id}`)).body).toMatchObject({ id: res.body.id, currency: 'GBP', charges: [] });
    const a = await get('/v1/pricing/rate-plans?limit=1');
    expect(a.body).toMatchObject({ limit: 1, offset: 0 });
    expect(a.body.rate_plans).toHaveLength(1);
    expect(a.body.total).toBeGreaterThanOrEqual(2);
    const ofProduct = await get(`/api/v1/products/${p.id}/rateplans`);
    expect(ofProduct.body.total).toBe(2);
  });

  it.each([
    ['missing billing_cycle_code', { name: 'x' }, 'billing_cycle_code'],
    ['unknown billing_cycle_code', { name: 'x', billing_cycle_code: 'weekly' }, 'billing_cycle_code'],
    ['bad currency', { name: 'x', billing_cycle_code: 'monthly', currency: 'dollars' }, 'currency'],
    ['missing name', { billing_cycle_code: 'monthly' }, 'name'],
  ])('rejects %s', async (_l, body, path) => {
    const p = await product();
    const res = await post(`/api/v1/products/${p.id}/rateplans`, body);
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toEqual([path]);
  });

  it('permissions and isolation', async () => {
    const p = await product();
    const rp = await plan(p.id);
    const body = { name: uniq('x'), billing_cycle_code: 'monthly' };
    expect(await statuses(stack, 'POST', `/api/v1/products/${p.id}/rateplans`, [dev.readOnly, dev.sdk, staging.admin], body)).toEqual([403, 403, 404]);
    expect(await statuses(stack, 'GET', `/api/v1/products/rateplans/${rp.id}`, [dev.sdk, staging.admin, dev.readOnly])).toEqual([403, 404, 200]);
    expect(await statuses(stack, 'GET', `/v1/pricing/rate-plans/${rp.id}`, [dev.sdk, staging.admin, dev.readOnly])).toEqual([403, 404, 200]);
    const theirs = await get('/v1/pricing/rate-plans?limit=100', staging.admin);
    expect(theirs.body.rate_plans.map((x: { id: string }) => x.id)).not.toContain(rp.id);
    expect((await get('/v1/pricing/rate-plans?limit=500')).status).toBe(400);
  });
});

describe('charge models', () => {
  it.each([
    ['flat', { amount: 100 }, 'flat', { amount: '100' }],
    ['flat-fee', { price: '49.99' }, 'flat', { amount: '49.99' }],
    ['per_unit', { unit_price: 0.5, unit_of_measure: '@action' }, 'per_unit', { unit_price: '0.5', unit_of_measure: '@action' }],
    ['per-unit', { list_price: 2, unit_of_measure: 'outcome' }, 'per_unit', { unit_price: '2', unit_of_measure: '@outcome' }],
    ['tiered', { tiers: [{ price: 1, start: 0 }, { price: 0.5, start: 100 }], unit_of_measure: '@action' }, 'tiered', { tiers: [{ start: '1', price: '1', counter: '1' }, { start: '101', price: '0.5', counter: '1' }] }],
    ['volume', { tiers: [{ price: 3, start: 1, counter: 1 }, { price: 2, start: 11 }] }, 'volume', { tiers: [{ start: '1' }, { start: '11' }] }],
    ['package', { package_size: 100, package_price: 5 }, 'package', { package_size: '100', package_price: '5' }],
    ['overage-pricing', { base_fee: 100, included_units: 1000, overage_unit_price: 0.1 }, 'overage', { base_fee: '100', included_units: '1000', overage_unit_price: '0.1' }],
    ['discount', { percent: 10 }, 'discount', { percent: '10' }],
  ])('accepts %s and stores the canonical form', async (type, strategy, canonical, expected) => {
    const res = await model(type, strategy);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.type).toBe(canonical);
    expect(res.body.pricing_strategy).toMatchObject(expected);
    expect((await get(`/api/v1/charge_models/${res.body.id}`)).body).toMatchObject({ type: canonical, name: res.body.name });
  });

  it.each([
    ['unknown type', 'stairstep', { amount: 1 }, 'type'],
    ['tiers out of order', 'tiered', { tiers: [{ price: 1, start: 0 }, { price: 2, start: 0 }] }, 'pricing_strategy.tiers'],
    ['negative price', 'per_unit', { unit_price: -1 }, 'pricing_strategy.unit_price'],
    ['bad unit of measure', 'per_unit', { unit_price: 1, unit_of_measure: '@token' }, 'pricing_strategy.unit_of_measure'],
    ['tier price not a number', 'tiered', { tiers: [{ price: 'a lot', start: 0 }] }, 'pricing_strategy.tiers[0].price'],
  ])('rejects %s', async (_l, type, strategy, path) => {
    const res = await model(type, strategy);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(failedPaths(res)).toContain(path);
  });

  it('requires name, description, type and pricing_strategy; names unique; list, permissions, isolation', async () => {
    const res = await post('/api/v1/charge_models', {});
    expect(res.status).toBe(400);
    expect(failedPaths(res).sort()).toEqual(['description', 'name', 'pricing_strategy', 'type']);
    const name = uniq('cm');
    expect((await post('/api/v1/charge_models', { name, description: 'd', type: 'flat', pricing_strategy: { amount: 1 } })).status).toBe(201);
    expect((await post('/api/v1/charge_models', { name, description: 'd', type: 'flat', pricing_strategy: { amount: 1 } })).status).toBe(409);
    const list = await get('/api/v1/charge_models?limit=100');
    expect(list.body.total).toBe(list.body.charge_models.length);
    expect(await statuses(stack, 'POST', '/api/v1/charge_models', [dev.readOnly, dev.sdk], { name: uniq('x'), description: 'd', type: 'flat', pricing_strategy: { amount: 1 } })).toEqual([403, 403]);
    expect(await statuses(stack, 'GET', '/api/v1/charge_models', [dev.sdk, dev.readOnly])).toEqual([403, 200]);
    const theirs = await get('/api/v1/charge_models', staging.admin);
    expect(theirs.body.total).toBe(0);
    const id = list.body.charge_models[0].id;
    expect((await get(`/api/v1/charge_models/${id}`, staging.admin)).status).toBe(404);
  });
});

describe('charges', () => {
  it('creates usage, recurring and one-time charges that the rating engine accepts; the plan shows them', async () => {
    const rp = await plan((await product()).id);
    const perUnit = (await model('per_unit', { unit_price: 1, unit_of_measure: '@outcome' })).body;
    const flat = (await model('flat-fee', { amount: 99 })).body;
    const usage = await post(`/api/v1/products/rateplans/${rp.id}/charges`, { name: 'Per hire', charge_model_id: perUnit.id, charge_type_code: 'usage', pricing: { unit_price: 250 } });
    expect(usage.status, JSON.stringify(usage.body)).toBe(201);
    expect(usage.body).toMatchObject({ charge_type_code: 'usage', unit_of_measure: '@outcome', currency: 'EUR', resolved_pricing: { kind: 'per_unit', unit_price: '250' } });
    const fee = await post(`/api/v1/products/rateplans/${rp.id}/charges`, { name: 'Platform fee', charge_model_id: flat.id, charge_type: 'recurring' });
    expect(fee.body).toMatchObject({ charge_type: 'recurring', resolved_pricing: { kind: 'flat', amount: '99' } });
    const once = await post(`/api/v1/products/rateplans/${rp.id}/charges`, { name: 'Setup', charge_model_id: flat.id, charge_type_code: 'one-time', pricing: { unit_price: 500 } });
    expect(once.body).toMatchObject({ charge_type: 'one_time', resolved_pricing: { amount: '500' } });
    const full = await get(`/api/v1/products/rateplans/${rp.id}`);
    expect(full.body.charges.map((c: { name: string }) => c.name)).toEqual(['Per hire', 'Platform fee', 'Setup']);
    expect((await get(`/api/v1/products/rateplans/${rp.id}/charges`)).body.total).toBe(3);
    // A charge model in use may not be deleted.
    expect((await call(stack, 'DELETE', `/api/v1/charge_models/${perUnit.id}`, { key: dev.admin })).status).toBe(409);
    const unused = (await model('flat', { amount: 1 })).body;
    expect((await call(stack, 'DELETE', `/api/v1/charge_models/${unused.id}`, { key: dev.admin })).status).toBe(200);
  });

  it.each([
    ['unknown charge model', { name: 'c', charge_model_id: 'cm_nope' }, 'charge_model_id'],
    ['unknown charge type', { name: 'c', charge_model_id: '$pu', charge_type_code: 'sometimes' }, 'charge_type_code'],
    ['usage model as one-time', { name: 'c', charge_model_id: '$pu', charge_type_code: 'one_time' }, 'charge_type_code'],
    ['currency other than the plan', { name: 'c', charge_model_id: '$pu', currency: 'USD' }, 'currency'],
    ['negative price override', { name: 'c', charge_model_id: '$pu', pricing: { unit_price: -5 } }, 'pricing.unit_price'],
    ['pricing not an object', { name: 'c', charge_model_id: '$pu', pricing: 5 }, 'pricing'],
    ['missing name', { charge_model_id: '$pu' }, 'name'],
  ])('rejects %s', async (_l, body, path) => {
    const rp = await plan((await product()).id);
    const pu = (await model('per_unit', { unit_price: 1 })).body;
    const res = await post(`/api/v1/products/rateplans/${rp.id}/charges`, JSON.parse(JSON.stringify(body).replace('$pu', pu.id)));
    expect(res.status).toBe(400);
    expect(failedPaths(res)).toContain(path);
  });

  it('an override the model cannot apply is a 400 naming what it accepts (the docs example on a tiered model), never dropped', async () => {
    const rp = await plan((await product()).id);
    const tiered = (await model('tiered', { unit_of_measure: '@action', tiers: [{ price: 0.02, start: 0 }, { price: 0.01, start: 10000 }] })).body;
    const res = await post(`/api/v1/products/rateplans/${rp.id}/charges`, { name: 'Successful hire', charge_model_id: tiered.id, charge_type_code: 'usage', pricing: { unit_price: 1500 } });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.details).toEqual([{ path: 'pricing.unit_price', message: "pricing.unit_price does not apply to the tiered charge model; its charges' pricing accepts tiers" }]);
    expect(res.body.error.message).toContain('accepts tiers');
    const flat = (await model('flat', { amount: 10 })).body;
    const typo = await post(`/api/v1/products/rateplans/${rp.id}/charges`, { name: 'Fee', charge_model_id: flat.id, pricing: { amount: 12 } });
    expect(typo.status).toBe(400);
    expect(failedPaths(typo)).toEqual(['pricing.amount']);
    expect((await get(`/api/v1/products/rateplans/${rp.id}/charges`)).body.total).toBe(0);
    // What it accepts is applied.
    const ok = await post(`/api/v1/products/rateplans/${rp.id}/charges`, { name: 'Actions', charge_model_id: tiered.id, pricing: { tiers: [{ price: 0.5, start: 0 }] } });
    expect(ok.body).toMatchObject({ resolved_pricing: { kind: 'tiered', tiers: [{ start: '1', price: '0.5', counter: '1' }] } });
  });

  it('permissions and isolation', async () => {
    const rp = await plan((await product()).id);
    const pu = (await model('per_unit', { unit_price: 1 })).body;
    const body = { name: uniq('c'), charge_model_id: pu.id };
    expect(await statuses(stack, 'POST', `/api/v1/products/rateplans/${rp.id}/charges`, [dev.readOnly, dev.sdk, staging.admin], body)).toEqual([403, 403, 404]);
    // A staging plan cannot use a development charge model.
    const stType = (await post('/api/v1/agent_type/create', { name: 'st' }, staging.admin)).body.id;
    const stProduct = (await post('/api/v1/products', { name: 'st', agent_type_id: stType }, staging.admin)).body.id;
    const stPlan = (await post(`/api/v1/products/${stProduct}/rateplans`, { name: 'st', billing_cycle_code: 'monthly' }, staging.admin)).body.id;
    const cross = await post(`/api/v1/products/rateplans/${stPlan}/charges`, body, staging.admin);
    expect(cross.status).toBe(400);
    expect(failedPaths(cross)).toEqual(['charge_model_id']);
    expect((await get(`/api/v1/products/rateplans/${rp.id}/charges`, staging.admin)).status).toBe(404);
  });
});
