import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { openClickHouse, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../../shared/clickhouse/schema.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import { createDb, dropDatabase, ensureDatabase, migrate, type Db } from '../../shared/db/postgres.ts';
import { uniqueSuffix } from '../../test/harness.ts';
import { queryCosts } from './cost-query.ts';
import { CostRuleStore } from './cost-rules.ts';
import { CostRollup } from './cost-rollup.ts';

// Bounded steps (TALLY_COST_ROLLUP_STEP_ACTIONS): the first build in parts of agent
// ranges and a backlog in steps of at most so many actions count exactly what the live
// query counts, a crash in the middle of a build included. Rows are written straight into
// `actions`; the floor is a variable the test moves.
const suffix = uniqueSuffix();
const database = `crb_${suffix}`;
const pgUrl = `postgres://postgres@127.0.0.1:5432/tally_t_crb_${suffix}`;
const ENV = 'env_b';
const STREAM = '2026-10-01T00:00:00.000Z';
const T0 = Date.parse('2026-11-02T00:00:00Z');
const HOUR = 3_600_000;
const range = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-10T00:00:00Z') };
let ch: ClickHouseClient;
let db: Db;
let floor = 0;
/** The statements folding new copies (one a part or a step), counted through a wrapper of the client. */
let folds = 0;

beforeAll(async () => {
  const cfg = parseCommonConfig({ TALLY_DATA_DIR: path.join(os.tmpdir(), `tally-test-${process.pid}`), CLICKHOUSE_DATABASE: database });
  ch = await openClickHouse(cfg.clickhouse);
  await migrateClickHouse(ch, database);
  await ensureDatabase(pgUrl);
  db = createDb(pgUrl, { max: 4 });
  await migrate(db as never);
  const since = { effective_from: '2026-10-01T00:00:00Z', reallocate: true };
  const rules = new CostRuleStore(ch, database, db);
  await rules.create(ENV, { name: 'input', category: 'llm', currency: 'USD', basis: 'per_input_token', rate: '0.001', action_type: 'llm_call', ...since });
  await rules.create(ENV, { name: 'compute', category: 'infrastructure', currency: 'EUR', basis: 'per_action', rate: '0.5', ...since });
});
afterAll(async () => {
  await ch?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await db?.destroy();
  await dropDatabase(pgUrl);
});

function rollupOf(stepActions: number): CostRollup {
  const counting = new Proxy(ch, {
    get(target, prop, receiver) {
      if (prop !== 'command') return Reflect.get(target, prop, receiver);
      return (p: Parameters<ClickHouseClient['command']>[0]) => {
        if (/INSERT INTO \S+\.cost_fold_new /.test(p.query)) folds++;
        return target.command(p);
      };
    },
  });
  return new CostRollup(db, counting, database, async () => ({ stream: STREAM, floor }), { readWaitMs: 0, readBudgetMs: 120_000, stepActions });
}

/** `n` actions of agents `a<first>`..: ids `e<k>` (copies share one), ingested at `ingested`, in message `seq`. */
async function write(agents: number[], ids: number[], seq: number, ingested: number): Promise<void> {
  const values = agents.flatMap((a) =>
    ids.map((k) => ({
      environment_id: ENV, organization_id: 'org', agent_instance_id: `a${String(a).padStart(2, '0')}`, account_id: `acct_${a}`, event_id: `e${k}`, id_source: 'client',
      action_type: k % 4 === 0 ? 'tool_call' : 'llm_call', ts: T0 + ((k * 7 + a) % 96) * HOUR, ingested_at: ingested, user_id: '', anonymous_id: '',
      model: '', input_tokens: (k * 13 + seq) % 500, output_tokens: 0, total_tokens: (k * 13 + seq) % 500, metadata: '{}', stream_seq: seq,
    })),
  );
  await ch.insert({ table: `${database}.actions`, values, format: 'JSONEachRow' });
}

async function expectRollupMatchesRaw(rollup: CostRollup): Promise<void> {
  for (const v of [{}, { byAgent: true, byAccount: true, granularity: 'day' as const }]) {
    const q = { environmentId: ENV, ...range, ...v };
    expect(await rollup.covers(ENV, q.from, q.to)).toBe(true);
    const [fromRollup, raw] = await Promise.all([queryCosts(ch, database, q, rollup), queryCosts(ch, database, q)]);
    expect(raw.length).toBeGreaterThan(0);
    expect(fromRollup).toEqual(raw);
  }
}

const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => from + i);

describe('cost rollup steps of bounded size', () => {
  it('builds in parts of agent ranges, folds a backlog in bounded steps, and redoes an interrupted build from the emptying', async () => {
    // Six parts of 500 actions each, ten agents apiece: the index's granules start at six agents.
    for (let g = 0; g < 6; g++) await write(ids(g * 10, 10), ids(0, 50), 0, T0 + 10 * HOUR);
    const rollup = rollupOf(1000);
    folds = 0;
    await expectRollupMatchesRaw(rollup);
    expect(folds).toBeGreaterThan(1);

    // A backlog of eight messages of 400 copies: new events, later duplicates, and
    // redelivered earlier-ingested copies that outrank the counted ones.
    for (let seq = 1; seq <= 8; seq++) {
      const ingested = seq % 2 === 0 ? T0 : T0 + 20 * HOUR + seq * 1000;
      await write(ids((seq * 7) % 60, 8), ids(seq % 3 === 0 ? 0 : 40 + seq * 10, 50), seq, ingested);
    }
    floor = 8;
    folds = 0;
    await expectRollupMatchesRaw(rollup);
    // 3,200 actions in steps of about 1,000 (a step ends with the message that reaches it): three.
    expect(folds).toBe(3);
    const state = await db.selectFrom('cost_rollup_state').select(['done_seq', 'planned_seq']).where('ch_database', '=', database).executeTakeFirstOrThrow();
    expect([Number(state.done_seq), state.planned_seq]).toEqual([8, null]);

    // A build interrupted after some of its parts landed: redone from the emptying, once.
    await sql`UPDATE cost_rollup_state SET done_seq = -1, planned_seq = 8 WHERE ch_database = ${database}`.execute(db);
    await expectRollupMatchesRaw(rollupOf(1000));
  });
});
