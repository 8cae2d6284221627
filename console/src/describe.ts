/** Plain descriptions of API rows for the screens (pure: unit-tested in pure.test.ts). */

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

/**
 * Every move recorded for later on a subscription: its `scheduled_changes` (those that will
 * apply, in effective order), then a pause or cancellation the API still records for a later
 * day (`paused_at`, `cancel_date`) that `scheduled_changes` leaves out because an earlier
 * cancellation ends the subscription first: said so, not hidden.
 */
export function describeScheduledMoves(sub: { readonly scheduled_changes: readonly ScheduledChange[]; readonly paused_at?: string | null; readonly cancel_date?: string | null }, now: number): string {
  const listed = sub.scheduled_changes;
  const recorded: [type: string, at: string | null | undefined][] = [
    ['paused', sub.paused_at],
    ['cancelled', sub.cancel_date],
  ];
  const left = recorded
    .filter((r): r is [string, string] => !!r[1] && Date.parse(r[1]) > now && !listed.some((c) => c.type === r[0] && c.effective_at.slice(0, 10) === r[1]!.slice(0, 10)))
    .sort((a, b) => Date.parse(a[1]) - Date.parse(b[1]))
    .map(([type, at]) => `${describeChange({ type, effective_at: at, rate_plan_id: '' })} (recorded; does not apply: cancelled before)`);
  return [...listed.map(describeChange), ...left].join('; ');
}

/** A count and its noun, singular for one ("1 row", "0 rows", "2 rows"). */
export function countText(n: number, noun: string): string {
  return `${n} ${n === 1 ? noun : `${noun}s`}`;
}

/** A subscription move's name in words, for its button ("change-plan" → "Change plan"). */
export function moveLabel(move: string): string {
  const words = move.replaceAll('-', ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
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

/** Report fields' column headers (`/v1/reports/pnl`, `/v1/reports/revenue`). */
const REPORT_LABELS: Readonly<Record<string, string>> = {
  period: 'Period',
  period_start: 'From',
  period_end: 'Until',
  currency: 'Currency',
  revenue: 'Revenue',
  costs: 'Cost',
  margin: 'Margin',
  margin_percent: 'Margin %',
  invoices: 'Invoices',
  agent_id: 'Agent',
  customer_id: 'Customer',
  product_id: 'Product',
  rate_plan_id: 'Rate plan',
  agent_type_id: 'Agent type',
};

/** Cost categories' names in headers (the itemized view's `costs_by_category`). */
const CATEGORY_LABELS: Readonly<Record<string, string>> = { llm: 'LLM', api: 'API', infrastructure: 'infrastructure' };

/** A field name as a header: its label, else its words (`some_field` → `Some field`). */
export function reportLabel(field: string): string {
  return REPORT_LABELS[field] ?? (field.charAt(0).toUpperCase() + field.slice(1)).replaceAll('_', ' ');
}

/** A report column: a field of the row, or one category of its `costs_by_category`. */
export interface ReportColumn {
  readonly field: string;
  readonly category?: string;
  readonly label: string;
}

/**
 * The columns of report rows, in the order their fields first appear; the itemized costs
 * (`costs_by_category: {llm, api, infrastructure}`) become one column per category
 * (`Cost: LLM`), where the object stood.
 */
export function reportColumns(rows: readonly Record<string, unknown>[]): ReportColumn[] {
  const out: ReportColumn[] = [];
  const seen = new Set<string>();
  for (const r of rows) {
    for (const [field, v] of Object.entries(r)) {
      if (field === 'costs_by_category' && v && typeof v === 'object') {
        for (const c of Object.keys(v)) {
          if (seen.has(`${field}.${c}`)) continue;
          seen.add(`${field}.${c}`);
          out.push({ field, category: c, label: `Cost: ${CATEGORY_LABELS[c] ?? c}` });
        }
      } else if (!seen.has(field)) {
        seen.add(field);
        out.push({ field, label: reportLabel(field) });
      }
    }
  }
  // The group key (Customer, Agent…) right after the period, where a reader looks for it.
  const isKey = (c: ReportColumn) => GROUP_KEYS.has(c.field);
  const at = out.findIndex((c) => c.field === 'period') + 1;
  const rest = out.filter((c) => !isKey(c));
  return [...rest.slice(0, at), ...out.filter(isKey), ...rest.slice(at)];
}

/** Report fields that hold a group key (an id to show by name). */
const GROUP_KEYS: ReadonlySet<string> = new Set(['agent_id', 'customer_id', 'product_id', 'rate_plan_id', 'agent_type_id']);

/** Report fields that are instants at midnight UTC (period bounds): shown as their day. */
const DAY_FIELDS: ReadonlySet<string> = new Set(['period_start', 'period_end']);

/** A report cell's text (a category's amount for an itemized column). */
export function reportCell(row: Record<string, unknown>, c: ReportColumn): string {
  const v = c.category === undefined ? row[c.field] : (row[c.field] as Record<string, unknown> | undefined)?.[c.category];
  if (v === null || v === undefined) return '';
  if (DAY_FIELDS.has(c.field) && typeof v === 'string' && /T00:00:00(\.0+)?Z$/.test(v)) return v.slice(0, 10);
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/** A webhook send's answer (`resend`, `test`): the delivery's attempt, its status and HTTP code. */
export interface AttemptOutcome {
  readonly delivery_id: string;
  readonly status: string;
  readonly attempt: number;
  readonly status_code: number | null;
  readonly error: string | null;
  readonly next_attempt_at: string | null;
}

/** What a send did, for the message after it: "attempt 2: delivered (HTTP 200)", "attempt 3: failed (HTTP 500); next attempt at …". */
export function describeAttempt(a: AttemptOutcome): string {
  const why = [a.status_code !== null ? `HTTP ${a.status_code}` : null, a.error && a.error !== 'status' ? a.error : null].filter(Boolean).join(', ');
  const next = a.status !== 'delivered' && a.next_attempt_at ? `; next attempt at ${a.next_attempt_at.slice(0, 19).replace('T', ' ')} UTC` : '';
  return `attempt ${a.attempt}: ${a.status}${why ? ` (${why})` : ''}${next}`;
}
