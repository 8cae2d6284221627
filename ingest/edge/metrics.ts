import { Counter, Gauge, HotCounter, HotHistogram, registry } from '../../shared/metrics.ts';

/** Events of every publisher of the process awaiting their PubAck; the gauge reads it when scraped. */
export const inflightEvents = { count: 0 };

export const ingestMetrics = {
  events: new HotCounter('tally_ingest_events_total', 'Events answered by ingest, by kind and outcome (accepted, or the rejection code)', ['kind', 'outcome']),
  pipelineEvents: new HotCounter(
    'tally_ingest_pipeline_events_total',
    'Events answered by ingest, by kind, pipeline step (decode, validate, normalize, resolve_agent, to_wire) and what the step did (passed, the rejection code, or duplicate: a copy of an id already in its batch, answered but sent once)',
    ['kind', 'step', 'outcome'],
  ),
  batches: new Counter({ name: 'tally_ingest_batches_published_total', help: 'Micro-batches acknowledged by JetStream', registers: [registry] }),
  usageDeltas: new Counter({ name: 'tally_ingest_usage_deltas_total', help: 'Acknowledged micro-batches whose usage delta was published for the live tail (core NATS, at most once)', registers: [registry] }),
  publishFailures: new Counter({
    name: 'tally_ingest_publish_failures_total',
    help: 'Micro-batches JetStream did not acknowledge',
    labelNames: ['reason'] as const,
    registers: [registry],
  }),
  // Observed once per JetStream message: hot histograms (no label hashing per call).
  batchSize: new HotHistogram('tally_ingest_batch_events', 'Events per JetStream message', [], [1, 10, 50, 100, 250, 500, 1000, 2000, 5000]).child([]),
  publishSeconds: new HotHistogram('tally_ingest_publish_seconds', 'Time from sending a micro-batch to its PubAck', [], [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5]).child([]),
  inflight: new Gauge({
    name: 'tally_ingest_inflight_events',
    help: 'Events waiting for their JetStream acknowledgement',
    registers: [registry],
    collect() {
      this.set(inflightEvents.count);
    },
  }),
};
