import { Readable } from 'node:stream';
import { chdbRawOf, type ClickHouseClient } from '../../shared/clickhouse/client.ts';

/** Inserts rows given as TabSeparated text (one row per line, fields escaped) into `table`'s `columns`. */
export type TsvInsert = (table: string, columns: readonly string[], tsv: Buffer) => Promise<void>;

/**
 * Insert settings. optimize_on_insert off: ReplacingMergeTree would otherwise
 * deduplicate each inserted block on the way in (~15% of chDB's insert cost); every
 * reader deduplicates by event identity anyway (usage.ts), as it must across parts.
 */
const SETTINGS = { optimize_on_insert: 0 } as const;

/**
 * The cheapest way to insert TabSeparated text with this client
 * (bench/sink-insert.ts compares them).
 * - chDB: the connection's raw insert, which hands the Buffer to the engine as is
 *   (`client.insert` over chDB copies the payload into the SQL text). Parallel parsing
 *   off: on a few cores one parsing thread costs less CPU than the parallel parser's
 *   splitting and threads, and the sink overlaps its inserts anyway.
 * - A ClickHouse server: `client.insert` streaming the text (format TabSeparated).
 * Either way the promise settles once the insert is done, and rejects if it failed.
 */
export function tsvInserter(client: ClickHouseClient): TsvInsert {
  const raw = chdbRawOf(client);
  if (raw) {
    return async (table, columns, tsv) => {
      await raw.rawInsert({ table, columns, values: tsv, format: 'TabSeparated', settings: { ...SETTINGS, input_format_parallel_parsing: 0 } });
    };
  }
  return async (table, columns, tsv) => {
    await client.insert({
      table,
      columns: columns as [string, ...string[]],
      values: Readable.from([tsv], { objectMode: false }),
      format: 'TabSeparated',
      clickhouse_settings: SETTINGS,
    });
  };
}
