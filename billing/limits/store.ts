/**
 * Spend limits in Postgres (migration 0014): create, read, change and delete limits, the
 * alerts they fired, and their last evaluated state. Every change bumps `updated_at`,
 * which is how the evaluator (evaluator.ts) learns to evaluate the limit again at once.
 */
import type { Selectable } from 'kysely';
import { isCurrency, CURRENCY_MESSAGE, currencyDigits } from '../../shared/currency.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import type { Db } from '../../shared/db/postgres.ts';
import type { SpendLimitAction, SpendLimitAlertsTable, SpendLimitMetric, SpendLimitScope, SpendLimitStatesTable, SpendLimitsTable, SpendLimitWindow } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import { plainDecimal } from '../credits/money-input.ts';
import { checkAccountCurrency } from '../credits/grants.ts';
import { QUANTITY_UNITS, remaining, isReached } from './model.ts';

/** The largest limit value accepted (money in currency units, or a quantity). */
export const MAX_LIMIT_VALUE = '1000000000000000000';
/** At most this many thresholds per limit. */
const MAX_THRESHOLDS = 10;

export type LimitRow = Selectable<SpendLimitsTable>;

/** A limit as the API sends it. */
export function limitView(r: LimitRow) {
  return {
    id: r.id,
    scope: r.scope,
    account_id: r.account_id,
    agent_instance_id: r.agent_instance_id,
    metric: r.metric,
    currency: r.currency,
    unit: r.unit,
    window: r.window,
    value: r.value,
    thresholds: r.thresholds,
    action: r.action,
    description: r.description,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

export interface LimitInput {
  scope: SpendLimitScope;
  account_id?: string | undefined;
  agent_instance_id?: string | undefined;
  metric: SpendLimitMetric;
  currency?: string | undefined;
  unit?: string | undefined;
  window?: SpendLimitWindow | undefined;
  value: string | number;
  thresholds?: number[] | undefined;
  action?: SpendLimitAction | undefined;
  description?: string | null | undefined;
}

export type LimitChange = Partial<Pick<LimitInput, 'value' | 'thresholds' | 'action' | 'description'>>;

function invalid(path: string, message: string): AppError {
  return new AppError('validation_failed', `${path} ${message}`, { details: [{ path, message }] });
}

/**
 * The limit's value as exact decimal text, checked for its currency's minor units (money) or as a quantity. One
 * strict parser, the credits' (money-input.ts): plain digits with at most one '.' between digits ("1e3", "+5", "5.",
 * ".5" and spaces are refused); any '-' is negative ("-0" too).
 */
function limitValue(input: unknown, currency: string | null): string {
  if (typeof input === 'number' && !Number.isSafeInteger(input) && String(input).replace(/[.-]|e.*$/g, '').length > 15) throw invalid('value', 'has more than 15 significant digits: send it as a decimal string');
  if ((typeof input === 'string' && input.startsWith('-')) || (typeof input === 'number' && (input < 0 || Object.is(input, -0)))) throw invalid('value', 'must not be negative');
  const d = plainDecimal(input);
  if (!d) throw invalid('value', 'must be a plain decimal number or string, e.g. "100.00" (no exponent, sign or bare point)');
  if (d.isNeg()) throw invalid('value', 'must not be negative');
  if (d.gt(MAX_LIMIT_VALUE)) throw invalid('value', `must be at most ${MAX_LIMIT_VALUE}`);
  if (currency === null) {
    if (d.decimalPlaces() > 9) throw invalid('value', 'has more than 9 decimals');
    return d.toFixed();
  }
  const digits = currencyDigits(currency) ?? 0;
  if (d.decimalPlaces() > digits) throw invalid('value', `has ${d.decimalPlaces()} decimals; ${currency} has ${digits}`);
  return d.toFixed(digits);
}

function thresholdList(input: number[] | undefined): number[] {
  const t = [...new Set(input ?? [50, 80, 100])].sort((a, b) => a - b);
  if (t.length > MAX_THRESHOLDS) throw invalid('thresholds', `must list at most ${MAX_THRESHOLDS} percentages`);
  for (const x of t) if (!Number.isInteger(x) || x < 1 || x > 1000) throw invalid('thresholds', 'must be whole percentages from 1 to 1000');
  return t;
}

/** The checked row of a new limit: the scope names exactly its subject; money metrics a currency, quantities a unit. */
function checkLimit(input: LimitInput): Omit<LimitRow, 'id' | 'environment_id' | 'created_by' | 'created_at' | 'updated_at' | 'deleted_at'> {
  if (input.scope === 'account' && !input.account_id) throw invalid('account_id', 'is required for an account limit');
  if (input.scope === 'agent_instance' && !input.agent_instance_id) throw invalid('agent_instance_id', 'is required for an agent_instance limit');
  if (input.scope !== 'account' && input.account_id) throw invalid('account_id', `is only for an account limit (scope ${input.scope})`);
  if (input.scope !== 'agent_instance' && input.agent_instance_id) throw invalid('agent_instance_id', `is only for an agent_instance limit (scope ${input.scope})`);
  let currency: string | null = null;
  let unit: string | null = null;
  let window: SpendLimitWindow = input.window ?? 'billing_period';
  if (input.metric === 'quantity') {
    if (!input.unit || !(input.unit in QUANTITY_UNITS)) throw invalid('unit', `must be one of ${Object.keys(QUANTITY_UNITS).join(', ')}`);
    if (input.currency) throw invalid('currency', 'is only for money limits (spend, available_balance)');
    unit = input.unit;
  } else {
    if (input.unit) throw invalid('unit', 'is only for quantity limits');
    if (!input.currency || !isCurrency(input.currency)) throw invalid('currency', CURRENCY_MESSAGE);
    currency = input.currency.toUpperCase();
    // Money is rated by the invoice's own rating: an account's, or (spend) the lines of one of its agent instances.
    const a = input.metric === 'available_balance' ? 'an' : 'a';
    if (input.metric === 'available_balance' && input.scope !== 'account') throw invalid('scope', 'must be account for an available_balance limit (a credit balance is an account\'s)');
    if (input.metric === 'spend' && input.scope === 'environment') throw invalid('scope', 'must be account or agent_instance for a spend limit (money is rated per account, in its currency)');
    if (window !== 'billing_period') throw invalid('window', `must be billing_period for ${a} ${input.metric} limit`);
    window = 'billing_period';
  }
  return {
    scope: input.scope,
    account_id: input.scope === 'account' ? input.account_id! : null,
    agent_instance_id: input.scope === 'agent_instance' ? input.agent_instance_id! : null,
    metric: input.metric,
    currency,
    unit,
    window,
    value: limitValue(input.value, currency),
    thresholds: thresholdList(input.thresholds),
    action: input.action ?? 'notify',
    description: input.description ?? null,
  };
}

/** 404 unless the account and agent instance named are of this environment. */
export async function checkSubject(db: Db, environmentId: string, l: { account_id: string | null; agent_instance_id: string | null }): Promise<void> {
  if (l.account_id) {
    const a = await db.selectFrom('accounts').select('id').where('environment_id', '=', environmentId).where('id', '=', l.account_id).executeTakeFirst();
    if (!a) throw notFound('account', l.account_id);
  }
  if (l.agent_instance_id) {
    const a = await db.selectFrom('agent_instances').select('id').where('environment_id', '=', environmentId).where('id', '=', l.agent_instance_id).executeTakeFirst();
    if (!a) throw notFound('agent instance', l.agent_instance_id);
  }
}

export async function createLimit(db: Db, environmentId: string, input: LimitInput, createdBy: string | null, now: Date) {
  const v = checkLimit(input);
  await checkSubject(db, environmentId, v);
  // Money is rated in the account's currency: a limit in another would never count (or, for a balance, block at once).
  if (v.currency !== null && v.account_id !== null) await checkAccountCurrency(db, environmentId, v.account_id, v.currency);
  if (v.currency !== null && v.agent_instance_id !== null) {
    // An agent instance's spend is what its account's invoice bills for it: in that account's currency.
    const agent = await db.selectFrom('agent_instances').select('account_id').where('id', '=', v.agent_instance_id).executeTakeFirstOrThrow();
    if (!agent.account_id) throw invalid('agent_instance_id', 'has no account: nothing is billed for it, so a spend limit would never count (give the agent instance an account first)');
    await checkAccountCurrency(db, environmentId, agent.account_id, v.currency);
  }
  const row = await db
    .insertInto('spend_limits')
    .values({ id: newId('lim'), environment_id: environmentId, ...v, created_by: createdBy, created_at: now, updated_at: now })
    .returningAll()
    .executeTakeFirstOrThrow();
  return limitView(row);
}

async function liveRow(db: Db, environmentId: string, id: string): Promise<LimitRow> {
  const row = await db.selectFrom('spend_limits').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
  if (!row) throw notFound('spend limit', id);
  return row;
}

export async function getLimit(db: Db, environmentId: string, id: string) {
  return limitView(await liveRow(db, environmentId, id));
}

export async function listLimits(db: Db, environmentId: string, filter: { account_id?: string | undefined; agent_instance_id?: string | undefined }, page: Page) {
  let q = db.selectFrom('spend_limits').where('environment_id', '=', environmentId).where('deleted_at', 'is', null);
  if (filter.account_id) q = q.where('account_id', '=', filter.account_id);
  if (filter.agent_instance_id) q = q.where('agent_instance_id', '=', filter.agent_instance_id);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(limitView), total };
}

/** Changes a limit's value, thresholds, action or description; the evaluator looks at it again at once (updated_at). */
export async function updateLimit(db: Db, environmentId: string, id: string, change: LimitChange, now: Date) {
  const row = await liveRow(db, environmentId, id);
  const set: Partial<Pick<LimitRow, 'value' | 'thresholds' | 'action' | 'description'>> = {};
  if (change.value !== undefined) set.value = limitValue(change.value, row.currency);
  if (change.thresholds !== undefined) set.thresholds = thresholdList(change.thresholds);
  if (change.action !== undefined) set.action = change.action;
  if (change.description !== undefined) set.description = change.description;
  const updated = await db
    .updateTable('spend_limits')
    .set({ ...set, updated_at: now })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return limitView(updated);
}

/** Deletes a limit: it blocks, flags and alerts no more; its alerts stay listed. */
export async function deleteLimit(db: Db, environmentId: string, id: string, now: Date) {
  await liveRow(db, environmentId, id);
  const row = await db.updateTable('spend_limits').set({ deleted_at: now, updated_at: now }).where('id', '=', id).returningAll().executeTakeFirstOrThrow();
  return { ...limitView(row), deleted: true };
}

export function alertView(a: Selectable<SpendLimitAlertsTable>) {
  return {
    id: a.id,
    limit_id: a.limit_id,
    event: a.event,
    threshold: a.threshold,
    period_start: a.period_start.toISOString(),
    value: a.value,
    limit_value: a.limit_value,
    fired_at: a.fired_at.toISOString(),
  };
}

export async function listAlerts(db: Db, environmentId: string, filter: { limit_id?: string | undefined }, page: Page) {
  let q = db.selectFrom('spend_limit_alerts').where('environment_id', '=', environmentId);
  if (filter.limit_id) {
    // A limit that never existed is a 404, as everywhere else; a deleted one's alerts stay listed.
    const known = await db.selectFrom('spend_limits').select('id').where('environment_id', '=', environmentId).where('id', '=', filter.limit_id).executeTakeFirst();
    if (!known) throw notFound('spend limit', filter.limit_id);
    q = q.where('limit_id', '=', filter.limit_id);
  }
  // Alerts of one evaluation share their instant: the lower threshold first (a reset, 0, before what follows it).
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('fired_at').orderBy('threshold').orderBy('id'));
  return { rows: rows.map(alertView), total };
}

