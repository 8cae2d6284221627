import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import os from 'node:os';
import path from 'node:path';
import { initTally } from '../catalog/bootstrap.ts';
import { openClickHouse, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../../shared/clickhouse/schema.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import { createDb, dropDatabase, ensureDatabase, migrate, type Db } from '../../shared/db/postgres.ts';
import { uniqueSuffix } from '../../test/harness.ts';
import { OutcomeNotifier } from './notifier.ts';

// The outcome.completed poller against the real ClickHouse engine and Postgres: outcome
// rows are written with chosen sequences, and the "sink ack floor" is a variable.
const suffix = uniqueSuffix();
const database = `on_${suffix}`;
const pgUrl = `postgres://postgres@127.0.0.1:5432/tally_t_on_${suffix}`;
const dataDir = path.join(os.tmpdir(), `tally-test-${process.pid}`);
let ch: ClickHouseClient;
let db: Db;
let env: string;
let floor = 0;
let stream = '2026-11-01T00:00:00.000Z';
let notifier: OutcomeNotifier;

beforeAll(async () => {
  const cfg = parseCommonConfig({ TALLY_DATA_DIR: dataDir, CLICKHOUSE_DATABASE: database });
  ch = await openClickHouse(cfg.clickhouse);
  await migrateClickHouse(ch, database);
  await ensureDatabase(pgUrl);
  db = createDb(pgUrl, { max: 4 });
  await migrate(db as never);
  env = (await initTally(db, { dataDir: path.join(dataDir, suffix) })).environments.development!.id;
  // Two outcomes a query: a message's outcomes span several reads.
  notifier = new OutcomeNotifier(db, ch, database, { intervalMs: 1000 }, async () => ({ stream, floor }), 2);
});
afterAll(async () => {
  await ch?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await db?.destroy();
  await dropDatabase(pgUrl);
});

async function outcomes(seq: number, ids: string[]): Promise<void> {
  await ch.insert({
    table: `${database}.outcomes`,
    values: ids.map((id) => ({ environment_id: env, organization_id: 'org', agent_instance_id: 'ai_1', account_id: '', event_id: id, id_source: 'client', outcome_type: 'hire', value: '1', ts: Date.now(), ingested_at: Date.now(), user_id: '', anonymous_id: '', metadata: '{}', stream_seq: seq })),
    format: 'JSONEachRow',
  });
}
const announced = async () =>
  (await db.selectFrom('webhook_events').select('body').where('event', '=', 'outcome.completed').execute()).map((r) => (JSON.parse(r.body) as { data: { event_id: string } }).data.event_id).sort();

describe('outcome.completed', () => {
  it('announces the outcomes of every message up to the sink ack floor, once, none skipped', async () => {
    await outcomes(1, ['a', 'b', 'c']);
    await outcomes(2, ['d', 'h', 'i']);
    await outcomes(3, ['e', 'f']); // stored, but the sink has not acknowledged it yet
    floor = 2;
    expect(await notifier.pollOnce()).toBe(6);
    expect(await announced()).toEqual(['a', 'b', 'c', 'd', 'h', 'i']);
    expect(await notifier.pollOnce()).toBe(0);

    // A redelivered copy of `a` comes in a later message: announced once all the same.
    await outcomes(4, ['a', 'g']);
    floor = 4;
    expect(await notifier.pollOnce()).toBe(3);
    expect(await announced()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i']);
  });
});

describe('outcome.completed after a change of stream', () => {
  it('announces the outcomes stored before it that were not yet announced, and the new stream from sequence 1, none twice', async () => {
    // Stored on the old stream above its floor (4): not announced yet when the stream changes.
    await outcomes(5, ['j']);
    // The new stream (Postgres and ClickHouse restored onto a fresh one) restarts at 1.
    stream = '2026-11-20T00:00:00.000Z';
    floor = 1;
    await outcomes(1, ['k']);
    expect(await notifier.pollOnce()).toBe(2);
    expect(await announced()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k']);
    // The new stream goes on past its floor: stored before the floor covers it, announced once it does.
    await outcomes(2, ['l', 'm', 'n']);
    expect(await notifier.pollOnce()).toBe(0);
    floor = 2;
    expect(await notifier.pollOnce()).toBe(3);
    expect(await notifier.pollOnce()).toBe(0);
    expect(await announced()).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l', 'm', 'n']);
  });
});
