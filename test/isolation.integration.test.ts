import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addOrganization, call, startTestStack, waitFor, type TestStack } from './harness.ts';
import { hashSecret } from '../shared/ids.ts';

/**
 * Nothing crosses organizations or environments: organization A creates one of every
 * resource, then B (another organization) and A's staging environment walk every route
 * with A's ids. Every answer is a 4xx that names nothing of A's; lists and reports show
 * none of A's ids; A's data is unchanged afterwards. And no credential ever shows up in
 * logs, error bodies or list responses.
 */
let stack: TestStack;
let a: string; // A's development admin key
const ids = new Set<string>();
const secrets = new Set<string>();
const logged: string[] = [];
const originalWrite = process.stderr.write.bind(process.stderr);

function collect(v: unknown): void {
  if (typeof v === 'string') {
    if (/^[a-z]{2,4}_[0-9A-Z]{10}[0-9A-Za-z]{10,}$/.test(v)) ids.add(v);
    if (/^(sk_(live|test|api)_|as_|whsec_)/.test(v) && v.length > 20) secrets.add(v);
  } else if (Array.isArray(v)) v.forEach(collect);
  else if (v && typeof v === 'object') Object.values(v).forEach(collect);
}
async function make(path: string, body: unknown) {
  const res = await call(stack, 'POST', path, { key: a, body });
  expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
  collect(res.body);
  return res.body;
}

