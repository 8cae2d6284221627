import { decimalFromClickHouse } from '../../shared/clickhouse/decimal.ts';
import { dedupWindow } from '../usage/usage-query.ts';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { queryCosts, type CostRollupReader, type CostStatus } from '../costs/cost-query.ts';
import { Dec, formatDecimal } from '../rating/money.ts';

const DAY_MS = 86_400_000;

interface EmbedLine {
  amount: string;
  service_start: Date;
  service_end: Date;
}

/**
 * Revenue of one day from invoice lines, each spread evenly over its service period by
 * elapsed time (pure): a dashboard view of when revenue was earned. Six decimals.
 */
export function dailyRevenue(lines: readonly EmbedLine[], dayStart: Date): Dec {
  const dayEnd = dayStart.getTime() + DAY_MS;
  let sum = new Dec(0);
  for (const l of lines) {
    const s = l.service_start.getTime();
    const e = l.service_end.getTime();
    const overlap = Math.min(e, dayEnd) - Math.max(s, dayStart.getTime());
    if (e <= s || overlap <= 0) continue;
    sum = sum.plus(new Dec(l.amount).times(overlap).div(e - s));
  }
  return sum.toDecimalPlaces(6, Dec.ROUND_HALF_UP);
}

/**
 * Real-time metrics of one agent instance for the last `days` UTC days (today included):
 * per day, distinct actions, distinct outcomes and their value, costs (live, per
 * currency), revenue (its invoice lines spread over their service periods, per currency)
 * and margin per currency.
 */
export async function agentEmbed(db: Db, ch: Pick<ClickHouseClient, 'query'>, database: string, environmentId: string, agentId: string, days: number, rollup?: CostRollupReader, now = new Date()) {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  const from = new Date(today - (days - 1) * DAY_MS);
  const to = new Date(today + DAY_MS);
  const params = {
    env: environmentId,
    agent: agentId,
    ...dedupWindow(from, to),
  };
  // Outcomes: the first copy's row decides, and a voided one (schema.ts) counts nothing.
  const counts = (table: 'actions' | 'outcomes', withValue: boolean) => `
    SELECT toString(toDate(t)) AS day, toString(count()) AS n ${withValue ? ', toString(sum(toDecimal256(v, 9))) AS value' : ''}
    FROM (
      SELECT e.1 AS t ${withValue ? ', e.2 AS v, e.3 AS voided' : ''}
      FROM (
        SELECT argMin(${withValue ? 'tuple(ts, value, voided)' : 'tuple(ts)'}, tuple(ingested_at, ts)) AS e
        FROM ${database}.${table}
        WHERE environment_id = {env:String} AND agent_instance_id = {agent:String}
          AND ts >= {wfrom:DateTime64(3)} AND ts < {wto:DateTime64(3)}
        GROUP BY event_id
      )
    )
    WHERE t >= {from:DateTime64(3)} AND t < {to:DateTime64(3)} ${withValue ? 'AND voided = 0' : ''}
    GROUP BY day`;
  const status: CostStatus = { rollupBehind: false };
  const [actions, outcomes, costs, lines] = await Promise.all([
    ch.query({ query: counts('actions', false), query_params: params, format: 'JSONEachRow' }).then((r) => r.json<{ day: string; n: string }>()),
    ch.query({ query: counts('outcomes', true), query_params: params, format: 'JSONEachRow' }).then((r) => r.json<{ day: string; n: string; value: string }>()),
    queryCosts(ch, database, { environmentId, from, to, agentInstanceIds: [agentId], granularity: 'day' }, rollup, status),
    db
      .selectFrom('invoice_lines')
      .innerJoin('invoices', 'invoices.id', 'invoice_lines.invoice_id')
      .select(['invoice_lines.amount', 'invoice_lines.service_start', 'invoice_lines.service_end', 'invoices.currency'])
      .where('invoices.environment_id', '=', environmentId)
      .where('invoices.status', '!=', 'void')
      .where('invoice_lines.agent_instance_id', '=', agentId)
      .where('invoice_lines.service_end', '>', from)
      .where('invoice_lines.service_start', '<', to)
      .execute(),
  ]);
  const out = [];
  for (let t = from.getTime(); t < to.getTime(); t += DAY_MS) {
    const day = new Date(t).toISOString().slice(0, 10);
    const a = actions.find((r) => r.day === day);
    const o = outcomes.find((r) => r.day === day);
    const currencies = new Set<string>([...costs.filter((c) => c.bucket === day).map((c) => c.currency), ...lines.map((l) => l.currency)]);
    const money = [...currencies].sort().map((currency) => {
      const cost = costs.filter((c) => c.bucket === day && c.currency === currency).reduce((s, c) => s.plus(c.amount), new Dec(0));
      const revenue = dailyRevenue(
        lines.filter((l) => l.currency === currency).map((l) => ({ amount: l.amount, service_start: new Date(l.service_start), service_end: new Date(l.service_end) })),
        new Date(t),
      );
      return { currency, revenue: formatDecimal(revenue), cost: formatDecimal(cost), margin: formatDecimal(revenue.minus(cost)) };
    });
    out.push({
      date: day,
      actions: Number(a?.n ?? 0),
      outcomes: Number(o?.n ?? 0),
      outcome_value: o ? decimalFromClickHouse(o.value) : '0',
      money,
    });
  }
  return { agent_instance_id: agentId, duration: `${days}days`, start_date: from.toISOString(), end_date: to.toISOString(), days: out, costs_behind: status.rollupBehind };
}
