import { Type } from '@sinclair/typebox';
import { AppError } from '../../shared/errors.ts';
import { parseTimestamp } from '../../shared/time.ts';
import type { HttpRequest } from '../../shared/http/types.ts';
import type { Principal } from '../../shared/auth/keys.ts';
import { adjustGrant, createGrant, refundGrant, getGrant, listGrants, MAX_PRIORITY, MIN_PRIORITY, voidGrant, type Actor } from '../credits/grants.ts';
import { accountBalances, entryView, listEntries, type AgentScope, type EntryFilter } from '../credits/ledger.ts';
import type { Invoicing } from '../invoicing/context.ts';
import { liveInvoicing, openPeriodCharges, watchDeps } from '../live/open-period.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, ok, type ApiDeps, type Endpoint } from './route.ts';
import { DateLike, Id } from './schemas.ts';
import { body, optionalBody, query } from './validate.ts';
import { AgentCreditBalance, CreditBalance, CreditEntry, CreditGrant, CreditSetting, CreditSettings, CreditTopup, listOfA, listOfB } from './response-schemas.ts';
import { createTopup, disableTopup, getTopup, listTopups } from '../credits/topups.ts';
import { listCreditSettings, setLowBalanceThreshold, watchBalances } from '../credits/watch.ts';

/** Money in a credits request: a decimal string (exact) or a JSON number (up to 15 significant digits). */
const Money = Type.Union([Type.Number(), Type.String({ maxLength: 64 })], { errorMessage: 'must be a decimal number or string, e.g. "100.00"' });
const IdList = Type.Array(Id, { maxItems: 100, errorMessage: 'must be a list of at most 100 ids' });
const CreditScopeSchema = Type.Object(
  {
    charge_ids: Type.Optional(IdList),
    product_ids: Type.Optional(IdList),
    units: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100, errorMessage: 'must be a list of at most 100 units of measure' })),
  },
  { additionalProperties: false, errorMessage: 'must be an object with charge_ids, product_ids and/or units (lists)' },
);
const MetadataValue = Type.Union([Type.String({ maxLength: 500 }), Type.Number(), Type.Boolean(), Type.Null()], {
  errorMessage: 'must be a string of at most 500 characters, a number, a boolean or null (metadata is flat: no nested objects or lists)',
});
const Metadata = Type.Record(Type.String({ maxLength: 100 }), MetadataValue, {
  maxProperties: 50,
  errorMessage: 'must be an object of at most 50 keys with string, number, boolean or null values',
});
const GrantCreate = Type.Object({
  account_id: Id,
  currency: Type.String({ minLength: 1, maxLength: 10, errorMessage: 'must be an ISO 4217 currency code, e.g. USD' }),
  kind: Type.Union([Type.Literal('paid'), Type.Literal('free')], { errorMessage: 'must be paid or free' }),
  amount: Money,
  price: Type.Optional(Money),
  priority: Type.Optional(Type.Integer({ minimum: MIN_PRIORITY, maximum: MAX_PRIORITY, errorMessage: `must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}` })),
  effective_at: Type.Optional(DateLike),
  expires_at: Type.Optional(Type.Union([DateLike, Type.Null()], { errorMessage: 'must be an ISO 8601 date or date-time, or null' })),
  scope: Type.Optional(Type.Union([CreditScopeSchema, Type.Null()], { errorMessage: 'must be an object with charge_ids, product_ids and/or units, or null' })),
  metadata: Type.Optional(Metadata),
  usable: Type.Optional(Type.Union([Type.Literal('immediately'), Type.Literal('on_payment')], { errorMessage: 'must be immediately or on_payment' })),
}, { additionalProperties: false });
const GrantVoid = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500, errorMessage: 'must be a string of at most 500 characters' })) }, { additionalProperties: false });
const Adjustment = Type.Object({
  grant_id: Id,
  amount: Money,
  reason: Type.String({ minLength: 1, maxLength: 500, errorMessage: 'must be a non-empty string of at most 500 characters' }),
}, { additionalProperties: false });
const GrantQuery = Type.Object({ account_id: Type.Optional(Id), currency: Type.Optional(Type.String({ maxLength: 10 })) });
const EntryType = Type.Union(['grant', 'burn', 'release', 'expiry', 'void', 'adjustment', 'overpayment', 'refund'].map((t) => Type.Literal(t)), {
  errorMessage: 'must be grant, burn, release, expiry, void, adjustment, overpayment or refund',
});
const EntryQuery = Type.Object({
  account_id: Type.Optional(Id),
  grant_id: Type.Optional(Id),
  invoice_id: Type.Optional(Id),
  type: Type.Optional(EntryType),
  from: Type.Optional(DateLike),
  to: Type.Optional(DateLike),
});
const BalanceQuery = Type.Object({ at: Type.Optional(DateLike) });
const Currency = Type.String({ minLength: 1, maxLength: 10, errorMessage: 'must be an ISO 4217 currency code, e.g. USD' });
const SettingUpdate = Type.Object(
  {
    currency: Currency,
    low_balance_threshold: Type.Union([Money, Type.Null()], { errorMessage: 'must be a decimal number or string, e.g. "10.00", or null to remove it' }),
  },
  { additionalProperties: false },
);
const TopupCreate = Type.Object(
  {
    account_id: Id,
    currency: Currency,
    type: Type.Union([Type.Literal('recurring'), Type.Literal('threshold')], { errorMessage: 'must be recurring or threshold' }),
    kind: Type.Optional(Type.Union([Type.Literal('paid'), Type.Literal('free')], { errorMessage: 'must be paid or free' })),
    amount: Type.Optional(Money),
    price: Type.Optional(Money),
    target_balance: Type.Optional(Money),
    threshold: Type.Optional(Money),
    interval: Type.Optional(Type.Union([Type.Literal('week'), Type.Literal('month')], { errorMessage: 'must be week or month' })),
    starts_at: Type.Optional(DateLike),
    priority: Type.Optional(Type.Integer({ minimum: MIN_PRIORITY, maximum: MAX_PRIORITY, errorMessage: `must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}` })),
    usable: Type.Optional(Type.Union([Type.Literal('immediately'), Type.Literal('on_payment')], { errorMessage: 'must be immediately or on_payment' })),
    expires_after_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 36500, errorMessage: 'must be an integer from 1 to 36500' })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
