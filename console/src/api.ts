import createClient from 'openapi-fetch';
import type { components, paths } from './api-types';

export type Schemas = components['schemas'];
export type Client = ReturnType<typeof createClient<paths>>;

/** An API error as the console shows it: the API's message and the request's id. */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly requestId: string,
  ) {
    super(message);
  }
}

type ErrorBody = { error?: { code?: string; message?: string; request_id?: string } };

/** The ApiError of a failed answer (Tally's `{error: {code, message, request_id}}`). */
export function apiError(res: Response, body: unknown): ApiError {
  const e = (body as ErrorBody | undefined)?.error;
  const requestId = e?.request_id ?? res.headers.get('x-request-id') ?? '';
  return new ApiError(e?.message ?? `HTTP ${res.status}`, res.status, e?.code ?? 'http_error', requestId);
}

/** A client of this Tally's API, typed by its OpenAPI document, sending the key as Bearer. */
export function apiClient(key: string): Client {
  const client = createClient<paths>({ baseUrl: location.origin });
  client.use({
    onRequest({ request }) {
      request.headers.set('authorization', `Bearer ${key}`);
      return request;
    },
  });
  return client;
}

/** The data of an openapi-fetch answer, or its error thrown as an {@link ApiError}. */
export async function must<T>(p: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await p;
  if (!response.ok) throw apiError(response, error);
  return data as T;
}

/** A request whose answer is text (CSV from SQL, the invoice HTML). */
export async function fetchText(key: string, path: string, init: { method?: string; body?: string; contentType?: string } = {}): Promise<string> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (init.contentType) headers['content-type'] = init.contentType;
  const res = await fetch(path, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: init.body } : {}) });
  const text = await res.text();
  if (!res.ok) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    throw apiError(res, body);
  }
  return text;
}
