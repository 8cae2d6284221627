import { Type, type Static } from '@sinclair/typebox';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { AppError } from '../../shared/errors.ts';
import { COST_CATEGORIES, MAX_TYPE_LENGTH } from '../../shared/events/limits.ts';
import { formatDecimal, isCurrencyCode, normalizeCurrency, tryParseDecimal } from '../rating/money.ts';
import { parseEffectiveFrom, VersionedRuleStore, type RuleFields, type RuleKind, type RuleVersion, type RuleView } from '../rules/versioned-rules.ts';
import { markCostsStale } from './cost-rollup.ts';

/**
 * Cost rules: how an action's cost is allocated. Stored in ClickHouse (`cost_rules`) as
 * immutable versions (billing/rules/versioned-rules.ts), each in effect over [effective_from, effective_to), so the cost
 * query (cost-query.ts) joins every action with the version in effect at the action's
 * time. Changing a rule closes the current version and opens a new one: costs of earlier
 * actions never change, unless the change is explicitly backdated (`reallocate: true`).
 */
export const COST_BASES = [
  'per_input_token', 'per_output_token', 'per_total_token', 'per_api_call', 'per_action', 'per_unit',
  // Token classes (shared/events/token-classes.ts); each, when priced, leaves its base count (cost-query.ts).
  'per_cache_read_token', 'per_cache_write_token', 'per_reasoning_token',
] as const;
type CostBasis = (typeof COST_BASES)[number];
export { COST_CATEGORIES };
type CostCategory = (typeof COST_CATEGORIES)[number];

/** How far in the past an effective time may be without `reallocate: true`. */
const BACKDATE_TOLERANCE_MS = 5 * 60_000;
/** Rates stay below this, so quantity x rate fits ClickHouse's Decimal(38, 18) intermediate. */
const MAX_RATE = '1000000';
/** Most rates one rule carries (one per model). */
const MAX_MODEL_RATES = 500;

const Rate = Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { errorMessage: 'must be a non-negative decimal (number or string) with at most 12 decimals' });
const Name = Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be a string of 1 to 200 characters' });

const CostRuleFields = {
  name: Name,
  category: Type.Union(COST_CATEGORIES.map((c) => Type.Literal(c)), { errorMessage: 'must be llm, api or infrastructure' }),
  currency: Type.String({ minLength: 3, maxLength: 3, errorMessage: 'must be an ISO 4217 code such as USD' }),
  basis: Type.Union(COST_BASES.map((b) => Type.Literal(b)), { errorMessage: `must be one of ${COST_BASES.join(', ')}` }),
  rate: Type.Union([Rate, Type.Null()]),
  model_rates: Type.Record(Type.String({ minLength: 1, maxLength: 200 }), Rate, { maxProperties: MAX_MODEL_RATES, errorMessage: 'must be an object of model name to rate' }),
  action_type: Type.Union([Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH }), Type.Null()], { errorMessage: 'must be an action type or null (every action)' }),
  unit_field: Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()]),
  effective_from: Type.String({ maxLength: 40, errorMessage: 'must be an ISO 8601 date-time' }),
  reallocate: Type.Boolean(),
};

export const CostRuleCreate = Type.Object({
  name: CostRuleFields.name,
  category: CostRuleFields.category,
  currency: CostRuleFields.currency,
  basis: CostRuleFields.basis,
  rate: Type.Optional(CostRuleFields.rate),
  model_rates: Type.Optional(CostRuleFields.model_rates),
  action_type: Type.Optional(CostRuleFields.action_type),
  unit_field: Type.Optional(CostRuleFields.unit_field),
  effective_from: Type.Optional(CostRuleFields.effective_from),
  reallocate: Type.Optional(CostRuleFields.reallocate),
});
export type CostRuleCreate = Static<typeof CostRuleCreate>;
export const CostRuleUpdate = Type.Partial(CostRuleCreate);
export type CostRuleUpdate = Static<typeof CostRuleUpdate>;

/** One stored version of a rule (ClickHouse row, decimals as strings). */
interface CostRuleVersion extends RuleVersion {
  name: string;
  category: CostCategory;
  currency: string;
  basis: CostBasis;
  action_type: string;
  rate: string | null;
  models: string[];
  model_rates: string[];
  unit_field: string;
}

/** A rule as the API shows it: the current (or last) version and its history. */
interface CostRuleView extends RuleView {
  name: string;
  category: CostCategory;
  currency: string;
  basis: CostBasis;
  action_type: string | null;
  rate: string | null;
  model_rates: Record<string, string>;
  unit_field: string | null;
  versions?: { effective_from: string; effective_to: string | null; rate: string | null; model_rates: Record<string, string> }[];
}

