import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openClickHouse, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../../shared/clickhouse/schema.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import { createDb, dropDatabase, ensureDatabase, migrate, type Db } from '../../shared/db/postgres.ts';
import { uniqueSuffix } from '../../test/harness.ts';
import { toScaled } from '../rating/money.ts';
import { queryCosts, type CostQuery, type CostRow } from './cost-query.ts';
import { CostRuleStore } from './cost-rules.ts';
import { CostRollup } from './cost-rollup.ts';

// The rollup against the live query, on the real ClickHouse engine and Postgres: rows are
// written straight into `actions` with chosen sequences and ingestion times, and the "sink
// ack floor" is a variable the test moves, so every ordering case is reproducible.
const suffix = uniqueSuffix();
const database = `cr_${suffix}`;
const pgUrl = `postgres://postgres@127.0.0.1:5432/tally_t_cr_${suffix}`;
const ENV = 'env_r';
let ch: ClickHouseClient;
let db: Db;
let floor = 0;
const STREAM = '2026-10-01T00:00:00.000Z';
let rollup: CostRollup;
let rules: CostRuleStore;

beforeAll(async () => {
  const cfg = parseCommonConfig({ TALLY_DATA_DIR: path.join(os.tmpdir(), `tally-test-${process.pid}`), CLICKHOUSE_DATABASE: database });
  ch = await openClickHouse(cfg.clickhouse);
  await migrateClickHouse(ch, database);
  await ensureDatabase(pgUrl);
  db = createDb(pgUrl, { max: 4 });
  await migrate(db as never);
  // A budget no loaded machine exceeds: every check below is of a rollup that caught up.
  rollup = new CostRollup(db, ch, database, async () => ({ stream: STREAM, floor }), { readWaitMs: 0, readBudgetMs: 60_000 });
  rules = new CostRuleStore(ch, database, db);
  const since = { effective_from: '2026-10-01T00:00:00Z', reallocate: true };
  await rules.create(ENV, { name: 'input', category: 'llm', currency: 'USD', basis: 'per_input_token', rate: '0.001', model_rates: { big: '0.01' }, action_type: 'llm_call', ...since });
  // A second llm/USD line for `big`: an action counts once per (category, currency).
  await rules.create(ENV, { name: 'total', category: 'llm', currency: 'USD', basis: 'per_total_token', model_rates: { big: '0.0001' }, ...since });
  await rules.create(ENV, { name: 'compute', category: 'infrastructure', currency: 'EUR', basis: 'per_action', rate: '0.5', ...since });
});
afterAll(async () => {
  await rollup?.stop();
  await ch?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await db?.destroy();
  await dropDatabase(pgUrl);
});

interface Copy {
  agent: string;
  id: string;
  ts: number;
  ingested: number;
  seq: number;
  tokens: number;
  model?: string;
  cost?: string;
}
const T0 = Date.parse('2026-11-02T00:00:00Z');
const HOUR = 3_600_000;

async function write(copies: Copy[]): Promise<void> {
  await ch.insert({
    table: `${database}.actions`,
    values: copies.map((c) => ({
      environment_id: ENV, organization_id: 'org', agent_instance_id: c.agent, account_id: `acct_${c.agent}`, event_id: c.id, id_source: 'client',
      action_type: c.model === undefined && c.cost === undefined ? 'tool_call' : 'llm_call', ts: c.ts, ingested_at: c.ingested, user_id: '', anonymous_id: '',
      model: c.model ?? '', input_tokens: c.tokens, output_tokens: 0, total_tokens: c.tokens,
      metadata: c.cost ? JSON.stringify({ cost: { amount: c.cost, currency: 'USD', category: 'api' } }) : '{}', stream_seq: c.seq,
    })),
    format: 'JSONEachRow',
  });
}

const views: Omit<CostQuery, 'environmentId' | 'from' | 'to'>[] = [
  {},
  { byAgent: true, byAccount: true, granularity: 'day' },
  { byAgent: true, granularity: 'month' },
  { agentInstanceIds: ['a1'], granularity: 'day' },
  { byCategory: false },
  { byAccount: true, granularity: 'week', byCategory: false },
];
const range = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-10T00:00:00Z') };

/** Every view, from the rollup and from raw events, must be identical (and the rollup must have been used). */
async function expectRollupMatchesRaw(): Promise<void> {
  for (const v of views) {
    const q = { environmentId: ENV, ...range, ...v };
    expect(await rollup.covers(ENV, q.from, q.to)).toBe(true);
    const [fromRollup, raw] = await Promise.all([queryCosts(ch, database, q, rollup), queryCosts(ch, database, q)]);
    expect(fromRollup, JSON.stringify(v)).toEqual(raw);
    if (v.byCategory === false) {
      // Categories summed: each row is the sum of its categories' rows, exactly.
      const byCategory = await queryCosts(ch, database, { ...q, byCategory: true });
      const key = (r: CostRow) => `${r.agent_instance_id}|${r.account_id}|${r.bucket}|${r.currency}`;
      const sums = new Map<string, bigint>();
      for (const r of byCategory) sums.set(key(r), (sums.get(key(r)) ?? 0n) + toScaled(r.amount, 12));
      expect(raw.length).toBeGreaterThan(0);
      const sorted = (xs: [string, ...unknown[]][]) => xs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      expect(sorted(raw.map((r) => [key(r), r.category, r.actions, toScaled(r.amount, 12)]))).toEqual(sorted([...sums].map(([k, v]) => [k, '', '', v])));
    }
  }
}

