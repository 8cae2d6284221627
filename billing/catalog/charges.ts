import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { ChargesTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { buildRatedCharge } from '../rating/charge-models.ts';
import { pricingError } from './charge-models.ts';
import { guarded, iso } from '../../shared/db/db-errors.ts';
import { getRatePlanRow } from './products.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';

/** A charge as the API returns it; `charge_type_code` and `charge_type` are the same canonical value. */
function chargeView(r: Selectable<ChargesTable>) {
  return {
    id: r.id,
    rate_plan_id: r.rate_plan_id,
    charge_model_id: r.charge_model_id,
    name: r.name,
    description: r.description,
    charge_type_code: r.charge_type,
    charge_type: r.charge_type,
    unit_of_measure: r.unit_of_measure,
    currency: r.currency,
    pricing: r.pricing,
    resolved_pricing: r.resolved_pricing,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/** Input of a new charge (raw spellings; the rating engine normalizes them). */
interface ChargeInput {
  name: string;
  description?: string | null;
  charge_model_id: string;
  charge_type_code?: string;
  charge_type?: string;
  unit_of_measure?: string;
  currency?: string;
  pricing?: Record<string, unknown>;
}

/**
 * Creates a charge on a rate plan (404 when the plan is not in this environment). The
 * charge model, charge type, unit of measure and `pricing` overrides are checked
 * together by the rating engine (`buildRatedCharge`), so a stored charge always rates.
 * The currency is the rate plan's; a different one is refused.
 */
export async function createCharge(db: Db, environmentId: string, ratePlanId: string, input: ChargeInput) {
  const plan = await getRatePlanRow(db, environmentId, ratePlanId);
  const model = await db.selectFrom('charge_models').selectAll().where('environment_id', '=', environmentId).where('id', '=', input.charge_model_id).executeTakeFirst();
  if (!model) throw new AppError('validation_failed', `charge_model_id ${input.charge_model_id} does not exist`, { details: [{ path: 'charge_model_id', message: 'charge_model_id does not exist' }] });
  if (input.currency && input.currency.toUpperCase() !== plan.currency) {
    throw new AppError('validation_failed', `currency ${input.currency} differs from the rate plan's ${plan.currency}`, { details: [{ path: 'currency', message: `currency must be the rate plan's (${plan.currency})` }] });
  }
  const id = newId('ch');
  const rated = buildRatedCharge({
    id,
    name: input.name,
    model_type: model.type,
    pricing_strategy: model.pricing_strategy,
    charge_type_code: input.charge_type_code,
    charge_type: input.charge_type,
    unit_of_measure: input.unit_of_measure,
    pricing: input.pricing,
  });
  if (!rated.ok) throw pricingError('charge', rated.errors);
  const pricing = rated.value.pricing;
  if (pricing.kind === 'discount' && pricing.applies_to !== null) await requireDiscountTarget(db, environmentId, plan.id, pricing.applies_to);
  const row = await guarded('a charge with this name on this rate plan', () =>
    db
      .insertInto('charges')
      .values({
        id,
        environment_id: environmentId,
        rate_plan_id: plan.id,
        charge_model_id: model.id,
        name: input.name,
        description: input.description ?? null,
        charge_type: rated.value.charge_type,
        unit_of_measure: rated.value.unit_of_measure,
        currency: plan.currency,
        pricing: JSON.stringify(input.pricing ?? {}),
        resolved_pricing: JSON.stringify(rated.value.pricing),
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return chargeView(row);
}

/**
 * A discount's `applies_to` must name a charge of the same rate plan that is not itself a
 * discount (by id or name), created before it: otherwise every invoice of the plan would
 * fail to rate.
 */
async function requireDiscountTarget(db: Db, environmentId: string, ratePlanId: string, target: string): Promise<void> {
  const charges = await chargesOf(db, environmentId, ratePlanId);
  if (charges.some((c) => (c.id === target || c.name === target) && (c.resolved_pricing as { kind?: string } | null)?.kind !== 'discount')) return;
  const message = `applies_to ${JSON.stringify(target)} names no charge of this rate plan (give the id or name of a non-discount charge created before the discount)`;
  throw new AppError('validation_failed', message, { details: [{ path: 'pricing.applies_to', message }] });
}

/** The charges of a rate plan, oldest first. */
export async function chargesOf(db: Db, environmentId: string, ratePlanId: string) {
  const rows = await db.selectFrom('charges').selectAll().where('environment_id', '=', environmentId).where('rate_plan_id', '=', ratePlanId).orderBy('created_at').orderBy('id').execute();
  return rows.map(chargeView);
}

/** One page of a rate plan's charges, oldest first, and the total count. */
export async function listCharges(db: Db, environmentId: string, ratePlanId: string, page: Page) {
  const q = db.selectFrom('charges').where('environment_id', '=', environmentId).where('rate_plan_id', '=', ratePlanId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(chargeView), total };
}
