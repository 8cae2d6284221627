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
    case 'conflict':
      return 409;
    case 'payload_too_large':
    case 'too_many_events':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'invalid_json':
    case 'invalid_body':
    case 'validation_failed':
      return 400;
    case 'unknown_agent':
    case 'agent_inactive':
    case 'timestamp_out_of_range':
      return 422;
    case 'rate_limited':
      return 429;
    case 'service_unavailable':
      return 503;
    case 'internal_error':
      return 500;
  }
}

/** Whether a client may retry the same request unchanged (5xx and 429 only). */
export function isRetryable(code: ErrorCode): boolean {
  const status = codeToStatus(code);
  return status === 429 || status >= 500;
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

/** A dependency (NATS, Postgres, ClickHouse) could not serve the request: retry later. */
export class DependencyUnavailableError extends AppError {
  constructor(dependency: string, cause?: unknown, retryAfterSeconds = 1) {
    super('service_unavailable', `${dependency} is unavailable; retry later`, { cause, retryAfterSeconds });
    this.name = 'DependencyUnavailableError';
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; request_id: string; details?: ErrorDetail[] };
}

export function errorBody(err: AppError, requestId: string): ErrorBody {
  const error: ErrorBody['error'] = { code: err.code, message: err.message, request_id: requestId };
  if (err.details && err.details.length > 0) error.details = err.details;
  return { error };
}

/** Maps anything thrown to an AppError; unknown errors become a generic 500. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  return new AppError('internal_error', 'internal server error', { cause: err });
}
