import type { BodyReservation } from './body-budget.ts';

/** A request as handlers see it: everything read, body buffered. */
export interface HttpRequest {
  /** Upper-case method. */
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  /** Parsed on first use. */
  readonly query: URLSearchParams;
  /** Lower-case header names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly requestId: string;
  /** performance.now() when the request arrived. */
  readonly receivedAt: number;
  /**
   * The request's share of the process's budget of body memory (its body's bytes, taken
   * as they arrived): a handler takes what inflating and parsing the body will cost
   * before doing it (`take` throws the 503 or 413). Given back when the request is answered.
   */
  readonly memory?: BodyReservation | undefined;
  /**
   * The outcome of the route's credential check (`Route.authenticate`), run once as the
   * body arrived; undefined when it was not run. Handlers take it (`credentialsOf`)
   * rather than checking again: a check counts the request against its key's rate limit.
   */
  readonly credentials?: CredentialCheck | undefined;
  /** Set by authentication; read by later steps (rate limiting, audit). */
  principal?: unknown;
}

/** What a route's credential check gave: its principal, or its error. */
export type CredentialCheck = { readonly ok: true; readonly principal: unknown } | { readonly ok: false; readonly error: unknown };

export interface HttpResponse {
  status: number;
  /** Serialized as JSON unless `raw` is given. */
  body?: unknown;
  /** A pre-serialized body (string or bytes) sent as is. */
  raw?: string | Uint8Array;
  contentType?: string;
  headers?: Record<string, string>;
}

type Handler = (req: HttpRequest) => Promise<HttpResponse> | HttpResponse;

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  /** Path with `:name` parameters, e.g. `/api/v1/account/:account_id`. */
  path: string;
  handler: Handler;
  /** Largest accepted request body; default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * The memory a request takes per byte of its body while it runs (the body, and what
   * parsing it takes: `parsedBodyCost`), counted against the process's body budget as
   * the body arrives; default 1.
   */
  bodyCost?: (headers: Readonly<Record<string, string>>) => number;
  /**
   * Checks the request's credentials from its headers while its body arrives and gives its
   * principal (throws, or rejects, when they are not good): a body behind bad credentials
   * is discarded unread rather than kept, and the handler runs with an empty body to answer
   * the failure. It runs once per request: the handler reads its outcome with
   * `credentialsOf` (`HttpRequest.credentials`).
   */
  authenticate?: (headers: Readonly<Record<string, string>>) => unknown;
  /** Shown in the API reference and OpenAPI document. */
  summary?: string;
}
