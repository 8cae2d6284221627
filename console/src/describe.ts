/** Plain descriptions of API rows for the screens (pure: unit-tested in pure.test.ts). */

/** A P&L row grouped by agent or customer (`/v1/reports/pnl`: `agent_id` or `customer_id`). */
export interface PnlSubjectRow {
  readonly agent_id?: string | null;
  readonly customer_id?: string | null;
  readonly agent_name?: string | null;
  readonly customer_name?: string | null;
  readonly name?: string | null;
}

/** A grouped P&L row's subject: its name when the row has one, else its id; `(none)` for what no agent or customer carries (a null id). */
export function pnlSubject(r: PnlSubjectRow): string {
  return r.name ?? r.agent_name ?? r.customer_name ?? r.agent_id ?? r.customer_id ?? '(none)';
}

/** A move recorded to take effect later (a subscription's `scheduled_changes`). */
export interface ScheduledChange {
  readonly type: string;
  readonly effective_at: string;
  readonly rate_plan_id: string;
}

const VERB: Readonly<Record<string, string>> = { paused: 'pause', resumed: 'resume', cancelled: 'cancel', activated: 'activate', renewed: 'renew' };

/** One scheduled change: "pause on 2027-06-01", "plan → plan_2 on 2027-03-16". */
export function describeChange(c: ScheduledChange): string {
  const day = c.effective_at.slice(0, 10);
  if (c.type === 'plan_changed') return `plan → ${c.rate_plan_id} on ${day}`;
  return `${VERB[c.type] ?? c.type} on ${day}`;
}

/** All of a subscription's scheduled changes, in the order they take effect ('' when none). */
export function describeScheduled(changes: readonly ScheduledChange[]): string {
  return changes.map(describeChange).join('; ');
}

/** The change type each subscription move records. */
const MOVE_TYPE: Readonly<Record<string, string>> = { pause: 'paused', resume: 'resumed', cancel: 'cancelled', 'change-plan': 'plan_changed', activate: 'activated', renew: 'renewed' };

/**
 * What a subscription move did, for the message shown after it: the change it scheduled and
 * when, or that it took effect now (the subscription's status then).
 */
export function describeMove(move: string, sub: { readonly status: string; readonly scheduled_changes: readonly ScheduledChange[] }): string {
  const type = MOVE_TYPE[move] ?? move;
  const scheduled = [...sub.scheduled_changes].reverse().find((c) => c.type === type);
  if (scheduled) return `Scheduled: ${describeChange(scheduled)}.`;
  return `Done now: ${move}; the subscription is ${sub.status}.`;
}
