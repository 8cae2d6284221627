import type { BodyReservation } from './body-budget.ts';
import type { CredentialCheck, HttpRequest } from './types.ts';

/** How much of an oversized body is read and discarded before the 413 closes the connection instead. */
export const MAX_DRAIN_BYTES = 64 * 1024 * 1024;
/** How long Node's server waits for clients (docs/architecture.md "HTTP server"). */
export interface HttpTimeouts {
  /** An idle keep-alive connection is closed after this long without a request. */
  idleMs: number;
  /** A request's headers must arrive within this long of its first byte. */
  headersMs: number;
  /** A whole request, body included, must arrive within this long of its first byte. */
  requestMs: number;
}

export const DEFAULT_TIMEOUTS: HttpTimeouts = Object.freeze({ idleMs: 10_000, headersMs: 10_000, requestMs: 120_000 });

let requestCounter = 0;
const requestPrefix = `req_${Date.now().toString(36)}${process.pid.toString(36)}_`;
function newRequestId(): string {
  requestCounter = (requestCounter + 1) % Number.MAX_SAFE_INTEGER;
  return requestPrefix + requestCounter.toString(36);
}

/** The id of a request: the client's X-Request-Id when it is a safe token, else a new one. */
export function requestIdOf(headers: Record<string, string>): string {
  const incoming = headers['x-request-id'];
  return incoming && /^[A-Za-z0-9_.:-]{1,128}$/.test(incoming) ? incoming : newRequestId();
}

/** A request as handlers see it; its query is parsed when first read. */
export class IncomingRequest implements HttpRequest {
  #query: URLSearchParams | undefined;
  constructor(
    readonly method: string,
    readonly path: string,
    readonly params: Record<string, string>,
    private readonly rawQuery: string,
    readonly headers: Record<string, string>,
    readonly body: Buffer,
    readonly requestId: string,
    readonly receivedAt: number,
    readonly memory?: BodyReservation,
    readonly credentials?: CredentialCheck,
  ) {}

  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }
}

/**
 * The principal of a request: what its route's credential check gave as its body arrived
 * (its error thrown), or `check`'s when that was not run. Each request is authenticated,
 * and counted against its key's rate limit, once.
 */
export function credentialsOf<T>(req: HttpRequest, check: (headers: Readonly<Record<string, string>>) => T): T {
  const c = req.credentials;
  if (c === undefined) return check(req.headers);
  if (!c.ok) throw c.error;
  return c.principal as T;
}