/** A limit with its last evaluated state: current value, remaining, reached, blocked, and when its period resets. */
export function stateView(l: LimitRow, s: Selectable<SpendLimitStatesTable> | undefined) {
  const current = s?.current ?? null;
  const reached = s ? isReached(l.metric, s.current, l.value) : false;
  return {
    limit_id: l.id,
    scope: l.scope,
    account_id: l.account_id,
    agent_instance_id: l.agent_instance_id,
    metric: l.metric,
    currency: l.currency,
    unit: l.unit,
    window: l.window,
    value: l.value,
    thresholds: l.thresholds,
    action: l.action,
    current,
    remaining: current === null ? null : l.currency ? formatMoney(new Dec(remaining(l.metric, current, l.value)), l.currency) : remaining(l.metric, current, l.value),
    reached,
    blocked: reached && l.action === 'block',
    period_start: iso(s?.period_start),
    resets_at: iso(s?.period_end),
    evaluated_at: iso(s?.evaluated_at),
  };
}

/** The states of the limits that apply to an agent instance (its own, its account's, its environment's) or to one account. */
export async function limitStates(db: Db, environmentId: string, subject: { account_id?: string | null; agent_instance_id?: string | null; limit_id?: string }) {
  let q = db.selectFrom('spend_limits').selectAll().where('environment_id', '=', environmentId).where('deleted_at', 'is', null);
  if (subject.limit_id) q = q.where('id', '=', subject.limit_id);
  else
    q = q.where((eb) =>
      eb.or([
        eb('scope', '=', 'environment'),
        ...(subject.account_id ? [eb('account_id', '=', subject.account_id)] : []),
        ...(subject.agent_instance_id ? [eb('agent_instance_id', '=', subject.agent_instance_id)] : []),
      ]),
    );
  const limits = await q.orderBy('created_at').orderBy('id').execute();
  if (subject.limit_id && limits.length === 0) throw notFound('spend limit', subject.limit_id);
  const states = limits.length ? await db.selectFrom('spend_limit_states').selectAll().where('limit_id', 'in', limits.map((l) => l.id)).execute() : [];
  const byId = new Map(states.map((s) => [s.limit_id, s]));
  return limits.map((l) => stateView(l, byId.get(l.id)));
}
