import { sql } from 'kysely';
import { clusterOf, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { mutationTarget } from '../../shared/clickhouse/cluster.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { logger } from '../../shared/log.ts';
import { costRollupLockKey } from '../costs/cost-rollup.ts';
import type { LiveUsageCache } from '../live/usage-cache.ts';

const log = logger('repair-accounts');

/** Recorded in ClickHouse's schema_migrations once the repair has run. */
export const REPAIR_ID = 'repair_empty_account_ids_v1';

/**
 * Events sent with `X-Agent-Secret` alone were stored with an empty `account_id` before
 * the agent's account was taken from the credential. This one-time step (run by the
 * billing role at start, recorded in `schema_migrations`) gives every such stored event
 * of an agent instance that has an account that account: `actions`, `outcomes` and the
 * cost rollup's `cost_events` by mutation (account_id is not in their sort keys), and
 * `costs_daily` (where it is) by moving each empty-account sum to the account with a
 * negated and a positive row. Events of agents with no account keep ''.
 *
 * It holds the cost rollup's advisory lock, so no rollup step interleaves with its moves
 * and billing processes starting together run it once.
 *
 * `cache`: the process's live usage cache (LiveUsage's, app/start.ts), cleared once events
 * moved. The api role starts before the billing role runs this (and the repair may wait
 * for the rollup's lock and its mutations), so the cache may hold an account's answer
 * computed without its agents' empty-account events; no store names the account to drop
 * it, so an idle account's live usage would stay short until its next stored event.
 * Only this process's cache: an api role in another process keeps its answers until then.
 *
 * Returns the number of agent instances whose events were looked at (0: already done).
 */
export async function repairEmptyAccounts(db: Db, ch: Pick<ClickHouseClient, 'query' | 'command'>, database: string, cache?: Pick<LiveUsageCache, 'clear'>): Promise<number> {
  const repaired = await db.connection().execute(async (conn) => {
    const key = costRollupLockKey(database);
    await sql`select pg_advisory_lock(hashtext(${key}))`.execute(conn);
    try {
      return await repairOnce(conn, ch, database);
    } finally {
      await sql`select pg_advisory_unlock(hashtext(${key}))`.execute(conn);
    }
  });
  // After the mutations (mutations_sync 2): an answer computing meanwhile is marked stale, not kept.
  if (repaired > 0) cache?.clear();
  return repaired;
}

async function repairOnce(db: Db, ch: Pick<ClickHouseClient, 'query' | 'command'>, database: string): Promise<number> {
  const done = await ch.query({ query: `SELECT count() AS n FROM ${database}.schema_migrations WHERE id = {id:String}`, query_params: { id: REPAIR_ID }, format: 'JSONEachRow' });
  if (Number((await done.json<{ n: string }>())[0]?.n ?? 0) > 0) return 0;

  const agents = await db.selectFrom('agent_instances').select(['id', 'account_id']).where('account_id', 'is not', null).execute();
  const params = { ids: agents.map((a) => a.id), accounts: agents.map((a) => a.account_id!) };
  if (agents.length > 0) {
    const account = 'transform(agent_instance_id, {ids:Array(String)}, {accounts:Array(String)}, \'\')';
    await ch.command({
      query: `INSERT INTO ${database}.costs_daily (environment_id, day, agent_instance_id, account_id, category, currency, amount, actions)
        SELECT environment_id, day, agent_instance_id, m.1, category, currency, a * m.2, n * m.2
        FROM (
          SELECT environment_id, day, agent_instance_id, category, currency, sum(amount) AS a, sum(actions) AS n
          FROM ${database}.costs_daily
          WHERE account_id = '' AND agent_instance_id IN {ids:Array(String)}
          GROUP BY environment_id, day, agent_instance_id, category, currency
          HAVING a != 0 OR n != 0
        )
        ARRAY JOIN [tuple('', toInt8(-1)), tuple(${account}, toInt8(1))] AS m`,
      query_params: params,
    });
    const cluster = clusterOf(ch as ClickHouseClient);
    for (const table of ['actions', 'outcomes', 'cost_events']) {
      await ch.command({
        query: `ALTER TABLE ${mutationTarget(database, table, cluster)} UPDATE account_id = ${account}
          WHERE account_id = '' AND agent_instance_id IN {ids:Array(String)}`,
        query_params: params,
        clickhouse_settings: { mutations_sync: '2' },
      });
    }
  }
  await ch.command({ query: `INSERT INTO ${database}.schema_migrations (id) VALUES ({id:String})`, query_params: { id: REPAIR_ID } });
  log.info('events stored without their agent\'s account repaired', { agents: agents.length });
  return agents.length;
}
