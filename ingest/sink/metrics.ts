import { Counter, Gauge, Histogram, registry } from '../../shared/metrics.ts';

/** The sink role's metrics (served on /metrics by the process that runs it). */
export const sinkMetrics = {
  inserted: new Counter({ name: 'tally_sink_events_inserted_total', help: 'Event rows inserted into ClickHouse', registers: [registry] }),
  failures: new Counter({ name: 'tally_sink_insert_failures_total', help: 'Failed ClickHouse inserts (batches redelivered)', registers: [registry] }),
  deadLetters: new Counter({ name: 'tally_sink_dead_letters_total', help: 'Messages set aside in sink_dead_letters (undecodable, or refused by ClickHouse TALLY_SINK_MAX_ATTEMPTS times)', registers: [registry] }),
  insertSeconds: new Histogram({
    name: 'tally_sink_insert_seconds',
    help: 'Duration of one ClickHouse insert',
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  }),
  pending: new Gauge({ name: 'tally_sink_pending_messages', help: 'Messages waiting in the consumer (lag)', registers: [registry] }),
};
