import type { ClickHouseClient } from '@clickhouse/client';
import { DEDUP_QUERY_SLACK_MS } from '../../shared/events/limits.ts';
import { decimalFromClickHouse } from '../../shared/clickhouse/decimal.ts';
import { TOKEN_CLASSES } from '../../shared/events/token-classes.ts';

/** Quantities of one group; counts and sums are exact decimal strings. */
export interface UsageRow {
  agent_instance_id?: string;
  account_id?: string;
  /** @action: distinct actions. */
  actions: string;
  /** Distinct outcome events. */
  outcomes: string;
  /** @outcome as an amount: sum of outcome `value`s (decimal string). */
  outcome_value: string;
  /** @user: distinct user_id (or anonymous_id when no user_id) on actions. */
  users: string;
  input_tokens: string;
  output_tokens: string;
  total_tokens: string;
  /** Token classes (shared/events/token-classes.ts), each part of input_tokens or output_tokens. */
  cache_read_input_tokens: string;
  cache_creation_input_tokens: string;
  reasoning_tokens: string;
}

export interface UsageQuery {
  environmentId: string;
  /** Inclusive start, exclusive end of event time. */
  from: Date;
  to: Date;
  groupBy: 'agent' | 'account' | 'agent_account' | 'none';
  agentInstanceIds?: string[];
  accountIds?: string[];
  actionTypes?: string[];
  outcomeTypes?: string[];
  /** Only events whose first copy arrived (was ingested) before this time: usage as it stood then. */
  ingestedBefore?: Date;
  /** Only events whose first copy arrived at or after this time (spend limits' day and week windows count by arrival). */
  ingestedFrom?: Date;
  /** Leaves out the events the live tail counts instead (billing/live/tail.ts). */
  unstored?: UnstoredCut;
}

/**
 * The events of the current stream the sink has not stored as far as the live tail knows:
 * ingested at or after the stream's creation, of a sequence above `floor` and not in
 * `stored`. Rows of earlier streams (older, whatever their sequence) stay counted.
 */
export interface UnstoredCut {
  streamCreated: Date;
  floor: number;
  stored: number[];
}

/**
 * Users over several windows of one billing period (its billable segments, ordered and not
 * overlapping): each user is counted once, in the window of their first action among the
 * windows, so the counts add up to the period's distinct users and a prefix of them is the
 * distinct users of those windows.
 */
export interface FirstSeenUsersQuery {
  environmentId: string;
  /** Ordered, non-overlapping [from, to) windows of event time. */
  windows: readonly { from: Date; to: Date }[];
  agentInstanceIds?: string[];
  accountIds?: string[];
  /** As {@link UsageQuery.ingestedBefore}. */
  ingestedBefore?: Date;
}

/** A time as a ClickHouse DateTime64(3) parameter (UTC). */
export const chTime = (d: Date): string => d.toISOString().replace('T', ' ').replace('Z', '');

/**
 * Parameters of every deduplicating query over [from, to): the exact range, and the
 * window read around it (widened by the dedup slack, so all copies of an event meet).
 */
export function dedupWindow(from: Date, to: Date): { from: string; to: string; wfrom: string; wto: string } {
  return {
    from: chTime(from),
    to: chTime(to),
    wfrom: chTime(new Date(Math.max(0, from.getTime() - DEDUP_QUERY_SLACK_MS))),
    wto: chTime(new Date(to.getTime() + DEDUP_QUERY_SLACK_MS)),
  };
}

/**
 * Exact usage from ClickHouse, each event counted once per (environment, agent
 * instance, event id) whatever its copies. The tables are ReplacingMergeTree sorted by
 * that identity with `first_seen_rank` as version, so `FINAL` keeps exactly the
 * first-ingested copy of each event, across partitions, before any other condition is
 * applied (a derived outcome's row of a copy its rule does not match, `voided`, is
 * dropped only then: see schema.ts). The time window read is widened by the dedup slack (copies of one event with
 * different timestamps meet in the merge); the first copy's event time then decides
 * whether it falls in the range. (An explicit GROUP BY on the identity gave the same
 * figures 35x slower on 10M events.)
 */
export class UsageStore {
  constructor(
    private readonly ch: ClickHouseClient,
    private readonly database: string,
  ) {}