/** A rate as a canonical decimal string; a validation error names the field otherwise. */
function parseRate(v: unknown, path: string): string {
  const d = tryParseDecimal(v);
  if (d === null || d.isNegative() || d.decimalPlaces() > 12 || d.gte(MAX_RATE)) {
    const message = `${path} must be a non-negative decimal below ${MAX_RATE} with at most 12 decimals`;
    throw new AppError('validation_failed', message, { details: [{ path, message }] });
  }
  return formatDecimal(d);
}

/**
 * Validates a rule's fields together (pure): a rate or model rates must exist, per_unit
 * takes `unit_field` (default `units`), the currency is an ISO code. Returns the version
 * fields to store.
 */
export function resolveRuleFields(b: CostRuleCreate): RuleFields<CostRuleVersion> {
  if (!isCurrencyCode(b.currency.toUpperCase())) throw new AppError('validation_failed', '`currency` must be an ISO 4217 code such as USD');
  const rate = b.rate === undefined || b.rate === null ? null : parseRate(b.rate, 'rate');
  const entries = Object.entries(b.model_rates ?? {});
  if (entries.length > 0 && !b.basis.endsWith('_token')) throw new AppError('validation_failed', '`model_rates` applies to per-token bases only');
  if (rate === null && entries.length === 0) throw new AppError('validation_failed', 'a rule needs `rate` or `model_rates`');
  const models = entries.map(([m]) => m);
  const modelRates = entries.map(([m, r]) => parseRate(r, `model_rates.${m}`));
  if (b.basis !== 'per_unit' && b.unit_field != null) throw new AppError('validation_failed', '`unit_field` applies to per_unit rules only');
  return {
    name: b.name,
    category: b.category,
    currency: normalizeCurrency(b.currency),
    basis: b.basis,
    action_type: b.action_type ?? '',
    rate,
    models,
    model_rates: modelRates,
    unit_field: b.basis === 'per_unit' ? (b.unit_field ?? 'units') : '',
  };
}

/** The effective time asked for (default now); a past one needs `reallocate: true`. */
export function resolveEffectiveFrom(effectiveFrom: string | undefined, reallocate: boolean | undefined, now: number): number {
  const t = parseEffectiveFrom(effectiveFrom, now);
  if (t < now - BACKDATE_TOLERANCE_MS && reallocate !== true) {
    throw new AppError(
      'validation_failed',
      '`effective_from` is in the past: costs already allocated would change. Send `reallocate: true` to re-allocate the costs of actions since then on purpose',
    );
  }
  return t;
}

const modelRatesOf = (v: CostRuleVersion): Record<string, string> => Object.fromEntries(v.models.map((m, i) => [m, v.model_rates[i]!]));
const canonical = (x: string): string => formatDecimal(tryParseDecimal(x)!);

const costRules: RuleKind<CostRuleVersion, CostRuleCreate, CostRuleUpdate, CostRuleView> = {
  table: 'cost_rules',
  noun: 'cost rule',
  idPrefix: 'cr',
  columns: `name, toString(category) AS category, toString(currency) AS currency, toString(basis) AS basis, action_type,
            if(isNull(rate), NULL, toString(rate)) AS rate, models, arrayMap(x -> toString(x), model_rates) AS model_rates, unit_field`,
  read: (r) => ({ ...r, rate: r.rate === null ? null : canonical(r.rate), model_rates: r.model_rates.map(canonical) }),
  resolve: resolveRuleFields,
  effectiveFrom: (b, now) => resolveEffectiveFrom(b.effective_from, b.reallocate, now),
  merge: (last, b) => ({
    name: b.name ?? last.name,
    category: b.category ?? last.category,
    currency: b.currency ?? last.currency,
    basis: b.basis ?? last.basis,
    rate: b.rate !== undefined ? b.rate : last.rate,
    model_rates: b.model_rates ?? modelRatesOf(last),
    action_type: b.action_type !== undefined ? b.action_type : last.action_type || null,
    unit_field: b.unit_field !== undefined ? b.unit_field : last.unit_field || null,
  }),
  fields: (v) => ({
    name: v.name,
    category: v.category,
    currency: v.currency,
    basis: v.basis,
    action_type: v.action_type || null,
    rate: v.rate,
    model_rates: modelRatesOf(v),
    unit_field: v.unit_field || null,
  }),
  history: (v) => ({ rate: v.rate, model_rates: modelRatesOf(v) }),
  // The cost rollup is marked stale before (readers fall back to raw events at once) and
  // after (its recompute surely sees the new versions) each write.
  changed: markCostsStale,
};

/** Reads and writes cost rule versions (see versioned-rules.ts). */
export class CostRuleStore extends VersionedRuleStore<CostRuleVersion, CostRuleCreate, CostRuleUpdate, CostRuleView> {
  constructor(ch: Pick<ClickHouseClient, 'query' | 'insert'>, database: string, db: Db) {
    super(costRules, ch, database, db);
  }

  list(environmentId: string, opts: { includeInactive?: boolean; withHistory?: boolean } = {}, now = Date.now()): Promise<CostRuleView[]> {
    return this.views(environmentId, opts, now);
  }
}
