export { Tally, type TallyOptions, type ActionInput, type OutcomeInput, type PendingEvent, type TallyStats, type EventKind, type AgentLimits, type LimitState } from './client.ts';
export { TallyError, TallyRejectedError, TallyDeliveryError, TallyBufferOverflowError, TallySpendLimitError, type SpendLimitRef } from './errors.ts';
export { backoffDelay, parseRetryAfter, retryDelay, type BackoffOptions } from './backoff.ts';
export { BoundedBuffer } from './buffer.ts';