beforeAll(async () => {
  process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    logged.push(String(chunk));
    return (originalWrite as (c: string | Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stderr.write;
  stack = await startTestStack({ env: { TALLY_LOG_LEVEL: 'debug' } });
  a = stack.keys.development.admin;
  // Thousands of requests a minute from A and from A's staging environment.
  for (const k of [a, stack.keys.staging.admin]) {
    await stack.tally.db!.updateTable('api_keys').set({ rate_limit_per_minute: 1_000_000 }).where('key_hash', '=', hashSecret(k)).execute();
  }
  for (const k of Object.values(stack.keys)) (secrets.add(k.admin), secrets.add(k.sdk));
  // One of everything in A's development environment.
  const type = await make('/api/v1/agent_type/create', { name: 'Recruiter', description: 'x' });
  const account = await make('/api/v1/account/create', { name: 'Alpha Corp', external_id: 'crm-1' });
  const contact = await make('/api/v1/contact/create', { first_name: 'A', last_name: 'B', email: 'a@alpha.test', account_id: account.id });
  const agent = await make('/api/v1/agent_instance/create', { name: 'alpha-agent', agent_type_id: type.id, account_id: account.id, contact_id: contact.id });
  const product = await make('/api/v1/products', { name: 'Alpha product', agent_type_id: type.id });
  const plan = await make(`/api/v1/products/${product.id}/rateplans`, { name: 'Alpha plan', billing_cycle_code: 'monthly', currency: 'USD' });
  const model = await make('/api/v1/charge_models', { name: 'Per action', description: 'x', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
  await make(`/api/v1/products/rateplans/${plan.id}/charges`, { name: 'Actions', charge_model_id: model.id, charge_type_code: 'usage', pricing: { unit_price: 0.5 } });
  const sub = await make('/api/v1/subscription/create', { account_id: account.id, rate_plan_id: plan.id, agent_instance_ids: [agent.id] });
  await make(`/api/v1/subscription/${sub.id}/activate`, {});
  await make('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['*'] });
  await make('/api/v1/invoice/templates/create', { name: 'Alpha template', template_data: { company_name: 'Alpha', logo_url: 'https://alpha.test/logo.png' } });
  await make('/api/v1/api_keys', { name: 'alpha ro', permission: 'read-only' });
  await call(stack, 'PUT', '/api/v1/tagged_actions', { key: a, body: { tagged_actions: [{ action_name: 'alpha_action', description: 'x' }] } });
  const ev = await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: { agent_key: agent.secret, action_type: 'alpha_action', metadata: { input_tokens: 10, model: 'gpt-4o' } } });
  expect(ev.status).toBe(200);
  await waitFor(() => call(stack, 'GET', '/api/v1/taggable_items', { key: a }), (r) => r.body.total >= 1);
  const inv = await make('/v1/invoices/generate', { billing_period: new Date().toISOString().slice(0, 7) });
  collect(inv);
  await make('/api/v1/invoice/bill-runs/create', { billing_date: new Date().toISOString().slice(0, 10) });
  expect(ids.size).toBeGreaterThan(10);
});
afterAll(async () => {
  process.stderr.write = originalWrite;
  await stack?.cleanup();
});

const leaks = (body: unknown) => {
  const text = JSON.stringify(body);
  return [...ids].filter((id) => text.includes(id));
};

describe('isolation', () => {
  it('another organization and another environment see and change nothing of A', async () => {
    const b = await addOrganization(stack);
    const intruders = { 'organization B': b.admin, "A's staging": stack.keys.staging.admin };
    const problems: string[] = [];
    for (const [who, key] of Object.entries(intruders)) {
      for (const r of stack.tally.routes()) {
        const params = r.path.match(/:[a-z_]+/g) ?? [];
        if (params.length === 0 && r.method !== 'GET') continue; // creates in their own environment
        const send = (path: string) => call(stack, r.method, path, { key, ...(r.method === 'GET' || r.method === 'DELETE' ? {} : { body: {} }) });
        for (const id of params.length === 0 ? [''] : [...ids]) {
          const path = r.path.replace(/:[a-z_]+/g, id);
          const res = await send(path);
          if (params.length > 0 && res.status < 400) problems.push(`${who}: ${r.method} ${path} -> ${res.status}`);
          // Echoing the id sent is fine; showing any other of A's ids is a leak.
          const leaked = leaks(res.body).filter((x) => x !== id);
          if (leaked.length) problems.push(`${who}: ${r.method} ${path} shows ${leaked.join(', ')}`);
          if (params.length > 0) {
            // Indistinguishable from an id that does not exist: same status and error code.
            const fake = id.replace(/.{6}$/, 'ZZZZZZ');
            const other = await send(r.path.replace(/:[a-z_]+/g, fake));
            if (other.status !== res.status || other.body?.error?.code !== res.body?.error?.code) {
              problems.push(`${who}: ${r.method} ${path} -> ${res.status} ${res.body?.error?.code}, but ${other.status} ${other.body?.error?.code} for an unknown id`);
            }
          }
        }
      }
    }
    expect(problems).toEqual([]);
    // A's resources are all still there, unchanged.
    const accounts = await call(stack, 'GET', '/api/v1/account/all', { key: a });
    expect(accounts.body.accounts.map((x: { name: string }) => x.name)).toEqual(['Alpha Corp']);
    const subs = await call(stack, 'GET', '/api/v1/subscription/all', { key: a });
    expect(subs.body.subscriptions[0].status).toBe('active');
    expect((await call(stack, 'GET', '/api/v1/webhooks', { key: a })).body.total).toBe(1);
  }, 300_000);

  it('never shows a credential in logs, error bodies or list responses', async () => {
    // Errors that involve credentials.
    const errors = [
      await call(stack, 'GET', '/api/v1/account/all', { key: 'sk_api_' + 'x'.repeat(40) }),
      await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: { agent_key: [...secrets][0], action_type: 'x' } }),
      await call(stack, 'POST', '/api/v1/agent_instance/validate-secret', { key: a, body: { secret: 'as_' + 'y'.repeat(40) } }),
    ];
    for (const e of errors) expect(e.status).toBeGreaterThanOrEqual(400);
    const lists = [];
    for (const r of stack.tally.routes()) {
      if (r.method !== 'GET' || r.path.includes(':') || r.path.includes('openapi') || r.path === '/metrics') continue;
      lists.push(await call(stack, 'GET', r.path, { key: a }));
    }
    const shown = [...errors, ...lists].map((x) => JSON.stringify(x.body)).join('\n');
    const inLogs = logged.join('\n');
    expect(logged.length).toBeGreaterThan(0); // the capture works (start-up logs at debug level)
    expect([...secrets].filter((s) => shown.includes(s))).toEqual([]);
    expect([...secrets].filter((s) => inLogs.includes(s))).toEqual([]);
    expect(secrets.size).toBeGreaterThan(7);
  });
});
