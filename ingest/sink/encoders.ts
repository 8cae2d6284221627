import { chdbRawOf, type ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { tsvInserter } from './tsv-insert.ts';
import type { WireBatch } from '../../shared/events/wire.ts';
import { chdbRowBinaryInserter } from './chdb-file-insert.ts';
import { actionsRowBinary, outcomesRowBinary, RowBinaryWriter } from './rowbinary.ts';
import { ACTION_COLUMNS, ACTION_TABLE, OUTCOME_COLUMNS, OUTCOME_TABLE } from './rows.ts';
import { actionsTsv, outcomesTsv } from './tsv.ts';

/** The rows of one insert, built message by message, then inserted into both tables. */
export interface RowsBuilder {
  /** Adds a decoded message's rows; throws (adding nothing) when they cannot be encoded. */
  add(batch: WireBatch, seq: number): void;
  /** Inserts what was added into `{database}.actions` and `{database}.outcomes`. */
  insert(database: string): Promise<void>;
}

/** How the sink writes rows: a new builder per insert. */
export type RowsFormat = () => RowsBuilder;

/**
 * The cheapest rows for the engine at hand (bench/sink-insert.ts compares them):
 * - chDB (in this process): RowBinary, which the engine parses at about half the CPU of
 *   text, through a file (chdb-file-insert.ts);
 * - a ClickHouse server: TabSeparated text streamed over HTTP (the server parses it).
 */
export function rowsFormatFor(ch: ClickHouseClient, format: 'auto' | 'tsv' = 'auto'): RowsFormat {
  return format === 'auto' && chdbRawOf(ch) ? rowBinaryRows(ch) : tsvRows(ch);
}

function rowBinaryRows(ch: ClickHouseClient): RowsFormat {
  const insert = chdbRowBinaryInserter(ch);
  // Writers are reused from insert to insert (one per table and insert in flight): a
  // fresh one grows by doubling to the insert's size, copying as it goes.
  const free: RowBinaryWriter[] = [];
  const writer = () => {
    const w = free.pop() ?? new RowBinaryWriter();
    w.rewind(0);
    return w;
  };
  return () => {
    const actions = writer();
    const outcomes = writer();
    let nActions = 0;
    let nOutcomes = 0;
    return {
      add(batch, seq) {
        const a = actions.mark;
        const o = outcomes.mark;
        try {
          nActions += actionsRowBinary(batch, seq, actions);
          nOutcomes += outcomesRowBinary(batch, seq, outcomes);
        } catch (err) {
          actions.rewind(a);
          outcomes.rewind(o);
          throw err;
        }
      },
      async insert(database) {
        try {
          await Promise.all([
            nActions > 0 && insert(`${database}.actions`, ACTION_TABLE, actions.bytes()),
            nOutcomes > 0 && insert(`${database}.outcomes`, OUTCOME_TABLE, outcomes.bytes()),
          ]);
        } finally {
          free.push(actions, outcomes);
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
      add(batch, seq) {
        const a = actionsTsv(batch, seq);
        const o = outcomesTsv(batch, seq);
        if (a) actions.push(Buffer.from(a));
        if (o) outcomes.push(Buffer.from(o));
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
