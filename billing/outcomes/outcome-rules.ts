import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { AppError } from '../../shared/errors.ts';
import { MAX_TYPE_LENGTH } from '../../shared/events/limits.ts';
import { newId } from '../../shared/ids.ts';
import { parseTimestamp } from '../../shared/time.ts';
import { formatDecimal, tryParseDecimal } from '../rating/money.ts';

/**
 * Outcome rules: "an action of type T (whose metadata matches M) is an outcome O of
 * value V". Stored in ClickHouse (`outcome_rules`) as versions in effect over
 * [effective_from, effective_to); the materialized view `derived_outcomes_mv` turns
 * every inserted action that a version in effect at the action's time matches into an
 * outcome row with the deterministic id `drv_<rule id>_<action event id>`, so copies of
 * an action give copies of one outcome and usage (and invoices) count it once.
 * Derivation happens when the action is stored: a rule change applies to actions stored
 * from then on (actions already stored keep the outcomes they derived).
 */
const OPEN_END = '2299-12-31 00:00:00.000';
const MAX_RULES = 1000;
const MatchValue = Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean()]);
const Value = Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { errorMessage: 'must be a non-negative decimal with at most 9 decimals' });

export const OutcomeRuleCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be a string of 1 to 200 characters' }),
  action_type: Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH, errorMessage: `must be an action type of 1 to ${MAX_TYPE_LENGTH} characters` }),
  /** Top-level metadata keys and the exact values they must have (all must match). */
  metadata_match: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 200 }), MatchValue, { maxProperties: 20, errorMessage: 'must be an object of at most 20 key: string|number|boolean' })),
  outcome_type: Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH, errorMessage: `must be an outcome type of 1 to ${MAX_TYPE_LENGTH} characters` }),
  /** The outcome's value (default 1). */
  value: Type.Optional(Value),
  /** Take the value from this top-level metadata key instead (missing or invalid: 0). */
  value_field: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()])),
  effective_from: Type.Optional(Type.String({ maxLength: 40 })),
});
export type OutcomeRuleCreate = Static<typeof OutcomeRuleCreate>;
export const OutcomeRuleUpdate = Type.Partial(OutcomeRuleCreate);
export type OutcomeRuleUpdate = Static<typeof OutcomeRuleUpdate>;

interface Version {
  rule_id: string;
  effective_from: string;
  effective_to: string;
  name: string;
  action_type: string;
  match_keys: string[];
  match_values: string[];
  outcome_type: string;
  value: string;
  value_field: string;
  created_at: string;
}

export interface OutcomeRuleView {
  id: string;
  name: string;
  action_type: string;
  metadata_match: Record<string, unknown>;
  outcome_type: string;
  value: string;
  value_field: string | null;
  effective_from: string;
  effective_to: string | null;
  is_active: boolean;
  created_at: string;
}

const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const isoOf = (ch: string) => new Date(ch.replace(' ', 'T') + 'Z').toISOString();

/** Validated version fields of a rule (pure). Match values are stored as JSON text, as ClickHouse's JSONExtractRaw prints them. */
export function resolveOutcomeRule(b: OutcomeRuleCreate): Omit<Version, 'rule_id' | 'effective_from' | 'effective_to' | 'created_at'> {
  const d = tryParseDecimal(b.value ?? 1);
  if (d === null || d.isNegative() || d.decimalPlaces() > 9 || d.gte('1e18')) throw new AppError('validation_failed', '`value` must be a non-negative decimal with at most 9 decimals');
  const entries = Object.entries(b.metadata_match ?? {});
  return {
    name: b.name,
    action_type: b.action_type,
    match_keys: entries.map(([k]) => k),
    match_values: entries.map(([, v]) => JSON.stringify(v)),
    outcome_type: b.outcome_type,
    value: formatDecimal(d),
    value_field: b.value_field ?? '',
  };
}

function view(vs: Version[], now: number): OutcomeRuleView {
  const nowCh = chTime(now);
  const cur = vs.find((v) => v.effective_from <= nowCh && nowCh < v.effective_to) ?? vs[vs.length - 1]!;
  return {
    id: cur.rule_id,
    name: cur.name,
    action_type: cur.action_type,
    metadata_match: Object.fromEntries(cur.match_keys.map((k, i) => [k, JSON.parse(cur.match_values[i]!)])),
    outcome_type: cur.outcome_type,
    value: cur.value,
    value_field: cur.value_field || null,
    effective_from: isoOf(cur.effective_from),
    effective_to: cur.effective_to === OPEN_END ? null : isoOf(cur.effective_to),
    is_active: vs[vs.length - 1]!.effective_to > nowCh,
    created_at: isoOf(vs[0]!.created_at),
  };
}

let lastRevision = 0;
const nextRevision = () => (lastRevision = Math.max(lastRevision + 1, Date.now() * 1000));

export class OutcomeRuleStore {
  constructor(
    private readonly ch: Pick<ClickHouseClient, 'query' | 'insert'>,
    private readonly database: string,
    private readonly db: Db,
  ) {}

