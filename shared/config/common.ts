import { Type } from '@sinclair/typebox';
import path from 'node:path';
import { defaultBodyBudgetBytes } from '../http/body-budget.ts';
import { trustedProxies } from '../http/client-address.ts';
import { ConfigError, parseEnv, type Env } from './parse.ts';

const CommonEnv = Type.Object({
  /** Port of the process's one HTTP listener (all roles' routes). */
  TALLY_HTTP_PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
  /** Address the HTTP listener binds. */
  TALLY_HTTP_HOST: Type.String({ default: '0.0.0.0' }),
  /**
   * The server that speaks HTTP: `node` (Node's HTTP stack, every Node.js line) or `uws`
   * (uWebSockets.js where its binary fits the runtime, for deployments behind an HTTP/1.1
   * proxy; otherwise Node's, with a warning). docs/architecture.md "HTTP server".
   */
  TALLY_HTTP_SERVER: Type.Union([Type.Literal('node'), Type.Literal('uws')], { default: 'node' }),
  /**
   * Bytes of request bodies a process holds at once, counting what gzip bodies inflate to
   * and what parsing them takes (HTTP and OTLP/gRPC alike); beyond it requests are
   * answered 503 with Retry-After (gRPC: RESOURCE_EXHAUSTED with a RetryInfo). Default: a
   * quarter of the smaller of the process's memory (physical, or its cgroup's memory.max)
   * and V8's heap limit, at least 64 MiB. docs/events.md "Limits".
   */
  TALLY_MAX_INFLIGHT_BODY_BYTES: Type.Optional(Type.Integer({ minimum: 1024 * 1024 })),
  /** Data directory for embedded components (chDB, embedded Postgres, spawned NATS). */
  TALLY_DATA_DIR: Type.String({ default: '.data' }),
  /** Postgres URL; unset: postgres://postgres@127.0.0.1:5432/tally, else embedded Postgres. */
  DATABASE_URL: Type.Optional(Type.String()),
  /** NATS URL; unset: nats://127.0.0.1:4222, else a `nats-server -js` spawned from PATH. */
  NATS_URL: Type.Optional(Type.String()),
  /** ClickHouse HTTP URL; unset: chDB in-process under the data directory. */
  CLICKHOUSE_URL: Type.Optional(Type.String()),
  CLICKHOUSE_USER: Type.String({ default: 'default' }),
  CLICKHOUSE_PASSWORD: Type.String({ default: '' }),
  /**
   * ClickHouse cluster (a name from the server's `remote_servers`) for a replicated,
   * sharded schema: tables created `ON CLUSTER`, events behind Distributed tables
   * (shared/clickhouse/cluster.ts). Only with CLICKHOUSE_URL.
   */
  CLICKHOUSE_CLUSTER: Type.Optional(Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$' })),
  /** ClickHouse database holding Tally's tables. */
  CLICKHOUSE_DATABASE: Type.String({ pattern: '^[A-Za-z_][A-Za-z0-9_]*$', default: 'tally' }),
  /** Prefix of JetStream stream, consumer and subject names. */
  TALLY_NATS_PREFIX: Type.String({ pattern: '^[A-Za-z0-9_-]*$', default: 'TALLY_' }),
  /** Per-key rate limits (docs/rate-limits.md); `off` where a gateway in front limits. */
  TALLY_RATE_LIMITS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'on' }),
  /** Failed authentications (401) a client address may cause per minute before it is answered 429 (with rate limits on). */
  TALLY_AUTH_FAILURES_PER_MINUTE: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 100 }),
  /**
   * Proxies (addresses and CIDR ranges, comma-separated) whose `X-Forwarded-For` /
   * `Forwarded` headers name the client address the failed-authentication limit counts;
   * default none: the TCP peer's address.
   */
  TALLY_TRUSTED_PROXIES: Type.String({ default: '' }),
  TALLY_LOG_LEVEL: Type.Union([Type.Literal('debug'), Type.Literal('info'), Type.Literal('warn'), Type.Literal('error')], {
    default: 'info',
  }),
});

export const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/tally';
export const DEFAULT_NATS_URL = 'nats://127.0.0.1:4222';

/** Settings every role shares. */
export interface CommonConfig {
  readonly httpPort: number;
  readonly httpHost: string;
  readonly httpServer: 'node' | 'uws';
  /** TALLY_MAX_INFLIGHT_BODY_BYTES, or its default from this process's memory. */
  readonly maxInflightBodyBytes: number;
  readonly dataDir: string;
  /** undefined: use the default URL, falling back to an embedded/spawned server. */
  readonly databaseUrl: string | undefined;
  readonly natsUrl: string | undefined;
  readonly clickhouse: {
    readonly url: string | undefined;
    readonly user: string;
    readonly password: string;
    readonly database: string;
    readonly chdbPath: string;
    /** CLICKHOUSE_CLUSTER: undefined for one server (or chDB). */
    readonly cluster?: string | undefined;
  };
  readonly natsPrefix: string;
  readonly rateLimits: boolean;
  readonly authFailuresPerMinute: number;
  /** TALLY_TRUSTED_PROXIES: addresses and CIDR ranges; empty: none. */
  readonly trustedProxies: readonly string[];
  readonly logLevel: 'debug' | 'info' | 'warn' | 'error';
}

export function parseCommonConfig(env: Env): CommonConfig {
  const e = parseEnv(CommonEnv, env);
  if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL) {
    throw new ConfigError([`CLICKHOUSE_CLUSTER=${JSON.stringify(e.CLICKHOUSE_CLUSTER)}: needs CLICKHOUSE_URL (a ClickHouse server of that cluster); chDB in-process has no cluster`]);
  }
  const proxies = e.TALLY_TRUSTED_PROXIES.split(',').map((p) => p.trim()).filter(Boolean);
  try {
    trustedProxies(proxies);
  } catch (err) {
    throw new ConfigError([`TALLY_TRUSTED_PROXIES=${JSON.stringify(e.TALLY_TRUSTED_PROXIES)}: ${(err as Error).message}; expected addresses and CIDR ranges, comma-separated`]);
  }
  const dataDir = path.resolve(e.TALLY_DATA_DIR);
  return Object.freeze({
    httpPort: e.TALLY_HTTP_PORT,
    httpHost: e.TALLY_HTTP_HOST,
    httpServer: e.TALLY_HTTP_SERVER,
    maxInflightBodyBytes: e.TALLY_MAX_INFLIGHT_BODY_BYTES ?? defaultBodyBudgetBytes(),
    dataDir,
    databaseUrl: e.DATABASE_URL,
    natsUrl: e.NATS_URL,
    clickhouse: Object.freeze({
      url: e.CLICKHOUSE_URL,
      user: e.CLICKHOUSE_USER,
      password: e.CLICKHOUSE_PASSWORD,
      database: e.CLICKHOUSE_DATABASE,
      chdbPath: path.join(dataDir, 'chdb'),
      cluster: e.CLICKHOUSE_CLUSTER,
    }),
    natsPrefix: e.TALLY_NATS_PREFIX,
    rateLimits: e.TALLY_RATE_LIMITS === 'on',
    authFailuresPerMinute: e.TALLY_AUTH_FAILURES_PER_MINUTE,
    trustedProxies: Object.freeze(proxies),
    logLevel: e.TALLY_LOG_LEVEL,
  });
}
