import { Type, type Static } from '@sinclair/typebox';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { AppError } from '../../shared/errors.ts';
import { MAX_TYPE_LENGTH } from '../../shared/events/limits.ts';
import { formatDecimal, tryParseDecimal } from '../rating/money.ts';
import { parseEffectiveFrom, VersionedRuleStore, type RuleFields, type RuleKind, type RuleVersion, type RuleView } from '../rules/versioned-rules.ts';

/**
 * Outcome rules: "an action of type T (whose metadata matches M) is an outcome O of
 * value V". Stored in ClickHouse (`outcome_rules`) as versions in effect over
 * [effective_from, effective_to) (billing/rules/versioned-rules.ts); the materialized
 * view `derived_outcomes_mv` turns every inserted action that a version in effect at the
 * action's time matches into an outcome row with the deterministic id
 * `drv_<rule id>_<action event id>`, so copies of an action give copies of one outcome
 * and usage (and invoices) count it once. Derivation happens when the action is stored:
 * a rule change applies to actions stored from then on (actions already stored keep the
 * outcomes they derived).
 */

/** Effective times stay before this (stricter than cost rules' open end). */
const LATEST_EFFECTIVE_FROM_MS = Date.parse('2299-01-01T00:00:00Z');
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

interface Version extends RuleVersion {
  name: string;
  action_type: string;
  match_keys: string[];
  match_values: string[];
  outcome_type: string;
  value: string;
  value_field: string;
}

interface OutcomeRuleView extends RuleView {
  name: string;
  action_type: string;
  metadata_match: Record<string, unknown>;
  outcome_type: string;
  value: string;
  value_field: string | null;
}

/** Validated version fields of a rule (pure). Match values are stored as JSON text, as ClickHouse's JSONExtractRaw prints them. */
export function resolveOutcomeRule(b: OutcomeRuleCreate): RuleFields<Version> {
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

const metadataMatchOf = (v: Version): Record<string, string | number | boolean> => Object.fromEntries(v.match_keys.map((k, i) => [k, JSON.parse(v.match_values[i]!)]));

const outcomeRules: RuleKind<Version, OutcomeRuleCreate, OutcomeRuleUpdate, OutcomeRuleView> = {
  table: 'outcome_rules',
  noun: 'outcome rule',
  idPrefix: 'or',
  columns: 'name, action_type, match_keys, match_values, outcome_type, toString(value) AS value, value_field',
  read: (v) => ({ ...v, value: formatDecimal(tryParseDecimal(v.value)!) }),
  resolve: resolveOutcomeRule,
  effectiveFrom: (b, now) => parseEffectiveFrom(b.effective_from, now, LATEST_EFFECTIVE_FROM_MS),
  merge: (last, b) => ({
    name: b.name ?? last.name,
    action_type: b.action_type ?? last.action_type,
    metadata_match: b.metadata_match ?? metadataMatchOf(last),
    outcome_type: b.outcome_type ?? last.outcome_type,
    value: b.value ?? last.value,
    value_field: b.value_field !== undefined ? b.value_field : last.value_field || null,
  }),
  fields: (v) => ({
    name: v.name,
    action_type: v.action_type,
    metadata_match: metadataMatchOf(v),
    outcome_type: v.outcome_type,
    value: v.value,
    value_field: v.value_field || null,
  }),
};

/** Reads and writes outcome rule versions (see versioned-rules.ts). */
export class OutcomeRuleStore extends VersionedRuleStore<Version, OutcomeRuleCreate, OutcomeRuleUpdate, OutcomeRuleView> {
  constructor(ch: Pick<ClickHouseClient, 'query' | 'insert'>, database: string, db: Db) {
    super(outcomeRules, ch, database, db);
  }

  list(environmentId: string, includeInactive = false, now = Date.now()): Promise<OutcomeRuleView[]> {
    return this.views(environmentId, { includeInactive }, now);
  }
}
