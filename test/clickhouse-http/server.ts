/**
 * Test support: ClickHouse's HTTP interface, answered by chDB.
 *
 * This is NOT clickhouse-server. It speaks the subset of the HTTP protocol that
 * `@clickhouse/client` uses (node_modules/@clickhouse/client/dist/connection/
 * node_base_connection.js and client-common/dist/utils/url.js) and runs every query
 * with the same engine, chDB, so Tally's server code path (CLICKHOUSE_URL: HTTP
 * transport, authentication, URL-encoded settings and query parameters, streamed
 * TabSeparated inserts, error parsing) runs in tests on a machine without a
 * ClickHouse server. What it answers like the server:
 * - `GET /ping` and `GET /` without a query: `Ok.`
 * - `GET|POST /?query=…` with the query in the URL, the body, or the URL followed by
 *   the body (an INSERT's data), joined by a newline as the server joins them;
 *   `database`, `default_format` (or the `X-ClickHouse-Format` header), `query_id`,
 *   `param_<name>` query parameters (text form, unescaped as the server does), every
 *   other parameter a setting for this request only (each request runs on its own
 *   chDB session); GET requests are `readonly = 2`.
 * - Authentication: Basic, `X-ClickHouse-User`/`X-ClickHouse-Key`, or `user`/`password`
 *   parameters, against the one user given on the command line; a wrong one is
 *   `Code: 516 … (AUTHENTICATION_FAILED)` with HTTP 403.
 * - Exceptions as `Code: N. DB::Exception: …` text with `X-ClickHouse-Exception-Code`
 *   and the server's HTTP status for the code; multi-statement queries are refused.
 * - Response headers `X-ClickHouse-Query-Id`, `-Format`, `-Timezone`, `-Summary`
 *   (figures from chDB's result: read rows/bytes and elapsed time; approximate);
 *   gzip request bodies and gzip responses (`enable_http_compression=1`).
 * What it does not cover: it buffers each result, so an error never arrives after
 * a 200 (the server can fail mid-stream when `wait_end_of_query` is 0); no progress
 * headers, sessions (`session_id` is refused), roles, quotas, TLS, binary insert
 * formats (the body becomes SQL text: text formats only), async inserts (on by
 * default from ClickHouse 26.2; chDB has no insert queue), distributed or
 * replicated tables, concurrency limits, or anything of clickhouse-server's own
 * configuration (users.xml, profiles, macros, clusters).
 *
 * Run as a child process (chDB allows one data directory per process):
 *   node --import tsx test/clickhouse-http/server.ts --user tally --password secret [--data DIR] [--port 0]
 * It prints one JSON line `{"port":N}` once listening, and exits on SIGTERM/SIGINT or
 * when its standard input closes (its parent is gone), removing a data directory it made.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Session } from 'chdb';

/** URL parameters that are not settings (the server's HTTPHandler reserves these). */
const RESERVED_PARAMS = new Set(['query', 'database', 'default_format', 'query_id', 'user', 'password', 'quota_key', 'role', 'session_id', 'session_timeout', 'session_check', 'stacktrace', 'compress', 'decompress', 'buffer_size', 'wait_end_of_query', 'enable_http_compression', 'http_zlib_compression_level', 'send_progress_in_http_headers', 'http_headers_progress_interval_ms', 'http_response_buffer_size']);

/** clickhouse-local/chDB changes these defaults; a server keeps the engine's own. */
const SERVER_DEFAULTS = ['SET implicit_select = 0', 'SET allow_introspection_functions = 0'];

/** HTTP status for an exception code, as clickhouse-server's exceptionCodeToHTTPStatus maps the ones met here. */
function httpStatusOf(code: number): number {
  if (code === 194) return 401; // REQUIRED_PASSWORD
  if ([192, 193, 516, 497].includes(code)) return 403; // UNKNOWN_USER, WRONG_PASSWORD, AUTHENTICATION_FAILED, ACCESS_DENIED
  if ([6, 25, 26, 27, 36, 38, 41, 53, 62, 69, 72, 117].includes(code)) return 400; // parse errors, BAD_ARGUMENTS, SYNTAX_ERROR, INCORRECT_DATA, TYPE_MISMATCH …
  if ([46, 47, 60, 73, 81, 115].includes(code)) return 404; // UNKNOWN_FUNCTION, _IDENTIFIER, _TABLE, _FORMAT, _DATABASE, _SETTING
  if (code === 48) return 501; // NOT_IMPLEMENTED
  if (code === 159) return 408; // TIMEOUT_EXCEEDED
  return 500;
}

