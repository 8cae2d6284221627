import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { AppError } from '../../shared/errors.ts';
import type { HttpRequest } from '../../shared/http/types.ts';
import { queryCosts, type CostStatus } from '../costs/cost-query.ts';
import { CostRuleCreate, CostRuleStore, CostRuleUpdate } from '../costs/cost-rules.ts';
import { OutcomeRuleCreate, OutcomeRuleStore, OutcomeRuleUpdate } from '../outcomes/outcome-rules.ts';
import { formatDecimal } from '../rating/money.ts';
import { analysisView, PnlAnalyses } from '../reports/analyses.ts';
import { agentEmbed } from '../reports/embeds.ts';
import { bucketLabel, parseBucketDate, type Granularity } from '../report-periods.ts';
import { computePnl } from '../reports/pnl.ts';
import { loadRevenue, REVENUE_GROUP_KEY, revenueEntries, totalsByCurrency, type RevenueGroup } from '../reports/revenue.ts';
import { created, ok, type ApiDeps, type Endpoint } from './route.ts';
import { DateLike, Id } from './schemas.ts';
import { body, optionalBody, query } from './validate.ts';
import { range } from './date-range.ts';
import { AgentEmbed, CostRule, CostRuleList, CostsReport, OutcomeRule, OutcomeRuleList, PnlAnalysis, PnlAnalysisStarted, PnlReport, RevenueReport } from './response-schemas.ts';

const MAX_EMBED_DAYS = 90;

