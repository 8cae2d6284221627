import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import type { Page } from '../../shared/db/paging.ts';
import { tagIndex, type TagKind } from './tags.ts';

/** An action or outcome type seen in the environment's events. */
interface TaggableItem {
  kind: TagKind;
  /** The event's action_type or outcome_type. */
  name: string;
  /** Distinct events of this type (each event identity counted once). */
  count: number;
  /** Event time (`timestamp`) of the latest event of this type, ISO 8601. */
  last_seen_at: string;
  tagged: boolean;
  /** The tag's description when tagged, else null. */
  description: string | null;
}

interface SeenRow {
  kind: TagKind;
  name: string;
  n: string | number;
  last_ms: string | number;
}

/**
 * The action and outcome types seen in this environment's events, with counts and
 * latest event time, straight from ClickHouse. `FINAL` collapses copies of one event
 * identity (environment, agent instance, event id: the tables' sorting key) the way
 * the ReplacingMergeTree will when its parts merge, so a redelivered event counts once
 * even before that merge; it reads only this environment's key range (the key starts
 * with environment_id). `database` is the configured, identifier-validated name; every
 * value is a server-side query parameter.
 */
async function seenEventTypes(ch: Pick<ClickHouseClient, 'query'>, database: string, environmentId: string, kind?: TagKind): Promise<SeenRow[]> {
  const parts: string[] = [];
  if (kind !== 'outcome') {
    parts.push(`SELECT 'action' AS kind, action_type AS name, toString(count()) AS n, toString(toUnixTimestamp64Milli(max(ts))) AS last_ms
      FROM ${database}.actions FINAL WHERE environment_id = {env:String} GROUP BY action_type`);
  }
  if (kind !== 'action') {
    parts.push(`SELECT 'outcome' AS kind, outcome_type AS name, toString(count()) AS n, toString(toUnixTimestamp64Milli(max(ts))) AS last_ms
      FROM ${database}.outcomes FINAL WHERE environment_id = {env:String} AND voided = 0 GROUP BY outcome_type`);
  }
  const rs = await ch.query({ query: parts.join('\nUNION ALL\n'), query_params: { env: environmentId }, format: 'JSONEachRow' });
  return rs.json<SeenRow>();
}

/**
 * One page of the taggable items (actions first, then outcomes, each by name), with
 * whether each is tagged, and the total. The distinct types of an environment are few
 * (the columns are LowCardinality), so the page is cut after the aggregation.
 */
export async function listTaggableItems(ch: Pick<ClickHouseClient, 'query'>, database: string, db: Db, environmentId: string, page: Page, kind?: TagKind) {
  const [seen, tags] = await Promise.all([seenEventTypes(ch, database, environmentId, kind), tagIndex(db, environmentId)]);
  const items: TaggableItem[] = seen.map((r) => ({
    kind: r.kind,
    name: r.name,
    count: Number(r.n),
    last_seen_at: new Date(Number(r.last_ms)).toISOString(),
    tagged: tags[r.kind].has(r.name),
    description: tags[r.kind].get(r.name) ?? null,
  }));
  items.sort((a, b) => (a.kind === b.kind ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.kind === 'action' ? -1 : 1));
  return { rows: items.slice(page.offset, page.offset + page.limit), total: items.length };
}
