import { Type, type Static } from '@sinclair/typebox';
import { sql } from 'kysely';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { AppError } from '../../shared/errors.ts';
import { COST_CATEGORIES, MAX_TYPE_LENGTH } from '../../shared/events/limits.ts';
import { newId } from '../../shared/ids.ts';
import { parseTimestamp } from '../../shared/time.ts';
import { markCostsStale } from '../reports/cost-rollup.ts';
import { formatDecimal, isCurrencyCode, normalizeCurrency, tryParseDecimal } from '../rating/money.ts';

/**
 * Cost rules: how an action's cost is allocated. Stored in ClickHouse (`cost_rules`) as
 * immutable versions, each in effect over [effective_from, effective_to), so the cost
 * query (cost-query.ts) joins every action with the version in effect at the action's
 * time. Changing a rule closes the current version and opens a new one: costs of earlier
 * actions never change, unless the change is explicitly backdated (`reallocate: true`).
 */
export const COST_BASES = ['per_input_token', 'per_output_token', 'per_total_token', 'per_api_call', 'per_action', 'per_unit'] as const;
export type CostBasis = (typeof COST_BASES)[number];
export { COST_CATEGORIES };
export type CostCategory = (typeof COST_CATEGORIES)[number];

/** Open end of the current version (DateTime64 reaches 2299). */
export const OPEN_END = '2299-12-31 00:00:00.000';
/** How far in the past an effective time may be without `reallocate: true`. */
export const BACKDATE_TOLERANCE_MS = 5 * 60_000;
/** Rates stay below this, so quantity x rate fits ClickHouse's Decimal(38, 18) intermediate. */
export const MAX_RATE = '1000000';
/** Most rates one rule carries (one per model). */
const MAX_MODEL_RATES = 500;
const MAX_RULES = 1000;

const Rate = Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { errorMessage: 'must be a non-negative decimal (number or string) with at most 12 decimals' });
const Name = Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be a string of 1 to 200 characters' });

