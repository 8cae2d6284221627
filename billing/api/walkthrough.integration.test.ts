import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, type TestStack } from '../../test/harness.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

/** Sends with the Family B `api-key` header, as Family B clients do. */
async function b(method: string, path: string, body?: unknown) {
  const res = await call(stack, method, `/api/v1${path}`, { headers: { 'api-key': stack.keys.development.admin }, ...(body !== undefined ? { body } : {}) });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}
async function a(method: string, path: string, body?: unknown) {
  const res = await call(stack, method, `/v1${path}`, { key: stack.keys.development.admin, ...(body !== undefined ? { body } : {}) });
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

describe('a new customer sets up through Family B', () => {
  it('agent type, account, contact, agent instance, product, rate plan, charge model, charge, subscription, activate', async () => {
    const type = await b('POST', '/agent_type/create', { name: 'Recruiting agent', description: 'sources and screens candidates' });
    const account = await b('POST', '/account/create', { name: 'Hiring Co', external_id: 'crm-42', description: 'pilot' });
    const contact = await b('POST', '/contact/create', { first_name: 'Grace', last_name: 'H', email: 'grace@hiring.co', account_id: account.id });
    const instance = await b('POST', '/agent_instance/create', { name: 'recruiter-1', description: 'EU', agent_type_id: type.id, account_id: account.id, contact_id: contact.id });
    expect(instance.secret).toBeTruthy();
    const product = await b('POST', '/products', { name: 'Recruiter', description: 'per hire', agent_type_id: type.id });
    const plan = await b('POST', `/products/${product.id}/rateplans`, { name: 'Standard', billing_cycle_code: 'monthly', currency: 'USD' });
    const model = await b('POST', '/charge_models', { name: 'Per hire', description: 'per successful hire', type: 'per_unit', pricing_strategy: { unit_of_measure: '@outcome' } });
    const charge = await b('POST', `/products/rateplans/${plan.id}/charges`, { name: 'Successful hire', charge_model_id: model.id, charge_type_code: 'usage', pricing: { unit_price: 1500 } });
    expect(charge.resolved_pricing).toEqual({ kind: 'per_unit', unit_price: '1500' });
    const sub = await b('POST', '/subscription/create', { account_id: account.id, rate_plan_id: plan.id, contract_effective_date: '2026-01-01', agent_instance_ids: [instance.id] });
    expect(sub.status).toBe('draft');
    const active = await b('POST', `/subscription/${sub.id}/activate`);
    expect(active.status).toBe('active');

    // Everything reads back, and the SDK can validate the instance secret.
    expect((await b('GET', `/products/rateplans/${plan.id}`)).charges.map((c: { id: string }) => c.id)).toEqual([charge.id]);
    expect((await b('GET', `/subscription/${sub.id}`)).agent_instance_ids).toEqual([instance.id]);
    const v = await call(stack, 'POST', '/api/v1/agent_instance/validate-secret', { key: stack.keys.development.sdk, body: { secret: instance.secret } });
    expect(v.body.agent_instance).toMatchObject({ id: instance.id, account_id: account.id, agent_type_id: type.id });
    expect((await b('GET', '/agent_instance/all')).total).toBe(1);
    expect((await b('GET', '/account/all')).total).toBe(1);
  });
});

describe('the same through Family A where it has paths', () => {
  it('account, agent, rate plan (read), subscription', async () => {
    const account = await a('POST', '/accounts', { name: 'Leads Inc', email: 'ap@leads.test', billing_address: { street: '5 Oak', city: 'Austin', state: 'TX', zip: '73301', country: 'US' } });
    const agent = await a('POST', '/agents', { name: 'sdr-bot', type: 'langgraph', description: 'books meetings', account_id: account.id });
    expect(agent.secret).toBeTruthy();
    const plans = await a('GET', '/pricing/rate-plans');
    expect(plans.total).toBeGreaterThanOrEqual(1);
    const plan = await a('GET', `/pricing/rate-plans/${plans.rate_plans[0].id}`);
    expect(plan.charges.length).toBeGreaterThanOrEqual(1);
    const sub = await a('POST', '/subscriptions', { account_id: account.id, rate_plan_id: plan.id, agent_instance_ids: [agent.id] });
    expect(sub.status).toBe('active');
    expect((await a('GET', '/subscriptions')).total).toBe(2);
    expect((await a('GET', '/agents')).agents.map((x: { id: string }) => x.id)).toContain(agent.id);
    expect((await a('GET', '/accounts')).total).toBe(2);
  });
});
