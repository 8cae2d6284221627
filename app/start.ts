import type { NatsConnection } from '@nats-io/transport-node';
import { AgentDirectory } from '../shared/auth/agents.ts';
import { Authenticator } from '../shared/auth/authenticator.ts';
import { InvalidationBus } from '../shared/auth/invalidation.ts';
import { RateLimiter } from '../shared/auth/rate-limiter.ts';
import { openClickHouse, closeClickHouse, type ClickHouseClient } from '../shared/clickhouse/client.ts';
import { migrateClickHouse } from '../shared/clickhouse/schema.ts';
import { UsageStore } from '../billing/usage/usage-query.ts';
import { parseCommonConfig, type CommonConfig } from '../shared/config/common.ts';
import { parseAll, type Env } from '../shared/config/parse.ts';
import { createDb, ensureDatabase, migrate, resolveDatabaseUrl, type Db } from '../shared/db/postgres.ts';
import { AuthFailureLimiter } from '../shared/auth/auth-failures.ts';
import { HttpServer } from '../shared/http/server.ts';
import type { Route } from '../shared/http/types.ts';
import { logger, setLogLevel } from '../shared/log.ts';
import { registry, roleReady } from '../shared/metrics.ts';
import { connectNats, resolveNatsUrl, streamBytesForDisk, sinkAckFloor, type FloorExtension } from '../shared/nats/connection.ts';
import { insertedFloor } from '../shared/clickhouse/sink-progress.ts';
import { CostRollup } from '../billing/costs/cost-rollup.ts';
import { repairEmptyAccounts } from '../billing/usage/repair-accounts.ts';
import { natsNames, type NatsNames } from '../shared/nats/names.ts';
import { parseIngestConfig } from '../ingest/edge/config.ts';
import { startIngest, type IngestRole } from '../ingest/edge/index.ts';
import { parseSinkConfig } from '../ingest/sink/config.ts';
import { Sink, type SinkHooks } from '../ingest/sink/sink.ts';
import { usageRoutes } from '../billing/api/usage-routes.ts';
import { WebhookDispatcher } from '../billing/webhooks/dispatcher.ts';
import { apiRoutes } from '../billing/api/index.ts';
import { createInvoicing, parseInvoicingConfig, startScheduler } from '../billing/invoicing/index.ts';
import { OutcomeNotifier, parseOutcomeNotifierConfig } from '../billing/outcomes/notifier.ts';
import { parseWebhookConfig } from '../billing/webhooks/config.ts';

const log = logger('runtime');

export const ROLES = ['ingest', 'sink', 'api', 'billing'] as const;
export type Role = (typeof ROLES)[number];

export interface StartOptions {
  roles: readonly Role[];
  env: Env;
  sinkHooks?: SinkHooks;
}

/** A running Tally process: its port, its dependencies (for tests and tools), and stop. */
export interface TallyProcess {
  readonly port: number;
  readonly config: CommonConfig;
  readonly names: NatsNames;
  readonly db: Db | undefined;
  readonly nc: NatsConnection | undefined;
  readonly ch: ClickHouseClient | undefined;
  readonly bus: InvalidationBus;
  readonly usage: UsageStore | undefined;
  readonly ingest: IngestRole | undefined;
  readonly sink: Sink | undefined;
  ready(): Record<Role, boolean>;
  /** Every route this process serves (the fuzz and OpenAPI tests walk them). */
  routes(): readonly Route[];
  stop(): Promise<void>;
}

/**
 * Every selected role's configuration, parsed before anything is connected: one error
 * lists every bad variable of every role.
 */
export function parseRoleConfigs(roles: ReadonlySet<Role>, env: Env) {
  const any = (...r: Role[]) => r.some((x) => roles.has(x));
  return parseAll({
    common: () => parseCommonConfig(env),
    ingest: () => (any('ingest', 'sink') ? parseIngestConfig(env) : undefined),
    sink: () => (any('sink') ? parseSinkConfig(env) : undefined),
    invoicing: () => (any('api', 'billing') ? parseInvoicingConfig(env) : undefined),
    notifier: () => (any('billing') ? parseOutcomeNotifierConfig(env) : undefined),
    webhooks: () => (any('api', 'billing') ? parseWebhookConfig(env) : undefined),
  });
}

