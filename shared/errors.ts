/**
 * One error table for the whole service. Every expected failure is an {@link AppError}
 * with one of these codes; `codeToStatus` maps each code to its HTTP status and the
 * body shape is always `{"error": {"code", "message", "request_id", "details"?}}`.
 * Bugs are plain Errors and answer 500 `internal_error` without echoing internals.
 */
export const ErrorCode = {
  unauthorized: 'unauthorized',
  forbidden: 'forbidden',
  not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  /** A request the HTTP parser refuses (framing, headers, version): answered, then the connection closed. */
  bad_request: 'bad_request',
  request_timeout: 'request_timeout',
  headers_too_large: 'headers_too_large',
  invalid_json: 'invalid_json',
  invalid_body: 'invalid_body',
  validation_failed: 'validation_failed',
  unsupported_media_type: 'unsupported_media_type',
  payload_too_large: 'payload_too_large',
  too_many_events: 'too_many_events',
  unknown_agent: 'unknown_agent',
  agent_inactive: 'agent_inactive',
  timestamp_out_of_range: 'timestamp_out_of_range',
  conflict: 'conflict',
  rate_limited: 'rate_limited',
  /** A `block` spend limit of the event's agent instance, account or environment is reached (README "Stopping runaway spend"); not retryable until it resets or is raised. */
  spend_limit_reached: 'spend_limit_reached',
  service_unavailable: 'service_unavailable',
  internal_error: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

export function codeToStatus(code: ErrorCode): number {
  switch (code) {
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'request_timeout':
      return 408;
    case 'conflict':
      return 409;
    case 'payload_too_large':
    case 'too_many_events':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'bad_request':
    case 'invalid_json':
    case 'invalid_body':
    case 'validation_failed':
      return 400;
    case 'unknown_agent':
    case 'agent_inactive':
    case 'timestamp_out_of_range':
      return 422;
    case 'spend_limit_reached':
      return 402;
    case 'rate_limited':
      return 429;
    case 'headers_too_large':
      return 431;
    case 'service_unavailable':
      return 503;
    case 'internal_error':
      return 500;
  }
}

export interface ErrorDetail {
  path?: string;
  message: string;
}

/** An expected failure, answered with its code's status and a clear message. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Seconds, for 429 and 503 answers. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    opts: { details?: ErrorDetail[]; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.details = opts.details;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }

  get status(): number {
    return codeToStatus(this.code);
  }
}

/** The whole seconds a client is told to wait (at least 1): Retry-After, and gRPC's RetryInfo. */
export function retryDelaySeconds(retryAfterSeconds: number): number {
  return Math.max(1, Math.ceil(retryAfterSeconds));
}

/** The headers of an error's answer: Retry-After when it has a delay (429, 503). */
export function retryHeaders(err: AppError): Record<string, string> {
  return err.retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryDelaySeconds(err.retryAfterSeconds)) };
}

/** A dependency (NATS, Postgres, ClickHouse) could not serve the request: retry later. */
export class DependencyUnavailableError extends AppError {
  constructor(dependency: string, cause?: unknown, retryAfterSeconds = 1) {
    super('service_unavailable', `${dependency} is unavailable; retry later`, { cause, retryAfterSeconds });
    this.name = 'DependencyUnavailableError';
  }
}

interface ErrorBody {
  error: { code: ErrorCode; message: string; request_id: string; details?: ErrorDetail[] };
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  const error: ErrorBody['error'] = { code: err.code, message: err.message, request_id: requestId };
  if (err.details && err.details.length > 0) error.details = err.details;
  return { error };
}

const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);
/** Postgres SQLSTATEs of a server that is going away, starting up or out of connections. */
const PG_UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const PG_CLIENT_MESSAGES = /Connection terminated|not queryable|timeout exceeded when trying to connect|the database system is (starting up|shutting down|in recovery mode)/i;

/**
 * Whether an error (or its cause) means a dependency could not be reached or went away
 * mid-request (connection refused or reset, Postgres shutting down, restarting or in
 * recovery, SQLSTATE class 08): retryable, unlike a bug.
 */
export function isUnavailableError(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof AppError) return e.code === 'service_unavailable';
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || PG_UNAVAILABLE_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && PG_CLIENT_MESSAGES.test(message)) return true;
  }
  return false;
}

/**
 * The message of a Postgres data exception (SQLSTATE class 22: a value out of range, too
 * long or not valid text): input the edge checks should have refused, answered as a 400
 * rather than a bug's 500 should one slip through.
 */
function storeRefusedValue(err: unknown): string | undefined {
  const { code, message } = (err ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'string' && /^22[0-9A-Z]{3}$/.test(code) && typeof message === 'string' ? message : undefined;
}

/** Maps anything thrown to an AppError; a lost dependency is a retryable 503, unknown errors a generic 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isUnavailableError(err)) return new DependencyUnavailableError('a backing service', err, 2);
  const invalid = storeRefusedValue(err);
  if (invalid) return new AppError('validation_failed', `a value cannot be stored: ${invalid}`, { cause: err });
  return new AppError('internal_error', 'internal server error', { cause: err });
}
