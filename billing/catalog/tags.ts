import { sql, type Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { TaggedItemsTable } from '../../shared/db/schema.ts';
import { AppError, type ErrorDetail } from '../../shared/errors.ts';
import { iso } from '../../shared/db/db-errors.ts';

/** Tagged actions or tagged outcomes. */
export type TagKind = TaggedItemsTable['kind'];

/** Most tags of one kind an environment may have: the set is read and replaced whole. */
export const MAX_TAGS_PER_KIND = 1000;

/** One tag of a PUT body, with its name field already read (`action_name` or `outcome_name`). */
interface TagInput {
  name: string;
  description?: string | null | undefined;
}

/** The spec's field names per kind. */
export const TAG_FIELDS = {
  action: { list: 'tagged_actions', name: 'action_name' },
  outcome: { list: 'tagged_outcomes', name: 'outcome_name' },
} as const satisfies Record<TagKind, { list: string; name: string }>;

/** A tag as the API returns it: `{action_name | outcome_name, description, created_at, updated_at}`. */
function tagView(r: Selectable<TaggedItemsTable>) {
  return { [TAG_FIELDS[r.kind].name]: r.name, description: r.description, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

/** Every tag of one kind in the environment, by name. */
export async function listTags(db: Db, environmentId: string, kind: TagKind) {
  const rows = await db.selectFrom('tagged_items').selectAll().where('environment_id', '=', environmentId).where('kind', '=', kind).orderBy('name').execute();
  return rows.map(tagView);
}

/** Names tagged in the environment, per kind, with their descriptions. */
export async function tagIndex(db: Db, environmentId: string): Promise<Record<TagKind, Map<string, string | null>>> {
  const rows = await db.selectFrom('tagged_items').select(['kind', 'name', 'description']).where('environment_id', '=', environmentId).execute();
  const out: Record<TagKind, Map<string, string | null>> = { action: new Map(), outcome: new Map() };
  for (const r of rows) out[r.kind].set(r.name, r.description);
  return out;
}

/** 400 naming every name that repeats an earlier one of the same body. */
function requireUniqueNames(kind: TagKind, items: readonly TagInput[]): void {
  const { list, name } = TAG_FIELDS[kind];
  const first = new Map<string, number>();
  const details: ErrorDetail[] = [];
  items.forEach((t, i) => {
    const j = first.get(t.name);
    if (j === undefined) first.set(t.name, i);
    else {
      const path = `${list}[${i}].${name}`;
      details.push({ path, message: `${path} repeats ${list}[${j}].${name} (${JSON.stringify(t.name)}); names are unique within the set` });
    }
  });
  if (details.length) throw new AppError('validation_failed', `request body is invalid: ${details.map((d) => d.message).join('; ')}`, { details });
}

/**
 * Replaces the environment's set of tags of one kind with `items` (an empty array
 * clears it) and returns the new set. Tags that stay keep their `created_at`.
 * TRICKY: concurrent PUTs of the same set are serialized by a transaction-scoped
 * advisory lock, so the result is one body or the other, never a mix of both.
 */
export async function replaceTags(db: Db, environmentId: string, kind: TagKind, items: readonly TagInput[]) {
  requireUniqueNames(kind, items);
  await db.transaction().execute(async (tx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`tagged_items:${environmentId}:${kind}`}, 0))`.execute(tx);
    const names = items.map((t) => t.name);
    let del = tx.deleteFrom('tagged_items').where('environment_id', '=', environmentId).where('kind', '=', kind);
    if (names.length) del = del.where('name', 'not in', names);
    await del.execute();
    if (items.length === 0) return;
    await tx
      .insertInto('tagged_items')
      .values(items.map((t) => ({ environment_id: environmentId, kind, name: t.name, description: t.description ?? null })))
      .onConflict((oc) =>
        oc.columns(['environment_id', 'kind', 'name']).doUpdateSet((eb) => ({
          description: eb.ref('excluded.description'),
          updated_at: sql<Date>`CASE WHEN tagged_items.description IS DISTINCT FROM excluded.description THEN now() ELSE tagged_items.updated_at END`,
        })),
      )
      .execute();
  });
  return listTags(db, environmentId, kind);
}
