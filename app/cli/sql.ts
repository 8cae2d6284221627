import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ENVIRONMENTS } from '../../billing/catalog/bootstrap.ts';
import { parseCommonConfig } from '../../shared/config/common.ts';
import type { Env } from '../../shared/config/parse.ts';

export const SQL_USAGE = `  tally sql "<query>" [--format JSONEachRow|JSON|CSV|CSVWithNames|TSV|TSVWithNames|Parquet]
                  [--env development|staging|production] [--param name=value ...]
                                            read-only SQL on one environment's events, costs and rules,
                                            through the running Tally (TALLY_URL, default http://localhost:8080;
                                            key: TALLY_API_KEY, else the environment's admin key in
                                            <TALLY_DATA_DIR>/credentials.json); "-" reads the query from stdin`;

/** A command line that cannot be run (exit code 2, with the usage). */
export class SqlUsageError extends Error {
  readonly usage = SQL_USAGE;
}

/**
 * `tally sql`: sends the query to the running process's POST /v1/sql and writes the
 * answer to stdout as it came (Parquet as bytes). A refused or failed query prints
 * Tally's error and exits 1.
 */
export async function runSql(args: string[], env: Env): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      format: { type: 'string' },
      env: { type: 'string' },
      param: { type: 'string', multiple: true },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(SQL_USAGE + '\n');
    return 0;
  }
  if (positionals.length !== 1) throw new SqlUsageError('give the query as one argument (quoted), or - to read it from stdin');
  const environment = values.env ?? 'development';
  if (!(ENVIRONMENTS as readonly string[]).includes(environment)) throw new SqlUsageError(`--env must be one of ${ENVIRONMENTS.join(', ')} (got ${environment})`);
  const query = positionals[0] === '-' ? await readStdin() : positionals[0]!;
  const body = { query, ...(values.format ? { format: values.format } : {}), params: parseParams(values.param ?? []) };
  const key = env.TALLY_API_KEY || (await savedAdminKey(parseCommonConfig(env).dataDir, environment));
  const res = await post(`${(env.TALLY_URL || 'http://localhost:8080').replace(/\/+$/, '')}/v1/sql`, key, body);
  const bytes = Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(errorMessage(res.status, bytes));
  await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
  return 0;
}

/** `--param from=2026-11-01` → {from: "2026-11-01"}. */
export function parseParams(list: string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const p of list) {
    const eq = p.indexOf('=');
    if (eq <= 0) throw new SqlUsageError(`--param takes name=value (got ${p})`);
    params[p.slice(0, eq)] = p.slice(eq + 1);
  }
  return params;
}

/** The environment's admin API key kept by `tally init` in <data dir>/credentials.json. */
async function savedAdminKey(dataDir: string, environment: string): Promise<string> {
  const file = path.join(dataDir, 'credentials.json');
  let saved: { environments?: Record<string, { admin_api_key?: string | null }> };
  try {
    saved = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    throw new Error(`no API key: set TALLY_API_KEY, or run \`tally init\` on this machine (${file} is missing or unreadable)`);
  }
  const key = saved.environments?.[environment]?.admin_api_key;
  if (!key) throw new Error(`no API key: ${file} has no admin key for ${environment}; set TALLY_API_KEY`);
  return key;
}

async function post(url: string, key: string, body: unknown): Promise<Response> {
  try {
    return await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch (err) {
    throw new Error(`cannot reach Tally at ${url} (${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}); is it running? set TALLY_URL`);
  }
}

function errorMessage(status: number, bytes: Buffer): string {
  try {
    const { error } = JSON.parse(bytes.toString('utf8')) as { error: { code: string; message: string } };
    return `${error.code} (${status}): ${error.message}`;
  } catch {
    return `HTTP ${status}: ${bytes.toString('utf8').slice(0, 500)}`;
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
