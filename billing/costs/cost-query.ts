import { decimalFromClickHouse } from '../../shared/clickhouse/decimal.ts';
import { dedupWindow } from '../usage/usage-query.ts';
import { MAX_COST_QUANTITY } from '../../shared/events/limits.ts';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { bucketSql, type Granularity } from '../report-periods.ts';
import { TOKEN_CLASSES, tokenClassSql, type TokenClassField } from '../../shared/events/token-classes.ts';

/** Dimensions a cost aggregate can be grouped by; currency always is, category unless asked not to. */
export interface CostQuery {
  environmentId: string;
  /** Inclusive start, exclusive end of action time. */
  from: Date;
  to: Date;
  agentInstanceIds?: string[];
  accountIds?: string[];
  byAgent?: boolean;
  byAccount?: boolean;
  /** Buckets of action time. */
  granularity?: Granularity;
  /** By cost category (default); false sums the categories (a third of the rows, for blended P&L). */
  byCategory?: boolean;
}

export interface CostRow {
  agent_instance_id?: string;
  account_id?: string;
  /** Bucket start date (YYYY-MM-DD) when a granularity was asked. */
  bucket?: string;
  /** The cost category; '' when the categories are summed (`byCategory: false`). */
  category: string;
  currency: string;
  /** Exact decimal string (up to 18 decimals: {@link COST_SCALE}). */
  amount: string;
  /** Distinct actions that carried a cost in this group; '' when the categories are summed (the rollup counts actions per category). */
  actions: string;
}


/** A rule version as the tuple {@link COST_LINES_SQL} reads (fields r.1 ... r.11). */
const RULE_TUPLE = `tuple(toString(category), toString(currency), toString(basis), action_type, effective_from, effective_to,
  ifNull(rate, toDecimal128(0, 12)), isNotNull(rate), models, model_rates, unit_field)`;

/** Every rule version of the environment {env:String}, as one array (a scalar subquery). */
const envRulesSql = (database: string): string =>
  `(SELECT groupArray(${RULE_TUPLE}) FROM ${database}.cost_rules FINAL WHERE environment_id = {env:String})`;

/** Rule versions per environment (`environment_id`, `rules`), to join actions of many environments with. */
export const rulesByEnvironmentSql = (database: string): string =>
  `(SELECT environment_id, groupArray(${RULE_TUPLE}) AS rules FROM ${database}.cost_rules FINAL GROUP BY environment_id)`;

/**
 * A per-unit rule's quantity: the action's metadata field r.11 (number or decimal string,
 * at most 6 decimals), exactly (NULL otherwise). Ingest bounds `units`; any other field
 * that is not a plain decimal with at most 6 decimals, or is outside 0 to 10^12, counts 0
 * units (never a cut quantity), so no quantity can overflow the product. (A JSON number
 * is printed in plain notation from 10^-6 to 10^21, so no valid quantity is refused.)
 */
const UNITS = `toDecimal128OrNull(extract(trim(BOTH '"' FROM JSONExtractRaw(metadata, r.11)), '^[0-9]+(?:[.][0-9]{1,6})?$'), 6)`;

/**
 * Scale of every cost amount: a rate has at most 12 decimals and a quantity at most 6
 * (per-unit), so an exact product has at most 18. Lines, sums and the rollup
 * (`costs_daily.amount`) keep all 18; Decimal256 leaves room for any sum.
 */
export const COST_SCALE = 18;

/** Whether rule version `v` (a lambda variable) applies to the action: its action type, time and model. */
const applies = (v: string): string => `(${v}.4 = '' OR ${v}.4 = action_type) AND ts >= ${v}.5 AND ts < ${v}.6 AND (${v}.8 OR has(${v}.9, model))`;

/** The basis of every rule version that applies to the action (any category and currency). */
const PRICED_BASES = `arrayMap(q -> q.3, arrayFilter(q -> ${applies('q')}, rules))`;

/** A token class of the action as a Decimal128(0) (shared/events/token-classes.ts). */
const tokenClass = (field: TokenClassField): string => `toDecimal128(${tokenClassSql(field)}, 0)`;

/**
 * A base token count less the classes in it that a rule of their own prices, never below
 * 0. Cache reads and writes are part of `input_tokens`, reasoning part of `output_tokens`
 * (as ingest stores them), and all three of `total_tokens`.
 */
