import type { FirstSeenUsersQuery, UsageQuery, UsageRow } from '../usage/usage-query.ts';
import type { UsageSource } from './context.ts';

/**
 * Usage for runs over many subscriptions (bill runs, generate-for-all): the first query
 * of an (environment, time range) fetches the whole environment grouped by agent
 * instance (or by agent instance and account) in one ClickHouse query; every later
 * query of that range is answered from memory. The rows are the same as the direct
 * query's: counting once is per (agent instance, event id), so grouping a superset by
 * agent gives each agent's exact figures (distinct users included); an account filter
 * is exact per (agent, account) for one account. Other shapes (several accounts, type
 * filters, no grouping) and the users first seen per segment go to the underlying source.
 */
export class BatchedUsage implements UsageSource {
  readonly #cache = new Map<string, Promise<IndexedRows>>();

  constructor(private readonly source: UsageSource) {}

  query(q: UsageQuery): Promise<UsageRow[]> {
    if (q.groupBy !== 'agent' || q.actionTypes || q.outcomeTypes || (q.accountIds && q.accountIds.length !== 1)) return this.source.query(q);
    const byAccount = q.accountIds !== undefined;
    const key = `${q.environmentId}|${q.from.toISOString()}|${q.to.toISOString()}|${byAccount}|${q.ingestedBefore?.toISOString() ?? ''}`;
    let all = this.#cache.get(key);
    if (!all) {
      const asOf = q.ingestedBefore ? { ingestedBefore: q.ingestedBefore } : {};
      all = this.source.query({ environmentId: q.environmentId, from: q.from, to: q.to, groupBy: byAccount ? 'agent_account' : 'agent', ...asOf }).then(indexByAgent);
      this.#cache.set(key, all);
      all.catch(() => this.#cache.delete(key)); // a failed fetch is retried by the next query
    }
    return all.then(({ rows, byAgent }) => {
      // Looked up per agent (a run of n subscriptions must not scan the environment's rows
      // n times), in the order of the environment's rows, as a scan would give them.
      const candidates = q.agentInstanceIds
        ? [...new Set(q.agentInstanceIds)].flatMap((id) => byAgent.get(id) ?? []).sort((a, b) => a - b).map((i) => rows[i]!)
        : rows;
      const account = q.accountIds?.[0];
      return candidates.filter((r) => account === undefined || r.account_id === account).map(({ account_id: _a, ...r }) => r);
    });
  }

  /** Per subscription: goes to the underlying source. */
  firstSeenUsers(q: FirstSeenUsersQuery): Promise<string[]> {
    return this.source.firstSeenUsers(q);
  }
}

/** An environment's usage rows, and the positions of each agent instance's rows. */
interface IndexedRows {
  rows: UsageRow[];
  byAgent: Map<string, number[]>;
}

function indexByAgent(rows: UsageRow[]): IndexedRows {
  const byAgent = new Map<string, number[]>();
  rows.forEach((r, i) => {
    const list = byAgent.get(r.agent_instance_id!);
    if (list) list.push(i);
    else byAgent.set(r.agent_instance_id!, [i]);
  });
  return { rows, byAgent };
}
