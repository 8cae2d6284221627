/**
 * Pure: the billable segments of a subscription within a billing period, from its
 * recorded state changes (`subscription_events`).
 *
 * Events apply in effective order; events with the same effective time apply in the order
 * they were recorded (the later one wins). Each event changes only what its move changes:
 * `plan_changed` the rate plan, `activated`/`paused`/`resumed`/`cancelled` the status, a
 * `renewed` nothing (a pending move recorded earlier keeps its own time; a move's row
 * snapshot would otherwise carry a pending move's status or plan back to an earlier
 * time); `created`, and an event without a type, set both. A cancellation is final:
 * nothing effective after it is billed, whatever was recorded before it. The
 * subscription is billable while its status is `active`; draft, paused and cancelled time
 * is not billed. Adjacent billable time on the same plan is one segment; a plan change or
 * a pause splits it.
 */
import { toEpochMs, type Period } from '../rating/index.ts';

/** One recorded state change, as billing needs it. */
export interface StateChange {
  /** The move (`created`, `activated`, `paused`, `resumed`, `cancelled`, `renewed`, `plan_changed`); absent: sets status and plan. */
  type?: string;
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

const STATUS_MOVES = new Set(['activated', 'paused', 'resumed', 'cancelled']);

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
  let status = '';
  let plan = '';
  ordered.forEach(({ c, at }, k) => {
    const type = c.type;
    if (type !== 'renewed' && status !== 'cancelled') {
      if (type === undefined || !STATUS_MOVES.has(type)) plan = c.rate_plan_id;
      if (type !== 'plan_changed') status = c.to_status;
    }
    if (status !== 'active') return;
    const next = ordered[k + 1];
    const from = Math.max(ps, at);
    const to = Math.min(pe, next ? next.at : Infinity);
    if (!(to > from)) return;
    const last = out[out.length - 1];
    if (last && last.to === from && last.plan === plan) last.to = to;
    else out.push({ from, to, plan });
  });
  return out.map((s) => ({ from: new Date(s.from).toISOString(), to: new Date(s.to).toISOString(), rate_plan_id: s.plan }));
}

/**
 * The rate plan in force at `instant` whatever the status: that of the latest plan change
 * (or creation) effective at or before it, else the creation's. `changes` in recorded order.
 */
export function planInForce(changes: readonly StateChange[], instant: number): string {
  let plan = changes[0]?.rate_plan_id ?? '';
  let best = -Infinity;
  changes.forEach((c) => {
    if (c.type !== undefined && c.type !== 'created' && c.type !== 'plan_changed') return;
    const at = toEpochMs(c.effective_at);
    if (at <= instant && at >= best) {
      best = at;
      plan = c.rate_plan_id;
    }
  });
  return plan;
}
