export { Tally, type TallyOptions, type ActionInput, type OutcomeInput, type PendingEvent, type TallyStats, type EventKind, type AgentLimits, type LimitState } from './client.ts';
export { TallyCredits, type Money, type CreditScope, type GrantInput, type CreditGrant, type CreditEntry, type CurrencyBalance, type CreditBalance, type AgentCreditBalance, type CreditSetting, type TopupInput, type CreditTopup, type Page, type PageQuery, type EntryQuery } from './credits.ts';
export { TallySpendLimits, type SpendLimitInput, type SpendLimitUpdate, type SpendLimit, type LimitAlert } from './spend-limits.ts';
export { TallyApiError, TallyError, TallyRejectedError, TallyDeliveryError, TallyBufferOverflowError, TallySpendLimitError, type SpendLimitRef } from './errors.ts';
export { backoffDelay, parseRetryAfter, retryDelay, type BackoffOptions } from './backoff.ts';
export { BoundedBuffer } from './buffer.ts';
