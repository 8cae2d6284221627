import type { EnvironmentName, KeyKind, Permission } from '../db/schema.ts';
import { randomToken } from '../ids.ts';

/** What a request is allowed to do, by capability; see `can`. */
export type Capability = 'send_events' | 'read_usage' | 'read' | 'write' | 'admin' | 'validate_secret' | 'agent_self';

/**
 * The permission matrix. SDK keys (sk_live_/sk_test_) and agent secrets send events
 * and read usage; API keys (sk_api_) are read-only, read-write or admin. `read` covers
 * every control-plane GET, `write` every control-plane change, `admin` API key
 * management; `validate_secret` (POST /api/v1/agent_instance/validate-secret, used by
 * the SDK) is open to SDK keys, every API key and agent secrets; `agent_self`
 * (GET /api/v1/agent_instance/info, value-python's first call) to agent secrets alone.
 * docs/api-reference.md lists it.
 */
const MATRIX: Record<Permission | 'agent', ReadonlySet<Capability>> = {
  sdk: new Set(['send_events', 'read_usage', 'validate_secret']),
  agent: new Set(['send_events', 'read_usage', 'validate_secret', 'agent_self']),
  'read-only': new Set(['read', 'read_usage', 'validate_secret']),
  'read-write': new Set(['read', 'read_usage', 'write', 'send_events', 'validate_secret']),
  admin: new Set(['read', 'read_usage', 'write', 'send_events', 'admin', 'validate_secret']),
};

export interface Principal {
  readonly kind: KeyKind | 'agent';
  readonly permission: Permission | 'agent';
  readonly organizationId: string;
  readonly environmentId: string;
  readonly environmentName: EnvironmentName;
  /** The API key's id, or the agent instance's id for agent secrets. */
  readonly credentialId: string;
  /** Set when the credential is an agent instance secret. */
  readonly agentInstanceId?: string;
  /** For agent secrets: the instance's account ('' when it has none); its events carry it. */
  readonly agentAccountId?: string;
  /** Requests per minute; null: the default of its kind. */
  readonly rateLimitPerMinute: number | null;
}

export function can(p: Principal, capability: Capability): boolean {
  return MATRIX[p.permission].has(capability);
}

function sdkKeyPrefix(env: EnvironmentName): 'sk_live_' | 'sk_test_' {
  return env === 'production' ? 'sk_live_' : 'sk_test_';
}

/** A new key: `sk_live_`/`sk_test_` (SDK) or `sk_api_` (API) then 40 random characters. */
export function generateKey(kind: KeyKind, env: EnvironmentName): string {
  return (kind === 'sdk' ? sdkKeyPrefix(env) : 'sk_api_') + randomToken(40);
}

/** A new agent instance secret. */
export function generateAgentSecret(): string {
  return 'as_' + randomToken(40);
}

/** What may be shown of a key after creation. */
export function displayPrefix(key: string): string {
  return key.slice(0, key.indexOf('_', 3) + 5) + '…';
}
