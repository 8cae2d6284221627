/**
 * Pure: the billable segments of a subscription within a billing period, from its
 * recorded state changes (`subscription_events`).
 *
 * Each event sets the subscription's status and rate plan from its `effective_at` on.
 * Events are applied in effective order; events with the same effective time apply in
 * the order they were recorded (the later one wins). The subscription is billable while
 * its status is `active`; draft, paused and cancelled time is not billed. Adjacent
 * billable time on the same plan is one segment; a plan change or a pause splits it.
 */
import { toEpochMs, type Period } from '../rating/index.ts';

/** One recorded state change, as billing needs it. */
export interface StateChange {
  to_status: string;
  rate_plan_id: string;
  /** ISO 8601. */
  effective_at: string;
}

/** A billable part of a period: [from, to) on one rate plan. */
export interface PlanSegment {
  from: string;
  to: string;
  rate_plan_id: string;
}

/**
 * Billable segments of `period`, ordered, non-overlapping, non-empty.
 * `changes` must be in recorded order (their tie-break).
 */
export function billableSegments(changes: readonly StateChange[], period: Period): PlanSegment[] {
  const ps = toEpochMs(period.start);
  const pe = toEpochMs(period.end);
  const ordered = changes
    .map((c, i) => ({ c, i, at: toEpochMs(c.effective_at) }))
    .sort((a, b) => a.at - b.at || a.i - b.i);
  const out: { from: number; to: number; plan: string }[] = [];
  ordered.forEach(({ c, at }, k) => {
    if (c.to_status !== 'active') return;
    const next = ordered[k + 1];
    const from = Math.max(ps, at);
    const to = Math.min(pe, next ? next.at : Infinity);
    if (!(to > from)) return;
    const last = out[out.length - 1];
    if (last && last.to === from && last.plan === c.rate_plan_id) last.to = to;
    else out.push({ from, to, plan: c.rate_plan_id });
  });
  return out.map((s) => ({ from: new Date(s.from).toISOString(), to: new Date(s.to).toISOString(), rate_plan_id: s.plan }));
}
