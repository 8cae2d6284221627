import { sql } from 'kysely';
import type { Db } from '../db/postgres.ts';
import type { EnvironmentName } from '../db/schema.ts';
import { DependencyUnavailableError, isUnavailableError } from '../errors.ts';
import { hashSecret } from '../ids.ts';
import type { InvalidationBus } from './invalidation.ts';
import { LoadingCache } from './loading-cache.ts';

export interface AgentInfo {
  readonly id: string;
  readonly environmentId: string;
  readonly environmentName: EnvironmentName;
  readonly organizationId: string;
  /** '' when the instance belongs to no account. */
  readonly accountId: string;
  readonly isActive: boolean;
}

/**
 * Resolves an event's `agent_key` (the instance's secret or its id) to the agent
 * instance, within one environment. Cached in memory by the key as sent (no hashing on
 * the hot path); a refreshed secret or a deactivated instance is dropped from every
 * process's cache through the invalidation bus.
 */
export class AgentDirectory {
  readonly #cache: LoadingCache<AgentInfo>;

  constructor(
    private readonly db: Db,
    bus: InvalidationBus,
    opts: { ttlMs?: number } = {},
  ) {
    this.#cache = new LoadingCache((k) => this.#load(k), { ttlMs: opts.ttlMs ?? 60_000, negativeTtlMs: 5_000, maxEntries: 200_000 });
    bus.subscribe((m) => {
      if (m.type === 'all') this.#cache.clear();
      else if (m.type === 'agent') this.#cache.invalidate((a) => a.id === m.id);
    });
  }

  /** Synchronous cache hit, or undefined when the key must be loaded. */
  peek(environmentId: string, agentKey: string): { hit: true; value: AgentInfo | undefined } | { hit: false } {
    return this.#cache.peek(cacheKey(environmentId, agentKey));
  }

  resolve(environmentId: string, agentKey: string): Promise<AgentInfo | undefined> {
    return this.#cache.get(cacheKey(environmentId, agentKey));
  }

  /** Resolves a secret in any environment (X-Agent-Secret authentication). */
  resolveSecret(secret: string): Promise<AgentInfo | undefined> {
    return this.#cache.get(cacheKey('*', secret));
  }

  /** Resolves an instance id in any environment (OTLP exports trusted by their resource's agent id). */
  resolveId(id: string): Promise<AgentInfo | undefined> {
    return this.#cache.get(cacheKey('#', id));
  }

  async #load(key: string): Promise<AgentInfo | undefined> {
    const sep = key.indexOf('\u0000');
    const env = key.slice(0, sep);
    const agentKey = key.slice(sep + 1);
    const hash = hashSecret(agentKey);
    try {
      let q = this.db
        .selectFrom('agent_instances as a')
        .innerJoin('environments as e', 'e.id', 'a.environment_id')
        .select(['a.id', 'a.environment_id', 'e.name as environment_name', 'e.organization_id', 'a.account_id', 'a.is_active']);
      if (env === '*') q = q.where('a.secret_hash', '=', hash);
      else if (env === '#') q = q.where('a.id', '=', agentKey);
      else q = q.where('a.environment_id', '=', env).where((w) => w.or([w('a.id', '=', agentKey), w('a.secret_hash', '=', hash)]));
      const row = await q.orderBy(sql`a.id = ${agentKey}`, 'desc').executeTakeFirst();
      if (!row) return undefined;
      return Object.freeze({
        id: row.id,
        environmentId: row.environment_id,
        environmentName: row.environment_name as EnvironmentName,
        organizationId: row.organization_id,
        accountId: row.account_id ?? '',
        isActive: row.is_active,
      });
    } catch (err) {
      // Only a lost Postgres is retryable; anything else is not the client's to retry.
      throw isUnavailableError(err) ? new DependencyUnavailableError('Postgres', err) : err;
    }
  }
}

function cacheKey(environmentId: string, agentKey: string): string {
  return `${environmentId}\u0000${agentKey}`;
}
