import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { AppError, isUnavailableError } from '../../shared/errors.ts';

/**
 * Analysts' read-only SQL on the running process's ClickHouse (POST /v1/sql, `tally sql`),
 * scoped to one environment. ClickHouse itself parses, resolves and limits the query:
 *
 * 1. `formatQuerySingleLine` (the query bound as a parameter) parses it: one statement,
 *    or a syntax error. Nothing of the analyst's text reaches SQL text before this.
 * 2. `EXPLAIN SYNTAX` (as a subquery: SELECT only, no FORMAT, no INTO OUTFILE, which chDB
 *    would honour even on an EXPLAIN, writing a file) binds the
 *    analyst's parameters as literals, so the query that runs binds none (chDB runs
 *    parameterized queries one at a time, process-wide).
 * 3. `EXPLAIN AST` of that text: no SETTINGS anywhere, no table functions, no function
 *    that reads outside the query (`file`, dictionaries, `joinGet`), no table named with
 *    a database.
 * 4. The query runs as a subquery under one CTE per exposed name (`actions`, `outcomes`,
 *    ... read from Tally's database with `environment_id` = the key's environment), with
 *    SETTINGS `readonly = 1`, time, memory and result limits, and `additional_table_filters`
 *    filtering every read of those tables by environment (whatever path reaches them).
 *    `EXPLAIN QUERY TREE` of exactly that text (ClickHouse's own name resolution) must
 *    read no table but the exposed ones (and `system.one`) and no table function.
 * 5. Then it runs, in the requested format.
 */

/** The names an analyst queries, each the environment's rows of Tally's table (rule tables read FINAL). */
const SQL_TABLES: Readonly<Record<string, { final?: boolean }>> = {
  actions: {},
  outcomes: {},
  cost_rules: { final: true },
  outcome_rules: { final: true },
  costs_daily: {},
  cost_events: {},
};

/** Output formats and the content type each is sent with. */
export const SQL_FORMATS = {
  JSONEachRow: 'application/x-ndjson',
  JSON: 'application/json',
  CSV: 'text/csv; charset=utf-8',
  CSVWithNames: 'text/csv; charset=utf-8',
  TSV: 'text/tab-separated-values; charset=utf-8',
  TSVWithNames: 'text/tab-separated-values; charset=utf-8',
  Parquet: 'application/vnd.apache.parquet',
} as const;
export type SqlFormat = keyof typeof SQL_FORMATS;
export const SQL_FORMAT_NAMES = Object.keys(SQL_FORMATS) as SqlFormat[];

/** Limits of every analyst query (ClickHouse settings, fixed: a query may set none). */
const SQL_LIMITS = {
  max_execution_time: 30,
  max_result_rows: 1_000_000,
  max_result_bytes: 100_000_000,
  result_overflow_mode: 'throw',
  max_memory_usage: 2_000_000_000,
} as const;

/** Functions that read outside the query (files, dictionaries, Join tables, server state). */
const DENIED_FUNCTIONS = /^(file|joinget|joingetornull|dict[a-z0-9]*|hascolumnintable|getserversetting|getmergetreesetting|getmacro|catboostevaluate|naivebayesclassifier|showcertificate|filesystem[a-z]*)$/;
const IN_FUNCTIONS = /^(global)?(not)?(null)?in$/;

interface SqlQuery {
  database: string;
  environmentId: string;
  query: string;
  format: SqlFormat;
  params: Record<string, string>;
}

type Client = Pick<ClickHouseClient, 'query' | 'exec'>;

/** Runs an analyst's query; the result's bytes in the requested format. */
export async function runAnalystQuery(ch: Client, q: SqlQuery): Promise<Buffer> {
  const formatted = await formatQuery(ch, q.query);
  const canonical = await bindParameters(ch, formatted, q.params);
  checkSyntaxTree(await explain(ch, `SELECT explain FROM (EXPLAIN AST ${canonical})`));
  const scoped = scopedQuery(canonical, q.database, q.environmentId);
  checkQueryTree(await explain(ch, `EXPLAIN QUERY TREE (${scoped})`), q.database);
  return onClickHouse(async () => {
    const rs = await ch.exec({ query: `${scoped}\nFORMAT ${q.format}`, clickhouse_settings: { wait_end_of_query: 1 } });
    return readAll(rs.stream);
  });
}

/** The query as ClickHouse formats it: exactly one statement (a second one is a syntax error). */
async function formatQuery(ch: Client, query: string): Promise<string> {
  const rows = await onClickHouse(async () => {
    const rs = await ch.query({ query: 'SELECT formatQuerySingleLine({q:String}) AS q', query_params: { q: query }, format: 'JSONEachRow' });
    return rs.json<{ q: string }>();
  });
  const formatted = rows[0]?.q ?? '';
  if (!/^(SELECT|WITH|\()/.test(formatted)) refuse('only a SELECT query (SELECT or WITH ... SELECT) may run here; INSERT, ALTER, DROP, SET and other statements are refused');
  return formatted;
}

/** The query with its `{name:Type}` parameters bound as literals by ClickHouse (EXPLAIN SYNTAX). */
async function bindParameters(ch: Client, formatted: string, params: Record<string, string>): Promise<string> {
  const lines = await explain(ch, `SELECT explain FROM (EXPLAIN SYNTAX oneline = 1 ${formatted})`, params).catch((err: unknown) => {
    // The query parsed on its own (formatQuery): what fails as a subquery is a FORMAT or INTO OUTFILE clause.
    if (err instanceof AppError && /Syntax error/.test(err.message)) refuse('FORMAT and INTO OUTFILE are not accepted: choose the output with `format`');
    throw err;
  });
  if (lines.length !== 1) refuse('the query did not parse as one SELECT query');
  return lines[0]!;
}

/** One node of `EXPLAIN AST`'s indented dump. */
interface AstNode {
  depth: number;
  kind: string;
  name: string;
  parent: AstNode | undefined;
}

/** Parses `EXPLAIN AST` lines ("  Function in (children 1)") into nodes with their parents. */
export function parseAst(lines: readonly string[]): AstNode[] {
  const nodes: AstNode[] = [];
  const path: AstNode[] = [];
  for (const line of lines) {
    const depth = line.length - line.trimStart().length;
    const [kind = '', name = ''] = line.trim().replace(/ \((alias [^)]*|children \d+)\)/g, '').split(' ', 2);
    path.length = depth;
    const node = { depth, kind, name, parent: path[depth - 1] };
    path[depth] = node;
    nodes.push(node);
  }
  return nodes;
}

