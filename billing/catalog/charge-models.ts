import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { ChargeModelsTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { validateChargeModel, type ValidationIssue } from '../rating/charge-models.ts';
import { guarded, iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';

/** A charge model as the API returns it: canonical `type` and `pricing_strategy`. */
export function chargeModelView(r: Selectable<ChargeModelsTable>) {
  return { id: r.id, name: r.name, description: r.description, type: r.type, pricing_strategy: r.pricing_strategy, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

/** The rating engine's validation issues as one 400 `validation_failed`. */
export function pricingError(what: string, errors: ValidationIssue[]): AppError {
  return new AppError('validation_failed', `${what} is invalid: ${errors.map((e) => e.message).join('; ')}`, { details: errors.map((e) => ({ path: e.path, message: e.message })) });
}

/**
 * Creates a charge model. `type` may be any spelling of DESIGN.md (flat, flat-fee,
 * per_unit, per-unit, tiered, volume, package, overage(-pricing), one_time, discount);
 * `pricing_strategy` is validated for that type by the rating engine and stored in its
 * canonical form. Names are unique per environment (409).
 */
export async function createChargeModel(db: Db, environmentId: string, input: { name: string; description: string; type: string; pricing_strategy: Record<string, unknown> }) {
  const def = validateChargeModel({ type: input.type, pricing_strategy: input.pricing_strategy });
  if (!def.ok) throw pricingError('charge model', def.errors);
  const row = await guarded('a charge model with this name', () =>
    db
      .insertInto('charge_models')
      .values({
        id: newId('cm'),
        environment_id: environmentId,
        name: input.name,
        description: input.description,
        type: def.value.type,
        pricing_strategy: JSON.stringify(def.value.pricing_strategy),
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return chargeModelView(row);
}

export async function listChargeModels(db: Db, environmentId: string, page: Page) {
  const q = db.selectFrom('charge_models').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(chargeModelView), total };
}

/** One charge model row of this environment, or 404. */
export async function getChargeModelRow(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('charge_models').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('charge model', id);
  return row;
}

/** Deletes a charge model; refused (409) while charges use it. */
export async function deleteChargeModel(db: Db, environmentId: string, id: string): Promise<void> {
  const res = await guarded(`charge model ${id}`, () => db.deleteFrom('charge_models').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst());
  if (res.numDeletedRows === 0n) throw notFound('charge model', id);
}
