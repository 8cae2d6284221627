import { parseRetryAfter, retryDelay } from './backoff.ts';
import { TallyApiError } from './errors.ts';

/** Money: a decimal string keeps every digit ("100.00", "1000000000000000.001"); a number is taken as JSON sends it. */
export type Money = string | number;

/** A page of a list: `total` rows match; `limit`/`offset` as asked (default 50/0). */
export type Page<K extends string, T> = { [key in K]: T[] } & { total: number; limit: number; offset: number };
export interface PageQuery {
  limit?: number;
  offset?: number;
}

/** How the API calls of `tally.credits` and `tally.spendLimits` reach the service (set up by the client). */
export interface ApiTransport {
  /** The service's `/v1` address. */
  v1: string;
  apiKey?: string;
  agentKey?: string;
  userAgent: string;
  timeoutMs: number;
  maxRetries: number;
  retryBaseMs: number;
  retryMaxMs: number;
}

export interface ApiRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: object;
  body?: unknown;
  headers?: Record<string, string>;
  /** Sent with the agent secret (X-Agent-Secret) instead of the API key. */
  asAgent?: boolean;
  /** Safe to send again after a network error, 429 or 5xx (reads; a grant with its Idempotency-Key). */
  retry: boolean;
}

/**
 * One call of the Family A API: the parsed answer of a 2xx, else a {@link TallyApiError}
 * (`status`, `code`, `details`, `retryable`). A request marked `retry` is sent again after a
 * network error, a 429 or a 5xx, with the event batches' backoff and `Retry-After`.
 */
export async function callApi<T>(t: ApiTransport, r: ApiRequest): Promise<T> {
  const url = t.v1 + r.path + queryString(r.query);
  const headers: Record<string, string> = { 'user-agent': t.userAgent, ...r.headers };
  const secret = r.asAgent ? t.agentKey : t.apiKey;
  if (!secret) throw new TallyApiError('missing_credentials', r.asAgent ? 'this call needs the agent secret (`agentKey`)' : 'this call needs an API key (`apiKey`)', 0);
  if (r.asAgent) headers['x-agent-secret'] = secret;
  else headers.authorization = `Bearer ${secret}`;
  const body = r.body === undefined ? undefined : JSON.stringify(r.body, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : v));
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (let attempt = 0; ; attempt++) {
    try {
      return (await once(t.timeoutMs, r.method, url, headers, body)) as T;
    } catch (e) {
      const err = e instanceof TallyApiError ? e : new TallyApiError('network_error', (e as Error).name === 'AbortError' ? 'timeout' : String((e as Error).message), 0, [], true);
      if (!r.retry || !err.retryable || attempt >= t.maxRetries) throw err;
      await new Promise((res) => setTimeout(res, retryDelay(attempt, err.retryAfterMs, { baseMs: t.retryBaseMs, maxMs: t.retryMaxMs })));
    }
  }
}

/** One request: the parsed answer of a 2xx; throws a TallyApiError for any other. */
async function once(timeoutMs: number, method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<unknown> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const res = await fetch(url, { method, headers, body, signal: ctl.signal });
    const answer = parse(await res.text());
    if (res.ok) return answer;
    const e = (answer as { error?: { code?: string; message?: string; details?: unknown[] } } | undefined)?.error;
    const retryable = res.status === 429 || res.status >= 500;
    throw new TallyApiError(e?.code ?? `http_${res.status}`, e?.message ?? `HTTP ${res.status}`, res.status, e?.details ?? [], retryable, parseRetryAfter(res.headers.get('retry-after')));
  } finally {
    clearTimeout(timer);
  }
}

/** An id as one path segment. */
export const seg = (id: string) => encodeURIComponent(id);

function queryString(q: object | undefined): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q ?? {})) if (v !== undefined && v !== null) params.set(k, v instanceof Date ? v.toISOString() : String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
