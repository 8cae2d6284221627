/**
 * Pure: from a rating result to stored invoice lines, each carrying the usage query
 * (window, scope, unit, quantity) that produced it, and the invoice's usage record.
 */
import type { InvoiceLine, RateSegmentsResult, Usage } from '../rating/index.ts';
import type { PlanSegment } from './segments.ts';
import { usageTotals } from './usage-map.ts';

/** Whose usage an invoice bills: the subscription's agent instances, or its whole account when it lists none. */
export type UsageScope = { agent_instance_ids: string[] } | { account_id: string };

/** One rated segment's inputs, kept for explanation. */
export interface MeasuredSegment extends PlanSegment {
  usage: Usage;
}

/** The usage query behind one usage line. */
interface LineUsageQuery {
  from: string;
  to: string;
  scope: UsageScope;
  unit: string;
  /** Set when the line bills one instance's share. */
  agent_instance_id: string | null;
  quantity: string;
}

/** An invoice line as stored (position order = rating order). */
export interface StoredLine extends InvoiceLine {
  position: number;
  rate_plan_id: string;
  usage_query: LineUsageQuery | null;
}

/** Lines of all segments, in order, each tagged with its segment's plan and usage query, then the minimum commitment true-up. */
export function invoiceLines(result: RateSegmentsResult, segments: readonly MeasuredSegment[], scope: UsageScope): StoredLine[] {
  const out: StoredLine[] = [];
  result.segments.forEach((seg, i) => {
    const m = segments[i]!;
    for (const line of seg.lines) {
      out.push({
        ...line,
        position: out.length + 1,
        rate_plan_id: m.rate_plan_id,
        usage_query:
          line.unit === null
            ? null
            : { from: m.from, to: m.to, scope, unit: line.unit, agent_instance_id: line.agent_instance_id ?? null, quantity: line.quantity },
      });
    }
  });
  // The minimum commitment true-up spans the segments: tagged with the plan in force at the end.
  const trueUp = result.minimum_commitment;
  if (trueUp && segments.length) out.push({ ...trueUp, position: out.length + 1, rate_plan_id: segments[segments.length - 1]!.rate_plan_id, usage_query: null });
  return out;
}

/** The invoice's usage record: scope and, per segment, its window, plan and quantities. */
export function usageRecord(segments: readonly MeasuredSegment[], scope: UsageScope) {
  return {
    source: 'clickhouse usage query (deduplicated per environment, agent instance, event id); windows are [from, to)',
    scope,
    segments: segments.map((s) => ({ from: s.from, to: s.to, rate_plan_id: s.rate_plan_id, quantities: usageTotals(s.usage), usage: s.usage })),
  };
}
