import { Type } from '@sinclair/typebox';
import type { HttpRequest } from '../../shared/http/types.ts';
import type { Principal } from '../../shared/auth/keys.ts';
import type { Invoicing } from '../invoicing/context.ts';
import { checkSubject, createLimit, deleteLimit, getLimit, limitStates, listAlerts, listLimits, updateLimit, type LimitInput } from '../limits/store.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, deleted, ok, type ApiDeps, type Endpoint } from './route.ts';
import { Id } from './schemas.ts';
import { body, query } from './validate.ts';
import { AgentLimitStates, Deleted, LimitAlert, LimitState, LimitStates, SpendLimit, listOfA, listOfB } from './response-schemas.ts';

/** A limit's value: a decimal string (exact) or a JSON number. */
const Value = Type.Union([Type.Number(), Type.String({ maxLength: 64 })], { errorMessage: 'must be a decimal number or string, e.g. "100.00"' });
const Thresholds = Type.Array(Type.Integer(), { maxItems: 10, errorMessage: 'must be a list of at most 10 whole percentages, e.g. [50, 80, 100]' });
const Action = Type.Union([Type.Literal('notify'), Type.Literal('flag'), Type.Literal('block')], { errorMessage: 'must be notify, flag or block' });
const Description = Type.Union([Type.String({ maxLength: 500 }), Type.Null()], { errorMessage: 'must be a string of at most 500 characters, or null' });
const LimitCreate = Type.Object(
  {
    scope: Type.Union([Type.Literal('account'), Type.Literal('agent_instance'), Type.Literal('environment')], { errorMessage: 'must be account, agent_instance or environment' }),
    account_id: Type.Optional(Id),
    agent_instance_id: Type.Optional(Id),
    metric: Type.Union([Type.Literal('spend'), Type.Literal('available_balance'), Type.Literal('quantity')], { errorMessage: 'must be spend, available_balance or quantity' }),
    currency: Type.Optional(Type.String({ minLength: 1, maxLength: 10, errorMessage: 'must be an ISO 4217 currency code, e.g. USD' })),
    unit: Type.Optional(Type.String({ minLength: 1, maxLength: 20, errorMessage: 'must be @action, @outcome, @user, tokens, input_tokens or output_tokens' })),
    window: Type.Optional(Type.Union([Type.Literal('day'), Type.Literal('week'), Type.Literal('billing_period')], { errorMessage: 'must be day, week or billing_period' })),
    value: Value,
    thresholds: Type.Optional(Thresholds),
    action: Type.Optional(Action),
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
);
const LimitUpdate = Type.Object(
  { value: Type.Optional(Value), thresholds: Type.Optional(Thresholds), action: Type.Optional(Action), description: Type.Optional(Description) },
  { additionalProperties: false },
);
const LimitQuery = Type.Object({ account_id: Type.Optional(Id), agent_instance_id: Type.Optional(Id) });
const AlertQuery = Type.Object({ limit_id: Type.Optional(Id) });

/**
 * Spend limits on both families (README "Stopping runaway spend"): limits (create, list,
 * one, change, delete), their state (current value, remaining, reached, blocked), the
 * alerts they fired, and an agent's own limit state with its X-Agent-Secret.
 */
export function limitEndpoints(deps: ApiDeps & { invoicing: Invoicing }): Endpoint[] {
  const { db } = deps;
  const now = () => deps.invoicing.now();
  const create = async (req: HttpRequest, p: Principal) => created(await createLimit(db, p.environmentId, body(req, LimitCreate) as LimitInput, p.credentialId, now()));
  const one = async (req: HttpRequest, p: Principal) => ok(await getLimit(db, p.environmentId, req.params.limit_id!));
  const update = async (req: HttpRequest, p: Principal) => ok(await updateLimit(db, p.environmentId, req.params.limit_id!, body(req, LimitUpdate), now()));
  const remove = async (req: HttpRequest, p: Principal) => {
    await deleteLimit(db, p.environmentId, req.params.limit_id!, now());
    return deleted(req.params.limit_id!);
  };
  const state = async (req: HttpRequest, p: Principal) => ok((await limitStates(db, p.environmentId, { limit_id: req.params.limit_id! }))[0]);
  const accountStates = async (req: HttpRequest, p: Principal) => {
    const accountId = req.params.account_id!;
    await checkSubject(db, p.environmentId, { account_id: accountId, agent_instance_id: null });
    return ok({ account_id: accountId, limits: await limitStates(db, p.environmentId, { account_id: accountId }) });
  };
  // What an agent may read with its X-Agent-Secret alone: the limits that apply to it (its own, its account's, its environment's).
  const agentStates = async (_req: HttpRequest, p: Principal) => {
    const limits = await limitStates(db, p.environmentId, { account_id: p.agentAccountId || null, agent_instance_id: p.agentInstanceId! });
    return ok({ agent_instance_id: p.agentInstanceId!, account_id: p.agentAccountId || null, blocked: limits.some((l) => l.blocked), limits });
  };
  const listed = (family: 'A' | 'B') => async (req: HttpRequest, p: Principal) => {
    const page = family === 'A' ? pageA(req) : pageB(req);
    const { rows, total } = await listLimits(db, p.environmentId, query(req, LimitQuery), page);
    return ok(family === 'A' ? listA('limits', rows, total, page) : listB('limits', rows, total, page));
  };
  const alerts = (family: 'A' | 'B') => async (req: HttpRequest, p: Principal) => {
    const page = family === 'A' ? pageA(req) : pageB(req);
    const { rows, total } = await listAlerts(db, p.environmentId, query(req, AlertQuery), page);
    return ok(family === 'A' ? listA('alerts', rows, total, page) : listB('alerts', rows, total, page));
  };
  const createSummary = 'Create a spend limit: money spent per billing period (spend), the available credit balance (available_balance), or a quantity of a unit per day, week or billing period; thresholds alert, the action at 100 % is notify, flag or block';
  const updateSummary = "Change a spend limit's value, thresholds, action or description (evaluated again at once: raising it unblocks)";
  const agentSummary = "The spend limits that apply to the calling agent instance, with remaining budget and whether it is blocked (X-Agent-Secret only)";
  const alertsSummary = 'Alerts fired by spend limits (limit.threshold_reached, limit.exceeded, limit.reset): when, at what value';

  return [
    { method: 'POST', path: '/v1/limits', capability: 'write', status: 201, response: SpendLimit, requestBody: LimitCreate, errors: [404], summary: createSummary, handle: create },
    { method: 'GET', path: '/v1/limits', capability: 'read', query: [PageQueryA, LimitQuery], response: listOfA('limits', SpendLimit), summary: 'List spend limits (limit/offset; filters account_id, agent_instance_id)', handle: listed('A') },
    { method: 'GET', path: '/v1/limits/:limit_id', capability: 'read', response: SpendLimit, errors: [404], summary: 'One spend limit', handle: one },
    { method: 'PATCH', path: '/v1/limits/:limit_id', capability: 'write', response: SpendLimit, requestBody: LimitUpdate, errors: [404], summary: updateSummary, handle: update },
    { method: 'DELETE', path: '/v1/limits/:limit_id', capability: 'write', response: Deleted, errors: [404], summary: 'Delete a spend limit (it blocks, flags and alerts no more; its alerts stay listed)', handle: remove },
    { method: 'GET', path: '/v1/limits/:limit_id/state', capability: 'read', response: LimitState, errors: [404], summary: "A spend limit's state: current value, remaining, reached, blocked, when it resets", handle: state },
    { method: 'GET', path: '/v1/accounts/:account_id/limits', capability: 'read', response: LimitStates, errors: [404], summary: 'The states of the spend limits of an account (and of its environment)', handle: accountStates },
    { method: 'GET', path: '/v1/limit-alerts', capability: 'read', query: [PageQueryA, AlertQuery], response: listOfA('alerts', LimitAlert), errors: [404], summary: alertsSummary + ' (limit/offset; filter limit_id: an unknown one is a 404)', handle: alerts('A') },
    { method: 'GET', path: '/v1/agents/me/limits', capability: 'agent_self', response: AgentLimitStates, summary: agentSummary, handle: agentStates },

    { method: 'POST', path: '/api/v1/limit/create', capability: 'write', status: 201, response: SpendLimit, requestBody: LimitCreate, errors: [404], summary: createSummary, handle: create },
    { method: 'GET', path: '/api/v1/limit/all', capability: 'read', query: [PageQueryB, LimitQuery], response: listOfB('limits', SpendLimit), summary: 'List spend limits (skip/limit; filters account_id, agent_instance_id)', handle: listed('B') },
    { method: 'GET', path: '/api/v1/limit/:limit_id', capability: 'read', response: SpendLimit, errors: [404], summary: 'One spend limit', handle: one },
    { method: 'PUT', path: '/api/v1/limit/:limit_id', capability: 'write', response: SpendLimit, requestBody: LimitUpdate, errors: [404], summary: updateSummary, handle: update },
    { method: 'DELETE', path: '/api/v1/limit/:limit_id', capability: 'write', response: Deleted, errors: [404], summary: 'Delete a spend limit (it blocks, flags and alerts no more; its alerts stay listed)', handle: remove },
    { method: 'GET', path: '/api/v1/limit/:limit_id/state', capability: 'read', response: LimitState, errors: [404], summary: "A spend limit's state: current value, remaining, reached, blocked, when it resets", handle: state },
    { method: 'GET', path: '/api/v1/account/:account_id/limits', capability: 'read', response: LimitStates, errors: [404], summary: 'The states of the spend limits of an account (and of its environment)', handle: accountStates },
    { method: 'GET', path: '/api/v1/limit-alert/all', capability: 'read', query: [PageQueryB, AlertQuery], response: listOfB('alerts', LimitAlert), errors: [404], summary: alertsSummary + ' (skip/limit; filter limit_id: an unknown one is a 404)', handle: alerts('B') },
    { method: 'GET', path: '/api/v1/agent_instance/limits', capability: 'agent_self', response: AgentLimitStates, summary: agentSummary, handle: agentStates },
  ];
}