  async #versions(environmentId: string, ruleId?: string): Promise<Version[]> {
    const rs = await this.ch.query({
      query: `SELECT rule_id, toString(effective_from) AS effective_from, toString(effective_to) AS effective_to, name, action_type, match_keys, match_values,
                outcome_type, toString(value) AS value, value_field, toString(created_at) AS created_at
              FROM ${this.database}.outcome_rules FINAL
              WHERE environment_id = {env:String} ${ruleId ? 'AND rule_id = {rule:String}' : ''}
              ORDER BY rule_id, effective_from`,
      query_params: { env: environmentId, rule: ruleId ?? '' },
      format: 'JSONEachRow',
    });
    return (await rs.json<Version>()).map((v) => ({ ...v, value: formatDecimal(tryParseDecimal(v.value)!) }));
  }

  async list(environmentId: string, includeInactive = false, now = Date.now()): Promise<OutcomeRuleView[]> {
    const by = new Map<string, Version[]>();
    for (const v of await this.#versions(environmentId)) by.set(v.rule_id, [...(by.get(v.rule_id) ?? []), v]);
    const views = [...by.values()].map((vs) => view(vs, now)).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    return includeInactive ? views : views.filter((v) => v.is_active);
  }

  async get(environmentId: string, id: string, now = Date.now()): Promise<OutcomeRuleView> {
    const vs = await this.#versions(environmentId, id);
    if (vs.length === 0) throw new AppError('not_found', `no outcome rule ${id}`);
    return view(vs, now);
  }

  async create(environmentId: string, b: OutcomeRuleCreate, now = Date.now()): Promise<OutcomeRuleView> {
    const fields = resolveOutcomeRule(b);
    const from = effectiveFrom(b.effective_from, now);
    const id = newId('or', now);
    await this.#locked(environmentId, async () => {
      if ((await this.list(environmentId, false, now)).length >= MAX_RULES) throw new AppError('conflict', `an environment has at most ${MAX_RULES} active outcome rules`);
      await this.#insert(environmentId, [{ ...fields, rule_id: id, effective_from: chTime(from), effective_to: OPEN_END, created_at: chTime(now) }]);
    });
    return this.get(environmentId, id, now);
  }

  async update(environmentId: string, id: string, b: OutcomeRuleUpdate, now = Date.now()): Promise<OutcomeRuleView> {
    await this.#locked(environmentId, async () => {
      const vs = await this.#versions(environmentId, id);
      const last = vs[vs.length - 1];
      if (!last || last.effective_to !== OPEN_END) throw new AppError('not_found', `no active outcome rule ${id}`);
      const from = effectiveFrom(b.effective_from, now);
      if (chTime(from) <= last.effective_from) throw new AppError('validation_failed', `\`effective_from\` must be after the current version's (${isoOf(last.effective_from)})`);
      const fields = resolveOutcomeRule({
        name: b.name ?? last.name,
        action_type: b.action_type ?? last.action_type,
        metadata_match: b.metadata_match ?? Object.fromEntries(last.match_keys.map((k, i) => [k, JSON.parse(last.match_values[i]!)])),
        outcome_type: b.outcome_type ?? last.outcome_type,
        value: b.value ?? last.value,
        value_field: b.value_field !== undefined ? b.value_field : last.value_field || null,
      });
      await this.#insert(environmentId, [
        { ...last, effective_to: chTime(from) },
        { ...fields, rule_id: id, effective_from: chTime(from), effective_to: OPEN_END, created_at: chTime(now) },
      ]);
    });
    return this.get(environmentId, id, now);
  }

  async remove(environmentId: string, id: string, now = Date.now()): Promise<OutcomeRuleView> {
    await this.#locked(environmentId, async () => {
      const vs = await this.#versions(environmentId, id);
      const last = vs[vs.length - 1];
      if (!last || last.effective_to !== OPEN_END) throw new AppError('not_found', `no active outcome rule ${id}`);
      await this.#insert(environmentId, [{ ...last, effective_to: chTime(Math.max(now, Date.parse(last.effective_from.replace(' ', 'T') + 'Z'))) }]);
    });
    return this.get(environmentId, id, now);
  }

  async #insert(environmentId: string, rows: Version[]): Promise<void> {
    const revision = nextRevision();
    await this.ch.insert({ table: `${this.database}.outcome_rules`, values: rows.map((r) => ({ ...r, environment_id: environmentId, revision })), format: 'JSONEachRow' });
  }

  async #locked(environmentId: string, fn: () => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${'outcome_rules:' + environmentId}))`.execute(tx);
      await fn();
    });
  }
}

function effectiveFrom(s: string | undefined, now: number): number {
  if (s === undefined) return now;
  const t = parseTimestamp(s);
  if (t === undefined) throw new AppError('validation_failed', '`effective_from` must be an ISO 8601 date or date-time');
  if (t >= Date.parse('2299-01-01T00:00:00Z')) throw new AppError('validation_failed', '`effective_from` is too far in the future');
  return t;
}
