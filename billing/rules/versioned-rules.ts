import { sql } from 'kysely';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { AppError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { parseTimestamp } from '../../shared/time.ts';

/**
 * Rules versioned by effective time (cost rules, outcome rules). A rule is a set of
 * immutable versions in a ClickHouse ReplacingMergeTree, each in effect over
 * [effective_from, effective_to); a write inserts whole versions under a higher
 * `revision`, so reads with FINAL see the latest copy of each. Changing a rule closes its
 * current version where the new one starts; ending it closes the current version now.
 * Writes of one kind and environment are serialized by a Postgres advisory lock.
 */

/** Open end of the current version (DateTime64 reaches 2299). */
export const OPEN_END = '2299-12-31 00:00:00.000';
/** Most active rules of one kind an environment may have. */
const MAX_RULES = 1000;

/** A time as ClickHouse's DateTime64(3) text ("2026-11-21 10:00:00.000", UTC). */
const chTime = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').replace('Z', '');
const msOf = (ch: string): number => Date.parse(ch.replace(' ', 'T') + 'Z');
const isoOf = (ch: string): string => new Date(msOf(ch)).toISOString();
const OPEN_END_MS = msOf(OPEN_END);

/**
 * The effective time asked for (default now), parsed; it must come before `latestMs`
 * (default the open end).
 */
export function parseEffectiveFrom(effectiveFrom: string | undefined, now: number, latestMs = OPEN_END_MS): number {
  if (effectiveFrom === undefined) return now;
  const t = parseTimestamp(effectiveFrom);
  if (t === undefined) throw new AppError('validation_failed', '`effective_from` must be an ISO 8601 date or date-time');
  if (t >= latestMs) throw new AppError('validation_failed', '`effective_from` is too far in the future');
  return t;
}

/** The columns every stored version has (times as DateTime64 text). */
export interface RuleVersion {
  rule_id: string;
  effective_from: string;
  effective_to: string;
  created_at: string;
}
/** A version's own fields: what a kind of rule validates and stores. */
export type RuleFields<V extends RuleVersion> = Omit<V, keyof RuleVersion>;

/** The fields every rule view has: the version in effect now (or the latest one). */
export interface RuleView {
  id: string;
  effective_from: string;
  effective_to: string | null;
  is_active: boolean;
  created_at: string;
}

/** What one kind of rule brings to the store. */
export interface RuleKind<V extends RuleVersion, Create, Update, View extends RuleView> {
  /** ClickHouse table (in the store's database). */
  table: string;
  /** Name in error messages, e.g. "cost rule". */
  noun: string;
  /** Prefix of rule ids. */
  idPrefix: string;
  /** SELECT expressions of the kind's own columns, each aliased to its field. */
  columns: string;
  /** Canonicalizes a row as read back (decimals, ...). */
  read(row: V): V;
  /** Validates a rule's fields together; the fields to store. */
  resolve(b: Create): RuleFields<V>;
  /** The validated effective time of a create or update. */
  effectiveFrom(b: Create | Update, now: number): number;
  /** The full rule an update makes of the current version and the changed fields. */
  merge(last: V, b: Update): Create;
  /** The view's fields of a version (beside the ones of RuleView). */
  fields(v: V): Omit<View, keyof RuleView | 'versions'>;
  /** The fields each version shows in a rule's history; no history without it. */
  history?(v: V): object;
  /** Called before and after each write with the time from which it changes the rules. */
  changed?(db: Db, database: string, environmentId: string, from: Date): Promise<void>;
}

let lastRevision = 0;
/** Increasing revision numbers (ReplacingMergeTree keeps the highest per version key). */
function nextRevision(): number {
  lastRevision = Math.max(lastRevision + 1, Date.now() * 1000);
  return lastRevision;
}

/** Groups versions by rule into views (pure), sorted by creation then id. */
export function toViews<V extends RuleVersion, View extends RuleView>(
  kind: Pick<RuleKind<V, unknown, unknown, View>, 'fields' | 'history'>,
  versions: V[],
  now: number,
  withHistory: boolean,
): View[] {
  const byRule = new Map<string, V[]>();
  for (const v of versions) byRule.set(v.rule_id, [...(byRule.get(v.rule_id) ?? []), v]);
  const nowCh = chTime(now);
  const endOf = (v: V) => (v.effective_to === OPEN_END ? null : isoOf(v.effective_to));
  const out: View[] = [];
  for (const [id, vs] of byRule) {
    vs.sort((a, b) => a.effective_from.localeCompare(b.effective_from));
    // The version in effect now, else the latest one (future-dated or closed).
    const cur = vs.find((v) => v.effective_from <= nowCh && nowCh < v.effective_to) ?? vs[vs.length - 1]!;
    out.push({
      id,
      ...kind.fields(cur),
      effective_from: isoOf(cur.effective_from),
      effective_to: endOf(cur),
      is_active: vs[vs.length - 1]!.effective_to > nowCh,
      created_at: isoOf(vs[0]!.created_at),
      ...(withHistory && kind.history ? { versions: vs.map((v) => ({ effective_from: isoOf(v.effective_from), effective_to: endOf(v), ...kind.history!(v) })) } : {}),
    } as View);
  }
  return out.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
}

/** Reads and writes the versions of one kind of rule. */
export class VersionedRuleStore<V extends RuleVersion, Create, Update, View extends RuleView> {
  constructor(
    private readonly kind: RuleKind<V, Create, Update, View>,
    private readonly ch: Pick<ClickHouseClient, 'query' | 'insert'>,
    private readonly database: string,
    private readonly db: Db,
  ) {}

  /** Stored versions of an environment's rules (or of one rule), by rule and effective time. */
  async versions(environmentId: string, ruleId?: string): Promise<V[]> {
    const rs = await this.ch.query({
      query: `SELECT rule_id, toString(effective_from) AS effective_from, toString(effective_to) AS effective_to, ${this.kind.columns}, toString(created_at) AS created_at
              FROM ${this.database}.${this.kind.table} FINAL
              WHERE environment_id = {env:String} ${ruleId ? 'AND rule_id = {rule:String}' : ''}
              ORDER BY rule_id, effective_from`,
      query_params: { env: environmentId, rule: ruleId ?? '' },
      format: 'JSONEachRow',
    });
    return (await rs.json<V>()).map((r) => this.kind.read(r));
  }

  /** The environment's rules, active ones only unless asked. */
  async views(environmentId: string, opts: { includeInactive?: boolean; withHistory?: boolean } = {}, now = Date.now()): Promise<View[]> {
    const views = toViews(this.kind, await this.versions(environmentId), now, opts.withHistory ?? false);
    return opts.includeInactive ? views : views.filter((v) => v.is_active);
  }

  async get(environmentId: string, id: string, now = Date.now()): Promise<View> {
    const v = toViews(this.kind, await this.versions(environmentId, id), now, true)[0];
    if (!v) throw new AppError('not_found', `no ${this.kind.noun} ${id}`);
    return v;
  }

  async create(environmentId: string, b: Create, now = Date.now()): Promise<View> {
    const fields = this.kind.resolve(b);
    const from = this.kind.effectiveFrom(b, now);
    const id = newId(this.kind.idPrefix, now);
    await this.#locked(environmentId, async () => {
      const n = (await this.views(environmentId, {}, now)).length;
      if (n >= MAX_RULES) throw new AppError('conflict', `an environment has at most ${MAX_RULES} active ${this.kind.noun}s`);
      await this.#insert(environmentId, [this.#version(id, fields, from, now)], from);
    });
    return this.get(environmentId, id, now);
  }

  /** A new version from `effective_from` (default now) with the changed fields; the current one ends there. */
  async update(environmentId: string, id: string, b: Update, now = Date.now()): Promise<View> {
    await this.#locked(environmentId, async () => {
      const last = await this.#current(environmentId, id);
      const from = this.kind.effectiveFrom(b, now);
      if (chTime(from) <= last.effective_from) throw new AppError('validation_failed', `\`effective_from\` must be after the current version's (${isoOf(last.effective_from)})`);
      const fields = this.kind.resolve(this.kind.merge(last, b));
      await this.#insert(environmentId, [{ ...last, effective_to: chTime(from) }, this.#version(id, fields, from, now)], from);
    });
    return this.get(environmentId, id, now);
  }

  /** Ends the rule now (or at its current version's start, if later); its past stays. */
  async remove(environmentId: string, id: string, now = Date.now()): Promise<View> {
    await this.#locked(environmentId, async () => {
      const last = await this.#current(environmentId, id);
      const end = Math.max(now, msOf(last.effective_from));
      await this.#insert(environmentId, [{ ...last, effective_to: chTime(end) }], end);
    });
    return this.get(environmentId, id, now);
  }

  /** The open (last) version of an active rule. */
  async #current(environmentId: string, id: string): Promise<V> {
    const vs = await this.versions(environmentId, id);
    const last = vs[vs.length - 1];
    if (!last || last.effective_to !== OPEN_END) throw new AppError('not_found', `no active ${this.kind.noun} ${id}`);
    return last;
  }

  #version(id: string, fields: RuleFields<V>, from: number, now: number): V {
    return { ...fields, rule_id: id, effective_from: chTime(from), effective_to: OPEN_END, created_at: chTime(now) } as V;
  }

  async #insert(environmentId: string, rows: V[], changedFrom: number): Promise<void> {
    const revision = nextRevision();
    await this.kind.changed?.(this.db, this.database, environmentId, new Date(changedFrom));
    await this.ch.insert({
      table: `${this.database}.${this.kind.table}`,
      values: rows.map((r) => ({ ...r, environment_id: environmentId, revision })),
      format: 'JSONEachRow',
    });
    await this.kind.changed?.(this.db, this.database, environmentId, new Date(changedFrom));
  }

  async #locked(environmentId: string, fn: () => Promise<void>): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${this.kind.table + ':' + environmentId}))`.execute(tx);
      await fn();
    });
  }
}