class ClickHouseException extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
  /** The exception text as the server writes it (and @clickhouse/client's parseError reads it). */
  static from(err: unknown): ClickHouseException {
    if (err instanceof ClickHouseException) return err;
    const text = err instanceof Error ? err.message : String(err);
    const m = /^Code: (\d+)\. /.exec(text);
    return m ? new ClickHouseException(Number(m[1]), text) : new ClickHouseException(1001, `Code: 1001. DB::Exception: ${text} (STD_EXCEPTION)`);
  }
}

interface Credentials {
  user: string;
  password: string;
}

/** The request's credentials, where the server looks for them (default: user `default`, no password). */
function credentialsOf(req: IncomingMessage, url: URL): Credentials {
  const auth = req.headers.authorization;
  if (auth?.startsWith('Basic ')) {
    const text = Buffer.from(auth.slice(6), 'base64').toString('utf8');
    const colon = text.indexOf(':');
    return colon < 0 ? { user: text, password: '' } : { user: text.slice(0, colon), password: text.slice(colon + 1) };
  }
  const user = req.headers['x-clickhouse-user'] ?? url.searchParams.get('user');
  const password = req.headers['x-clickhouse-key'] ?? url.searchParams.get('password');
  return { user: String(user ?? 'default'), password: String(password ?? '') };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function authenticate(given: Credentials, expected: Credentials): void {
  if (given.user === expected.user && sameSecret(given.password, expected.password)) return;
  throw new ClickHouseException(516, `Code: 516. DB::Exception: ${given.user}: Authentication failed: password is incorrect, or there is no user with such name. (AUTHENTICATION_FAILED)`);
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const encoding = req.headers['content-encoding'];
  if (!encoding) return body;
  if (encoding === 'gzip') return gunzipSync(body);
  throw new ClickHouseException(48, `Code: 48. DB::Exception: Content-Encoding ${encoding} is not supported by this test server. (NOT_IMPLEMENTED)`);
}

/** A string literal of ClickHouse SQL (backslash escapes). */
const sqlString = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkIdentifier(kind: string, name: string): string {
  if (!IDENTIFIER.test(name)) throw new ClickHouseException(36, `Code: 36. DB::Exception: Invalid ${kind} name ${JSON.stringify(name)}. (BAD_ARGUMENTS)`);
  return name;
}

/**
 * The statements that set up a request's session before its query: server defaults,
 * read-only for GET, the database, settings and query parameters from the URL. A
 * parameter's value is its text form (as `param_x=` carries it); `SET param_x = '…'`
 * takes that text through the same unescaping.
 */
function sessionSetup(url: URL, method: string): string[] {
  const stmts = [...SERVER_DEFAULTS];
  if (method === 'GET') stmts.push('SET readonly = 2');
  const database = url.searchParams.get('database');
  if (database) stmts.push(`USE ${checkIdentifier('database', database)}`);
  for (const [k, v] of url.searchParams) {
    if (RESERVED_PARAMS.has(k)) continue;
    if (k.startsWith('param_')) stmts.push(`SET ${checkIdentifier('parameter', k)} = ${sqlString(v)}`);
    else stmts.push(`SET ${checkIdentifier('setting', k)} = ${sqlString(v)}`);
  }
  return stmts;
}

/** The query text as the server assembles it: the `query` parameter, then the body after a newline. */
function queryText(url: URL, body: Buffer): { sql: string; statement: string } {
  const param = url.searchParams.get('query') ?? '';
  const text = body.toString('utf8');
  if (param && text) return { sql: `${param}\n${text}`, statement: param };
  const sql = param || text;
  if (!sql.trim()) throw new ClickHouseException(62, 'Code: 62. DB::Exception: Empty query. (SYNTAX_ERROR)');
  return { sql, statement: sql };
}

const FORMAT_CLAUSE = /\bFORMAT\s+([A-Za-z0-9_]+)\s*;?\s*$/i;

function contentTypeOf(format: string): string {
  if (/^JSON/i.test(format)) return 'application/json; charset=UTF-8';
  if (/^(TabSeparated|TSV)/i.test(format)) return 'text/tab-separated-values; charset=UTF-8';
  if (/^CSV/i.test(format)) return 'text/csv; charset=UTF-8; header=absent';
  return 'text/plain; charset=UTF-8';
}

export interface ServerOptions {
  dataDir: string;
  user: string;
  password: string;
}

/** Handles one HTTP request; every query runs on a session of its own, closed afterwards. */
function handler(opts: ServerOptions) {
  const expected = { user: opts.user, password: opts.password };
  async function run(req: IncomingMessage, url: URL) {
    authenticate(credentialsOf(req, url), expected);
    if (url.searchParams.has('session_id')) throw new ClickHouseException(48, 'Code: 48. DB::Exception: Sessions are not supported by this test server. (NOT_IMPLEMENTED)');
    const body = await readBody(req);
    if (req.method === 'GET' && !url.searchParams.get('query')) return undefined;
    const { sql, statement } = queryText(url, body);
    const format = url.searchParams.get('default_format') ?? String(req.headers['x-clickhouse-format'] ?? 'TabSeparated');
    const session = new Session(opts.dataDir);
    try {
      await refuseMultiStatements(session, statement);
      const setup = sessionSetup(url, req.method ?? 'POST');
      const result = await session.queryAsync(`${setup.join('; ')}; ${sql}`, { format });
      const outFormat = FORMAT_CLAUSE.exec(statement)?.[1] ?? format;
      return { result, format: outFormat, isInsert: /^\s*INSERT\b/i.test(statement) };
    } finally {
      session.close();
    }
  }
  return async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const queryId = url.searchParams.get('query_id') || randomUUID();
    const headers: Record<string, string> = { 'X-ClickHouse-Query-Id': queryId, 'X-ClickHouse-Timezone': 'UTC', 'X-ClickHouse-Server-Display-Name': 'chdb-http-test', 'Keep-Alive': 'timeout=10' };
    try {
      if (url.pathname === '/ping') return send(res, 200, { ...headers, 'Content-Type': 'text/plain; charset=UTF-8' }, Buffer.from('Ok.\n'));
      if (url.pathname !== '/') throw new ClickHouseException(1001, `Code: 1001. DB::Exception: There is no handle ${url.pathname}. (STD_EXCEPTION)`);
      const done = await run(req, url);
      if (!done) return send(res, 200, { ...headers, 'Content-Type': 'text/plain; charset=UTF-8' }, Buffer.from('Ok.\n'));
      const { result, format, isInsert } = done;
      const rows = String(result.rowsRead);
      const bytes = String(result.bytesRead);
      const summary = { read_rows: rows, read_bytes: bytes, written_rows: isInsert ? rows : '0', written_bytes: isInsert ? bytes : '0', total_rows_to_read: '0', result_rows: isInsert ? '0' : rows, result_bytes: isInsert ? '0' : bytes, elapsed_ns: String(Math.round(result.elapsed * 1e9)) };
      let out = Buffer.from(result.bytes());
      const out_headers = { ...headers, 'Content-Type': contentTypeOf(format), 'X-ClickHouse-Format': format, 'X-ClickHouse-Summary': JSON.stringify(summary) };
      if (url.searchParams.get('enable_http_compression') === '1' && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
        out = gzipSync(out);
        Object.assign(out_headers, { 'Content-Encoding': 'gzip' });
      }
      return send(res, 200, out_headers, out);
    } catch (err) {
      const e = ClickHouseException.from(err);
      req.resume(); // an unread body must not hold the connection
      return send(res, httpStatusOf(e.code), { ...headers, 'Content-Type': 'text/plain; charset=UTF-8', 'X-ClickHouse-Exception-Code': String(e.code) }, Buffer.from(`${e.message}\n`));
    }
  };
}

