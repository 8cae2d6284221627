import type { NatsConnection } from '@nats-io/transport-node';
import type { Authenticator } from '../shared/auth/authenticator.ts';
import type { AgentDirectory } from '../shared/auth/agents.ts';
import type { NatsNames } from '../shared/nats/names.ts';
import type { Db } from '../shared/db/postgres.ts';
import { ensureEventsStream } from '../shared/nats/connection.ts';
import type { Route } from '../shared/http/types.ts';
import { EventPublisher } from './adapters/publisher.ts';
import type { IngestConfig } from './config.ts';
import { ingestRoutes } from './events-handler.ts';
import { TaggedSpanRules } from './otlp/span-rules.ts';
import { otlpRoutes } from './otlp/traces-handler.ts';

export interface IngestRole {
  routes: Route[];
  publisher: EventPublisher;
  ready(): boolean;
}

/** The ingest role: the event endpoints and OTLP traces, publishing to JetStream. */
export async function startIngest(
  nc: NatsConnection,
  names: NatsNames,
  cfg: IngestConfig,
  deps: { db: Db; auth: Authenticator; agents: AgentDirectory },
): Promise<IngestRole> {
  const { db, auth, agents } = deps;
  await ensureEventsStream(nc, names, { maxBytes: cfg.streamMaxBytes, duplicateWindowMs: cfg.streamDuplicateWindowMs, replicas: cfg.streamReplicas });
  const publisher = new EventPublisher(nc, names.eventsSubject, {
    maxBatchEvents: cfg.batchMaxEvents,
    maxBatchBytes: cfg.batchMaxBytes,
    lingerMs: cfg.lingerMs,
    maxInflightEvents: cfg.maxInflightEvents,
    ackTimeoutMs: cfg.ackTimeoutMs,
  });
  const spanRules = new TaggedSpanRules(db);
  const routes = [...ingestRoutes({ auth, agents, publisher }), ...otlpRoutes({ auth, agents, publisher, spanRules })];
  return { routes, publisher, ready: () => publisher.connected };
}