const TopupQuery = Type.Object({ account_id: Type.Optional(Id) });

/** Largest Idempotency-Key accepted. */
const MAX_KEY_LENGTH = 200;
const IdempotencyHeader = Type.Object({
  'Idempotency-Key': Type.Optional(Type.String({ maxLength: MAX_KEY_LENGTH, description: 'a retry with the same key and request grants once (answered with Idempotent-Replayed: true); another request with it is a 409' })),
});

function date(v: string, field: string): Date {
  const t = parseTimestamp(v);
  if (t === undefined) throw new AppError('validation_failed', `${field} is not a valid date`, { details: [{ path: field, message: `${field} is not a valid date` }] });
  return new Date(t);
}

function idempotencyKey(req: HttpRequest): string | null {
  const k = req.headers['idempotency-key'];
  if (k === undefined) return null;
  if (k.trim() === '') throw new AppError('validation_failed', 'Idempotency-Key must not be empty or blank (omit the header for none)', { details: [{ path: 'Idempotency-Key', message: 'must not be empty or blank' }] });
  if (k.length > MAX_KEY_LENGTH) throw new AppError('validation_failed', `Idempotency-Key must be at most ${MAX_KEY_LENGTH} characters`, { details: [{ path: 'Idempotency-Key', message: `at most ${MAX_KEY_LENGTH} characters` }] });
  return k;
}

function entryFilter(req: HttpRequest): EntryFilter {
  const q = query(req, EntryQuery);
  const from = q.from ? date(q.from, 'from') : undefined;
  const to = q.to ? date(q.to, 'to') : undefined;
  if (from && to && from > to) {
    const message = `to (${to.toISOString()}) must not be before from (${from.toISOString()})`;
    throw new AppError('validation_failed', message, { details: [{ path: 'to', message }] });
  }
  return { account_id: q.account_id, grant_id: q.grant_id, invoice_id: q.invoice_id, type: q.type as EntryFilter['type'], from, to };
}

/**
 * Prepaid credits on both families (docs/credits.md, Credits): grants (create, list, one, void),
 * the ledger's entries, manual adjustments, and an account's balance per currency.
 * Reads need `read`; grants, voids and adjustments need `write`.
 */
