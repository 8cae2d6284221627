import { Type } from '@sinclair/typebox';
import { parseEnv, type Env } from '../../shared/config/parse.ts';

const IngestEnv = Type.Object({
  /** Most events in one JetStream message. */
  TALLY_INGEST_BATCH_MAX_EVENTS: Type.Integer({ minimum: 1, maximum: 100_000, default: 2000 }),
  /** Approximate byte size at which a micro-batch is sent (NATS max payload is 1 MiB by default). */
  TALLY_INGEST_BATCH_MAX_BYTES: Type.Integer({ minimum: 1024, default: 600_000 }),
  /** How long a micro-batch waits for more events; 0: until the end of the event-loop turn. */
  TALLY_INGEST_LINGER_MS: Type.Number({ minimum: 0, maximum: 1000, default: 0 }),
  /** Events accepted but not yet acknowledged by JetStream; above it requests get 503. */
  TALLY_INGEST_MAX_INFLIGHT_EVENTS: Type.Integer({ minimum: 1, default: 200_000 }),
  /** Time to wait for JetStream's acknowledgement of one batch. */
  TALLY_INGEST_ACK_TIMEOUT_MS: Type.Integer({ minimum: 100, default: 5000 }),
  /**
   * Upper bound of stored, unconsumed event data in the stream (JetStream reserves it on
   * the server). Beyond it ingest answers 503; size it for the sink outage to ride out.
   */
  TALLY_STREAM_MAX_BYTES: Type.Integer({ minimum: 1024 * 1024, default: 4 * 1024 * 1024 * 1024 }),
  /** Replicas of the events stream on a NATS cluster (1 on a single server; 3 or 5 on a cluster of at least as many). */
  TALLY_STREAM_REPLICAS: Type.Union([Type.Literal(1), Type.Literal(3), Type.Literal(5)], { default: 1 }),
  /** JetStream duplicate window for publish retries (Nats-Msg-Id). */
  TALLY_STREAM_DUPLICATE_WINDOW_MS: Type.Integer({ minimum: 1000, default: 120_000 }),
  /** Port of the OTLP/gRPC trace receiver (4317 is OTLP's); 0: any free port; `off`: none. */
  TALLY_OTLP_GRPC_PORT: Type.Union([Type.Integer({ minimum: 0, maximum: 65535 }), Type.Literal('off')], { default: 4317 }),
  /**
   * `on`: trace exports that carry no credential are authenticated by their resource's
   * agent id (`value.agent.id`, `tally.agent_id`), as value-python sends them. Only where
   * nothing but your own agents can reach the OTLP ports (docs/opentelemetry.md, "value-python").
   */
  TALLY_OTLP_TRUST_RESOURCE_AGENT: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
  /**
   * A spend-limit state (pushed by the billing role) older than this is not enforced: the
   * edge fails open (accepts, flags nothing) and says so in its metrics and logs, so a
   * billing outage never blocks anyone forever (README, "Stopping runaway spend").
   */
  TALLY_LIMIT_STATE_MAX_AGE_MS: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 5000 }),
  /**
   * How long acknowledged messages' usage deltas gather before one core-NATS message carries
   * them to the live tail (docs/spend-limits.md); `off`: none (the tail reads every message
   * from the stream).
   */
  TALLY_INGEST_USAGE_DELTA_MS: Type.Union([Type.Integer({ minimum: 1, maximum: 1000 }), Type.Literal('off')], { default: 5 }),
});

export interface IngestConfig {
  readonly batchMaxEvents: number;
  readonly batchMaxBytes: number;
  readonly lingerMs: number;
  readonly maxInflightEvents: number;
  readonly ackTimeoutMs: number;
  readonly streamMaxBytes: number;
  readonly streamDuplicateWindowMs: number;
  readonly streamReplicas: number;
  /** undefined: no OTLP/gRPC receiver. */
  readonly otlpGrpcPort: number | undefined;
  readonly otlpTrustResourceAgent: boolean;
  readonly limitStateMaxAgeMs: number;
  /** undefined: no usage deltas. */
  readonly usageDeltaMs: number | undefined;
}

export function parseIngestConfig(env: Env): IngestConfig {
  const e = parseEnv(IngestEnv, env);
  return Object.freeze({
    batchMaxEvents: e.TALLY_INGEST_BATCH_MAX_EVENTS,
    batchMaxBytes: e.TALLY_INGEST_BATCH_MAX_BYTES,
    lingerMs: e.TALLY_INGEST_LINGER_MS,
    maxInflightEvents: e.TALLY_INGEST_MAX_INFLIGHT_EVENTS,
    ackTimeoutMs: e.TALLY_INGEST_ACK_TIMEOUT_MS,
    streamMaxBytes: e.TALLY_STREAM_MAX_BYTES,
    streamDuplicateWindowMs: e.TALLY_STREAM_DUPLICATE_WINDOW_MS,
    streamReplicas: e.TALLY_STREAM_REPLICAS,
    otlpGrpcPort: e.TALLY_OTLP_GRPC_PORT === 'off' ? undefined : e.TALLY_OTLP_GRPC_PORT,
    otlpTrustResourceAgent: e.TALLY_OTLP_TRUST_RESOURCE_AGENT === 'on',
    limitStateMaxAgeMs: e.TALLY_LIMIT_STATE_MAX_AGE_MS,
    usageDeltaMs: e.TALLY_INGEST_USAGE_DELTA_MS === 'off' ? undefined : e.TALLY_INGEST_USAGE_DELTA_MS,
  });
}
