import type { Db } from '../../shared/db/postgres.ts';
import type { InvalidationBus } from '../../shared/auth/invalidation.ts';
import { generateAgentSecret } from '../../shared/auth/keys.ts';
import { hashSecret, newId } from '../../shared/ids.ts';

export interface NewAgentInstance {
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
