import { Type } from '@sinclair/typebox';
import { parseEnv, type Env } from '../../shared/config/parse.ts';

const SinkEnv = Type.Object({
  /**
   * Most JetStream messages (micro-batches) per ClickHouse insert. High: messages of a
   * few events must still make inserts of thousands of rows (an insert into actions has
   * a fixed cost of ~10 ms); large messages are bounded by TALLY_SINK_BATCH_MAX_BYTES.
   */
  TALLY_SINK_BATCH_MESSAGES: Type.Integer({ minimum: 1, maximum: 10_000, default: 2000 }),
  /**
   * Most bytes of messages per insert: ~160 bytes per event on the wire, so 16 MiB is
   * ~100k events, ~0.5 s of inserting. Larger inserts drain faster (fewer parts to
   * write and merge); a sink that keeps up closes its batches by linger long before.
   */
  TALLY_SINK_BATCH_MAX_BYTES: Type.Integer({ minimum: 1024, default: 16 * 1024 * 1024 }),
  /** How long the first message of an insert waits for more. */
  TALLY_SINK_BATCH_LINGER_MS: Type.Integer({ minimum: 0, default: 200 }),
  /**
   * Bytes one pull may bring, counting every message at the server's max payload (1 MiB
   * by default: 16 messages a pull). Must stay well under the NATS server's max_pending, 64 MiB by default.
   */
  TALLY_SINK_PULL_MAX_BYTES: Type.Integer({ minimum: 1024 * 1024, default: 16 * 1024 * 1024 }),
  /** Batches inserted at once (JS prepares one while ClickHouse inserts another). */
  TALLY_SINK_MAX_INFLIGHT_BATCHES: Type.Integer({ minimum: 1, maximum: 16, default: 2 }),
  /** Time JetStream waits for an ack before redelivering a message to a sink. */
  TALLY_SINK_ACK_WAIT_MS: Type.Integer({ minimum: 1000, default: 60_000 }),
  /** Delay before a batch whose insert failed is delivered again. */
  TALLY_SINK_RETRY_DELAY_MS: Type.Integer({ minimum: 10, default: 1000 }),
  /**
   * Attempts of a batch whose rows ClickHouse refuses (a parse or type error) before its
   * messages are inserted one by one and those refused alone are set aside in
   * `sink_dead_letters`. Outages (connections, disk, memory) are retried without limit.
   */
  TALLY_SINK_MAX_ATTEMPTS: Type.Integer({ minimum: 1, maximum: 1000, default: 5 }),
  /**
   * A pull that brings nothing for this long while the consumer reports messages waiting
   * is started again (a consumer leader lost in a NATS cluster leaves pulls unanswered).
   */
  TALLY_SINK_STALL_MS: Type.Integer({ minimum: 1000, default: 2000 }),
  /**
   * Rows handed to ClickHouse: `auto` a Native block into chDB (the engine's own layout, its
   * cheapest input) and TabSeparated text to a server; `tsv` text everywhere.
   */
  TALLY_SINK_INSERT_FORMAT: Type.Union([Type.Literal('auto'), Type.Literal('tsv')], { default: 'auto' }),
});

export interface SinkConfig {
  readonly fetchMessages: number;
  readonly batchMaxBytes: number;
  readonly batchLingerMs: number;
  readonly maxInflightBatches: number;
  readonly pullMaxBytes: number;
  readonly ackWaitMs: number;
  readonly retryDelayMs: number;
  readonly maxAttempts: number;
  readonly stallMs: number;
  readonly insertFormat: 'auto' | 'tsv';
}

export function parseSinkConfig(env: Env): SinkConfig {
  const e = parseEnv(SinkEnv, env);
  return Object.freeze({
    fetchMessages: e.TALLY_SINK_BATCH_MESSAGES,
    batchMaxBytes: e.TALLY_SINK_BATCH_MAX_BYTES,
    batchLingerMs: e.TALLY_SINK_BATCH_LINGER_MS,
    maxInflightBatches: e.TALLY_SINK_MAX_INFLIGHT_BATCHES,
    pullMaxBytes: e.TALLY_SINK_PULL_MAX_BYTES,
    ackWaitMs: e.TALLY_SINK_ACK_WAIT_MS,
    retryDelayMs: e.TALLY_SINK_RETRY_DELAY_MS,
    maxAttempts: e.TALLY_SINK_MAX_ATTEMPTS,
    stallMs: e.TALLY_SINK_STALL_MS,
    insertFormat: e.TALLY_SINK_INSERT_FORMAT,
  });
}