const baseQuantity = (base: 'input_tokens' | 'output_tokens' | 'total_tokens'): string => {
  const classes = TOKEN_CLASSES.filter((c) => base === 'total_tokens' || c.base === base);
  const priced = classes.map((c) => `\n      - if(has(${PRICED_BASES}, '${c.basis}'), ${tokenClass(c.field)}, toDecimal128(0, 0))`);
  return `greatest(toDecimal128(${base}, 0)${priced.join('')}, toDecimal128(0, 0))`;
};

/**
 * Token quantities of the per-token base rules: each token is priced once. A class priced
 * by a rule of its own (`per_cache_read_token`, `per_cache_write_token`,
 * `per_reasoning_token`) that applies to the action, in whatever category or currency, is
 * charged at that rule's rate and left out of the count of every `per_input_token`,
 * `per_output_token` and `per_total_token` rule of the action; a class without a rule of
 * its own stays in its bases, charged at the base rates.
 */
const INPUT_QUANTITY = baseQuantity('input_tokens');
const OUTPUT_QUANTITY = baseQuantity('output_tokens');
const TOTAL_QUANTITY = baseQuantity('total_tokens');

/**
 * The cost lines of one action, an array of (category, currency, amount) tuples, from its
 * columns ts, action_type, model, input_tokens, output_tokens, total_tokens, metadata and
 * an array `rules` of rule versions ({@link envRulesSql}). The one definition of an
 * action's cost: the live query and the daily rollup both use it.
 */
export const COST_LINES_SQL = `if(isNotNull(toDecimal128OrNull(trim(BOTH '"' FROM JSONExtractRaw(metadata, 'cost', 'amount')), 12))
        AND match(upper(JSONExtractString(metadata, 'cost', 'currency')), '^[A-Z]{3}$'),
      [tuple(if(JSONExtractString(metadata, 'cost', 'category') IN ('llm', 'api', 'infrastructure'), JSONExtractString(metadata, 'cost', 'category'), 'llm'),
             upper(JSONExtractString(metadata, 'cost', 'currency')),
             toDecimal256(assumeNotNull(toDecimal128OrNull(trim(BOTH '"' FROM JSONExtractRaw(metadata, 'cost', 'amount')), 12)), ${COST_SCALE}))],
      arrayMap(r -> tuple(r.1, r.2, toDecimal256(
          multiIf(r.3 = 'per_input_token', ${INPUT_QUANTITY},
                  r.3 = 'per_output_token', ${OUTPUT_QUANTITY},
                  r.3 = 'per_total_token', ${TOTAL_QUANTITY},
                  r.3 = 'per_cache_read_token', ${tokenClass('cache_read_input_tokens')},
                  r.3 = 'per_cache_write_token', ${tokenClass('cache_creation_input_tokens')},
                  r.3 = 'per_reasoning_token', ${tokenClass('reasoning_tokens')},
                  r.3 = 'per_api_call', ifNull(toDecimal128OrNull(JSONExtractRaw(metadata, 'api_calls'), 0), toDecimal128(1, 0)),
                  r.3 = 'per_unit', if(ifNull(${UNITS} BETWEEN 0 AND ${MAX_COST_QUANTITY}, false), assumeNotNull(${UNITS}), toDecimal128(0, 6)),
                  toDecimal128(1, 0))
          * if(has(r.9, model), r.10[indexOf(r.9, model)], r.7), ${COST_SCALE})),
        arrayFilter(r -> ${applies('r')}, rules)))`;

/** What the live query needs of the rollup: whether it answers a range, and whether it is caught up. */
export interface CostRollupReader {
  covers(environmentId: string, from: Date, to: Date): Promise<boolean>;
  /** Like covers; `behind`: the rollup answers as it stands while a step is still folding in new actions. */
  coverage?(environmentId: string, from: Date, to: Date): Promise<{ covers: boolean; behind: boolean }>;
}

/** Filled by {@link queryCosts}: whether the answer came from a rollup that was behind the sink. */
export interface CostStatus {
  rollupBehind: boolean;
}

