/**
 * Pure: ClickHouse usage rows to the rating engine's usage, per unit of measure.
 *
 * | unit     | quantity | split by agent instance |
 * |----------|----------|-------------------------|
 * | @action  | distinct action events | yes |
 * | @outcome | sum of the outcome events' `value` (a count when each event has value 1) | yes |
 * | @user    | distinct end users (user_id, else anonymous_id) on actions, over the whole scope, each counted in the segment of their first action in the period | no |
 * | @seat    | seat rule: users with activity in the period (same as @user) | no |
 *
 * Per-instance quantities are exact decimal strings; instances with zero of a unit are
 * left out of that unit's split.
 */
import type { UsageRow } from '../usage/usage-query.ts';
import type { UnitOfMeasure, Usage, UsageBreakdown } from '../rating/index.ts';
import { Dec, formatDecimal } from '../rating/money.ts';

/** Units counted as the period's distinct users (UsageSource.firstSeenUsers), never summed per instance. */
export const SCOPE_WIDE_UNITS: readonly UnitOfMeasure[] = ['@user', '@seat'];

function split(rows: readonly UsageRow[], pick: (r: UsageRow) => string): UsageBreakdown {
  const by: Record<string, string> = {};
  let total = new Dec(0);
  for (const r of rows) {
    const q = new Dec(pick(r));
    if (q.isZero()) continue;
    const id = r.agent_instance_id ?? '';
    by[id] = formatDecimal(new Dec(by[id] ?? 0).plus(q));
    total = total.plus(q);
  }
  return { total: formatDecimal(total), by_agent_instance: by };
}

/**
 * Engine usage of one segment from rows grouped by agent instance and, when a charge of
 * the period counts users or seats, the segment's users (those first active in it).
 */
export function engineUsage(byAgent: readonly UsageRow[], users?: string): Usage {
  const usage: Usage = {
    '@action': split(byAgent, (r) => r.actions),
    '@outcome': split(byAgent, (r) => r.outcome_value),
  };
  if (users !== undefined) {
    usage['@user'] = users;
    usage['@seat'] = users;
  }
  return usage;
}

/** The quantities of a usage, flattened for display: unit -> total. */
export function usageTotals(usage: Usage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [unit, q] of Object.entries(usage)) {
    if (q === undefined) continue;
    if (typeof q !== 'object') out[unit] = String(q);
    else if (q.total !== undefined) out[unit] = String(q.total);
    else out[unit] = formatDecimal(Object.values(q.by_agent_instance ?? {}).reduce<Dec>((s, v) => s.plus(v), new Dec(0)));
  }
  return out;
}
