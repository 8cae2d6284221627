import { Type } from '@sinclair/typebox';
import { AppError } from '../../shared/errors.ts';
import { parseTimestamp } from '../../shared/time.ts';
import {
  createSubscription,
  getSubscription,
  listSubscriptions,
  moveSubscription,
  subscriptionEvents,
  type SubscriptionAction,
} from '../catalog/subscriptions.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { DEFAULT_NET_DAYS } from '../invoicing/config.ts';
import { created, ok, type ApiDeps, type Endpoint } from './route.ts';
import { Id, SubscriptionCancel, SubscriptionChangePlan, SubscriptionCreate, SubscriptionCreateA, SubscriptionMove } from './schemas.ts';
import { body, optionalBody, query } from './validate.ts';
import { listOfA, listOfB, Subscription, SubscriptionEvent } from './response-schemas.ts';

/** A date of the DateLike schema as a Date; an impossible one (2026-13-01) is a 400. */
function date(v: string | undefined, field = 'date'): Date | undefined {
  if (v === undefined) return undefined;
  const t = parseTimestamp(v);
  // A calendar date must round-trip (Date.parse rolls 2026-02-30 over to March).
  const impossible = t === undefined || (v.length === 10 && new Date(t).toISOString().slice(0, 10) !== v);
  if (impossible) throw new AppError('validation_failed', `${field} is not a valid date`, { details: [{ path: field, message: `${field} is not a valid date` }] });
  return new Date(t);
}

/** The lists' filter: one account's subscriptions. */
const SubscriptionQuery = Type.Object({ account_id: Type.Optional(Id) });

const path = (action: string) => `/api/v1/subscription/:subscription_id/${action}`;

/** Subscriptions on both families, their state machine (Family B) and their recorded state changes. */
export function subscriptionEndpoints({ db, now = () => new Date(), invoicing }: ApiDeps): Endpoint[] {
  // Net days of a prepaid commitment's invoices (issued on activate and cancel).
  const netDays = invoicing?.config?.netDays ?? DEFAULT_NET_DAYS;
  const move = (action: SubscriptionAction, summary: string): Endpoint => ({
    method: 'POST',
    path: path(action === 'change_plan' ? 'change-plan' : action),
    capability: 'write',
    summary,
    requestBody: action === 'cancel' ? SubscriptionCancel : action === 'change_plan' ? SubscriptionChangePlan : SubscriptionMove,
    response: Subscription,
    handle: async (req, p) => {
      const id = req.params.subscription_id!;
      if (action === 'cancel') {
        const b = optionalBody(req, SubscriptionCancel);
        return ok(await moveSubscription(db, p.environmentId, id, 'cancel', { cancelDate: date(b.cancel_date, 'cancel_date'), reason: b.reason, netDays }, now()));
      }
      if (action === 'change_plan') {
        const b = body(req, SubscriptionChangePlan);
        return ok(await moveSubscription(db, p.environmentId, id, 'change_plan', { ratePlanId: b.rate_plan_id, effectiveAt: date(b.effective_date, 'effective_date'), netDays }, now()));
      }
      const b = optionalBody(req, SubscriptionMove);
      return ok(await moveSubscription(db, p.environmentId, id, action, { effectiveAt: date(b.effective_date, 'effective_date'), netDays }, now()));
    },
  });
  return [
    {
      method: 'GET',
      path: '/v1/subscriptions',
      capability: 'read',
      query: [PageQueryA, SubscriptionQuery],
      response: listOfA('subscriptions', Subscription),
      summary: 'List subscriptions (limit/offset; filter account_id)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listSubscriptions(db, p.environmentId, page, now(), query(req, SubscriptionQuery).account_id);
        return ok(listA('subscriptions', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/v1/subscriptions',
      capability: 'write',
      status: 201,
      response: Subscription,
      summary: 'Create a subscription (account_id, rate_plan_id, agent_instance_ids); active at once',
      requestBody: SubscriptionCreateA,
      handle: async (req, p) => {
        const b = body(req, SubscriptionCreateA);
        return created(await createSubscription(db, p.environmentId, { ...b, contract_effective_date: date(b.contract_effective_date, 'contract_effective_date'), activate: true, netDays }, now()));
      },
    },
    {
      method: 'GET',
      path: '/v1/subscriptions/:subscription_id',
      capability: 'read',
      response: Subscription,
      summary: 'One subscription',
      handle: async (req, p) => ok(await getSubscription(db, p.environmentId, req.params.subscription_id!, now())),
    },
    {
      method: 'GET',
      path: '/api/v1/subscription/all',
      capability: 'read',
      query: [PageQueryB, SubscriptionQuery],
      response: listOfB('subscriptions', Subscription),
      summary: 'List subscriptions (skip/limit; filter account_id)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listSubscriptions(db, p.environmentId, page, now(), query(req, SubscriptionQuery).account_id);
        return ok(listB('subscriptions', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/subscription/create',
      capability: 'write',
      status: 201,
      response: Subscription,
      summary: 'Create a draft subscription (account_id, rate_plan_id, contract_effective_date)',
      requestBody: SubscriptionCreate,
      handle: async (req, p) => {
        const b = body(req, SubscriptionCreate);
        return created(await createSubscription(db, p.environmentId, { ...b, contract_effective_date: date(b.contract_effective_date, 'contract_effective_date'), netDays }, now()));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/subscription/:subscription_id',
      capability: 'read',
      response: Subscription,
      summary: 'One subscription',
      handle: async (req, p) => ok(await getSubscription(db, p.environmentId, req.params.subscription_id!, now())),
    },
    {
      method: 'GET',
      path: path('events'),
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('events', SubscriptionEvent),
      summary: 'The recorded state changes of a subscription, with their effective times (skip/limit)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await subscriptionEvents(db, p.environmentId, req.params.subscription_id!, page);
        return ok(listB('events', rows, total, page));
      },
    },
    move('activate', 'Activate a draft subscription (it becomes billable)'),
    move('cancel', 'Cancel (cancel_date, reason)'),
    move('renew', 'Renew an active or paused subscription (a new term; status unchanged)'),
    move('pause', 'Pause an active subscription (optional effective_date)'),
    move('resume', 'Resume a paused subscription (optional effective_date)'),
    move('change_plan', 'Change the rate plan (rate_plan_id, optional effective_date for proration)'),
  ];
}