  async query(q: UsageQuery): Promise<UsageRow[]> {
    if (!(q.from < q.to)) return [];
    const params: Record<string, unknown> = {
      env: q.environmentId,
      ...dedupWindow(q.from, q.to),
      agents: q.agentInstanceIds ?? [],
      accounts: q.accountIds ?? [],
      atypes: q.actionTypes ?? [],
      otypes: q.outcomeTypes ?? [],
      ...(q.ingestedBefore ? { ingcut: chTime(q.ingestedBefore) } : {}),
      ...(q.ingestedFrom ? { ingfrom: chTime(q.ingestedFrom) } : {}),
      ...(q.unstored ? { ucreated: chTime(q.unstored.streamCreated), ufloor: q.unstored.floor, ustored: q.unstored.stored } : {}),
    };
    // Sort-key conditions (environment, agent, the widened time window) go in PREWHERE:
    // applied before FINAL merges copies, they prune partitions. Conditions on other
    // columns (account, type, the exact range) go in WHERE, applied to the surviving copy.
    const agentFilter = q.agentInstanceIds ? 'AND agent_instance_id IN {agents:Array(String)}' : '';
    const accountFilter = q.accountIds ? 'AND account_id IN {accounts:Array(String)}' : '';
    const keys = groupColumns(q.groupBy);
    const select = keys.length ? keys.join(', ') + ',' : '';
    const groupBy = keys.length ? `GROUP BY ${keys.join(', ')}` : '';
    const prewhere = `PREWHERE environment_id = {env:String} AND ts >= {wfrom:DateTime64(3)} AND ts < {wto:DateTime64(3)} ${agentFilter}`;
    // After FINAL: the surviving copy is the first ingested, so its arrival decides.
    const asOf = `${q.ingestedBefore ? 'AND ingested_at < {ingcut:DateTime64(3)}' : ''} ${q.ingestedFrom ? 'AND ingested_at >= {ingfrom:DateTime64(3)}' : ''}`;
    const unstored = q.unstored ? 'AND NOT (stream_seq > {ufloor:UInt64} AND ingested_at >= {ucreated:DateTime64(3)} AND stream_seq NOT IN {ustored:Array(UInt64)})' : '';
    const where = `WHERE ts >= {from:DateTime64(3)} AND ts < {to:DateTime64(3)} ${accountFilter} ${asOf} ${unstored}`;

    // Actions and outcomes in one query (UNION ALL, told apart by `kind`): one round trip,
    // and on chDB one turn of its process-wide queue of parameterized queries, not two
    // (docs/performance.md "Credits").
    const actionsSql = `
      SELECT 'a' AS kind, ${select}
        toString(count()) AS actions,
        '0' AS outcomes,
        '0' AS outcome_value,
        toString(uniqExact(if(user_id != '', concat('u:', user_id), if(anonymous_id != '', concat('a:', anonymous_id), NULL)))) AS users,
        toString(sum(input_tokens)) AS input_tokens,
        toString(sum(output_tokens)) AS output_tokens,
        toString(sum(total_tokens)) AS total_tokens,
        ${TOKEN_CLASSES.map((c) => `toString(sum(${c.field})) AS ${c.field}`).join(',\n        ')}
      FROM ${this.database}.actions FINAL
      ${prewhere}
      ${where} ${q.actionTypes ? 'AND action_type IN {atypes:Array(String)}' : ''}
      ${groupBy}`;
    const outcomesSql = `
      SELECT 'o' AS kind, ${select}
        '0' AS actions,
        toString(count()) AS outcomes,
        toString(sum(toDecimal256(value, 9))) AS outcome_value,
        '0' AS users, '0' AS input_tokens, '0' AS output_tokens, '0' AS total_tokens,
        ${TOKEN_CLASSES.map((c) => `'0' AS ${c.field}`).join(', ')}
      FROM ${this.database}.outcomes FINAL
      ${prewhere}
      ${where} AND voided = 0 ${q.outcomeTypes ? 'AND outcome_type IN {otypes:Array(String)}' : ''}
      ${groupBy}`;

    const rows = await this.ch
      .query({ query: `/* usage */ ${actionsSql}\n      UNION ALL\n${outcomesSql}`, query_params: params, format: 'JSONEachRow' })
      .then((r) => r.json<Record<string, string>>());
    const actions = rows.filter((r) => r.kind === 'a');
    const outcomes = rows.filter((r) => r.kind === 'o');
    return mergeRows(keys, actions, outcomes);
  }

  /** See {@link firstSeenUsers}. */
  firstSeenUsers(q: FirstSeenUsersQuery): Promise<string[]> {
    return firstSeenUsers(this.ch, this.database, q);
  }
}