/**
 * The cost of each action, computed in ClickHouse when asked (always live):
 *
 * 1. Actions are deduplicated exactly as usage is (`FINAL` keeps the first-ingested
 *    copy per event identity, over a window widened by the dedup slack; then that
 *    copy's time is filtered to the range), so a cost is counted once per event.
 * 2. An action carrying `metadata.cost` {amount, currency, category} costs exactly
 *    that (one line); rules do not apply to it.
 * 3. Otherwise every cost rule version in effect at the action's time whose
 *    action_type matches (empty: every action) gives one line:
 *    quantity(basis) x rate. Quantity: the token count (a cache or reasoning class priced
 *    by a rule of its own is left out of every base count: see INPUT_QUANTITY); `metadata.api_calls` (default 1);
 *    `metadata[unit_field]` (up to 6 decimals, default 0); 1 per action. Rate: the
 *    model's rate when the rule has one for the action's model, else the rule's `rate`
 *    (neither: no line). Amounts are exact: Decimal256 with {@link COST_SCALE} (18) decimals.
 *
 * Rules are read once per query (a scalar subquery over `cost_rules FINAL`).
 *
 * With a `rollup` that covers the range (whole UTC days, caught up, no pending rule
 * change: see cost-rollup.ts), the same figures come from `costs_daily` instead, in
 * milliseconds rather than seconds.
 */
export async function queryCosts(ch: Pick<ClickHouseClient, 'query'>, database: string, q: CostQuery, rollup?: CostRollupReader, status?: CostStatus): Promise<CostRow[]> {
  if (!(q.from < q.to)) return [];
  const keys: string[] = [];
  if (q.byAgent) keys.push('agent_instance_id');
  if (q.byAccount) keys.push('account_id');
  if (q.granularity) keys.push('bucket');
  const params = {
    env: q.environmentId,
    ...dedupWindow(q.from, q.to),
    agents: q.agentInstanceIds ?? [],
    accounts: q.accountIds ?? [],
  };
  const byCategory = q.byCategory ?? true;
  const groupBy = [...keys, ...(byCategory ? ['category'] : []), 'currency'].join(', ');
  const figures = (category: string, currency: string, amount: string, actions: string) =>
    `${byCategory ? category : "''"} AS category, ${currency} AS currency, ${amount} AS amount, ${byCategory ? actions : "''"} AS actions`;
  const coverage = !rollup ? { covers: false, behind: false } : rollup.coverage ? await rollup.coverage(q.environmentId, q.from, q.to) : { covers: await rollup.covers(q.environmentId, q.from, q.to), behind: false };
  if (status && coverage.covers && coverage.behind) status.rollupBehind = true;
  const sql = coverage.covers
    ? `
    SELECT ${keys.map((k) => k + ',').join(' ')} ${figures('category', 'currency', `toString(sum(toDecimal256(a, ${COST_SCALE})))`, 'toString(sum(n))')}
    FROM (
      SELECT agent_instance_id, account_id, ${q.granularity ? `${bucketSql('day', q.granularity)} AS bucket,` : ''} category, currency, amount AS a, actions AS n
      FROM ${database}.costs_daily
      WHERE environment_id = {env:String} AND day >= toDate({from:DateTime64(3)}) AND day < toDate({to:DateTime64(3)})
        ${q.agentInstanceIds ? 'AND agent_instance_id IN {agents:Array(String)}' : ''}
        ${q.accountIds ? 'AND account_id IN {accounts:Array(String)}' : ''}
    )
    GROUP BY ${groupBy}
    HAVING sum(n) != 0 OR sum(a) != 0
    ORDER BY ${groupBy}`
    : `
    WITH ${envRulesSql(database)} AS rules
    SELECT ${keys.map((k) => k + ',').join(' ')} ${figures('c.1', 'c.2', `toString(sum(toDecimal256(c.3, ${COST_SCALE})))`, 'toString(uniqExact(agent_instance_id, event_id))')}
    FROM (
      SELECT agent_instance_id, account_id, event_id, ${q.granularity ? `${bucketSql('ts', q.granularity)} AS bucket,` : ''}
        arrayJoin(${COST_LINES_SQL}) AS c
      FROM ${database}.actions FINAL
      PREWHERE environment_id = {env:String} AND ts >= {wfrom:DateTime64(3)} AND ts < {wto:DateTime64(3)}
        ${q.agentInstanceIds ? 'AND agent_instance_id IN {agents:Array(String)}' : ''}
      WHERE ts >= {from:DateTime64(3)} AND ts < {to:DateTime64(3)}
        ${q.accountIds ? 'AND account_id IN {accounts:Array(String)}' : ''}
    )
    GROUP BY ${groupBy}
    ORDER BY ${groupBy}`;
  const rs = await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' });
  const rows = await rs.json<CostRow>();
  for (const r of rows) r.amount = decimalFromClickHouse(r.amount);
  return rows;
}
