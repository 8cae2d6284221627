/**
 * Multi-row inserts against Postgres's limit of 65,535 parameters a statement: one
 * statement of 30,000 three-value rows is refused, the same rows in insertSlices' slices
 * all land (a bill run records its invoices this way).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueSuffix } from '../../test/harness.ts';
import { createDb, dropDatabase, ensureDatabase, insertSlices, MAX_STATEMENT_PARAMETERS, type Db } from './postgres.ts';

const url = `postgres://postgres@127.0.0.1:5432/tally_t_${uniqueSuffix()}`;
let db: Db;

beforeAll(async () => {
  await ensureDatabase(url);
  db = createDb(url, { max: 2 });
  await sql`CREATE TABLE rows3 (a text PRIMARY KEY, b text NOT NULL, c boolean NOT NULL)`.execute(db);
});
afterAll(async () => {
  await db?.destroy();
  await dropDatabase(url);
});

const rows = Array.from({ length: 30_000 }, (_, i) => ({ a: `inv_${i}`, b: 'br_1', c: i % 2 === 0 }));
const insert = (slice: typeof rows) => (db as any).insertInto('rows3').values(slice).execute();

describe('insertSlices', () => {
  it('splits rows so that no statement passes the parameter limit, keeping every row in order', () => {
    for (const [n, columns] of [[0, 3], [1, 3], [21_845, 3], [21_846, 3], [100_000, 3], [70_000, 1], [5, 65_535]] as const) {
      const input = Array.from({ length: n }, (_, i) => i);
      const slices = insertSlices(input, columns);
      expect(slices.flat()).toEqual(input);
      for (const s of slices) {
        expect(s.length).toBeGreaterThan(0);
        expect(s.length * columns).toBeLessThanOrEqual(MAX_STATEMENT_PARAMETERS);
      }
    }
    expect(insertSlices([1, 2, 3, 4, 5], 3, 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(() => insertSlices([1], 0)).toThrow(RangeError);
  });

  it('lets 30,000 three-value rows into Postgres, which refuses them in one statement', async () => {
    await expect(insert(rows)).rejects.toThrow(/parameter/);
    for (const slice of insertSlices(rows, 3)) await insert(slice);
    const n = await sql<{ n: string }>`SELECT count(*) AS n FROM rows3`.execute(db);
    expect(Number(n.rows[0]!.n)).toBe(30_000);
  });
});
