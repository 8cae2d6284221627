import type { Authenticator } from '../../shared/auth/authenticator.ts';
import type { UsageStore } from '../usage/usage-query.ts';
import { AppError } from '../../shared/errors.ts';
import type { Route } from '../../shared/http/types.ts';
import { Type } from '@sinclair/typebox';
import { range } from './date-range.ts';
import { DateLike, Id } from './schemas.ts';

const GROUPS = { agent: 'agent', account: 'account', customer: 'account', none: 'none' } as const;

/** The query parameters GET /v1/usage reads (its OpenAPI parameters; range() and GROUPS check them). */
export const UsageQuery = Type.Object({
  start_date: DateLike,
  end_date: DateLike,
  group_by: Type.Optional(Type.Union(Object.keys(GROUPS).map((g) => Type.Literal(g)), { default: 'agent', description: 'customer is the same as account' })),
  agent_id: Type.Optional(Type.String({ description: "one agent instance (an agent secret reads its own agent's usage only)" })),
  account_id: Type.Optional(Id),
  customer_id: Type.Optional(Type.String({ description: 'the same as account_id' })),
});

/**
 * GET /v1/usage: exact usage of this environment over [start_date, end_date), grouped by
 * agent or account (customer). SDK keys and API keys may read usage.
 */
export function usageRoutes(auth: Authenticator, usage: UsageStore): Route[] {
  return [
    {
      method: 'GET',
      path: '/v1/usage',
      summary: 'Usage quantities (actions, outcomes, distinct users, tokens) per agent or account',
      handler: async (req) => {
        const p = await auth.require(req.headers, 'read_usage');
        const { from, to } = range({ start_date: req.query.get('start_date'), end_date: req.query.get('end_date') }, new Date(), { required: true });
        const g = req.query.get('group_by') ?? 'agent';
        if (!(g in GROUPS)) throw new AppError('validation_failed', '`group_by` must be agent, account, customer or none');
        const asked = req.query.get('agent_id');
        // An agent secret reads its own agent's usage, never another's.
        if (p.agentInstanceId !== undefined && asked !== null && asked !== p.agentInstanceId) {
          throw new AppError('forbidden', "an agent secret reads its own agent's usage only");
        }
        const agent = p.agentInstanceId ?? asked;
        const account = req.query.get('account_id') ?? req.query.get('customer_id');
        const rows = await usage.query({
          environmentId: p.environmentId,
          from,
          to,
          groupBy: GROUPS[g as keyof typeof GROUPS],
          ...(agent ? { agentInstanceIds: [agent] } : {}),
          ...(account ? { accountIds: [account] } : {}),
        });
        return { status: 200, body: { start_date: from.toISOString(), end_date: to.toISOString(), group_by: g, usage: rows } };
      },
    },
  ];
}
