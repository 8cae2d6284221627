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
import type { BlockList } from 'node:net';
import { BodyBudget } from '../shared/http/body-budget.ts';
import { trustedProxies } from '../shared/http/client-address.ts';
import { HttpServer, type HttpServerKind } from '../shared/http/server.ts';
import type { Route } from '../shared/http/types.ts';
import { logger, setLogLevel } from '../shared/log.ts';
import { registry, roleReady, watchBodyBudget } from '../shared/metrics.ts';
import { connectNats, ensureEventsStream, resolveNatsUrl, streamBytesForDisk, sinkFloorOf, type FloorExtension } from '../shared/nats/connection.ts';
import { insertedFloor, type SinkFloor } from '../shared/clickhouse/sink-progress.ts';
import { LiveUsage } from '../billing/live/tail.ts';
import { liveInvoicing, watchDeps } from '../billing/live/open-period.ts';
import { startUsageWatch } from '../billing/credits/watch.ts';
import { CostRollup } from '../billing/costs/cost-rollup.ts';
import { repairEmptyAccounts } from '../billing/usage/repair-accounts.ts';
import { natsNames, type NatsNames } from '../shared/nats/names.ts';
import { parseIngestConfig, type IngestConfig } from '../ingest/edge/config.ts';
import { startIngest, type IngestRole } from '../ingest/edge/index.ts';
import { parseSinkConfig, type SinkConfig } from '../ingest/sink/config.ts';
import { Sink, type SinkHooks } from '../ingest/sink/sink.ts';
import { usageRoutes } from '../billing/api/usage-routes.ts';
import { WebhookDispatcher } from '../billing/webhooks/dispatcher.ts';
import { apiRoutes } from '../billing/api/index.ts';
import { servedConsole } from '../console/bundle.ts';
import { createInvoicing, parseInvoicingConfig, startScheduler, type Invoicing, type InvoicingConfig } from '../billing/invoicing/index.ts';
import { OutcomeNotifier, parseOutcomeNotifierConfig, type OutcomeNotifierConfig } from '../billing/outcomes/notifier.ts';
import { parseWebhookConfig, type WebhookConfig } from '../billing/webhooks/config.ts';
import { parseLimitConfig } from '../billing/limits/config.ts';
import { LimitEvaluator, type EvaluatorConfig } from '../billing/limits/evaluator.ts';

const log = logger('runtime');

export const ROLES = ['ingest', 'sink', 'api', 'billing'] as const;
export type Role = (typeof ROLES)[number];

export interface StartOptions {
  roles: readonly Role[];
  env: Env;
  sinkHooks?: SinkHooks;
  /** The process's clock (event time bounds, subscription moves, invoicing); tests set it. Default: the system's. */
  now?: () => Date;
}

