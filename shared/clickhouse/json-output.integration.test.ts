/**
 * Tally's ClickHouse client answers 64-bit integers as JSON strings on every query,
 * whatever the engine's default (ClickHouse 25.8 made it JSON numbers; this chDB is
 * newer), and its readers read both shapes. Analysts' SQL keeps its documented shape.
 */
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openClickHouse, type ClickHouseClient } from './client.ts';
import { decimalFromClickHouse } from './decimal.ts';

let ch: ClickHouseClient;
const QUERY = `SELECT toUInt64('18446744073709551615') AS big, count() AS n, toString(sum(toDecimal128(number, 2))) AS d FROM numbers(3)`;
const read = async (settings?: Record<string, number>) =>
  (await ch.query({ query: QUERY, format: 'JSONEachRow', ...(settings ? { clickhouse_settings: settings } : {}) })).json<Record<string, unknown>>();

beforeAll(async () => {
  // The harness's chDB directory of this test process (one per process).
  ch = await openClickHouse({ url: undefined, user: 'default', password: '', database: 'default', chdbPath: path.join(os.tmpdir(), `tally-test-${process.pid}`) });
});
afterAll(async () => {
  await ch?.close();
});

describe('ClickHouse JSON output', () => {
  it('quotes 64-bit integers on every query, also after a query that asked for numbers (the engine default here)', async () => {
    expect(await read()).toEqual([{ big: '18446744073709551615', n: '3', d: '3' }]);
    // The other shape: what a ClickHouse >= 25.8 answers by default (JSON numbers; above 2^53 inexact).
    const numbers = await read({ output_format_json_quote_64bit_integers: 0 });
    expect(typeof numbers[0]!.n).toBe('number');
    expect(await read()).toEqual([{ big: '18446744073709551615', n: '3', d: '3' }]);
  });

  it.each([
    ['3', '3'],
    [3, '3'],
    ['10.50', '10.5'],
    [10.5, '10.5'],
    ['0.000000000000000001', '0.000000000000000001'],
  ])('the decimal reader reads %j as %s', (shape, text) => {
    expect(decimalFromClickHouse(shape)).toBe(text);
  });
});
