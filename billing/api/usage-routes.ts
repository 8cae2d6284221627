import type { Authenticator } from '../../shared/auth/authenticator.ts';
import type { UsageStore } from '../../shared/clickhouse/usage.ts';
import { AppError } from '../../shared/errors.ts';
import { parseTimestamp } from '../../shared/time.ts';
import type { Route } from '../../shared/http/types.ts';

const GROUPS = { agent: 'agent', account: 'account', customer: 'account', none: 'none' } as const;

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
        const from = dateParam(req.query.get('start_date'), 'start_date');
        const to = dateParam(req.query.get('end_date'), 'end_date');
        if (!(from < to)) throw new AppError('validation_failed', '`end_date` must be after `start_date`');
        const g = req.query.get('group_by') ?? 'agent';
        if (!(g in GROUPS)) throw new AppError('validation_failed', '`group_by` must be agent, account, customer or none');
        const agent = req.query.get('agent_id') ?? p.agentInstanceId;
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

function dateParam(v: string | null, name: string): Date {
  if (!v) throw new AppError('validation_failed', `\`${name}\` is required (ISO 8601)`);
  const t = parseTimestamp(v);
  if (t === undefined) throw new AppError('validation_failed', `\`${name}\` must be an ISO 8601 date or date-time`);
  return new Date(t);
}