/** Refuses what the parsed query must not contain (see the module comment, step 3). */
export function checkSyntaxTree(lines: readonly string[]): void {
  const nodes = parseAst(lines);
  if (nodes[0]?.kind !== 'SelectWithUnionQuery') refuse('only a SELECT query may run here');
  for (const n of nodes) {
    const fn = n.kind === 'Function' ? n.name.toLowerCase() : '';
    if (n.kind === 'Set') refuse('SETTINGS are not accepted: limits are fixed (see docs/analytics.md)');
    if (fn && n.parent?.kind === 'TableExpression') refuse(`table functions are not accepted (${n.name}); query ${tableList()}`);
    if (fn && DENIED_FUNCTIONS.test(fn)) refuse(`function ${n.name} is not available here`);
    if (n.kind === 'TableIdentifier' && n.name.includes('.') && n.name !== 'system.one') {
      refuse(`tables are named without a database: query ${tableList()} (${n.name} is not one of them)`);
    }
    if (fn && IN_FUNCTIONS.test(fn)) checkInOperand(nodes, n);
  }
}

/** The right side of IN must be a list, a literal or a subquery (not a table named with a database, nor a function). */
function checkInOperand(nodes: AstNode[], fn: AstNode): void {
  const args = nodes.find((n) => n.parent === fn);
  const right = nodes.filter((n) => n.parent === args)[1];
  if (!right) return;
  if ((right.kind === 'Identifier' && right.name.includes('.')) || (right.kind === 'Function' && !['tuple', 'array'].includes(right.name))) {
    refuse(`IN takes a list or a subquery here (not ${right.name})`);
  }
}

/** The analyst's query under the exposed names and Tally's fixed settings (module comment, step 4). */
export function scopedQuery(canonical: string, database: string, environmentId: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database) || !/^[A-Za-z0-9_]+$/.test(environmentId)) throw new Error('invalid database or environment id');
  const env = `environment_id = '${environmentId}'`;
  const ctes = Object.entries(SQL_TABLES).map(([name, t]) => `${name} AS (SELECT * FROM ${database}.${name}${t.final ? ' FINAL' : ''} WHERE ${env})`);
  const filters = Object.keys(SQL_TABLES).map((name) => `'${database}.${name}': 'environment_id = \\'${environmentId}\\''`);
  const limits = Object.entries(SQL_LIMITS).map(([k, v]) => `${k} = ${typeof v === 'string' ? `'${v}'` : v}`);
  return `WITH ${ctes.join(', ')} SELECT * FROM (${canonical}) SETTINGS readonly = 1, ${limits.join(', ')}, additional_table_filters = {${filters.join(', ')}}`;
}

/** Refuses a resolved query that reads anything but the exposed tables (module comment, step 4). */
export function checkQueryTree(lines: readonly string[], database: string): void {
  const allowed = new Set([...Object.keys(SQL_TABLES).map((t) => `${database}.${t}`), 'system.one']);
  for (const line of lines) {
    const fn = /^\s*TABLE_FUNCTION id: .*table_function_name: ([^\s,]+)/.exec(line);
    if (fn) refuse(`table functions are not accepted (${fn[1]}); query ${tableList()}`);
    const table = /^\s*TABLE id: .*table_name: ([^\s,]+)/.exec(line);
    if (table && !allowed.has(table[1]!)) refuse(`the query reads ${table[1]}; only ${tableList()} may be read`);
  }
}

/** The `explain` lines of an EXPLAIN statement (JSONEachRow whatever the backend's default format). */
async function explain(ch: Client, sql: string, params: Record<string, string> = {}): Promise<string[]> {
  return onClickHouse(async () => {
    const rs = await ch.exec({ query: sql, query_params: params, clickhouse_settings: { default_format: 'JSONEachRow' } });
    const text = (await readAll(rs.stream)).toString('utf8');
    return text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => String((JSON.parse(l) as { explain?: unknown }).explain ?? ''));
  });
}

async function readAll(stream: AsyncIterable<Uint8Array | string>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c.buffer, c.byteOffset, c.byteLength));
  return Buffer.concat(chunks);
}

/** Runs one ClickHouse step: an unreachable ClickHouse stays a 503; any error of the query is a 400 with ClickHouse's message. */
async function onClickHouse<T>(step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (err instanceof AppError || isUnavailableError(err)) throw err;
    throw new AppError('validation_failed', `the query failed: ${clickHouseMessage(err)}`, { cause: err });
  }
}

/** ClickHouse's message without its code prefix and version suffix, at most 1,000 characters. */
function clickHouseMessage(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message
    .replace(/^Code: \d+\. DB::Exception: /, '')
    .replace(/ \(version [^)]*\)\s*$/, '')
    .trim()
    .slice(0, 1000);
}

function tableList(): string {
  return Object.keys(SQL_TABLES).join(', ');
}

function refuse(message: string): never {
  throw new AppError('validation_failed', message);
}
