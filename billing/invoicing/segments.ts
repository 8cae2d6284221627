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

/** A subscription's status and rate plan at some instant. */
export interface State {
  status: string;
  rate_plan_id: string;
}

/** One change applied to the state before it: each move changes only what it moves; nothing after a cancellation. */
function applyChange(state: State, c: StateChange): State {
  if (c.type === 'renewed' || state.status === 'cancelled') return state;
  return {
    rate_plan_id: c.type === undefined || !STATUS_MOVES.has(c.type) ? c.rate_plan_id : state.rate_plan_id,
    status: c.type !== 'plan_changed' ? c.to_status : state.status,
  };
}

/** Changes in effective order, ties in recorded order (`changes` must be in recorded order). */
function inEffectiveOrder(changes: readonly StateChange[]) {
  return changes.map((c, i) => ({ c, i, at: toEpochMs(c.effective_at) })).sort((a, b) => a.at - b.at || a.i - b.i);
}

/**
 * The status and rate plan in force at `instant`, by the rules billing bills by: the changes
 * effective at or before it applied in effective order. Before the first takes effect (a
 * contract starting later), the subscription is a draft on its first plan.
 */
export function stateAt(changes: readonly StateChange[], instant: number): State {
  const first: State = { status: 'draft', rate_plan_id: changes[0]?.rate_plan_id ?? '' };
  return inEffectiveOrder(changes)
    .filter(({ at }) => at <= instant)
    .reduce((state, { c }) => applyChange(state, c), first);
}

/** A move recorded to take effect after `instant`, as a subscription shows it. */
export interface ScheduledChange {
  type: string;
  effective_at: string;
  status: string;
  rate_plan_id: string;
}

/**
 * The moves that take effect after `instant` and will apply (none after a cancellation),
 * in effective order, each with the status and plan the subscription has once it takes effect.
 */
export function scheduledChanges(changes: readonly StateChange[], instant: number): ScheduledChange[] {
  const out: ScheduledChange[] = [];
  let state: State = { status: 'draft', rate_plan_id: changes[0]?.rate_plan_id ?? '' };
  for (const { c, at } of inEffectiveOrder(changes)) {
    if (state.status === 'cancelled') break;
    state = applyChange(state, c);
    if (at > instant && c.type !== 'renewed') out.push({ type: c.type ?? 'changed', effective_at: c.effective_at, ...state });
  }
  return out;
}

/**
 * Billable segments of `period`, ordered, non-overlapping, non-empty.
 * `changes` must be in recorded order (their tie-break).
 */
export function billableSegments(changes: readonly StateChange[], period: Period): PlanSegment[] {
  const ps = toEpochMs(period.start);
  const pe = toEpochMs(period.end);
  const ordered = inEffectiveOrder(changes);
  const out: { from: number; to: number; plan: string }[] = [];
  let state: State = { status: '', rate_plan_id: '' };
  ordered.forEach(({ c, at }, k) => {
    state = applyChange(state, c);
    const { status, rate_plan_id: plan } = state;
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
