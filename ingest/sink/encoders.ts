import { chdbRawOf, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { tsvInserter } from './tsv-insert.ts';
import { decodeBatch } from '../../shared/events/wire.ts';
import { decodeAnyBatch, isNativeBatch, readNativeBatch } from '../../shared/events/native-batch.ts';
import { chdbNativeInserter } from './chdb-file-insert.ts';
import { NativeBlock } from './native.ts';
import { ACTION_COLUMNS, ACTION_TABLE, OUTCOME_COLUMNS, OUTCOME_TABLE } from '../../shared/events/tables.ts';
import { actionsTsv, outcomesTsv } from './tsv.ts';

/** The rows of one insert, built message by message, then inserted into both tables. */
export interface RowsBuilder {
  /**
   * Adds a message's rows (`seq`: its JetStream sequence) and returns how many; throws
   * (adding nothing) a WireFormatError when it cannot be read, a RangeError when a value
   * cannot be encoded.
   */
  add(data: Uint8Array, seq: number): number;
  /** Inserts what was added into `{database}.actions` and `{database}.outcomes`. */
  insert(database: string): Promise<void>;
}

/** How the sink writes rows: a new builder per insert. */
export type RowsFormat = () => RowsBuilder;

/**
 * The cheapest rows for the engine at hand (bench/sink-insert.ts compares them):
 * - chDB (in this process): a Native block, the engine's own layout, through a file
 *   (native.ts, chdb-file-insert.ts);
 * - a ClickHouse server: TabSeparated text streamed over HTTP (the server parses it).
 */
export function rowsFormatFor(ch: ClickHouseClient, format: 'auto' | 'tsv' = 'auto'): RowsFormat {
  return format === 'auto' && chdbRawOf(ch) ? nativeRows(ch) : tsvRows(ch);
}

function nativeRows(ch: ClickHouseClient): RowsFormat {
  const insert = chdbNativeInserter(ch);
  // Blocks are reused from insert to insert (a pair per insert in flight): fresh ones
  // grow their buffers by doubling to the insert's size, copying as they go.
  const free: { actions: NativeBlock; outcomes: NativeBlock }[] = [];
  return () => {
    const blocks = free.pop() ?? { actions: new NativeBlock(ACTION_TABLE, true), outcomes: new NativeBlock(OUTCOME_TABLE, false) };
    const { actions, outcomes } = blocks;
    actions.clear();
    outcomes.clear();
    return {
      add(data, seq) {
        // Wire format 4 is checked whole before anything is added; 2 and 3 are checked value by value.
        const native = isNativeBatch(data) ? readNativeBatch(data) : undefined;
        const batch = native ? undefined : decodeBatch(data);
        actions.mark();
        outcomes.mark();
        try {
          return native ? actions.append(native.actions, seq) + outcomes.append(native.outcomes, seq) : actions.add(batch!, seq) + outcomes.add(batch!, seq);
        } catch (err) {
          actions.undo();
          outcomes.undo();
          throw err;
        }
      },
      async insert(database) {
        try {
          await Promise.all([
            actions.rows > 0 && insert(`${database}.actions`, ACTION_TABLE, actions.chunks()),
            outcomes.rows > 0 && insert(`${database}.outcomes`, OUTCOME_TABLE, outcomes.chunks()),
          ]);
        } finally {
          free.push(blocks);
        }
      },
    };
  };
}

function tsvRows(ch: ClickHouseClient): RowsFormat {
  const insert = tsvInserter(ch);
  return () => {
    // One Buffer per message (see tsv.ts: a long string built over many batches costs more).
    const actions: Buffer[] = [];
    const outcomes: Buffer[] = [];
    return {
      add(data, seq) {
        const batch = decodeAnyBatch(data);
        const a = actionsTsv(batch, seq);
        const o = outcomesTsv(batch, seq);
        if (a) actions.push(Buffer.from(a));
        if (o) outcomes.push(Buffer.from(o));
        return batch.n;
      },
      async insert(database) {
        await Promise.all([
          actions.length > 0 && insert(`${database}.actions`, ACTION_COLUMNS, Buffer.concat(actions)),
          outcomes.length > 0 && insert(`${database}.outcomes`, OUTCOME_COLUMNS, Buffer.concat(outcomes)),
        ]);
      },
    };
  };
}
