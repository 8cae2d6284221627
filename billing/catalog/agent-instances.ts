import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import type { AgentInstancesTable } from '../../shared/db/schema.ts';
import type { InvalidationBus } from '../../shared/auth/invalidation.ts';
import { generateAgentSecret } from '../../shared/auth/keys.ts';
import { digestsEqual, hashSecret, newId } from '../../shared/ids.ts';

interface NewAgentInstance {
  environmentId: string;
  name: string;
  description?: string | null;
  agentTypeId?: string | null;
  framework?: string | null;
  accountId?: string | null;
  contactId?: string | null;
}

/** Creates an agent instance; its secret is returned once and stored only hashed. */
export async function createAgentInstance(db: Db, input: NewAgentInstance): Promise<{ id: string; secret: string; created_at: Date }> {
  const secret = generateAgentSecret();
  const id = newId('ai');
  const row = await db
    .insertInto('agent_instances')
    .values({
      id,
      environment_id: input.environmentId,
      name: input.name,
      description: input.description ?? null,
      agent_type_id: input.agentTypeId ?? null,
      framework: input.framework ?? null,
      account_id: input.accountId ?? null,
      contact_id: input.contactId ?? null,
      secret_hash: hashSecret(secret),
    })
    .returning(['id', 'created_at'])
    .executeTakeFirstOrThrow();
  return { id: row.id, secret, created_at: row.created_at };
}

/** Issues a new secret; the old one stops working at once in every process. */
export async function refreshAgentSecret(db: Db, bus: InvalidationBus, environmentId: string, id: string): Promise<string | undefined> {
  const secret = generateAgentSecret();
  const res = await db
    .updateTable('agent_instances')
    .set({ secret_hash: hashSecret(secret), updated_at: new Date() })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) return undefined;
  bus.publish({ type: 'agent', id });
  return secret;
}

/** Activates or deactivates an instance; ingest sees the change at once. */
export async function setAgentActive(db: Db, bus: InvalidationBus, environmentId: string, id: string, active: boolean): Promise<boolean> {
  const res = await db
    .updateTable('agent_instances')
    .set({ is_active: active, updated_at: new Date() })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (res.numUpdatedRows === 0n) return false;
  bus.publish({ type: 'agent', id });
  return true;
}

// ---------------------------------------------------------------------------
// Reads, updates and deletes used by the control-plane API (billing/api).

/** An agent instance as Family B returns it (never the secret, which only create and refresh show). */
export function agentInstanceView(r: Selectable<AgentInstancesTable>) {
  return {
    id: r.id,
    name: r.name,
    description: r.description,
    agent_type_id: r.agent_type_id,
    account_id: r.account_id,
    contact_id: r.contact_id,
    type: r.framework,
    is_active: r.is_active,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

/** The same instance as a Family A agent: `type` is its framework (custom when unset). */
export function agentView(r: Selectable<AgentInstancesTable>) {
  return {
    id: r.id,
    name: r.name,
    type: r.framework ?? 'custom',
    description: r.description,
    account_id: r.account_id,
    is_active: r.is_active,
    created_at: r.created_at.toISOString(),
  };
}

/** One page of the environment's instances, oldest first, and the total. */
/** The instances of an environment, or of one of its accounts, a page at a time. */
export async function listAgentInstances(db: Db, environmentId: string, page: Page, accountId?: string) {
  let q = db.selectFrom('agent_instances').where('environment_id', '=', environmentId);
  if (accountId !== undefined) q = q.where('account_id', '=', accountId);
  return pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
}

/** One instance of this environment, or undefined. */
export async function findAgentInstance(db: Db, environmentId: string, id: string) {
  return db.selectFrom('agent_instances').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
}

/** The instance whose secret this is, within one environment, or undefined. */
export async function findAgentBySecret(db: Db, environmentId: string, secret: string) {
  const hash = hashSecret(secret);
  const row = await db.selectFrom('agent_instances').selectAll().where('environment_id', '=', environmentId).where('secret_hash', '=', hash).executeTakeFirst();
  // The lookup is by digest; compare again in constant time all the same.
  return row && digestsEqual(row.secret_hash, hash) ? row : undefined;
}

/** Fields an update may change. */
export interface AgentInstancePatch {
  name?: string;
  description?: string | null;
  agent_type_id?: string | null;
  account_id?: string | null;
  contact_id?: string | null;
  framework?: string | null;
  is_active?: boolean;
}

/**
 * Updates an instance (references already checked by the caller); every process's
 * agent cache drops it at once, so a deactivation or an account move is seen by ingest
 * on the next event. Undefined when the id is not in this environment.
 */
export async function updateAgentInstance(db: Db, bus: InvalidationBus, environmentId: string, id: string, patch: AgentInstancePatch) {
  const row = await db
    .updateTable('agent_instances')
    .set({ ...patch, updated_at: new Date() })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (row) bus.publish({ type: 'agent', id });
  return row;
}

/**
 * Deletes an instance; false when absent. A subscription that includes it refuses the
 * delete (foreign key: the caller maps it to 409).
 */
export async function deleteAgentInstance(db: Db, bus: InvalidationBus, environmentId: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('agent_instances').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (res.numDeletedRows === 0n) return false;
  bus.publish({ type: 'agent', id });
  return true;
}
