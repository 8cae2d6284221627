export { Tally, type TallyOptions, type ActionInput, type OutcomeInput, type PendingEvent, type TallyStats, type EventKind } from './client.ts';
export { TallyError, TallyRejectedError, TallyDeliveryError, TallyBufferOverflowError } from './errors.ts';
export { backoffDelay, parseRetryAfter, retryDelay, type BackoffOptions } from './backoff.ts';
export { BoundedBuffer } from './buffer.ts';
