import type { PendingEvent } from './client.ts';

/** Base of every error the client reports through `onError`; branch on the class or `code`. */
export class TallyError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** The events concerned, with the id and timestamp they were sent with. */
    readonly events: readonly PendingEvent[],
  ) {
    super(message);
    this.name = 'TallyError';
  }
}

/** The service rejected one event of a batch (validation, unknown agent, …); not retried. */
export class TallyRejectedError extends TallyError {
  constructor(
    code: string,
    message: string,
    readonly event: PendingEvent,
    /** HTTP status of the batch answer (207, or the 4xx when no event was accepted). */
    readonly status: number,
  ) {
    super(code, message, [event]);
    this.name = 'TallyRejectedError';
  }
}

/** The spend limit a {@link TallySpendLimitError} names (README "Stopping runaway spend"). */
export interface SpendLimitRef {
  id: string;
  scope: string;
  /** The limit, exact decimal text. */
  value: string;
  currency: string | null;
  unit: string | null;
  /** When its period ends and events are accepted again (unless it is raised sooner). */
  resets_at: string;
}

/**
 * The event was refused because a `block` spend limit of its agent, account or
 * environment is reached (HTTP 402, code `spend_limit_reached`). Not retried: sending it
 * again is refused the same way until `limit.resets_at` or until the limit is raised.
 */
export class TallySpendLimitError extends TallyRejectedError {
  constructor(
    message: string,
    event: PendingEvent,
    status: number,
    /** Which limit, its value, and when it resets (null if the answer did not say). */
    readonly limit: SpendLimitRef | null,
  ) {
    super('spend_limit_reached', message, event, status);
    this.name = 'TallySpendLimitError';
  }
}

/**
 * A whole request failed without a retry left: a non-retryable answer (401, 403, 415, …;
 * `retryable` false), or events still undeliverable at `close()` (`retryable` true).
 */
export class TallyDeliveryError extends TallyError {
  constructor(
    code: string,
    message: string,
    events: readonly PendingEvent[],
    readonly status: number | undefined,
    readonly retryable: boolean,
  ) {
    super(code, message, events);
    this.name = 'TallyDeliveryError';
  }
}

/** The buffer was full (service unreachable for long): these oldest events were dropped. */
export class TallyBufferOverflowError extends TallyError {
  constructor(events: readonly PendingEvent[]) {
    super('buffer_overflow', `buffer full: dropped the ${events.length} oldest events`, events);
    this.name = 'TallyBufferOverflowError';
  }
}

/**
 * A credits call (or another control-plane call) was answered with an error: `status` is
 * the HTTP status (0: no answer, network error or timeout), `code` the service's error code
 * (`validation_failed`, `not_found`, `conflict`, `unauthorized`, …; `network_error`), and
 * `details` its per-field details. `retryable`: a 429, a 5xx or no answer, after the
 * client's own retries of calls that are safe to repeat.
 */
export class TallyApiError extends TallyError {
  constructor(
    code: string,
    message: string,
    readonly status: number,
    readonly details: readonly unknown[] = [],
    readonly retryable = false,
    /** The service's Retry-After, in ms (429, 503). */
    readonly retryAfterMs?: number,
  ) {
    super(code, message, []);
    this.name = 'TallyApiError';
  }
}