const lit = <T extends string>(values: readonly T[], what: string) => Type.Union(values.map((v) => Type.Literal(v)), { errorMessage: `must be ${what}` });
const Range = {
  start_date: Type.Optional(DateLike),
  end_date: Type.Optional(DateLike),
};
const CostsQuery = Type.Object({ ...Range, agent_id: Type.Optional(Id), customer_id: Type.Optional(Id) });
const RevenueQuery = Type.Object({
  ...Range,
  group_by: Type.Optional(lit(['agent', 'customer', 'product', 'rate_plan', 'agent_type', 'none'] as const, 'agent, customer, product, rate_plan, agent_type or none')),
  granularity: Type.Optional(lit(['week', 'month', 'quarter'] as const, 'week, month or quarter')),
  customer_id: Type.Optional(Id),
});
const PnlQuery = Type.Object({
  ...Range,
  group_by: Type.Optional(lit(['agent', 'customer', 'none'] as const, 'agent, customer or none')),
  granularity: Type.Optional(lit(['week', 'month', 'quarter'] as const, 'week, month or quarter')),
  costs: Type.Optional(lit(['blended', 'itemized'] as const, 'blended or itemized')),
  agent_id: Type.Optional(Id),
  customer_id: Type.Optional(Id),
});
const PnlAnalysisCreate = Type.Object({
  analysis_type: lit(['agent', 'customer', 'environment'] as const, 'agent, customer or environment'),
  agent_instance_id: Type.Optional(Id),
  account_id: Type.Optional(Id),
  customer_id: Type.Optional(Id),
  start_date: DateLike,
  end_date: DateLike,
  granularity: Type.Optional(lit(['week', 'month', 'quarter'] as const, 'week, month or quarter')),
});
const EmbedQuery = Type.Object({ duration: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}days?$', errorMessage: 'must be a number of days, e.g. 7days' })) });
const RuleListQuery = Type.Object({ include_inactive: Type.Optional(Type.Boolean()) });

/** A cost record's id: stable for the same (agent, customer, type, currency, period) of an environment. */
function costRecordId(env: string, parts: string[]): string {
  return 'cost_' + createHash('sha256').update([env, ...parts].join('\u0000')).digest('hex').slice(0, 24);
}

/**
 * Costs, reports, P&L analyses, embeds, cost rules and outcome rules. Every endpoint
 * reads `read` or writes `write` (SDK keys: 403); every query is scoped to the key's
 * environment.
 */
export function reportEndpoints({ db, ch, chDatabase, costRollup }: ApiDeps): Endpoint[] {
  const costRules = new CostRuleStore(ch, chDatabase, db);
  const outcomeRules = new OutcomeRuleStore(ch, chDatabase, db);
  const analyses = new PnlAnalyses(db, ch, chDatabase, costRollup);
  const ruleId = (req: HttpRequest) => req.params.rule_id!;

  return [
    // --- Cost rules (Family A) ---
    {
      method: 'GET',
      path: '/v1/cost_rules',
      capability: 'read',
      query: [RuleListQuery],
      response: CostRuleList,
      summary: 'Cost rules of this environment (active ones; include_inactive=true for ended ones)',
      handle: async (req, p) => {
        const q = query(req, RuleListQuery);
        const rules = await costRules.list(p.environmentId, { includeInactive: q.include_inactive ?? false });
        return ok({ cost_rules: rules, total: rules.length });
      },
    },
    {
      method: 'POST',
      path: '/v1/cost_rules',
      capability: 'write',
      status: 201,
      response: CostRule,
      summary: 'Create a cost rule (category, currency, basis, rate or model_rates, optional action_type, unit_field, effective_from)',
      requestBody: CostRuleCreate,
      handle: async (req, p) => created(await costRules.create(p.environmentId, body(req, CostRuleCreate))),
    },
    {
      method: 'GET',
      path: '/v1/cost_rules/:rule_id',
      capability: 'read',
      response: CostRule,
      summary: 'One cost rule with every version (effective_from, effective_to, rates)',
      handle: async (req, p) => ok(await costRules.get(p.environmentId, ruleId(req))),
    },
    {
      method: 'PUT',
      path: '/v1/cost_rules/:rule_id',
      capability: 'write',
      response: CostRule,
      summary: 'Change a cost rule from effective_from (default now); earlier actions keep their costs',
      requestBody: CostRuleUpdate,
      handle: async (req, p) => ok(await costRules.update(p.environmentId, ruleId(req), body(req, CostRuleUpdate))),
    },
    {
      method: 'DELETE',
      path: '/v1/cost_rules/:rule_id',
      capability: 'write',
      response: CostRule,
      summary: 'End a cost rule now; earlier actions keep their costs',
      handle: async (req, p) => ok(await costRules.remove(p.environmentId, ruleId(req))),
    },
    // --- Costs ---
    {
      method: 'GET',
      path: '/v1/costs',
      capability: 'read',
      query: [CostsQuery],
      response: CostsReport,
      summary: 'Cost records per agent, customer, cost type, currency and month (YYYY-MM), and the total per currency',
      handle: async (req, p) => {
        const q = query(req, CostsQuery);
        const { from, to } = range(q);
        const status: CostStatus = { rollupBehind: false };
        const rows = await queryCosts(ch, chDatabase, {
          environmentId: p.environmentId,
          from,
          to,
          byAgent: true,
          byAccount: true,
          granularity: 'month',
          ...(q.agent_id ? { agentInstanceIds: [q.agent_id] } : {}),
          ...(q.customer_id ? { accountIds: [q.customer_id] } : {}),
        }, costRollup, status);
        const costs = rows.map((r) => {
          const period = bucketLabel(parseBucketDate(r.bucket!), 'month');
          return {
            id: costRecordId(p.environmentId, [r.agent_instance_id!, r.account_id!, r.category, r.currency, period]),
            agent_id: r.agent_instance_id!,
            customer_id: r.account_id || null,
            cost_type: r.category,
            amount: r.amount,
            currency: r.currency,
            period,
            actions: Number(r.actions),
          };
        });
        return ok({ start_date: from.toISOString(), end_date: to.toISOString(), costs, total: totalsByCurrency(costs, (d) => formatDecimal(d)), costs_behind: status.rollupBehind });
      },
    },
    // --- Reports ---
    {
      method: 'GET',
      path: '/v1/reports/revenue',
      capability: 'read',
      query: [RevenueQuery],
      response: RevenueReport,
      summary: 'Invoiced revenue by period (week, month, quarter) and agent, customer, product, rate plan or agent type; totals per currency',
      handle: async (req, p) => {
        const q = query(req, RevenueQuery);
        const { from, to } = range(q);
        const group = (q.group_by ?? 'none') as RevenueGroup;
        const g = (q.granularity ?? 'month') as Granularity;
        const { invoices, maps } = await loadRevenue(db, { environmentId: p.environmentId, from, to, ...(q.customer_id ? { accountIds: [q.customer_id] } : {}) }, group);
        const entries = revenueEntries(invoices, group, g, maps);
        const keyName = group === 'none' ? undefined : REVENUE_GROUP_KEY[group];
        return ok({
          start_date: from.toISOString(),
          end_date: to.toISOString(),
          group_by: group,
          granularity: g,
          total: totalsByCurrency(invoices.map((i) => ({ currency: i.currency, amount: i.total }))),
          invoice_count: invoices.length,
          breakdown: entries.map(({ key, ...e }) => (keyName ? { ...e, [keyName]: key } : e)),
        });
      },
    },
    {
      method: 'GET',
      path: '/v1/reports/pnl',
      capability: 'read',
      query: [PnlQuery],
      response: PnlReport,
      summary: 'Revenue, costs (blended or itemized llm/api/infrastructure), margin and margin percent per period and currency',
      handle: async (req, p) => {
        const q = query(req, PnlQuery);
        const { from, to } = range(q);
        return ok(
          await computePnl(db, ch, chDatabase, {
            environmentId: p.environmentId,
            from,
            to,
            granularity: (q.granularity ?? 'month') as Granularity,
            groupBy: q.group_by ?? 'none',
            costs: q.costs ?? 'itemized',
            ...(q.agent_id ? { agentInstanceIds: [q.agent_id] } : {}),
            ...(q.customer_id ? { accountIds: [q.customer_id] } : {}),
            },
            costRollup,
          ),
        );
      },
    },
    // --- P&L analyses (Family B) ---
    {
      method: 'POST',
      path: '/api/v1/pnl',
      capability: 'read',
      status: 201,
      response: PnlAnalysisStarted,
      summary: 'Start a P&L analysis of an agent instance or customer (status pending; read it with GET /api/v1/pnl/{id})',
      requestBody: PnlAnalysisCreate,
      handle: async (req, p) => {
        const b = body(req, PnlAnalysisCreate);
        const { from, to } = range(b);
        const accountId = b.account_id ?? b.customer_id;
        if (b.analysis_type === 'agent' && !b.agent_instance_id) throw new AppError('validation_failed', '`agent_instance_id` is required for an agent analysis');
        if (b.analysis_type === 'customer' && !accountId) throw new AppError('validation_failed', '`account_id` (or `customer_id`) is required for a customer analysis');
        const row = await analyses.create(p.environmentId, {
          analysisType: b.analysis_type,
          ...(b.analysis_type === 'agent' ? { agentInstanceId: b.agent_instance_id! } : {}),
          ...(b.analysis_type === 'customer' ? { accountId: accountId! } : {}),
          from,
          to,
          granularity: (b.granularity ?? 'month') as Granularity,
        });
        const v = analysisView(row);
        return created({ id: v.id, status: v.status, created_at: v.created_at, analysis_type: v.analysis_type, agent_instance_id: v.agent_instance_id, account_id: v.account_id, start_date: v.start_date, end_date: v.end_date });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/pnl/:analysis_id',
      capability: 'read',
      response: PnlAnalysis,
      summary: 'A P&L analysis: status (pending, running, completed, failed) and, once completed, its result',
      handle: async (req, p) => ok(analysisView(await analyses.get(p.environmentId, req.params.analysis_id!))),
    },
    {
      method: 'GET',
      path: '/api/v1/embeds/:agent_instance_id',
      capability: 'read',
      query: [EmbedQuery],
      response: AgentEmbed,
      summary: 'Per-day metrics of an agent instance over the last N days (duration=7days): actions, outcomes, cost, revenue, margin',
      handle: async (req, p) => {
        const q = query(req, EmbedQuery);
        const days = q.duration ? Number.parseInt(q.duration, 10) : 7;
        if (days > MAX_EMBED_DAYS) throw new AppError('validation_failed', `\`duration\` is at most ${MAX_EMBED_DAYS}days`);
        const agentId = req.params.agent_instance_id!;
        const agent = await db.selectFrom('agent_instances').select('id').where('environment_id', '=', p.environmentId).where('id', '=', agentId).executeTakeFirst();
        if (!agent) throw new AppError('not_found', `no agent instance ${agentId}`);
        return ok(await agentEmbed(db, ch, chDatabase, p.environmentId, agentId, days, costRollup));
      },
    },
    // --- Outcome rules (Family B, next to tagged outcomes) ---
    {
      method: 'GET',
      path: '/api/v1/outcome_rules',
      capability: 'read',
      query: [RuleListQuery],
      response: OutcomeRuleList,
      summary: 'Rules deriving outcomes from actions (active ones; include_inactive=true for ended ones)',
      handle: async (req, p) => {
        const q = query(req, RuleListQuery);
        const rules = await outcomeRules.list(p.environmentId, q.include_inactive ?? false);
        return ok({ total: rules.length, outcome_rules: rules });
      },
    },
    {
      method: 'POST',
      path: '/api/v1/outcome_rules',
      capability: 'write',
      status: 201,
      response: OutcomeRule,
      summary: 'Create an outcome rule: action_type, optional metadata_match, outcome_type, value or value_field, effective_from',
      requestBody: OutcomeRuleCreate,
      handle: async (req, p) => created(await outcomeRules.create(p.environmentId, body(req, OutcomeRuleCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/outcome_rules/:rule_id',
      capability: 'read',
      response: OutcomeRule,
      summary: 'One outcome rule',
      handle: async (req, p) => ok(await outcomeRules.get(p.environmentId, ruleId(req))),
    },
    {
      method: 'PUT',
      path: '/api/v1/outcome_rules/:rule_id',
      capability: 'write',
      response: OutcomeRule,
      summary: 'Change an outcome rule from effective_from (default now)',
      requestBody: OutcomeRuleUpdate,
      handle: async (req, p) => ok(await outcomeRules.update(p.environmentId, ruleId(req), optionalBody(req, OutcomeRuleUpdate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/outcome_rules/:rule_id',
      capability: 'write',
      response: OutcomeRule,
      summary: 'End an outcome rule now',
      handle: async (req, p) => ok(await outcomeRules.remove(p.environmentId, ruleId(req))),
    },
  ];
}