/**
 * Per window of `q`, the users (distinct user_id, else anonymous_id, on actions) whose first
 * action in any of the windows falls in it, as exact decimal strings (see
 * {@link FirstSeenUsersQuery}); deduplicated as {@link UsageStore.query}.
 */
async function firstSeenUsers(ch: ClickHouseClient, database: string, q: FirstSeenUsersQuery): Promise<string[]> {
  const windows = q.windows.filter((w) => w.from < w.to);
  const counts = q.windows.map(() => '0');
  if (windows.length === 0) return counts;
  const params: Record<string, unknown> = {
    env: q.environmentId,
    ...dedupWindow(windows[0]!.from, windows.at(-1)!.to),
    froms: windows.map((w) => chTime(w.from)),
    tos: windows.map((w) => chTime(w.to)),
    agents: q.agentInstanceIds ?? [],
    accounts: q.accountIds ?? [],
    ...(q.ingestedBefore ? { ingcut: chTime(q.ingestedBefore) } : {}),
  };
  const agentFilter = q.agentInstanceIds ? 'AND agent_instance_id IN {agents:Array(String)}' : '';
  const accountFilter = q.accountIds ? 'AND account_id IN {accounts:Array(String)}' : '';
  const asOf = q.ingestedBefore ? 'AND ingested_at < {ingcut:DateTime64(3)}' : '';
  // The first action of each user in the windows, then the window it falls in (the first
  // window ending after it: the windows are ordered and it lies in one of them).
  const sql = `
    SELECT toString(arrayFirstIndex(e -> first < e, {tos:Array(DateTime64(3))})) AS window, toString(count()) AS users
    FROM (
      SELECT if(user_id != '', concat('u:', user_id), concat('a:', anonymous_id)) AS user, min(ts) AS first
      FROM ${database}.actions FINAL
      PREWHERE environment_id = {env:String} AND ts >= {wfrom:DateTime64(3)} AND ts < {wto:DateTime64(3)} ${agentFilter}
      WHERE arrayExists((f, t) -> ts >= f AND ts < t, {froms:Array(DateTime64(3))}, {tos:Array(DateTime64(3))})
        AND (user_id != '' OR anonymous_id != '') ${accountFilter} ${asOf}
      GROUP BY user
    )
    GROUP BY window`;
  const rows = await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' }).then((r) => r.json<{ window: string; users: string }>());
  const index = q.windows.map((w, i) => (w.from < w.to ? i : -1)).filter((i) => i >= 0);
  for (const r of rows) counts[index[Number(r.window) - 1]!] = r.users;
  return counts;
}

function groupColumns(groupBy: UsageQuery['groupBy']): string[] {
  switch (groupBy) {
    case 'agent':
      return ['agent_instance_id'];
    case 'account':
      return ['account_id'];
    case 'agent_account':
      return ['agent_instance_id', 'account_id'];
    case 'none':
      return [];
  }
}

function mergeRows(keys: string[], actions: Record<string, string>[], outcomes: Record<string, string>[]): UsageRow[] {
  const byKey = new Map<string, UsageRow>();
  const get = (r: Record<string, string>): UsageRow => {
    const k = keys.map((c) => r[c]).join('\u0000');
    let row = byKey.get(k);
    if (!row) {
      row = {
        actions: '0', outcomes: '0', outcome_value: '0', users: '0', input_tokens: '0', output_tokens: '0', total_tokens: '0',
        cache_read_input_tokens: '0', cache_creation_input_tokens: '0', reasoning_tokens: '0',
      };
      for (const c of keys) (row as unknown as Record<string, string>)[c] = r[c] ?? '';
      byKey.set(k, row);
    }
    return row;
  };
  for (const a of actions) {
    // A query with no GROUP BY returns one row even over no data: skip the empty one.
    if (keys.length === 0 && a.actions === '0') continue;
    Object.assign(get(a), { actions: a.actions, users: a.users, input_tokens: a.input_tokens, output_tokens: a.output_tokens, total_tokens: a.total_tokens });
    for (const c of TOKEN_CLASSES) get(a)[c.field] = a[c.field] ?? '0';
  }
  for (const o of outcomes) {
    if (keys.length === 0 && o.outcomes === '0') continue;
    Object.assign(get(o), { outcomes: o.outcomes, outcome_value: decimalFromClickHouse(o.outcome_value ?? '0') });
  }
  return [...byKey.values()];
}
