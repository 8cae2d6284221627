import type { BlockList } from 'node:net';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Authenticator } from '../../shared/auth/authenticator.ts';
import type { AgentDirectory } from '../../shared/auth/agents.ts';
import type { AuthFailureLimiter } from '../../shared/auth/auth-failures.ts';
import type { BodyBudget } from '../../shared/http/body-budget.ts';
import type { NatsNames } from '../../shared/nats/names.ts';
import type { Db } from '../../shared/db/postgres.ts';
import { ensureEventsStream } from '../../shared/nats/connection.ts';
import type { Route } from '../../shared/http/types.ts';
import { EventPublisher } from './adapters/publisher.ts';
import { UsageDeltas } from './adapters/usage-deltas.ts';
import type { IngestConfig } from './config.ts';
import { ingestRoutes } from './events-handler.ts';
import { cloudEventRoutes } from './cloudevents/cloudevents-handler.ts';
import { TaggedSpanRules } from './otlp/span-rules.ts';
import { otlpRoutes } from './otlp/traces-handler.ts';
import { startGrpcReceiver } from './otlp/grpc-receiver.ts';
import { LimitGate } from './limit-gate.ts';

export interface IngestRole {
  routes: Route[];
  publisher: EventPublisher;
  /** The spend limits this process enforces (pushed by billing). */
  limits: LimitGate;
  /** The OTLP/gRPC receiver's port; undefined when it is off. */
  grpcPort: number | undefined;
  ready(): boolean;
  close(): Promise<void>;
}

/** The ingest role: the event endpoints and OTLP traces (HTTP and gRPC), publishing to JetStream. */
export async function startIngest(
  nc: NatsConnection,
  names: NatsNames,
  cfg: IngestConfig,
  deps: { db: Db; auth: Authenticator; agents: AgentDirectory; host: string; authFailures?: AuthFailureLimiter | undefined; trustedProxies?: BlockList | undefined; bodies?: BodyBudget; now?: () => Date },
): Promise<IngestRole> {
  const { db, auth, agents } = deps;
  const now = deps.now ? () => deps.now!().getTime() : Date.now;
  await ensureEventsStream(nc, names, { maxBytes: cfg.streamMaxBytes, duplicateWindowMs: cfg.streamDuplicateWindowMs, replicas: cfg.streamReplicas });
  const publisher = new EventPublisher(nc, names.eventsSubject, {
    maxBatchEvents: cfg.batchMaxEvents,
    maxBatchBytes: cfg.batchMaxBytes,
    lingerMs: cfg.lingerMs,
    maxInflightEvents: cfg.maxInflightEvents,
    ackTimeoutMs: cfg.ackTimeoutMs,
  }, cfg.usageDeltaMs === undefined ? undefined : new UsageDeltas(nc, names.liveDeltaSubject, cfg.usageDeltaMs));
  const limits = new LimitGate(cfg.limitStateMaxAgeMs);
  await limits.start(nc, names);
  const otlp = { auth, agents, publisher, now, limits, spanRules: new TaggedSpanRules(db), trustResourceAgent: cfg.otlpTrustResourceAgent };
  const routes = [...ingestRoutes({ auth, agents, publisher, now, limits }), ...otlpRoutes(otlp), ...cloudEventRoutes({ auth, agents, publisher, now, limits })];
  const grpc = cfg.otlpGrpcPort === undefined ? undefined : await startGrpcReceiver(otlp, { host: deps.host, port: cfg.otlpGrpcPort, authFailures: deps.authFailures, trustedProxies: deps.trustedProxies, bodies: deps.bodies });
  return {
    routes,
    publisher,
    limits,
    grpcPort: grpc?.port,
    ready: () => publisher.connected,
    close: async () => {
      limits.stop();
      await grpc?.close();
    },
  };
}
