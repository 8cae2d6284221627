import { deleteChargeModel, chargeModelView, createChargeModel, getChargeModelRow, listChargeModels } from '../catalog/charge-models.ts';
import { chargesOf, createCharge, listCharges } from '../catalog/charges.ts';
import { createProduct, createRatePlan, deleteProduct, getProduct, getRatePlanRow, listProducts, listRatePlans, ratePlanView, updateProduct } from '../catalog/products.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, deleted, ok, type ApiDeps, type Endpoint } from './route.ts';
import { ChargeCreate, ChargeModelCreate, ProductCreate, ProductUpdate, RatePlanCreate } from './schemas.ts';
import { body } from './validate.ts';
import { Charge, ChargeModel, Deleted, listOfA, listOfB, Product, RatePlan, RatePlanWithCharges } from './response-schemas.ts';

/** A rate plan with its charges. */
async function ratePlanWithCharges(db: Db, environmentId: string, id: string) {
  const row = await getRatePlanRow(db, environmentId, id);
  return { ...ratePlanView(row), charges: await chargesOf(db, environmentId, id) };
}

/** Products, rate plans, charge models and charges (Family B) and the Family A rate plan reads. */
export function pricingEndpoints({ db }: ApiDeps): Endpoint[] {
  return [
    // ---- Family A
    {
      method: 'GET',
      path: '/v1/pricing/rate-plans',
      capability: 'read',
      query: [PageQueryA],
      response: listOfA('rate_plans', RatePlan),
      summary: 'List rate plans (limit/offset)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listRatePlans(db, p.environmentId, page);
        return ok(listA('rate_plans', rows, total, page));
      },
    },
    {
      method: 'GET',
      path: '/v1/pricing/rate-plans/:rate_plan_id',
      capability: 'read',
      response: RatePlanWithCharges,
      summary: 'One rate plan with its charges',
      handle: async (req, p) => ok(await ratePlanWithCharges(db, p.environmentId, req.params.rate_plan_id!)),
    },
    // ---- Family B products
    {
      method: 'GET',
      path: '/api/v1/products',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('products', Product),
      summary: 'List products (skip/limit)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listProducts(db, p.environmentId, page);
        return ok(listB('products', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/products',
      capability: 'write',
      status: 201,
      response: Product,
      summary: 'Create a product tied to an agent type (name unique per environment)',
      requestBody: ProductCreate,
      handle: async (req, p) => created(await createProduct(db, p.environmentId, body(req, ProductCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/products/:product_id',
      capability: 'read',
      response: Product,
      summary: 'One product',
      handle: async (req, p) => ok(await getProduct(db, p.environmentId, req.params.product_id!)),
    },
    {
      method: 'PUT',
      path: '/api/v1/products/:product_id',
      capability: 'write',
      response: Product,
      summary: 'Update a product',
      requestBody: ProductUpdate,
      handle: async (req, p) => ok(await updateProduct(db, p.environmentId, req.params.product_id!, body(req, ProductUpdate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/products/:product_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete a product (refused while it has rate plans)',
      handle: async (req, p) => {
        await deleteProduct(db, p.environmentId, req.params.product_id!);
        return deleted(req.params.product_id!);
      },
    },
    // ---- Family B rate plans and charges
    {
      method: 'POST',
      path: '/api/v1/products/:product_id/rateplans',
      capability: 'write',
      status: 201,
      response: RatePlan,
      summary: 'Create a rate plan (name, billing_cycle_code, currency; USD by default)',
      requestBody: RatePlanCreate,
      handle: async (req, p) => {
        const b = body(req, RatePlanCreate);
        return created(await createRatePlan(db, p.environmentId, req.params.product_id!, { ...b, currency: b.currency ?? 'USD' }));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/products/:product_id/rateplans',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('rate_plans', RatePlan),
      summary: "List a product's rate plans (skip/limit)",
      handle: async (req, p) => {
        const page = pageB(req);
        await getProduct(db, p.environmentId, req.params.product_id!);
        const { rows, total } = await listRatePlans(db, p.environmentId, page, req.params.product_id!);
        return ok(listB('rate_plans', rows, total, page));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/products/rateplans/:rate_plan_id',
      capability: 'read',
      response: RatePlanWithCharges,
      summary: 'One rate plan with its charges',
      handle: async (req, p) => ok(await ratePlanWithCharges(db, p.environmentId, req.params.rate_plan_id!)),
    },
    {
      method: 'POST',
      path: '/api/v1/products/rateplans/:rate_plan_id/charges',
      capability: 'write',
      status: 201,
      response: Charge,
      summary: 'Create a charge (name, charge_model_id, charge_type_code, pricing)',
      requestBody: ChargeCreate,
      handle: async (req, p) => created(await createCharge(db, p.environmentId, req.params.rate_plan_id!, body(req, ChargeCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/products/rateplans/:rate_plan_id/charges',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('charges', Charge),
      summary: "List a rate plan's charges (skip/limit)",
      handle: async (req, p) => {
        const page = pageB(req);
        await getRatePlanRow(db, p.environmentId, req.params.rate_plan_id!);
        const { rows, total } = await listCharges(db, p.environmentId, req.params.rate_plan_id!, page);
        return ok(listB('charges', rows, total, page));
      },
    },
    // ---- Family B charge models
    {
      method: 'GET',
      path: '/api/v1/charge_models',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('charge_models', ChargeModel),
      summary: 'List charge models (skip/limit)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listChargeModels(db, p.environmentId, page);
        return ok(listB('charge_models', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/charge_models',
      capability: 'write',
      status: 201,
      response: ChargeModel,
      summary: 'Create a charge model (pricing_strategy validated per type)',
      requestBody: ChargeModelCreate,
      handle: async (req, p) => created(await createChargeModel(db, p.environmentId, body(req, ChargeModelCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/charge_models/:charge_model_id',
      capability: 'read',
      response: ChargeModel,
      summary: 'One charge model',
      handle: async (req, p) => ok(chargeModelView(await getChargeModelRow(db, p.environmentId, req.params.charge_model_id!))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/charge_models/:charge_model_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete a charge model (refused while charges use it)',
      handle: async (req, p) => {
        await deleteChargeModel(db, p.environmentId, req.params.charge_model_id!);
        return deleted(req.params.charge_model_id!);
      },
    },
  ];
}
