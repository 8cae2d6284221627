import { insertKey } from '../billing/catalog/bootstrap.ts';
import type { EnvironmentName, Permission } from '../shared/db/schema.ts';
import { call, storedActionCount, waitFor, type Answer, type TestStack } from './harness.ts';

/** Keys of every type for one environment of a test stack. */
export interface KeySet {
  admin: string;
  readWrite: string;
  readOnly: string;
  sdk: string;
}

/** Creates a read-only and a read-write key next to the bootstrap admin and SDK keys. */
export async function keySet(stack: TestStack, env: EnvironmentName = 'development'): Promise<KeySet> {
  const db = stack.tally.db!;
  const make = (permission: Permission) => insertKey(db, stack.init.organization_id, stack.keys[env].id, env, 'api', permission, `test ${permission}`);
  return { admin: stack.keys[env].admin, readWrite: await make('read-write'), readOnly: await make('read-only'), sdk: stack.keys[env].sdk };
}

/** Sends the same request with each key and returns the statuses, in order. */
export async function statuses(stack: TestStack, method: string, path: string, keys: string[], body?: unknown): Promise<number[]> {
  const out: number[] = [];
  for (const key of keys) out.push((await call(stack, method, path, { key, ...(body !== undefined ? { body } : {}) })).status);
  return out;
}

/** The detail paths of a 400 validation answer. */
export function failedPaths(res: Answer): string[] {
  return (res.body?.error?.details ?? []).map((d: { path: string }) => d.path);
}

/**
 * A monthly USD rate plan billing 1.00 per @action and nothing else (an agent type, a
 * product, a per-unit charge model and the plan's one usage charge), made with `key`.
 * Returns the ids, so a test can add plans of other currencies to the same product.
 */
export async function perActionPlan(stack: TestStack, key: string, name = 'per action'): Promise<{ plan: string; product: string; typeId: string; chargeModel: string }> {
  const made = async (path: string, body: unknown) => {
    const res = await call(stack, 'POST', path, { key, body });
    if (res.status !== 201) throw new Error(`POST ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  const typeId = (await call(stack, 'POST', '/api/v1/agent_type/create', { key, body: { name: 'worker' } })).body.id as string;
  const product = await made('/api/v1/products', { name, agent_type_id: typeId });
  const chargeModel = await made('/api/v1/charge_models', { name: 'per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } });
  const plan = await made(`/api/v1/products/${product}/rateplans`, { name, billing_cycle_code: 'monthly', currency: 'USD' });
  await made(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Actions', charge_model_id: chargeModel, charge_type_code: 'usage', pricing: { unit_price: '1' } });
  return { plan, product, typeId, chargeModel };
}

/**
 * A spend limit's state once it and ClickHouse agree on the agent's actions (`money`: 1.00
 * each), ClickHouse holds at least `acked` of them (the test's count of acknowledged
 * actions, when it keeps one), and both stay so for a second. The state counts
 * acknowledged events from the stream before the sink stores them, and both can lag an
 * event acknowledged a moment ago at the same count: one agreeing look is not enough.
 */
export async function settledLimit(stack: TestStack, key: string, limitId: string, agentId: string, money = false, acked = 0, timeoutMs = 15_000): Promise<{ state: any; stored: number }> {
  const look = async () => ({ state: (await call(stack, 'GET', `/v1/limits/${limitId}/state`, { key })).body, stored: await storedActionCount(stack, agentId) });
  const agree = (x: { state: any; stored: number }) => x.stored >= acked && x.state.current === (money ? `${x.stored}.00` : String(x.stored));
  const start = Date.now();
  for (;;) {
    const first = await waitFor(look, agree, Math.max(1, timeoutMs - (Date.now() - start)));
    await new Promise((r) => setTimeout(r, 1000));
    const again = await look();
    if (agree(again) && again.stored === first.stored) return again;
    if (Date.now() - start > timeoutMs) throw new Error(`limit ${limitId} did not settle: ${JSON.stringify(again)}`);
  }
}