/**
 * Starts the named roles in this process, sharing one HTTP listener and one connection
 * to each dependency. Roles talk only through NATS, Postgres and ClickHouse, so any
 * split of roles across processes is configuration.
 */
export async function startTally(opts: StartOptions): Promise<TallyProcess> {
  const roles = new Set(opts.roles);
  const configs = parseRoleConfigs(roles, opts.env);
  const config = configs.common;
  setLogLevel(config.logLevel);
  const needs = {
    pg: roles.has('ingest') || roles.has('api') || roles.has('billing'),
    ch: roles.has('sink') || roles.has('api') || roles.has('billing'),
  };
  const stops: (() => Promise<void>)[] = [];
  const names = natsNames(config.natsPrefix);
  const readiness = new Map<Role, () => boolean>();

  const http = new HttpServer();
  http.add(
    { method: 'GET', path: '/healthz', summary: 'Liveness', handler: () => ({ status: 200, body: { status: 'ok' } }) },
    {
      method: 'GET',
      path: '/readyz',
      summary: 'Readiness of every role in this process',
      handler: () => {
        const r = readyMap();
        const all = Object.values(r).every(Boolean) && readiness.size === roles.size;
        return { status: all ? 200 : 503, body: { ready: all, roles: r } };
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics',
      handler: async () => ({ status: 200, raw: await registry.metrics(), contentType: registry.contentType }),
    },
  );
  const readyMap = (): Record<Role, boolean> => {
    const out = {} as Record<Role, boolean>;
    for (const r of roles) {
      const ok = readiness.get(r)?.() ?? false;
      out[r] = ok;
      roleReady.set({ role: r }, ok ? 1 : 0);
    }
    return out;
  };
  const authFailures = config.rateLimits ? new AuthFailureLimiter(config.authFailuresPerMinute) : undefined;
  if (authFailures) http.limitFailedAuthentication(authFailures);
  const port = await http.listen(config.httpHost, config.httpPort);
  stops.push(async () => http.close());

  try {
    let db: Db | undefined;
    if (needs.pg) {
      const pg = await resolveDatabaseUrl(config.databaseUrl, config.dataDir);
      stops.push(pg.stop);
      await ensureDatabase(pg.url);
      db = createDb(pg.url);
      stops.push(() => db!.destroy());
      await migrate(db as never);
    }
    const natsUrl = await resolveNatsUrl(config.natsUrl, config.dataDir);
    stops.push(natsUrl.stop);
    const nc = await connectNats(natsUrl.url, `tally-${[...roles].join('+')}`);
    // A nats-server Tally started itself: the stream's default size fits its disk.
    const ingestConfig =
      configs.ingest && natsUrl.storeDir && !opts.env.TALLY_STREAM_MAX_BYTES
        ? { ...configs.ingest, streamMaxBytes: streamBytesForDisk(natsUrl.storeDir, configs.ingest.streamMaxBytes) }
        : configs.ingest;
    stops.push(() => nc.drain().catch(() => nc.close()));
    const bus = new InvalidationBus(nc, names.invalidationSubject);

    let ch: ClickHouseClient | undefined;
    let usage: UsageStore | undefined;
    if (needs.ch) {
      ch = await openClickHouse(config.clickhouse);
      stops.push(() => closeClickHouse(ch!));
      await migrateClickHouse(ch, config.clickhouse.database);
      usage = new UsageStore(ch, config.clickhouse.database);
    }
    const agents = db ? new AgentDirectory(db, bus) : undefined;
    const limiter = config.rateLimits ? new RateLimiter(nc, names.rateLimitSubject) : undefined;
    if (limiter) {
      stops.push(async () => limiter.stop());
      http.onResponse((req, res) => {
        const h = req && limiter.headersFor(req.headers);
        if (h) res.headers = res.headers ? { ...res.headers, ...h } : h;
      });
    }
    const auth = db && agents ? new Authenticator(db, bus, agents, limiter ? { limiter } : {}) : undefined;
    // Invoicing (api and billing roles): rating on piscina workers, usage from ClickHouse.
    const invoicing = roles.has('api') || roles.has('billing') ? createInvoicing({ db: db!, usage: usage!, config: configs.invoicing! }) : undefined;
    if (invoicing) stops.push(() => invoicing.rater.close());
    // The daily cost rollup (api and billing roles): reports read it; billing folds in new actions.
    // How far the sink got: its ack floor, extended over what it recorded as inserted.
    const extendFloor: FloorExtension = (created, floor, last) => insertedFloor(ch!, config.clickhouse.database, created, floor, last);
    const sinkFloor = (waitMs: number) => sinkAckFloor(nc, names, waitMs, extendFloor);
    const costRollup = roles.has('api') || roles.has('billing') ? new CostRollup(db!, ch!, config.clickhouse.database, sinkFloor) : undefined;
    if (costRollup) stops.push(() => costRollup.stop());

    let ingest: IngestRole | undefined;
    if (roles.has('ingest')) {
      ingest = await startIngest(nc, names, ingestConfig!, { db: db!, auth: auth!, agents: agents!, host: config.httpHost, authFailures });
      stops.push(() => ingest!.close());
      http.add(...ingest.routes);
      readiness.set('ingest', () => ingest!.ready());
    }
    let sink: Sink | undefined;
    if (roles.has('sink')) {
      if (!ingest) {
        const { ensureEventsStream } = await import('../shared/nats/connection.ts');
        const ic = ingestConfig!;
        await ensureEventsStream(nc, names, { maxBytes: ic.streamMaxBytes, duplicateWindowMs: ic.streamDuplicateWindowMs, replicas: ic.streamReplicas });
      }
      sink = new Sink(nc, names, ch!, config.clickhouse.database, configs.sink!, opts.sinkHooks);
      await sink.start();
      // Stop the sink first on shutdown: it finishes (or abandons) the batch in hand.
      stops.push(() => sink!.stop());
      readiness.set('sink', () => sink!.ready && !nc.isClosed());
    }
    if (roles.has('api')) {
      http.add(...usageRoutes(auth!, usage!));
      http.add(...apiRoutes({ db: db!, auth: auth!, bus, ch: ch!, chDatabase: config.clickhouse.database, costRollup, invoicing, webhooks: configs.webhooks! }));
      readiness.set('api', () => !nc.isClosed());
    }
    if (roles.has('billing')) {
      // The billing scheduler: generates ended periods' invoices, finalizes drafts past grace.
      const scheduler = startScheduler(invoicing!, invoicing!.config.schedulerIntervalMs);
      stops.push(() => scheduler.stop());
      // The webhook dispatcher: sends due deliveries from the Postgres outbox.
      const dispatcher = new WebhookDispatcher(db!, { allowPrivateTargets: configs.webhooks!.allowPrivateTargets });
      dispatcher.start();
      stops.push(() => dispatcher.stop());
      // outcome.completed: announces outcomes stored in ClickHouse through the outbox.
      const notifier = new OutcomeNotifier(db!, ch!, config.clickhouse.database, configs.notifier!, () => sinkFloor(0));
      notifier.start();
      stops.push(() => notifier.stop());
      await repairEmptyAccounts(db!, ch!, config.clickhouse.database);
      costRollup!.start(invoicing!.config.costRollupIntervalMs);
      readiness.set('billing', () => !nc.isClosed());
    }
    http.started();
    log.info('tally started', { roles: [...roles], port });

    let stopped = false;
    return {
      port,
      config,
      names,
      db,
      nc,
      ch,
      bus,
      usage,
      ingest,
      sink,
      ready: readyMap,
      routes: () => http.router.routes(),
      stop: async () => {
        if (stopped) return;
        stopped = true;
        http.close();
        await runStops(stops);
      },
    };
  } catch (err) {
    await runStops(stops);
    throw err;
  }
}

async function runStops(stops: (() => Promise<void>)[]): Promise<void> {
  for (const s of stops.reverse()) {
    try {
      await s();
    } catch (err) {
      log.warn('error while stopping', { err });
    }
  }
}