export const CostRuleFields = {
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
export interface CostRuleVersion {
  rule_id: string;
  effective_from: string;
  effective_to: string;
  name: string;
  category: CostCategory;
  currency: string;
  basis: CostBasis;
  action_type: string;
  rate: string | null;
  models: string[];
  model_rates: string[];
  unit_field: string;
  created_at: string;
}

/** A rule as the API shows it: the current (or last) version and its history. */
export interface CostRuleView {
  id: string;
  name: string;
  category: CostCategory;
  currency: string;
  basis: CostBasis;
  action_type: string | null;
  rate: string | null;
  model_rates: Record<string, string>;
  unit_field: string | null;
  effective_from: string;
  effective_to: string | null;
  is_active: boolean;
  created_at: string;
  versions?: { effective_from: string; effective_to: string | null; rate: string | null; model_rates: Record<string, string> }[];
}

const chTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const isoOf = (ch: string) => new Date(ch.replace(' ', 'T') + 'Z').toISOString();
const openEndMs = Date.parse(OPEN_END.replace(' ', 'T') + 'Z');

/** A rate as a canonical decimal string; a validation error names the field otherwise. */
export function parseRate(v: unknown, path: string): string {
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
export function resolveRuleFields(b: CostRuleCreate): Omit<CostRuleVersion, 'rule_id' | 'effective_from' | 'effective_to' | 'created_at'> {
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
  if (effectiveFrom === undefined) return now;
  const t = parseTimestamp(effectiveFrom);
  if (t === undefined) throw new AppError('validation_failed', '`effective_from` must be an ISO 8601 date or date-time');
  if (t >= openEndMs) throw new AppError('validation_failed', '`effective_from` is too far in the future');
  if (t < now - BACKDATE_TOLERANCE_MS && reallocate !== true) {
    throw new AppError(
      'validation_failed',
      '`effective_from` is in the past: costs already allocated would change. Send `reallocate: true` to re-allocate the costs of actions since then on purpose',
    );
  }
  return t;
}

/** Groups versions by rule into the API view (pure). */
export function toViews(versions: CostRuleVersion[], now: number, withHistory: boolean): CostRuleView[] {
  const byRule = new Map<string, CostRuleVersion[]>();
  for (const v of versions) byRule.set(v.rule_id, [...(byRule.get(v.rule_id) ?? []), v]);
  const out: CostRuleView[] = [];
  for (const [id, vs] of byRule) {
    vs.sort((a, b) => a.effective_from.localeCompare(b.effective_from));
    const nowCh = chTime(now);
    // The version in effect now, else the latest one (future-dated or closed).
    const cur = vs.find((v) => v.effective_from <= nowCh && nowCh < v.effective_to) ?? vs[vs.length - 1]!;
    const last = vs[vs.length - 1]!;
    const rates = (v: CostRuleVersion) => Object.fromEntries(v.models.map((m, i) => [m, v.model_rates[i]!]));
    out.push({
      id,
      name: cur.name,
      category: cur.category,
      currency: cur.currency,
      basis: cur.basis,
      action_type: cur.action_type || null,
      rate: cur.rate,
      model_rates: rates(cur),
      unit_field: cur.unit_field || null,
      effective_from: isoOf(cur.effective_from),
      effective_to: cur.effective_to === OPEN_END ? null : isoOf(cur.effective_to),
      is_active: last.effective_to > nowCh,
      created_at: isoOf(vs[0]!.created_at),
      ...(withHistory
        ? { versions: vs.map((v) => ({ effective_from: isoOf(v.effective_from), effective_to: v.effective_to === OPEN_END ? null : isoOf(v.effective_to), rate: v.rate, model_rates: rates(v) })) }
        : {}),
    });
  }
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

let lastRevision = 0;
/** Increasing revision numbers (ReplacingMergeTree keeps the highest per version key). */
function nextRevision(): number {
  lastRevision = Math.max(lastRevision + 1, Date.now() * 1000);
  return lastRevision;
}

type Ch = Pick<ClickHouseClient, 'query' | 'insert'>;

/** Reads and writes cost rule versions; writes of one environment are serialized by a Postgres advisory lock. */
export class CostRuleStore {
  constructor(
    private readonly ch: Ch,
    private readonly database: string,
    private readonly db: Db,
  ) {}

  async versions(environmentId: string, ruleId?: string): Promise<CostRuleVersion[]> {
    const rs = await this.ch.query({
      query: `SELECT rule_id, toString(effective_from) AS effective_from, toString(effective_to) AS effective_to, name, toString(category) AS category,
                toString(currency) AS currency, toString(basis) AS basis, action_type, if(isNull(rate), NULL, toString(rate)) AS rate, models,
                arrayMap(x -> toString(x), model_rates) AS model_rates, unit_field, toString(created_at) AS created_at
              FROM ${this.database}.cost_rules FINAL
              WHERE environment_id = {env:String} ${ruleId ? 'AND rule_id = {rule:String}' : ''}
              ORDER BY rule_id, effective_from`,
      query_params: { env: environmentId, rule: ruleId ?? '' },
      format: 'JSONEachRow',
    });
    const rows = await rs.json<CostRuleVersion>();
    // toString of DateTime64(3) prints "2026-11-21 10:00:00.000".
    return rows.map((r) => ({ ...r, rate: r.rate === null ? null : formatDecimal(tryParseDecimal(r.rate)!), model_rates: r.model_rates.map((x) => formatDecimal(tryParseDecimal(x)!)) }));
  }

  async list(environmentId: string, opts: { includeInactive?: boolean; withHistory?: boolean } = {}, now = Date.now()): Promise<CostRuleView[]> {
    const views = toViews(await this.versions(environmentId), now, opts.withHistory ?? false);
    return opts.includeInactive ? views : views.filter((v) => v.is_active);
  }

  async get(environmentId: string, id: string, now = Date.now()): Promise<CostRuleView> {
    const v = toViews(await this.versions(environmentId, id), now, true)[0];
    if (!v) throw new AppError('not_found', `no cost rule ${id}`);
    return v;
  }

  async create(environmentId: string, b: CostRuleCreate, now = Date.now()): Promise<CostRuleView> {
    const fields = resolveRuleFields(b);
    const from = resolveEffectiveFrom(b.effective_from, b.reallocate, now);
    const id = newId('cr', now);
    await this.#locked(environmentId, async () => {
      const n = (await this.list(environmentId, {}, now)).length;
      if (n >= MAX_RULES) throw new AppError('conflict', `an environment has at most ${MAX_RULES} active cost rules`);
      await this.#insert(environmentId, [{ ...fields, rule_id: id, effective_from: chTime(from), effective_to: OPEN_END, created_at: chTime(now) }], from);
    });
    return this.get(environmentId, id, now);
  }

  /** A new version from `effective_from` (default now) with the changed fields; the current one ends there. */
  async update(environmentId: string, id: string, b: CostRuleUpdate, now = Date.now()): Promise<CostRuleView> {
    await this.#locked(environmentId, async () => {
      const vs = await this.versions(environmentId, id);
      const last = vs[vs.length - 1];
      if (!last || last.effective_to !== OPEN_END) throw new AppError('not_found', `no active cost rule ${id}`);
      const from = resolveEffectiveFrom(b.effective_from, b.reallocate, now);
      if (chTime(from) <= last.effective_from) throw new AppError('validation_failed', `\`effective_from\` must be after the current version's (${isoOf(last.effective_from)})`);
      const merged: CostRuleCreate = {
        name: b.name ?? last.name,
        category: b.category ?? last.category,
        currency: b.currency ?? last.currency,
        basis: b.basis ?? last.basis,
        rate: b.rate !== undefined ? b.rate : last.rate,
        model_rates: b.model_rates ?? Object.fromEntries(last.models.map((m, i) => [m, last.model_rates[i]!])),
        action_type: b.action_type !== undefined ? b.action_type : last.action_type || null,
        unit_field: b.unit_field !== undefined ? b.unit_field : last.unit_field || null,
      };
      const fields = resolveRuleFields(merged);
      await this.#insert(environmentId, [
        { ...last, effective_to: chTime(from) },
        { ...fields, rule_id: id, effective_from: chTime(from), effective_to: OPEN_END, created_at: chTime(now) },
      ], from);
    });
    return this.get(environmentId, id, now);
  }

  /** Ends the rule now: actions from now on get no cost from it; earlier ones keep theirs. */
  async remove(environmentId: string, id: string, now = Date.now()): Promise<CostRuleView> {
    await this.#locked(environmentId, async () => {
      const vs = await this.versions(environmentId, id);
      const last = vs[vs.length - 1];
      if (!last || last.effective_to !== OPEN_END) throw new AppError('not_found', `no active cost rule ${id}`);
      const end = chTime(Math.max(now, Date.parse(last.effective_from.replace(' ', 'T') + 'Z')));
      await this.#insert(environmentId, [{ ...last, effective_to: end }], Date.parse(end.replace(' ', 'T') + 'Z'));
    });
    return this.get(environmentId, id, now);
  }

  /**
   * Stores rule versions that change costs from `changedFrom` on. The cost rollup is
   * marked stale before (readers fall back to raw events at once) and after (its
   * recompute surely sees the new versions).
   */
  async #insert(environmentId: string, rows: CostRuleVersion[], changedFrom: number): Promise<void> {
    const revision = nextRevision();
    await markCostsStale(this.db, this.database, environmentId, new Date(changedFrom));
    await this.ch.insert({
      table: `${this.database}.cost_rules`,
      values: rows.map((r) => ({ ...r, environment_id: environmentId, revision })),
      format: 'JSONEachRow',
    });
    await markCostsStale(this.db, this.database, environmentId, new Date(changedFrom));
  }

  async #locked(environmentId: string, fn: () => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${'cost_rules:' + environmentId}))`.execute(tx);
      await fn();
    });
  }
}
