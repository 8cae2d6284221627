import { insertKey } from '../billing/catalog/bootstrap.ts';
import type { EnvironmentName, Permission } from '../shared/db/schema.ts';
import { call, type Answer, type TestStack } from './harness.ts';

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