/** A running Tally process: its port, its dependencies (for tests and tools), and stop. */
export interface TallyProcess {
  readonly port: number;
  /** The server that speaks HTTP here (TALLY_HTTP_SERVER, and whether uWS loaded). */
  readonly httpServer: HttpServerKind;
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
 * Each selected role's configuration: a role runs in this process exactly when its entry
 * is here, and its entry holds every configuration it reads.
 */
export interface RoleConfigs {
  common: CommonConfig;
  ingest: { ingest: IngestConfig } | undefined;
  sink: { ingest: IngestConfig; sink: SinkConfig } | undefined;
  billing: { invoicing: InvoicingConfig; notifier: OutcomeNotifierConfig; webhooks: WebhookConfig; limits: EvaluatorConfig } | undefined;
  api: { invoicing: InvoicingConfig; webhooks: WebhookConfig } | undefined;
}

/**
 * Every selected role's configuration, parsed before anything is connected: one error
 * lists every bad variable of every role (each once, though two roles read it).
 */
export function parseRoleConfigs(roles: ReadonlySet<Role>, env: Env): RoleConfigs {
  const when = <T>(role: Role, parse: () => T) => () => (roles.has(role) ? parse() : undefined);
  // billing before api: the problems come out in the order ingest, sink, invoicing, notifier, webhooks.
  return parseAll({
    common: () => parseCommonConfig(env),
    ingest: when('ingest', () => ({ ingest: parseIngestConfig(env) })),
    sink: when('sink', () => parseAll({ ingest: () => parseIngestConfig(env), sink: () => parseSinkConfig(env) })),
    billing: when('billing', () =>
      parseAll({ invoicing: () => parseInvoicingConfig(env), notifier: () => parseOutcomeNotifierConfig(env), webhooks: () => parseWebhookConfig(env), limits: () => parseLimitConfig(env) }),
    ),
    api: when('api', () => parseAll({ invoicing: () => parseInvoicingConfig(env), webhooks: () => parseWebhookConfig(env) })),
  });
}

/** A dependency opened by the first role that asks for it, then shared by the others. */
interface OpenedOnce<T> {
  get(): Promise<T>;
  /** The dependency once opened; undefined when no role of this process needed it. */
  current(): T | undefined;
}

function openedOnce<T>(open: () => Promise<T>): OpenedOnce<T> {
  let opening: Promise<T> | undefined;
  let value: T | undefined;
  return {
    get: () => (opening ??= open().then((v) => (value = v))),
    current: () => value,
  };
}

/** Postgres, migrated, with the directory of agents and the authenticator reading it (ingest, api and billing roles). */
interface Postgres {
  db: Db;
  agents: AgentDirectory;
  auth: Authenticator;
}

/** ClickHouse, migrated, and the usage reader (sink, api and billing roles). */
interface ClickHouse {
  ch: ClickHouseClient;
  database: string;
  usage: UsageStore;
}

/** Invoicing and the daily cost rollup (api and billing roles: reports read the rollup, billing folds in new actions). */
interface BillingCore {
  invoicing: Invoicing;
  costRollup: CostRollup;
  /** How far the sink got: its ack floor, extended over what it recorded as inserted. */
  sinkFloor: (waitMs: number) => Promise<SinkFloor>;
  /** The open period's usage live: ClickHouse (cached) plus the events the sink has not stored yet (billing/live/tail.ts). */
  live: LiveUsage;
}

/** What the roles of one process share: the listener, NATS, and the dependencies opened on first use. */
interface Process {
  config: CommonConfig;
  env: Env;
  names: NatsNames;
  nc: NatsConnection;
  /** The store directory of a nats-server Tally started itself. */
  natsStoreDir: string | undefined;
  bus: InvalidationBus;
  http: HttpServer;
  authFailures: AuthFailureLimiter | undefined;
  /** TALLY_TRUSTED_PROXIES, for client addresses. */
  trustedProxies: BlockList | undefined;
  /** Run in reverse order on stop: each role stops before what it uses. */
  stops: (() => Promise<void>)[];
  readiness: Map<Role, () => boolean>;
  postgres: OpenedOnce<Postgres>;
  clickhouse: OpenedOnce<ClickHouse>;
  /** Opened with the invoicing configuration of the first role asking (api and billing read the same variables). */
  billingCore(config: InvoicingConfig): Promise<BillingCore>;
  now: () => Date;
}

async function openPostgres(config: CommonConfig, stops: Process['stops'], bus: InvalidationBus, limiter: RateLimiter | undefined): Promise<Postgres> {
  const pg = await resolveDatabaseUrl(config.databaseUrl, config.dataDir);
  stops.push(pg.stop);
  await ensureDatabase(pg.url);
  const db = createDb(pg.url);
  stops.push(() => db.destroy());
  await migrate(db as never);
  const agents = new AgentDirectory(db, bus);
  return { db, agents, auth: new Authenticator(db, bus, agents, limiter ? { limiter } : {}) };
}

async function openClickHouseStore(config: CommonConfig, stops: Process['stops']): Promise<ClickHouse> {
  const ch = await openClickHouse(config.clickhouse);
  stops.push(() => closeClickHouse(ch));
  const { database } = config.clickhouse;
  await migrateClickHouse(ch, database);
  return { ch, database, usage: new UsageStore(ch, database) };
}

async function openBillingCore(p: Process, config: InvoicingConfig): Promise<BillingCore> {
  const { db } = await p.postgres.get();
  const { ch, database, usage } = await p.clickhouse.get();
  // Rating on piscina workers, usage from ClickHouse.
  const invoicing = createInvoicing({ db, usage, config, now: p.now });
  p.stops.push(() => invoicing.rater.close());
  const extendFloor: FloorExtension = (created, floor, last) => insertedFloor(ch, database, created, floor, last);
  const sinkFloor = (waitMs: number) => sinkFloorOf(p.nc, p.names, waitMs, extendFloor);
  const costRollup = new CostRollup(db, ch, database, sinkFloor, { stepActions: config.costRollupStepActions });
  p.stops.push(() => costRollup.stop());
  const live = new LiveUsage({ nc: p.nc, names: p.names, ch, database, usage }, { pollMs: config.liveUsagePollMs, maxEntries: config.liveTailMaxEntries, readBacklogMaxBytes: config.liveTailReadBacklogMaxBytes }).start();
  p.stops.push(() => live.stop());
  return { invoicing, costRollup, sinkFloor, live };
}

/** The events stream's settings: with a nats-server Tally started itself, its default size fits its disk. */
function streamSized(p: Process, ingest: IngestConfig): IngestConfig {
  if (!p.natsStoreDir || p.env.TALLY_STREAM_MAX_BYTES) return ingest;
  return { ...ingest, streamMaxBytes: streamBytesForDisk(p.natsStoreDir, ingest.streamMaxBytes) };
}

/** The ingest role: the HTTP and OTLP edge publishing events to the stream. */
async function startIngestRole(p: Process, cfg: NonNullable<RoleConfigs['ingest']>): Promise<IngestRole> {
  const { db, auth, agents } = await p.postgres.get();
  const ingest = await startIngest(p.nc, p.names, streamSized(p, cfg.ingest), { db, auth, agents, host: p.config.httpHost, authFailures: p.authFailures, trustedProxies: p.trustedProxies, bodies: p.http.bodies, now: p.now });
  p.stops.push(() => ingest.close());
  p.http.add(...ingest.routes);
  p.readiness.set('ingest', () => ingest.ready());
  return ingest;
}

/** The sink role: the stream into ClickHouse. Without the ingest role here, it makes sure the stream exists. */
async function startSinkRole(p: Process, cfg: NonNullable<RoleConfigs['sink']>, opts: { ingestHere: boolean; hooks: SinkHooks | undefined }): Promise<Sink> {
  if (!opts.ingestHere) {
    const ic = streamSized(p, cfg.ingest);
    await ensureEventsStream(p.nc, p.names, { maxBytes: ic.streamMaxBytes, duplicateWindowMs: ic.streamDuplicateWindowMs, replicas: ic.streamReplicas });
  }
  const { ch, database } = await p.clickhouse.get();
  const sink = new Sink(p.nc, p.names, ch, database, cfg.sink, opts.hooks);
  await sink.start();
  // Stop the sink first on shutdown: it finishes (or abandons) the batch in hand.
  p.stops.push(() => sink.stop());
  p.readiness.set('sink', () => sink.ready && !p.nc.isClosed());
  return sink;
}

/** The api role: both API families, usage, reports and invoicing over HTTP. */
async function startApiRole(p: Process, cfg: NonNullable<RoleConfigs['api']>): Promise<void> {
  const { db, auth } = await p.postgres.get();
  const { ch, database, usage } = await p.clickhouse.get();
  const { invoicing, costRollup, live: liveUsage } = await p.billingCore(cfg.invoicing);
  // Alerts and threshold top-ups on the live pending: the balances of accounts with new usage (read by the live tail, and once stored),
  // with the tail's events of the client's ids counted once verified (a copy held, a retry, never buys credits or fires an alert).
  const usageWatch = startUsageWatch(() => watchDeps(liveInvoicing(invoicing, liveUsage.verified())), invoicing.config.creditUsageWatchMs);
  liveUsage.onTouched(usageWatch.touched);
  p.stops.push(() => usageWatch.loop.stop());
  p.http.add(...usageRoutes(auth, usage));
  p.http.add(...apiRoutes({ db, auth, bus: p.bus, ch, chDatabase: database, costRollup, invoicing, liveUsage, webhooks: cfg.webhooks, now: p.now }));
  // The console (/console), built from console/src as the role starts.
  p.http.add(...(await servedConsole((err) => log.error('the console is not served: its build failed', { err }))));
  p.readiness.set('api', () => !p.nc.isClosed());
}

/** The billing role: the scheduler, the webhook dispatcher, the outcome notifier and the cost rollup's steps. */
async function startBillingRole(p: Process, cfg: NonNullable<RoleConfigs['billing']>): Promise<void> {
  const { db } = await p.postgres.get();
  const { ch, database } = await p.clickhouse.get();
  const { invoicing, costRollup, sinkFloor, live } = await p.billingCore(cfg.invoicing);
  // The billing scheduler: generates ended periods' invoices, finalizes drafts past grace.
  const scheduler = startScheduler(invoicing, invoicing.config.schedulerIntervalMs);
  p.stops.push(() => scheduler.stop());
  // The webhook dispatcher: sends due deliveries from the Postgres outbox.
  const dispatcher = new WebhookDispatcher(db, { ...cfg.webhooks });
  dispatcher.start();
  p.stops.push(() => dispatcher.stop());
  // outcome.completed: announces outcomes stored in ClickHouse through the outbox.
  const notifier = new OutcomeNotifier(db, ch, database, cfg.notifier, () => sinkFloor(0));
  notifier.start();
  p.stops.push(() => notifier.stop());
  // The api role (started before) may have cached answers the repair changes: cleared after it.
  await repairEmptyAccounts(db, ch, database, live.cache);
  costRollup.start(invoicing.config.costRollupIntervalMs);
  // Spend limits: evaluated as usage arrives, alerts once, the reached set pushed to every ingest process.
  const limits = new LimitEvaluator({ db, invoicing, live, nc: p.nc, names: p.names }, cfg.limits);
  await limits.start();
  p.stops.push(() => limits.stop());
  p.readiness.set('billing', () => !p.nc.isClosed());
}

/**
 * Starts the named roles in this process, sharing one HTTP listener and one connection
 * to each dependency (opened by the first role that needs it). Roles talk only through
 * NATS, Postgres and ClickHouse, so any split of roles across processes is configuration.
 */
export async function startTally(opts: StartOptions): Promise<TallyProcess> {
  const roles = new Set(opts.roles);
  const configs = parseRoleConfigs(roles, opts.env);
  const config = configs.common;
  setLogLevel(config.logLevel);
  const stops: (() => Promise<void>)[] = [];
  const names = natsNames(config.natsPrefix);
  const readiness = new Map<Role, () => boolean>();

  const http = new HttpServer({ server: config.httpServer, bodies: new BodyBudget(config.maxInflightBodyBytes) });
  watchBodyBudget(http.bodies);
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
  const trusted = config.trustedProxies.length > 0 ? trustedProxies(config.trustedProxies) : undefined;
  const port = await http.listen(config.httpHost, config.httpPort);
  stops.push(async () => http.close());

  try {
    const natsUrl = await resolveNatsUrl(config.natsUrl, config.dataDir);
    stops.push(natsUrl.stop);
    const nc = await connectNats(natsUrl.url, `tally-${[...roles].join('+')}`);
    stops.push(() => nc.drain().catch(() => nc.close()));
    const bus = new InvalidationBus(nc, names.invalidationSubject);
    const limiter = config.rateLimits ? new RateLimiter(nc, names.rateLimitSubject) : undefined;
    const authFailures = config.rateLimits ? new AuthFailureLimiter(config.authFailuresPerMinute, { nc, subject: names.authFailureSubject }) : undefined;
    // A process that starts mid-minute learns the minute's counts before it admits anything.
    await Promise.all([limiter?.join(), authFailures?.join()]);
    if (authFailures) {
      stops.push(async () => authFailures.stop());
      http.limitFailedAuthentication(authFailures, trusted);
    }
    if (limiter) {
      stops.push(async () => limiter.stop());
      http.onResponse((req, res) => {
        const h = req && limiter.headersFor(req.headers);
        if (h) res.headers = res.headers ? { ...res.headers, ...h } : h;
      });
    }
    let billingCore: Promise<BillingCore> | undefined;
    const p: Process = {
      now: opts.now ?? (() => new Date()),
      config,
      env: opts.env,
      names,
      nc,
      natsStoreDir: natsUrl.storeDir,
      bus,
      http,
      authFailures,
      trustedProxies: trusted,
      stops,
      readiness,
      postgres: openedOnce(() => openPostgres(config, stops, bus, limiter)),
      clickhouse: openedOnce(() => openClickHouseStore(config, stops)),
      billingCore: (invoicing) => (billingCore ??= openBillingCore(p, invoicing)),
    };

    const ingest = configs.ingest ? await startIngestRole(p, configs.ingest) : undefined;
    const sink = configs.sink ? await startSinkRole(p, configs.sink, { ingestHere: ingest !== undefined, hooks: opts.sinkHooks }) : undefined;
    if (configs.api) await startApiRole(p, configs.api);
    if (configs.billing) await startBillingRole(p, configs.billing);
    http.started();
    log.info('tally started', {
      roles: [...roles],
      port,
      ...(ingest?.grpcPort === undefined ? {} : { otlp_grpc_port: ingest.grpcPort }),
      http_server: http.kind === 'uws' ? 'uWebSockets.js' : "Node's HTTP stack",
      node: process.version,
    });

    let stopped = false;
    return {
      port,
      httpServer: http.kind,
      config,
      names,
      db: p.postgres.current()?.db,
      nc,
      ch: p.clickhouse.current()?.ch,
      bus,
      usage: p.clickhouse.current()?.usage,
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
