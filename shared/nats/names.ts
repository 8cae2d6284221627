/** Stream, subject and consumer names under a prefix, so several stacks share one NATS. */
export interface NatsNames {
  readonly stream: string;
  /** Subject the ingest tier publishes event batches to. */
  readonly eventsSubject: string;
  /** Filter covering every events subject. */
  readonly eventsFilter: string;
  readonly sinkConsumer: string;
  /** Core NATS subject broadcasting credential/agent cache invalidations. */
  readonly invalidationSubject: string;
  /** Core NATS subject where processes share their rate-limit counts. */
  readonly rateLimitSubject: string;
  /** Core NATS subject where processes share their failed-authentication counts per client address. */
  readonly authFailureSubject: string;
  /** Core NATS subject where billing publishes the reached spend limits (shared/limits/state.ts). */
  readonly limitStateSubject: string;
  /** Core NATS subject an ingest process asks on for the spend-limit state when it starts. */
  readonly limitStateRequestSubject: string;
  /** Core NATS subject where ingest publishes each acknowledged message's usage, aggregated (shared/events/usage-delta.ts), for the live tail. */
  readonly liveDeltaSubject: string;
}

export function natsNames(prefix: string): NatsNames {
  return Object.freeze({
    stream: `${prefix}EVENTS`,
    eventsSubject: `${prefix}events.batch`,
    eventsFilter: `${prefix}events.>`,
    sinkConsumer: `${prefix}sink`,
    invalidationSubject: `${prefix}cache.invalidate`,
    rateLimitSubject: `${prefix}ratelimit.counts`,
    authFailureSubject: `${prefix}authfail.counts`,
    limitStateSubject: `${prefix}limits.state`,
    limitStateRequestSubject: `${prefix}limits.state.get`,
    liveDeltaSubject: `${prefix}live.deltas`,
  });
}
