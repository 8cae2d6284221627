import { must, type Client } from './api';
import type { Page } from './ui';

/** One page of agent types as [id, name] options (for a PagedSelect). */
export async function agentTypeOptions(client: Client, skip: number, limit: number): Promise<Page<readonly [string, string]>> {
  const r = await must(client.GET('/api/v1/agent_type/all', { params: { query: { skip, limit } } }));
  return { items: r.agent_types.map((t) => [t.id, t.name] as const), total: r.total };
}
