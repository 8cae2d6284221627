import type { WireBatch } from '../../shared/events/wire.ts';

/**
 * Sink rows as ClickHouse TabSeparated text, in the column order of ACTION_COLUMNS and
 * OUTCOME_COLUMNS (shared/events/tables.ts). Built straight from a decoded batch's columns: no row
 * arrays, no JSON; ClickHouse's TSV parser is cheap too (bench/sink-insert.ts).
 *
 * Escaping is what keeps it correct. In TabSeparated a raw tab ends a field, a raw
 * newline ends a row and a backslash starts an escape, so these (and \r, which some
 * readers take as a line end) are written \t, \n, \\ and \r; every other character,
 * quotes and unicode included, is literal. Times stay integers (DateTime64(3) reads an
 * integer as milliseconds), token counts are integers (validated by ingest), and enum
 * and number fields need no escaping.
 *
 * TRICKY: return one string per wire batch and turn it into a Buffer right away
 * (see the sink): one big string concatenated over many batches is a deep rope that
 * costs several times more (GC and flattening) than building it.
 */

const SPECIAL = /[\t\n\r\\]/;
const SPECIAL_ALL = /[\t\n\r\\]/g;
const ESCAPES: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r', '\\': '\\\\' };

/** One String value as a TabSeparated field. */
export function tsvEscape(s: string): string {
  // Nearly every value needs no escape: test first, replace only when needed.
  return SPECIAL.test(s) ? s.replace(SPECIAL_ALL, (c) => ESCAPES[c]!) : s;
}

/** id_source by its wire code (1 client, 2 server), as the Enum8 name. */
const ID_SOURCE = ['', 'client', 'server'] as const;

/**
 * Number-to-text of event and ingestion times, remembering the last one: times are
 * doubles (beyond small integers), slow to print, and repeat across a batch's rows.
 */
function timeText(): (t: number) => string {
  let last = NaN;
  let text = '';
  return (t) => (t === last ? text : ((last = t), (text = String(t))));
}

/** The actions of a batch as TabSeparated rows; `seq` is its JetStream sequence (stream_seq). */
export function actionsTsv(b: WireBatch, seq: number): string {
  const d = b.dict.map(tsvEscape); // escaped once: dictionary entries repeat across rows
  const ts = timeText(), ing = timeText();
  const end = `\t${seq}\n`;
  let s = '';
  for (let i = 0; i < b.n; i++) {
    if (b.k[i] !== 1) continue;
    s += d[b.env[i]!] + '\t' + d[b.org[i]!] + '\t' + d[b.agent[i]!] + '\t' + d[b.acct[i]!] + '\t' + tsvEscape(b.id[i]!) + '\t'
      + ID_SOURCE[b.src[i]!] + '\t' + d[b.type[i]!] + '\t' + ts(b.ts[i]!) + '\t' + ing(b.ing[i]!) + '\t'
      + d[b.uid[i]!] + '\t' + d[b.anon[i]!] + '\t' + d[b.model[i]!] + '\t' + b.tin[i] + '\t' + b.tout[i] + '\t' + b.ttot[i] + '\t'
      + tsvEscape(b.meta[i]!) + end;
  }
  return s;
}

/** The outcomes of a batch (every event that is not an action) as TabSeparated rows; `seq` as for actions. */
export function outcomesTsv(b: WireBatch, seq: number): string {
  const d = b.dict.map(tsvEscape);
  const end = `\t${seq}\n`;
  let s = '';
  for (let i = 0; i < b.n; i++) {
    if (b.k[i] === 1) continue;
    s += d[b.env[i]!] + '\t' + d[b.org[i]!] + '\t' + d[b.agent[i]!] + '\t' + d[b.acct[i]!] + '\t' + tsvEscape(b.id[i]!) + '\t'
      + ID_SOURCE[b.src[i]!] + '\t' + d[b.type[i]!] + '\t' + tsvEscape(b.val[i] || '0') + '\t' + b.ts[i] + '\t' + b.ing[i] + '\t'
      + d[b.uid[i]!] + '\t' + d[b.anon[i]!] + '\t' + tsvEscape(b.meta[i]!) + end;
  }
  return s;
}
