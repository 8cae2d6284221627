import { dedupWindow } from '../../shared/clickhouse/usage.ts';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { formatDecimal, tryParseDecimal } from '../rating/money.ts';
import { bucketSql, type Granularity } from '../reports/periods.ts';

/** Dimensions a cost aggregate can be grouped by; category and currency always are. */
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
}

export interface CostRow {
  agent_instance_id?: string;
  account_id?: string;
  /** Bucket start date (YYYY-MM-DD) when a granularity was asked. */
  bucket?: string;
  category: string;
  currency: string;
  /** Exact decimal string (up to 12 decimals). */
  amount: string;
  /** Distinct actions that carried a cost in this group. */
  actions: string;
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
 *    quantity(basis) x rate. Quantity: the token count; `metadata.api_calls` (default 1);
 *    `metadata[unit_field]` (up to 6 decimals, default 0); 1 per action. Rate: the
 *    model's rate when the rule has one for the action's model, else the rule's `rate`
 *    (neither: no line). Amounts are Decimal(38, 12).
 *
 * Rules are read once per query (a scalar subquery over `cost_rules FINAL`).
 */
export async function queryCosts(ch: Pick<ClickHouseClient, 'query'>, database: string, q: CostQuery): Promise<CostRow[]> {
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
  const sql = `
    WITH (
      SELECT groupArray(tuple(toString(category), toString(currency), toString(basis), action_type, effective_from, effective_to,
                              ifNull(rate, toDecimal128(0, 12)), isNotNull(rate), models, model_rates, unit_field))
      FROM ${database}.cost_rules FINAL WHERE environment_id = {env:String}
    ) AS rules
    SELECT ${keys.map((k) => k + ',').join(' ')} c.1 AS category, c.2 AS currency, toString(sum(c.3)) AS amount, toString(uniqExact(agent_instance_id, event_id)) AS actions
    FROM (
      SELECT agent_instance_id, account_id, event_id, ${q.granularity ? `${bucketSql('ts', q.granularity)} AS bucket,` : ''}
        arrayJoin(if(isNotNull(x_amount) AND match(x_currency, '^[A-Z]{3}$'),
          [tuple(if(x_category IN ('llm', 'api', 'infrastructure'), x_category, 'llm'), x_currency, assumeNotNull(x_amount))],
          arrayMap(r -> tuple(r.1, r.2, toDecimal128(
              multiIf(r.3 = 'per_input_token', toDecimal128(tin, 0),
                      r.3 = 'per_output_token', toDecimal128(tout, 0),
                      r.3 = 'per_total_token', toDecimal128(ttot, 0),
                      r.3 = 'per_api_call', ifNull(toDecimal128OrNull(JSONExtractRaw(metadata, 'api_calls'), 0), toDecimal128(1, 0)),
                      r.3 = 'per_unit', ifNull(toDecimal128OrNull(trim(BOTH '"' FROM JSONExtractRaw(metadata, r.11)), 6), toDecimal128(0, 6)),
                      toDecimal128(1, 0))
              * if(has(r.9, model), r.10[indexOf(r.9, model)], r.7), 12)),
            arrayFilter(r -> (r.4 = '' OR r.4 = action_type) AND ts >= r.5 AND ts < r.6 AND (r.8 OR has(r.9, model)), rules)))) AS c
      FROM (
        SELECT agent_instance_id, event_id, ts, account_id, action_type, model,
          input_tokens AS tin, output_tokens AS tout, total_tokens AS ttot, metadata,
          toDecimal128OrNull(trim(BOTH '"' FROM JSONExtractRaw(metadata, 'cost', 'amount')), 12) AS x_amount,
          upper(JSONExtractString(metadata, 'cost', 'currency')) AS x_currency,
          JSONExtractString(metadata, 'cost', 'category') AS x_category
        FROM ${database}.actions FINAL
        PREWHERE environment_id = {env:String} AND ts >= {wfrom:DateTime64(3)} AND ts < {wto:DateTime64(3)}
          ${q.agentInstanceIds ? 'AND agent_instance_id IN {agents:Array(String)}' : ''}
        WHERE ts >= {from:DateTime64(3)} AND ts < {to:DateTime64(3)}
          ${q.accountIds ? 'AND account_id IN {accounts:Array(String)}' : ''}
      )
    )
    GROUP BY ${[...keys, 'category', 'currency'].join(', ')}
    ORDER BY ${[...keys, 'category', 'currency'].join(', ')}`;
  const rs = await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' });
  const rows = await rs.json<CostRow>();
  return rows.map((r) => ({ ...r, amount: formatDecimal(tryParseDecimal(r.amount)!) }));
}