/** A seeded pseudo-random generator (reproducible failures). */
function rng(seed: number): () => number {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('the daily cost rollup', () => {
  it('starts from what ClickHouse holds (rows without a sequence) and folds in new rows up to the ack floor only', async () => {
    await write([
      { agent: 'a1', id: 'old1', ts: T0 + 1 * HOUR, ingested: T0 + 1 * HOUR, seq: 0, tokens: 100, model: 'small' },
      { agent: 'a2', id: 'old2', ts: T0 + 2 * HOUR, ingested: T0 + 2 * HOUR, seq: 0, tokens: 10, model: 'big' },
    ]);
    await expectRollupMatchesRaw();
    // Sequence 1 is in ClickHouse but not yet acknowledged: not in the rollup yet.
    await write([{ agent: 'a1', id: 'n1', ts: T0 + 3 * HOUR, ingested: T0 + 3 * HOUR, seq: 1, tokens: 1000, model: 'small' }]);
    const total = async () => (await queryCosts(ch, database, { environmentId: ENV, ...range }, rollup)).map((r) => `${r.category} ${r.currency} ${r.amount} ${r.actions}`);
    expect(await total()).toEqual(['infrastructure EUR 1 2', 'llm USD 0.201 2']);
    floor = 1;
    expect(await total()).toEqual(['infrastructure EUR 1.5 3', 'llm USD 1.201 3']);
    await expectRollupMatchesRaw();
  });

  it('counts each event once whatever the order its copies arrive in: duplicates, redelivered earlier copies, copies on other days', async () => {
    const rand = rng(42);
    for (let step = 0; step < 8; step++) {
      const copies: Copy[] = [];
      // Messages after the ack floor; several copies may share one message (sequence).
      let seq = floor + 1;
      for (let i = 0; i < 60; i++) {
        if (i > 0 && rand() < 0.7) seq++;
        const n = Math.floor(rand() * 80);
        copies.push({
          agent: `a${n % 3}`,
          id: `e${n}`,
          // Copies of one id may carry different times (server-stamped retries) and contents.
          ts: T0 + Math.floor(rand() * 72) * HOUR + Math.floor(rand() * HOUR),
          // Ingestion times are random: a copy folded later may have been ingested first.
          ingested: T0 + Math.floor(rand() * 1000) * 1000,
          seq,
          tokens: Math.floor(rand() * 500),
          ...(rand() < 0.5 ? { model: rand() < 0.5 ? 'big' : 'small' } : {}),
          ...(rand() < 0.1 ? { cost: '0.25' } : {}),
        });
      }
      await write(copies);
      floor = seq;
      // Merges drop copies a better-ranked copy replaces, counted ones included.
      if (step % 2 === 1) await ch.command({ query: `OPTIMIZE TABLE ${database}.actions FINAL` });
      await expectRollupMatchesRaw();
    }
  });

  it('a step interrupted after its insert is redone once (deduplication token), not twice', async () => {
    const before = await queryCosts(ch, database, { environmentId: ENV, ...range }, rollup);
    const last = floor;
    await write([{ agent: 'a1', id: 'crash', ts: T0 + 5 * HOUR, ingested: T0 + 5 * HOUR, seq: last + 1, tokens: 3, model: 'small' }]);
    floor = last + 1;
    await expectRollupMatchesRaw();
    // Pretend the process died between the ClickHouse insert and recording the step.
    await sql`UPDATE cost_rollup_state SET done_seq = ${last}, planned_seq = ${last + 1}`.execute(db);
    await expectRollupMatchesRaw();
    const after = await queryCosts(ch, database, { environmentId: ENV, ...range }, rollup);
    expect(after.find((r) => r.currency === 'EUR')!.actions).toBe(String(Number(before.find((r) => r.currency === 'EUR')!.actions) + 1));
  });

  it('a rule change is read from raw events until the rollup recomputed the days it changed, then from the rollup', async () => {
    const input = (await rules.list(ENV, {})).find((r) => r.name === 'input')!;
    await rules.update(ENV, input.id, { rate: '0.002', effective_from: '2026-11-03T12:00:00Z', reallocate: true });
    const marks = await db.selectFrom('cost_rollup_dirty').selectAll().execute();
    expect(marks.map((m) => new Date(m.from_ts).toISOString())).toContain('2026-11-03T12:00:00.000Z');
    await expectRollupMatchesRaw();
    expect(await db.selectFrom('cost_rollup_dirty').selectAll().execute()).toEqual([]);
  });

  it('answers ranges that are not whole UTC days from raw events', async () => {
    expect(await rollup.covers(ENV, new Date('2026-11-01T01:00:00Z'), range.to)).toBe(false);
    expect(await rollup.covers(ENV, range.from, new Date('2026-11-09T23:59:59.999Z'))).toBe(false);
  });
});
