import type { CostRollupReader } from '../costs/cost-query.ts';
import type { Authenticator } from '../../shared/auth/authenticator.ts';
import type { InvalidationBus } from '../../shared/auth/invalidation.ts';
import type { TObject, TSchema } from '@sinclair/typebox';
import type { Capability, Principal } from '../../shared/auth/keys.ts';
import type { ClickHouseClient } from '../../shared/clickhouse/client.ts';
import type { Db } from '../../shared/db/postgres.ts';
import type { Invoicing, UsageSource } from '../invoicing/context.ts';
import type { WebhookConfig } from '../webhooks/config.ts';
import type { HttpRequest, HttpResponse, Route } from '../../shared/http/types.ts';

/** What the control-plane routes need: Postgres, authentication, the cache invalidation bus and ClickHouse (events). */
export interface ApiDeps {
  readonly db: Db;
  readonly auth: Authenticator;
  readonly bus: InvalidationBus;
  /** ClickHouse: events read (taggable items, costs, reports); cost and outcome rules written. */
  readonly ch: Pick<ClickHouseClient, 'query' | 'insert'>;
  /** The ClickHouse database holding the event tables (`config.clickhouse.database`). */
  readonly chDatabase: string;
  /** The daily cost rollup reports read when it covers their range (else raw events). */
  readonly costRollup?: CostRollupReader;
  /** Invoicing (rating, usage, clock); its endpoints are registered when present. */
  readonly invoicing?: Invoicing;
  /** The live credit balance's usage (billing/live/usage-cache.ts); default the invoicing's own. */
  readonly liveUsage?: UsageSource;
  /** Where webhooks may go (test deliveries and resends are sent from the api role). */
  readonly webhooks?: WebhookConfig;
  /** The process's clock (subscription moves); default the system's. */
  readonly now?: () => Date;
}

/** One endpoint: the capability it requires and its handler, given the authenticated principal. */
export interface Endpoint {
  method: Route['method'];
  path: string;
  capability: Capability;
  summary: string;
  /** Schema of the JSON body, when the endpoint takes one (shown in the OpenAPI document). */
  requestBody?: TSchema;
  /**
   * The query schemas the handler validates with (`query(req, S)`, `pageA`/`pageB`): each
   * property is a documented query parameter. The same objects serve both.
   */
  query?: readonly TObject[];
  /** Request headers the handler reads beyond credentials (e.g. `Idempotency-Key`): each property is a documented header parameter. */
  headers?: TObject;
  /** Schema of the success body (OpenAPI `responses`). */
  response?: TSchema;
  /** Status of success: 201 when the endpoint creates (`created()`), else 200. */
  status?: 200 | 201;
  /** Media types of the success body when it is not JSON (e.g. text/html). */
  responseTypes?: readonly string[];
  /** Request media types accepted beside JSON, with their body schema (e.g. text/plain). */
  alsoAccepts?: Readonly<Record<string, TSchema>>;
  /** Error statuses beyond the ones every endpoint of its kind can answer (see openapi.ts). */
  errors?: readonly (404 | 409 | 415)[];
  /** OpenAPI operationId; derived from method and path when absent. */
  operationId?: string;
  handle: (req: HttpRequest, p: Principal) => Promise<HttpResponse>;
}

/** Turns endpoints into routes that authenticate and check the capability first. */
export function toRoutes(auth: Authenticator, endpoints: Endpoint[]): Route[] {
  return endpoints.map((e) => ({
    method: e.method,
    path: e.path,
    summary: e.summary,
    handler: async (req: HttpRequest) => e.handle(req, await auth.require(req.headers, e.capability)),
  }));
}

/** 200 with a JSON body. */
export function ok(body: unknown): HttpResponse {
  return { status: 200, body };
}

/** 201 with the created resource. */
export function created(body: unknown): HttpResponse {
  return { status: 201, body };
}

/** 200 `{id, deleted: true}` after a delete. */
export function deleted(id: string): HttpResponse {
  return { status: 200, body: { id, deleted: true } };
}
