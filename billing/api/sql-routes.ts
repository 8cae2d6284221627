import { Type } from '@sinclair/typebox';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import { AppError } from '../../shared/errors.ts';
import { unsafeText } from '../../shared/http/safe-text.ts';
import type { HttpRequest } from '../../shared/http/types.ts';
import { runAnalystQuery, SQL_FORMAT_NAMES, SQL_FORMATS, type SqlFormat } from '../reports/sql-access.ts';
import type { ApiDeps, Endpoint } from './route.ts';
import { body } from './validate.ts';

const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const MAX_QUERY_CHARS = 100_000;
/**
 * Analyst queries running at once in a process. chDB runs each on a libuv worker (4 by
 * default, shared with the sink's inserts and every other query): two leave the rest to Tally.
 */
const MAX_RUNNING = 2;

const SqlRequest = Type.Object({
  query: Type.String({ minLength: 1, maxLength: MAX_QUERY_CHARS, errorMessage: `must be a SQL query of at most ${MAX_QUERY_CHARS} characters` }),
  format: Type.Optional(Type.Union(SQL_FORMAT_NAMES.map((f) => Type.Literal(f)), { errorMessage: `must be one of ${SQL_FORMAT_NAMES.join(', ')}` })),
  params: Type.Optional(
    Type.Record(Type.String(), Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]), {
      maxProperties: 100,
      errorMessage: 'must be an object of query parameters: names of letters, digits and _, values strings, numbers or booleans',
    }),
  ),
});

/**
 * Query parameters of the text/plain form (the JSON form carries them in its body):
 * `format`, and `param_<name>` per query parameter (`{name:Type}` in the query).
 */
const SqlTextQuery = Type.Object({
  format: Type.Optional(Type.Union(SQL_FORMAT_NAMES.map((f) => Type.Literal(f)), { description: 'output format of a text/plain query (default JSONEachRow)' })),
});

interface ParsedRequest {
  query: string;
  format: SqlFormat;
  params: Record<string, string>;
}

/**
 * POST /v1/sql: an admin key's read-only SQL over its environment's events, costs and
 * rules (billing/reports/sql-access.ts). A JSON body `{query, format?, params?}`, or the
 * query as text/plain with `?format=` and `?param_<name>=`.
 */
export function sqlEndpoints({ ch, chDatabase }: ApiDeps): Endpoint[] {
  let running = 0;
  return [
    {
      method: 'POST',
      path: '/v1/sql',
      capability: 'admin',
      query: [SqlTextQuery],
      alsoAccepts: { 'text/plain': Type.String({ description: 'the SQL query; format and param_<name> in the query string' }) },
      response: Type.String({ description: 'the rows in the asked format' }),
      responseTypes: [...new Set(Object.values(SQL_FORMATS))],
      errors: [415],
      summary: 'Read-only SQL over this environment (actions, outcomes, cost_rules, outcome_rules, costs_daily, cost_events); see docs/analytics.md',
      requestBody: SqlRequest,
      handle: async (req, p) => {
        const r = parseRequest(req);
        if (running >= MAX_RUNNING) throw new AppError('rate_limited', `${MAX_RUNNING} SQL queries are already running in this process; retry shortly`, { retryAfterSeconds: 1 });
        running++;
        try {
          const result = await runAnalystQuery(withExec(ch), { database: chDatabase, environmentId: p.environmentId, ...r });
          return { status: 200, raw: result, contentType: SQL_FORMATS[r.format] };
        } finally {
          running--;
        }
      },
    },
  ];
}

function parseRequest(req: HttpRequest): ParsedRequest {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === 'text/plain' || type === 'application/sql') return plainRequest(req);
  if (type !== 'application/json' && type !== '') {
    throw new AppError('unsupported_media_type', 'send the query as application/json ({"query": ..., "format": ..., "params": {...}}) or text/plain');
  }
  const b = body(req, SqlRequest);
  const params: Record<string, string> = {};
  for (const [k, v] of Object.entries(b.params ?? {})) params[paramName(k, `params.${k}`)] = String(v);
  return { query: b.query, format: b.format ?? 'JSONEachRow', params };
}

/** The query as the text/plain body; the format and `param_<name>` parameters from the query string. */
function plainRequest(req: HttpRequest): ParsedRequest {
  const query = req.body.toString('utf8');
  const unsafe = unsafeText(query);
  if (unsafe) throw new AppError('validation_failed', `query ${unsafe}`);
  if (query.trim() === '' || query.length > MAX_QUERY_CHARS) throw new AppError('validation_failed', `send a SQL query of at most ${MAX_QUERY_CHARS} characters`);
  const format = req.query.get('format') ?? 'JSONEachRow';
  if (!(SQL_FORMAT_NAMES as string[]).includes(format)) throw new AppError('validation_failed', `format must be one of ${SQL_FORMAT_NAMES.join(', ')}`);
  const params: Record<string, string> = {};
  for (const [k, v] of req.query) {
    if (k.startsWith('param_')) params[paramName(k.slice(6), k)] = v;
  }
  return { query, format: format as SqlFormat, params };
}

/** A query parameter's name (letters, digits and _), else a 400 naming where it was given. */
function paramName(name: string, where: string): string {
  if (!PARAM_NAME.test(name)) throw new AppError('validation_failed', `${where}: a parameter name is letters, digits and _ (at most 64)`, { details: [{ path: where, message: 'must be a parameter name' }] });
  return name;
}

/** The API's ClickHouse client with `exec` (raw output: Parquet, EXPLAIN): the process's one client has it. */
function withExec(ch: ApiDeps['ch']): Pick<ClickHouseClient, 'query' | 'exec'> {
  const full = ch as Partial<ClickHouseClient>;
  if (typeof full.exec !== 'function') throw new Error('the ClickHouse client given to the API cannot run raw queries');
  return full as Pick<ClickHouseClient, 'query' | 'exec'>;
}
