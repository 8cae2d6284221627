import type { Db } from '../db/postgres.ts';
import type { EnvironmentName } from '../db/schema.ts';
import { AppError, DependencyUnavailableError, isUnavailableError } from '../errors.ts';
import { digestsEqual, hashSecret } from '../ids.ts';
import type { InvalidationBus } from './invalidation.ts';
import { can, type Capability, type Principal } from './keys.ts';
import { LoadingCache } from './loading-cache.ts';
import type { AgentDirectory, AgentInfo } from './agents.ts';
import type { RateLimiter } from './rate-limiter.ts';

interface KeyRecord {
  principal: Principal;
  hash: string;
  expiresAtMs: number | null;
}

/**
 * Turns request headers into a {@link Principal}. Accepts `Authorization: Bearer <key>`,
 * `api-key: <key>` and, for agent instances, `X-Agent-Secret: <secret>`. Keys are looked
 * up by their SHA-256 (never stored in clear) and cached in memory; revocation and
 * rotation reach the cache through the invalidation bus.
 */
export class Authenticator {
  readonly #keys: LoadingCache<KeyRecord>;
  readonly #limiter: RateLimiter | undefined;

  constructor(
    private readonly db: Db,
    bus: InvalidationBus,
    private readonly agents: AgentDirectory,
    opts: { ttlMs?: number; limiter?: RateLimiter } = {},
  ) {
    this.#limiter = opts.limiter;
    this.#keys = new LoadingCache((hash) => this.#loadKey(hash), {
      ttlMs: opts.ttlMs ?? 60_000,
      negativeTtlMs: 5_000,
      maxEntries: 50_000,
    });
    bus.subscribe((m) => {
      if (m.type === 'all') this.#keys.clear();
      else if (m.type === 'key') this.#keys.invalidate((r) => r.hash === m.hash);
    });
  }

  /**
   * Authenticates, counts the request against the credential's rate limit (429 when
   * over it) and checks one capability; 401 or 403 otherwise.
   */
  async require(headers: Readonly<Record<string, string>>, capability: Capability): Promise<Principal> {
    return this.requireCached(headers, capability) ?? this.#admit(await this.authenticate(headers), headers, capability);
  }

  /**
   * {@link require} without waiting, for an API key already in the cache (the hot
   * path of every request after a key's first); undefined when it must be loaded.
   */
  requireCached(headers: Readonly<Record<string, string>>, capability: Capability): Principal | undefined {
    const token = bearer(headers['authorization']) ?? headers['api-key'];
    if (!token) return undefined;
    const cached = this.#keys.peek(token);
    if (!cached.hit) return undefined;
    return this.#admit(principalOf(cached.value), headers, capability);
  }

  #admit(p: Principal, headers: Readonly<Record<string, string>>, capability: Capability): Principal {
    this.#limiter?.hit(p, headers);
    if (!can(p, capability)) {
      throw new AppError('forbidden', forbiddenMessage(p, capability));
    }
    return p;
  }

  async authenticate(headers: Readonly<Record<string, string>>): Promise<Principal> {
    const token = bearer(headers['authorization']) ?? headers['api-key'];
    if (token) {
      return principalOf(await this.#lookup(token));
    }
    const secret = headers['x-agent-secret'];
    if (secret) {
      const agent = await this.agents.resolveSecret(secret);
      if (!agent) throw unauthorized('invalid agent secret');
      if (!agent.isActive) throw new AppError('forbidden', 'this agent instance is inactive');
      return agentPrincipal(agent);
    }
    throw unauthorized('missing credentials: send Authorization: Bearer <API key>');
  }

  /**
   * Cached by the key as sent (no hashing per request); a miss looks the key up by its
   * SHA-256, compared again in constant time.
   */
  async #lookup(token: string): Promise<KeyRecord | undefined> {
    const cached = this.#keys.peek(token);
    return cached.hit ? cached.value : this.#keys.get(token);
  }

  async #loadKey(token: string): Promise<KeyRecord | undefined> {
    const hash = hashSecret(token);
    let row;
    try {
      row = await this.db
        .selectFrom('api_keys')
        .innerJoin('environments', 'environments.id', 'api_keys.environment_id')
        .select([
          'api_keys.id',
          'api_keys.kind',
          'api_keys.permission',
          'api_keys.organization_id',
          'api_keys.environment_id',
          'api_keys.key_hash',
          'api_keys.rate_limit_per_minute',
          'api_keys.expires_at',
          'environments.name as environment_name',
        ])
        .where('api_keys.key_hash', '=', hash)
        .where('api_keys.revoked_at', 'is', null)
        .executeTakeFirst();
    } catch (err) {
      // Only a lost Postgres is retryable; anything else is not the client's to retry.
      throw isUnavailableError(err) ? new DependencyUnavailableError('Postgres', err) : err;
    }
    if (!row || !digestsEqual(row.key_hash, hash)) return undefined;
    return {
      hash: row.key_hash,
      expiresAtMs: row.expires_at ? row.expires_at.getTime() : null,
      principal: Object.freeze({
        kind: row.kind,
        permission: row.permission,
        organizationId: row.organization_id,
        environmentId: row.environment_id,
        environmentName: row.environment_name as EnvironmentName,
        credentialId: row.id,
        rateLimitPerMinute: row.rate_limit_per_minute,
      }),
    };
  }
}

function principalOf(rec: KeyRecord | undefined): Principal {
  if (!rec || (rec.expiresAtMs !== null && rec.expiresAtMs <= Date.now())) throw unauthorized('invalid or revoked API key');
  return rec.principal;
}

function bearer(h: string | undefined): string | undefined {
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : undefined;
}

function unauthorized(message: string): AppError {
  return new AppError('unauthorized', message);
}

function describe(p: Principal): string {
  if (p.kind === 'agent') return 'agent secret';
  if (p.kind === 'sdk') return 'SDK key';
  return `${p.permission} API key`;
}

/** The principal of an agent instance (authenticated by its secret, or trusted by its id where configured). */
export function agentPrincipal(agent: AgentInfo): Principal {
  return {
    kind: 'agent',
    permission: 'agent',
    organizationId: agent.organizationId,
    environmentId: agent.environmentId,
    environmentName: agent.environmentName,
    credentialId: agent.id,
    agentInstanceId: agent.id,
    agentAccountId: agent.accountId,
    rateLimitPerMinute: null,
  };
}

/** Why a credential may not call an endpoint, and what to use instead where that is clear. */
export function forbiddenMessage(p: Principal, capability: Capability): string {
  if (capability === 'agent_self') {
    return `this ${describe(p)} may not call an agent's own endpoint: it answers the calling agent instance about itself, so authenticate with that instance's X-Agent-Secret (an API key reads an account's credit balance at GET /v1/accounts/{id}/credits/balance and its limits at GET /v1/limits?account_id=...)`;
  }
  return `this ${describe(p)} may not ${capability.replaceAll('_', ' ')}`;
}