export function creditEndpoints(deps: ApiDeps & { invoicing: Invoicing }): Endpoint[] {
  const { db } = deps;
  const inv = deps.invoicing;
  const actor = (p: Principal): Actor => ({ now: inv.now(), createdBy: p.credentialId, netDays: inv.config.netDays });

  const grant = async (req: HttpRequest, p: Principal) => {
    const { grant, replayed } = await createGrant(db, p.environmentId, body(req, GrantCreate), idempotencyKey(req), actor(p));
    await watched(p, grant.account_id, null);
    return { ...created(grant), ...(replayed ? { headers: { 'idempotent-replayed': 'true' } } : {}) };
  };
  // The live balance (no `at`): the open periods rated now count as pending; usage is
  // cached until new events of the account are stored.
  const live = liveInvoicing(inv, deps.liveUsage);
  const liveBalances = (environmentId: string, accountId: string, at: Date, forAgent?: AgentScope) =>
    accountBalances(db, environmentId, accountId, at, (needed) => openPeriodCharges(live, environmentId, accountId, { now: at, needed }), forAgent, { availableOnly: forAgent !== undefined });
  const balance = async (req: HttpRequest, p: Principal) => {
    const q = query(req, BalanceQuery);
    const accountId = req.params.account_id!;
    const at = q.at ? date(q.at, 'at') : inv.now();
    const balances = q.at ? await accountBalances(db, p.environmentId, accountId, at) : await liveBalances(p.environmentId, accountId, at);
    return ok({ account_id: accountId, at: at.toISOString(), balances });
  };
  // What an agent may read of its account's credit (X-Agent-Secret alone): the available figure per currency.
  const agentBalance = async (_req: HttpRequest, p: Principal) => {
    const accountId = p.agentAccountId || null;
    const at = inv.now();
    // Only credit that may pay for this agent's usage: grants scoped to another subscription
    // of the account, or to charges, products or units its subscriptions' plans do not bill, are left out.
    const rows = await db
      .selectFrom('subscription_agent_instances as sa')
      .innerJoin('subscriptions as s', 's.id', 'sa.subscription_id')
      .innerJoin('rate_plans as rp', 'rp.id', 's.rate_plan_id')
      .leftJoin('charges as c', 'c.rate_plan_id', 'rp.id')
      .select(['s.id', 'rp.product_id', 'c.id as charge_id', 'c.unit_of_measure'])
      .where('sa.agent_instance_id', '=', p.agentInstanceId!)
      .execute();
    const forAgent: AgentScope = {
      subscriptionIds: [...new Set(rows.map((r) => r.id))],
      charges: rows.flatMap((r) => (r.charge_id ? [{ charge_id: r.charge_id, product_id: r.product_id, unit: r.unit_of_measure }] : [])),
    };
    const balances = accountId ? (await liveBalances(p.environmentId, accountId, at, forAgent)).map((b) => ({ currency: b.currency, available: b.available })) : [];
    return ok({ agent_instance_id: p.agentInstanceId!, account_id: accountId, at: at.toISOString(), balances });
  };
  const agentSummary =
    "The calling agent instance's account's available credit per currency that may pay for its usage (grants scoped to another subscription, or to charges, products or units its subscriptions' plans do not bill, are left out; X-Agent-Secret only; an instance without an account: no balances)";
  const adjust = async (req: HttpRequest, p: Principal) => {
    const entry = await adjustGrant(db, p.environmentId, body(req, Adjustment), actor(p));
    return created(entryView(await watched(p, entry.account_id, entry)));
  };
  const one = async (req: HttpRequest, p: Principal) => ok(await getGrant(db, p.environmentId, req.params.grant_id!, inv.now()));
  const voidOne = async (req: HttpRequest, p: Principal) => {
    const g = await voidGrant(db, p.environmentId, req.params.grant_id!, optionalBody(req, GrantVoid).reason ?? null, actor(p));
    return ok(await watched(p, g.account_id, g));
  };
  const grantSummary = 'Grant prepaid credits to an account (paid: with a purchase invoice; free). Idempotency-Key header: a retry grants once';
  // A change through the API is looked at by the balance watch at once (alerts, threshold top-ups).
  const watched = async <T>(_p: Principal, accountId: string, result: T): Promise<T> => {
    await watchBalances(watchDeps(live), accountId);
    return result;
  };
  const settings = async (req: HttpRequest, p: Principal) => ok({ account_id: req.params.account_id!, settings: await listCreditSettings(db, p.environmentId, req.params.account_id!) });
  const setSetting = async (req: HttpRequest, p: Principal) => {
    const s = await setLowBalanceThreshold(db, p.environmentId, req.params.account_id!, body(req, SettingUpdate), actor(p));
    return ok(await watched(p, s.account_id, s));
  };
  const topup = async (req: HttpRequest, p: Principal) => {
    const t = await createTopup(db, p.environmentId, body(req, TopupCreate), actor(p));
    await watched(p, t.account_id, null);
    return created(await getTopup(db, p.environmentId, t.id));
  };
  const refund = async (req: HttpRequest, p: Principal) => {
    const entry = await refundGrant(db, p.environmentId, body(req, Adjustment), actor(p));
    return created({ ...entryView(await watched(p, entry.account_id, entry)), refunded: entry.refunded });
  };
  const refundSummary = 'Refund paid account credit (a paid purchase or an overpayment): `amount` is the money paid back, at most what was paid for what is left of the grant (price × left ÷ amount granted); a refund ledger entry (-) of the credit it takes off, with its reason';
  const oneTopup = async (req: HttpRequest, p: Principal) => ok(await getTopup(db, p.environmentId, req.params.topup_id!));
  const disable = async (req: HttpRequest, p: Principal) => ok(await disableTopup(db, p.environmentId, req.params.topup_id!, inv.now()));
  const topupSummary = 'Create a credit top-up rule: recurring (every week or month, amount) or threshold (when the available balance falls below threshold: amount, or up to target_balance); each trigger grants once';
  const settingSummary = "Set (or, with null, remove) an account's low_balance_threshold in a currency: credits.balance_low is sent once each time the available balance falls below it";

  return [
    { method: 'POST', path: '/v1/credits/grants', capability: 'write', status: 201, response: CreditGrant, requestBody: GrantCreate, headers: IdempotencyHeader, errors: [409], summary: grantSummary, handle: grant },
    {
      method: 'GET',
      path: '/v1/credits/grants',
      capability: 'read',
      query: [PageQueryA, GrantQuery],
      response: listOfA('grants', CreditGrant),
      summary: 'List credit grants with what is left of each (limit/offset; filters account_id, currency)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listGrants(db, p.environmentId, query(req, GrantQuery), page, inv.now());
        return ok(listA('grants', rows, total, page));
      },
    },
    { method: 'GET', path: '/v1/credits/grants/:grant_id', capability: 'read', response: CreditGrant, errors: [404], summary: 'One credit grant', handle: one },
    { method: 'POST', path: '/v1/credits/grants/:grant_id/void', capability: 'write', response: CreditGrant, requestBody: GrantVoid, errors: [404, 409], summary: 'Void what is left of a credit grant (a void ledger entry)', handle: voidOne },
    {
      method: 'GET',
      path: '/v1/credits/entries',
      capability: 'read',
      query: [PageQueryA, EntryQuery],
      response: listOfA('entries', CreditEntry),
      summary: 'Credit ledger entries in the order written (limit/offset; filters account_id, grant_id, invoice_id, type, from, to on occurred_at)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listEntries(db, p.environmentId, entryFilter(req), page);
        return ok(listA('entries', rows, total, page));
      },
    },
    { method: 'POST', path: '/v1/credits/adjustments', capability: 'write', status: 201, response: CreditEntry, requestBody: Adjustment, errors: [409], summary: 'Adjust a credit grant by hand (+/-) with a reason: an adjustment ledger entry', handle: adjust },
    { method: 'GET', path: '/v1/accounts/:account_id/credits/balance', capability: 'read', query: [BalanceQuery], response: CreditBalance, errors: [404], summary: "An account's credit balance per currency (optional at: an instant)", handle: balance },

    { method: 'POST', path: '/api/v1/credit/grants/create', capability: 'write', status: 201, response: CreditGrant, requestBody: GrantCreate, headers: IdempotencyHeader, errors: [409], summary: grantSummary, handle: grant },
    {
      method: 'GET',
      path: '/api/v1/credit/grants',
      capability: 'read',
      query: [PageQueryB, GrantQuery],
      response: listOfB('grants', CreditGrant),
      summary: 'List credit grants with what is left of each (skip/limit; filters account_id, currency)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listGrants(db, p.environmentId, query(req, GrantQuery), page, inv.now());
        return ok(listB('grants', rows, total, page));
      },
    },
    { method: 'GET', path: '/api/v1/credit/grants/:grant_id', capability: 'read', response: CreditGrant, errors: [404], summary: 'One credit grant', handle: one },
    { method: 'POST', path: '/api/v1/credit/grants/:grant_id/void', capability: 'write', response: CreditGrant, requestBody: GrantVoid, errors: [404, 409], summary: 'Void what is left of a credit grant (a void ledger entry)', handle: voidOne },
    {
      method: 'GET',
      path: '/api/v1/credit/entries',
      capability: 'read',
      query: [PageQueryB, EntryQuery],
      response: listOfB('entries', CreditEntry),
      summary: 'Credit ledger entries in the order written (skip/limit; filters account_id, grant_id, invoice_id, type, from, to on occurred_at)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listEntries(db, p.environmentId, entryFilter(req), page);
        return ok(listB('entries', rows, total, page));
      },
    },
    { method: 'POST', path: '/api/v1/credit/adjustments/create', capability: 'write', status: 201, response: CreditEntry, requestBody: Adjustment, errors: [409], summary: 'Adjust a credit grant by hand (+/-) with a reason: an adjustment ledger entry', handle: adjust },
    { method: 'GET', path: '/v1/accounts/:account_id/credits/settings', capability: 'read', response: CreditSettings, errors: [404], summary: "An account's credit settings per currency (low_balance_threshold)", handle: settings },
    { method: 'PUT', path: '/v1/accounts/:account_id/credits/settings', capability: 'write', response: CreditSetting, requestBody: SettingUpdate, errors: [404], summary: settingSummary, handle: setSetting },
    { method: 'GET', path: '/api/v1/account/:account_id/credit-settings', capability: 'read', response: CreditSettings, errors: [404], summary: "An account's credit settings per currency (low_balance_threshold)", handle: settings },
    { method: 'POST', path: '/api/v1/account/:account_id/credit-settings/update', capability: 'write', response: CreditSetting, requestBody: SettingUpdate, errors: [404], summary: settingSummary, handle: setSetting },
    { method: 'POST', path: '/v1/credits/refunds', capability: 'write', status: 201, response: CreditEntry, requestBody: Adjustment, errors: [409], summary: refundSummary, handle: refund },
    { method: 'POST', path: '/api/v1/credit/refunds/create', capability: 'write', status: 201, response: CreditEntry, requestBody: Adjustment, errors: [409], summary: refundSummary, handle: refund },
    { method: 'POST', path: '/v1/credits/topups', capability: 'write', status: 201, response: CreditTopup, requestBody: TopupCreate, summary: topupSummary, handle: topup },
    {
      method: 'GET',
      path: '/v1/credits/topups',
      capability: 'read',
      query: [PageQueryA, TopupQuery],
      response: listOfA('topups', CreditTopup),
      summary: 'List credit top-up rules (limit/offset; filter account_id)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listTopups(db, p.environmentId, query(req, TopupQuery), page);
        return ok(listA('topups', rows, total, page));
      },
    },
    { method: 'GET', path: '/v1/credits/topups/:topup_id', capability: 'read', response: CreditTopup, errors: [404], summary: 'One credit top-up rule', handle: oneTopup },
    { method: 'POST', path: '/v1/credits/topups/:topup_id/disable', capability: 'write', response: CreditTopup, errors: [404, 409], summary: 'Disable a credit top-up rule (it grants nothing more)', handle: disable },
    { method: 'POST', path: '/api/v1/credit/topups/create', capability: 'write', status: 201, response: CreditTopup, requestBody: TopupCreate, summary: topupSummary, handle: topup },
    {
      method: 'GET',
      path: '/api/v1/credit/topups',
      capability: 'read',
      query: [PageQueryB, TopupQuery],
      response: listOfB('topups', CreditTopup),
      summary: 'List credit top-up rules (skip/limit; filter account_id)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listTopups(db, p.environmentId, query(req, TopupQuery), page);
        return ok(listB('topups', rows, total, page));
      },
    },
    { method: 'GET', path: '/api/v1/credit/topups/:topup_id', capability: 'read', response: CreditTopup, errors: [404], summary: 'One credit top-up rule', handle: oneTopup },
    { method: 'POST', path: '/api/v1/credit/topups/:topup_id/disable', capability: 'write', response: CreditTopup, errors: [404, 409], summary: 'Disable a credit top-up rule (it grants nothing more)', handle: disable },
    { method: 'GET', path: '/v1/agents/me/credit-balance', capability: 'agent_self', response: AgentCreditBalance, summary: agentSummary, handle: agentBalance },
    { method: 'GET', path: '/api/v1/agent_instance/credit-balance', capability: 'agent_self', response: AgentCreditBalance, summary: agentSummary, handle: agentBalance },
    { method: 'GET', path: '/api/v1/account/:account_id/credit-balance', capability: 'read', query: [BalanceQuery], response: CreditBalance, errors: [404], summary: "An account's credit balance per currency (optional at: an instant)", handle: balance },
  ];
}