/** clickhouse-server refuses several statements in one request; chDB would run them all. */
async function refuseMultiStatements(session: Session, statement: string): Promise<void> {
  try {
    await session.queryAsync(`SELECT formatQuery(${sqlString(statement)})`, { format: 'TabSeparated' });
  } catch (err) {
    const e = ClickHouseException.from(err);
    if (e.message.includes('Multi-statements are not allowed')) throw new ClickHouseException(62, e.message.replace(/ : In scope SELECT formatQuery\([\s\S]*\)\./, '.'));
    // Anything else is for the query itself to report when it runs (e.g. an INSERT's inline data).
  }
}

function send(res: ServerResponse, status: number, headers: Record<string, string>, body: Buffer): void {
  res.writeHead(status, { ...headers, 'Content-Length': String(body.length) });
  res.end(body);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { user: { type: 'string', default: 'default' }, password: { type: 'string', default: '' }, data: { type: 'string' }, port: { type: 'string', default: '0' } } });
  const ownDir = !values.data;
  const dataDir = values.data ?? mkdtempSync(path.join(os.tmpdir(), 'chdb-http-'));
  const server = createServer(handler({ dataDir, user: values.user!, password: values.password! }));
  server.keepAliveTimeout = 10_000;
  const stop = () => {
    server.close();
    server.closeAllConnections();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdin.on('end', stop).on('error', stop).resume();
  server.listen(Number(values.port), '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
  });
}

await main();
