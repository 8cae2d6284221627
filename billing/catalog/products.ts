import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { BillingCycle, ProductsTable, RatePlansTable } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { guarded, iso, notFound } from '../../shared/db/db-errors.ts';
import { requireRef } from './refs.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { commitmentAmount, commitmentView } from './commitments.ts';
import { prepaidCommitment, prepaidCommitmentView, type PrepaidCommitmentInput } from './prepaid-commitment.ts';

/** A product as the API returns it. */
function productView(r: Selectable<ProductsTable>) {
  return { id: r.id, name: r.name, description: r.description, agent_type_id: r.agent_type_id, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

/** A rate plan as the API returns it (charges added by the caller where shown). */
export function ratePlanView(r: Selectable<RatePlansTable>) {
  return {
    id: r.id,
    product_id: r.product_id,
    name: r.name,
    description: r.description,
    billing_cycle_code: r.billing_cycle_code,
    currency: r.currency,
    minimum_commitment: commitmentView(r.minimum_commitment, r.currency),
    prepaid_commitment: prepaidCommitmentView(r.prepaid_commitment, r.currency),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

const DUPLICATE_PRODUCT = 'a product with this name';

/** Creates a product tied to an agent type of this environment; names are unique per environment. */
export async function createProduct(db: Db, environmentId: string, input: { name: string; description?: string | null; agent_type_id: string }) {
  await requireRef(db, 'agent_types', environmentId, 'agent_type_id', input.agent_type_id);
  const row = await guarded(DUPLICATE_PRODUCT, () =>
    db
      .insertInto('products')
      .values({ id: newId('prod'), environment_id: environmentId, name: input.name, description: input.description ?? null, agent_type_id: input.agent_type_id })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return productView(row);
}

export async function listProducts(db: Db, environmentId: string, page: Page) {
  const q = db.selectFrom('products').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(productView), total };
}

export async function getProduct(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('products').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('product', id);
  return productView(row);
}

export async function updateProduct(db: Db, environmentId: string, id: string, input: { name?: string; description?: string | null; agent_type_id?: string }) {
  if (input.agent_type_id !== undefined) await requireRef(db, 'agent_types', environmentId, 'agent_type_id', input.agent_type_id);
  const row = await guarded(DUPLICATE_PRODUCT, () =>
    db
      .updateTable('products')
      .set({ ...input, updated_at: new Date() })
      .where('environment_id', '=', environmentId)
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirst(),
  );
  if (!row) throw notFound('product', id);
  return productView(row);
}

/** Deletes a product; refused (409) while it has rate plans. */
export async function deleteProduct(db: Db, environmentId: string, id: string): Promise<void> {
  const res = await guarded(`product ${id}`, () => db.deleteFrom('products').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst());
  if (res.numDeletedRows === 0n) throw notFound('product', id);
}

/** Input of a new rate plan. */
interface RatePlanInput {
  name: string;
  description?: string | null;
  billing_cycle_code: BillingCycle;
  /** ISO 4217 code, any case; stored upper case. */
  currency: string;
  /** Minimum per billing period in the plan's currency (docs/credits.md "Commitments"); null or absent: none. */
  minimum_commitment?: string | number | null;
  /** Prepaid commitment of its subscriptions (docs/credits.md "Commitments"); null or absent: none. */
  prepaid_commitment?: PrepaidCommitmentInput | null;
}

/** Creates a rate plan of a product (404 when the product is not in this environment); names are unique per product. */
export async function createRatePlan(db: Db, environmentId: string, productId: string, input: RatePlanInput) {
  const currency = input.currency.toUpperCase();
  const minimum = commitmentAmount(input.minimum_commitment, currency, 'minimum_commitment');
  const prepaid = prepaidCommitment(input.prepaid_commitment, currency);
  await getProduct(db, environmentId, productId);
  const row = await guarded('a rate plan with this name in this product', () =>
    db
      .insertInto('rate_plans')
      .values({
        id: newId('rp'),
        environment_id: environmentId,
        product_id: productId,
        name: input.name,
        description: input.description ?? null,
        billing_cycle_code: input.billing_cycle_code,
        currency,
        minimum_commitment: minimum,
        prepaid_commitment: prepaid ? JSON.stringify(prepaid) : null,
      })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return ratePlanView(row);
}

/** One page of rate plans, of one product or of the whole environment. */
export async function listRatePlans(db: Db, environmentId: string, page: Page, productId?: string) {
  let q = db.selectFrom('rate_plans').where('environment_id', '=', environmentId);
  if (productId) q = q.where('product_id', '=', productId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(ratePlanView), total };
}

/** One rate plan row of this environment, or 404. */
export async function getRatePlanRow(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('rate_plans').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('rate plan', id);
  return row;
}
