import { useEffect, useState } from 'preact/hooks';
import { must, type Client } from './api';
import type { Page } from './ui';

type Options = Page<readonly [string, string]>;

/**
 * Requests under way, by client and key: the rows of a table that each carry a picker (or
 * name the same account) share one request instead of sending one each. Nothing is kept once
 * answered, so a list read after a change sees it.
 */
const inFlight = new WeakMap<Client, Map<string, Promise<unknown>>>();
function shared<T>(client: Client, key: string, load: () => Promise<T>): Promise<T> {
  let byKey = inFlight.get(client);
  if (!byKey) inFlight.set(client, (byKey = new Map()));
  const running = byKey.get(key) as Promise<T> | undefined;
  if (running) return running;
  const p = load().finally(() => byKey.delete(key));
  byKey.set(key, p);
  return p;
}

/** One page of agent types as [id, name] options (for a PagedSelect). */
export function agentTypeOptions(client: Client, skip: number, limit: number): Promise<Options> {
  return shared(client, `agent-types:${skip}:${limit}`, async () => {
    const r = await must(client.GET('/api/v1/agent_type/all', { params: { query: { skip, limit } } }));
    return { items: r.agent_types.map((t) => [t.id, t.name] as const), total: r.total };
  });
}

/** One page of customer accounts as [id, name] options. */
export function accountOptions(client: Client, skip: number, limit: number): Promise<Options> {
  return shared(client, `accounts:${skip}:${limit}`, async () => {
    const r = await must(client.GET('/api/v1/account/all', { params: { query: { skip, limit } } }));
    return { items: r.accounts.map((a) => [a.id, a.name] as const), total: r.total };
  });
}

/** One page of rate plans (of every product) as [id, "name (currency, cycle)"] options. */
export function ratePlanOptions(client: Client, skip: number, limit: number): Promise<Options> {
  return shared(client, `rate-plans:${skip}:${limit}`, async () => {
    const r = await must(client.GET('/v1/pricing/rate-plans', { params: { query: { offset: skip, limit } } }));
    return { items: r.rate_plans.map((p) => [p.id, `${p.name} (${p.currency}, ${p.billing_cycle_code})`] as const), total: r.total };
  });
}

/** One page of agent instances (of one account when given) as [id, name] options. */
export function agentOptions(client: Client, skip: number, limit: number, accountId?: string): Promise<Options> {
  return shared(client, `agents:${accountId ?? ''}:${skip}:${limit}`, async () => {
    const r = await must(client.GET('/api/v1/agent_instance/all', { params: { query: { skip, limit, ...(accountId ? { account_id: accountId } : {}) } } }));
    return { items: r.agent_instances.map((a) => [a.id, a.name] as const), total: r.total };
  });
}

/** What a name is looked up on: one read per id (the lists have no batch read by ids). */
export type NameKind = 'account' | 'agent' | 'agent_type' | 'product' | 'rate_plan';

async function nameOf(client: Client, kind: NameKind, id: string): Promise<string | undefined> {
  try {
    switch (kind) {
      case 'account':
        return (await must(client.GET('/api/v1/account/{account_id}', { params: { path: { account_id: id } } }))).name;
      case 'agent':
        return (await must(client.GET('/api/v1/agent_instance/{agent_instance_id}', { params: { path: { agent_instance_id: id } } }))).name;
      case 'agent_type':
        return (await must(client.GET('/api/v1/agent_type/{agent_type_id}', { params: { path: { agent_type_id: id } } }))).name;
      case 'product':
        return (await must(client.GET('/api/v1/products/{product_id}', { params: { path: { product_id: id } } }))).name;
      case 'rate_plan':
        return (await must(client.GET('/api/v1/products/rateplans/{rate_plan_id}', { params: { path: { rate_plan_id: id } } }))).name;
    }
  } catch {
    // Deleted since (404) or not readable: the id is shown alone.
    return undefined;
  }
}

/**
 * The last name read of each `kind:id`: what a named cell shows, for its CSV (made from the
 * cells' elements, not their rendered text). Only a name already shown is in it; each
 * {@link useNames} reads the names again, so a rename shows (and exports) once read.
 */
const shownNames = new Map<string, string>();

/** The name last read for an id of a kind (undefined before it loaded, or when it cannot be read). */
export function shownName(kind: NameKind, id: string): string | undefined {
  return shownNames.get(`${kind}:${id}`);
}

/**
 * The names of the given ids (a table's page of rows: at most a page of reads, shared with
 * the other tables asking at the same time); the map fills as they arrive.
 */
export function useNames(client: Client, kind: NameKind, ids: readonly (string | null | undefined)[]): ReadonlyMap<string, string> {
  const distinct = [...new Set(ids.filter((i): i is string => !!i))].sort();
  const key = distinct.join(',');
  const [names, setNames] = useState<ReadonlyMap<string, string>>(new Map());
  useEffect(() => {
    let live = true;
    void Promise.all(distinct.map(async (id) => [id, await shared(client, `name:${kind}:${id}`, () => nameOf(client, kind, id))] as const)).then((pairs) => {
      for (const [id, name] of pairs) {
        if (name === undefined) shownNames.delete(`${kind}:${id}`);
        else shownNames.set(`${kind}:${id}`, name);
      }
      if (live) setNames(new Map(pairs.filter((p): p is readonly [string, string] => p[1] !== undefined)));
    });
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, kind, key]);
  return names;
}
