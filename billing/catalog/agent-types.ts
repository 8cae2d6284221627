import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { AgentTypesTable } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { guarded, iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';

/** An agent type as the API returns it. */
function agentTypeView(r: Selectable<AgentTypesTable>) {
  return { id: r.id, name: r.name, description: r.description, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

const DUPLICATE = 'an agent type with this name';

/** Creates an agent type; names are unique per environment (409). */
export async function createAgentType(db: Db, environmentId: string, input: { name: string; description?: string | null }) {
  const row = await guarded(DUPLICATE, () =>
    db
      .insertInto('agent_types')
      .values({ id: newId('at'), environment_id: environmentId, name: input.name, description: input.description ?? null })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return agentTypeView(row);
}

export async function listAgentTypes(db: Db, environmentId: string, page: Page) {
  const q = db.selectFrom('agent_types').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(agentTypeView), total };
}

export async function getAgentType(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('agent_types').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('agent type', id);
  return agentTypeView(row);
}

export async function updateAgentType(db: Db, environmentId: string, id: string, input: { name?: string; description?: string | null }) {
  const set: Record<string, unknown> = { updated_at: new Date() };
  if (input.name !== undefined) set.name = input.name;
  if (input.description !== undefined) set.description = input.description;
  const row = await guarded(DUPLICATE, () =>
    db.updateTable('agent_types').set(set).where('environment_id', '=', environmentId).where('id', '=', id).returningAll().executeTakeFirst(),
  );
  if (!row) throw notFound('agent type', id);
  return agentTypeView(row);
}

/** Deletes an agent type; refused (409) while agent instances or products reference it. */
export async function deleteAgentType(db: Db, environmentId: string, id: string): Promise<void> {
  const res = await guarded(`agent type ${id}`, () => db.deleteFrom('agent_types').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst());
  if (res.numDeletedRows === 0n) throw notFound('agent type', id);
}
