import type { Selectable } from 'kysely';
import type { InvalidationBus } from '../../shared/auth/invalidation.ts';
import type { Principal } from '../../shared/auth/keys.ts';
import { insertKey } from './bootstrap.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import type { ApiKeysTable, Permission } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { hashSecret } from '../../shared/ids.ts';
import { DEFAULT_API_LIMIT_PER_MINUTE, DEFAULT_SDK_LIMIT_PER_MINUTE } from '../../shared/auth/rate-limiter.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';

/** How long a rotated key keeps working next to its replacement. */
const ROTATION_GRACE_MS = 24 * 60 * 60 * 1000;

/** A key as the API lists it: never the key nor its hash, only a display prefix. */
function apiKeyView(r: Selectable<ApiKeysTable>, now = Date.now()) {
  const status = r.revoked_at ? 'revoked' : r.expires_at && r.expires_at.getTime() <= now ? 'expired' : r.rotated_to ? 'rotating' : 'active';
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    permission: r.permission,
    prefix: r.key_prefix,
    status,
    created_at: iso(r.created_at),
    expires_at: iso(r.expires_at),
    revoked_at: iso(r.revoked_at),
    rotated_to: r.rotated_to,
    /** Requests per minute: the key's own limit, else its kind's default. */
    rate_limit_per_minute: r.rate_limit_per_minute ?? (r.kind === 'api' ? DEFAULT_API_LIMIT_PER_MINUTE : DEFAULT_SDK_LIMIT_PER_MINUTE),
    rate_limit_is_default: r.rate_limit_per_minute === null,
  };
}

async function findKey(db: Db, environmentId: string, id: string) {
  return db.selectFrom('api_keys').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
}

/** Creates a key in the principal's environment; the clear key is returned once. */
export async function createApiKey(db: Db, p: Principal, input: { name: string; permission: Permission; rate_limit_per_minute?: number | null }) {
  const kind = input.permission === 'sdk' ? 'sdk' : 'api';
  const key = await insertKey(db, p.organizationId, p.environmentId, p.environmentName, kind, input.permission, input.name, input.rate_limit_per_minute ?? null);
  const row = await db.selectFrom('api_keys').selectAll().where('key_hash', '=', hashSecret(key)).executeTakeFirstOrThrow();
  return { ...apiKeyView(row), key };
}

/** One page of this environment's keys (revoked ones included), oldest first. */
export async function listApiKeys(db: Db, environmentId: string, page: Page) {
  const q = db.selectFrom('api_keys').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  const now = Date.now();
  return { rows: rows.map((r) => apiKeyView(r, now)), total };
}

/** Revokes a key at once in every process (the authenticator caches drop it). */
export async function revokeApiKey(db: Db, bus: InvalidationBus, environmentId: string, id: string) {
  const row = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!row) {
    const existing = await findKey(db, environmentId, id);
    if (!existing) throw notFound('API key', id);
    return apiKeyView(existing); // already revoked: idempotent
  }
  bus.publish({ type: 'key', hash: row.key_hash });
  return apiKeyView(row);
}

/**
 * Rotates a key: a new key of the same kind, permission and name is returned once, and
 * the old key keeps working for {@link ROTATION_GRACE_MS} (24 h) so deployments can
 * switch over. (Agent instance secrets are different: refresh invalidates at once.)
 */
export async function rotateApiKey(db: Db, bus: InvalidationBus, p: Principal, id: string) {
  const old = await findKey(db, p.environmentId, id);
  if (!old) throw notFound('API key', id);
  if (old.revoked_at || (old.expires_at && old.expires_at.getTime() <= Date.now())) throw new AppError('conflict', `API key ${id} is revoked or expired; create a new key instead`);
  if (old.rotated_to) throw new AppError('conflict', `API key ${id} was already rotated (to ${old.rotated_to})`);
  const fresh = await createApiKey(db, p, { name: old.name, permission: old.permission, rate_limit_per_minute: old.rate_limit_per_minute });
  const graceEnd = new Date(Date.now() + ROTATION_GRACE_MS);
  const expiresAt = old.expires_at && old.expires_at < graceEnd ? old.expires_at : graceEnd;
  await db.updateTable('api_keys').set({ expires_at: expiresAt, rotated_to: fresh.id }).where('id', '=', id).execute();
  bus.publish({ type: 'key', hash: old.key_hash });
  return { ...fresh, rotated_from: id, old_key_expires_at: expiresAt.toISOString() };
}

/**
 * Renames a key or sets its rate limit (null: back to its kind's default). Every
 * process's cached copy is dropped, so a new limit applies at once.
 */
export async function updateApiKey(db: Db, bus: InvalidationBus, environmentId: string, id: string, input: { name?: string; rate_limit_per_minute?: number | null }) {
  const set: { name?: string; rate_limit_per_minute?: number | null } = {};
  if (input.name !== undefined) set.name = input.name;
  if (input.rate_limit_per_minute !== undefined) set.rate_limit_per_minute = input.rate_limit_per_minute;
  const existing = await findKey(db, environmentId, id);
  if (!existing) throw notFound('API key', id);
  if (Object.keys(set).length === 0) return apiKeyView(existing);
  const row = await db.updateTable('api_keys').set(set).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  bus.publish({ type: 'key', hash: row.key_hash });
  return apiKeyView(row);
}
