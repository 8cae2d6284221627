import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import type { Capability } from '../../shared/auth/keys.ts';
import { MAX_EVENTS_PER_REQUEST } from '../../shared/events/limits.ts';
import type { Route } from '../../shared/http/types.ts';
import { ActionEvent, OutcomeEvent } from '../../shared/events/schemas.ts';
import type { Endpoint } from './route.ts';
import { WEBHOOK_EVENTS } from '../webhooks/endpoints.ts';
import { deliveryBodySchema } from '../webhooks/payloads.ts';
import { EventAccepted, EventBatchResult, Health, OtlpTraceResponse, Readiness, RESPONSE_COMPONENTS, Usage } from './response-schemas.ts';
import { UsageQuery } from './usage-routes.ts';

/** What the document says of one operation: an {@link Endpoint} without its handler, or a route of another module. */
type DocumentedRoute = Omit<Endpoint, 'handle' | 'capability'> & {
  /** The capability required; absent: no credential (`security: []`). */
  capability?: Capability;
  /** The tag (default: Family A for /v1, Family B for /api/v1). */
  tag?: string;
  /** The whole request `content` map, for bodies that are not one JSON schema. */
  requestContent?: Record<string, unknown>;
  /** The whole `responses` map, replacing the derived one. */
  responses?: Record<string, unknown>;
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const response = (name: string) => ({ $ref: `#/components/responses/${name}` });

/** An events body: one event, an array of events, or `{"events": [...]}`; NDJSON; msgpack. */
function eventsContent(event: TSchema): Record<string, unknown> {
  const batch = Type.Array(event, { minItems: 1, maxItems: MAX_EVENTS_PER_REQUEST });
  return {
    'application/json': { schema: Type.Union([event, batch, Type.Object({ events: batch })]) },
    'application/x-ndjson': { schema: { type: 'string', description: `one event object per line (at most ${MAX_EVENTS_PER_REQUEST}); a bad line is rejected alone` } },
    'application/msgpack': { schema: { type: 'string', contentMediaType: 'application/msgpack', description: 'the same shapes as JSON, msgpack-encoded' } },
  };
}

/** What POST /v1/actions and /v1/outcomes answer (ingest/edge/events-handler.ts, shared/errors.ts). */
const EVENT_RESPONSES = {
  '200': { description: 'Accepted: one event sent alone, or a batch whose every event was accepted', content: { 'application/json': { schema: Type.Union([EventAccepted, EventBatchResult]) } } },
  '207': { description: 'A batch in which some events were accepted and some rejected (see results)', content: { 'application/json': { schema: EventBatchResult } } },
  '400': response('EventsRejected'),
  '401': response('Unauthorized'),
  '403': response('Forbidden'),
  '413': response('PayloadTooLarge'),
  '415': response('UnsupportedMediaType'),
  '422': response('EventsUnprocessable'),
  '429': response('TooManyRequests'),
  '503': response('ServiceUnavailable'),
};

/** An OTLP/HTTP failure: google.rpc.Status in the request's encoding (JSON beside Tally's error object). */
/** A CloudEvent as POST /api/v1/events reads it (docs/events.md, "Switching from OpenMeter"). */
const CLOUD_EVENT = {
  type: 'object',
  required: ['specversion', 'id', 'source', 'type'],
  properties: {
    specversion: { const: '1.0' },
    id: { type: 'string', description: 'the event id: counted once per agent instance' },
    source: { type: 'string', description: 'kept as metadata._source' },
    type: { type: 'string', description: 'the action type, or `outcome.<name>` for an outcome' },
    subject: { type: 'string', description: "the agent instance's id or secret (optional with X-Agent-Secret)" },
    time: { type: ['string', 'null'], format: 'date-time' },
    datacontenttype: { type: 'string', enum: ['application/json'] },
    data: { type: 'object', description: 'metadata; `value` is an outcome\'s value (kept exact), `model` and token counts as on /v1/actions' },
  },
};

/** An RFC 9457 problem answer (the OpenMeter-compatible route), Tally's error object beside its fields. */
const problem = (description: string) => ({
  description,
  content: {
    'application/problem+json': {
      schema: {
        type: 'object',
        required: ['type', 'title', 'status', 'detail', 'error'],
        properties: { type: { type: 'string' }, title: { type: 'string' }, status: { type: 'integer' }, detail: { type: 'string' }, error: ref('Error') },
      },
    },
  },
});
const otlpError = (description: string) => ({
  description,
  content: {
    'application/json': {
      schema: {
        allOf: [
          ref('Error'),
          {
            type: 'object',
            properties: {
              code: { type: 'integer', description: 'gRPC status code' },
              message: { type: 'string' },
              details: {
                type: 'array',
                description: 'On 429 and 503: one google.rpc.RetryInfo, the delay of Retry-After',
                items: { type: 'object', properties: { '@type': { const: 'type.googleapis.com/google.rpc.RetryInfo' }, retryDelay: { type: 'string', examples: ['30s'] } } },
              },
            },
          },
        ],
      },
    },
    'application/x-protobuf': { schema: { type: 'string', contentMediaType: 'application/x-protobuf', description: 'google.rpc.Status (with a RetryInfo in details on 429 and 503)' } },
  },
});

/**
 * Routes of other modules (ingest, OTLP, usage, operations) that the document lists too.
 * A module adding a route lists it here, one line each at the least
 * (`{ method, path, capability, summary }`; a route needing no credential omits
 * `capability`): the document then shows its parameters, a JSON object answer and the
 * errors every authenticated route can give.
 */
const OTHER_ENDPOINTS: readonly DocumentedRoute[] = [
  {
    method: 'POST',
    path: '/v1/actions',
    capability: 'send_events',
    tag: 'Ingest',
    summary: 'Send one action event or a batch (JSON, NDJSON, msgpack)',
    requestContent: eventsContent(ActionEvent),
    responses: EVENT_RESPONSES,
  },
  {
    method: 'POST',
    path: '/v1/outcomes',
    capability: 'send_events',
    tag: 'Ingest',
    summary: 'Send one outcome event or a batch (JSON, NDJSON, msgpack)',
    requestContent: eventsContent(OutcomeEvent),
    responses: EVENT_RESPONSES,
  },
  {
    method: 'POST',
    path: '/v1/traces',
    capability: 'send_events',
    tag: 'Ingest',
    summary: 'OTLP/HTTP trace export (protobuf or JSON, optionally gzip): GenAI and tagged spans become actions',
    requestContent: {
      'application/x-protobuf': { schema: { type: 'string', contentMediaType: 'application/x-protobuf', description: 'ExportTraceServiceRequest' } },
      'application/json': { schema: { type: 'object', description: 'ExportTraceServiceRequest in OTLP/JSON' } },
    },
    responses: {
      '200': {
        description: 'Exported; partialSuccess counts the spans rejected',
        content: {
          'application/json': { schema: OtlpTraceResponse },
          'application/x-protobuf': { schema: { type: 'string', contentMediaType: 'application/x-protobuf', description: 'ExportTraceServiceResponse' } },
        },
      },
      '400': otlpError('Not an OTLP ExportTraceServiceRequest'),
      '401': otlpError('Missing or invalid credential'),
      '403': otlpError('The credential may not send events'),
      '413': otlpError('Body (or its decompressed form) too large'),
      '415': otlpError('Content-Type or Content-Encoding not supported'),
      '429': otlpError('Rate limited; retry after Retry-After'),
      '503': otlpError('The events could not be stored, or the process holds as many request bodies as its memory budget allows; retry after Retry-After'),
    },
  },
  {
    method: 'POST',
    path: '/api/v1/events',
    capability: 'send_events',
    tag: 'Ingest',
    summary:
      'OpenMeter-compatible ingest: one CloudEvent (application/cloudevents+json) or a batch (application/cloudevents-batch+json; application/json either), metered as actions and outcomes (`type` outcome.<name>)',
    requestContent: {
      'application/cloudevents+json': { schema: CLOUD_EVENT },
      'application/cloudevents-batch+json': { schema: { type: 'array', items: CLOUD_EVENT } },
      'application/json': { schema: { oneOf: [CLOUD_EVENT, { type: 'array', items: CLOUD_EVENT }] } },
    },
    responses: {
      '204': { description: 'Every event accepted' },
      '400': problem('Some event was refused (the good ones are stored; resending the batch is safe): per-event results'),
      '401': problem('Missing or invalid credential'),
      '403': problem('The credential may not send events'),
      '413': problem('Body too large'),
      '415': problem('Content-Type not supported'),
      '422': problem('Some event was well-formed but refused (unknown or inactive agent, time out of range)'),
      '429': problem('Rate limited; retry after Retry-After'),
      '503': problem('The events could not be stored; retry the batch after Retry-After'),
    },
  },
  {
    method: 'GET',
    path: '/v1/usage',
    capability: 'read_usage',
    summary: 'Usage quantities (actions, outcomes, distinct users, tokens) per agent or account over [start_date, end_date)',
    query: [UsageQuery],
    response: Usage,
  },
  { method: 'GET', path: '/healthz', tag: 'Operations', summary: 'Liveness', response: Health },
  {
    method: 'GET',
    path: '/readyz',
    tag: 'Operations',
    summary: 'Readiness of every role in this process',
    responses: {
      '200': { description: 'Every role is ready', content: { 'application/json': { schema: Readiness } } },
      '503': { description: 'Some role is not ready yet', content: { 'application/json': { schema: Readiness } } },
      '429': response('TooManyRequests'),
    },
  },
  { method: 'GET', path: '/metrics', tag: 'Operations', summary: 'Prometheus metrics (text exposition format)', response: Type.String(), responseTypes: ['text/plain'] },
  { method: 'GET', path: '/console', tag: 'Console', summary: 'The console (HTML page; signs in with an API key kept in the tab)', response: Type.String(), responseTypes: ['text/html'] },
  { method: 'GET', path: '/console/app.js', tag: 'Console', summary: "The console's script", response: Type.String(), responseTypes: ['text/javascript'] },
  { method: 'GET', path: '/console/app.css', tag: 'Console', summary: "The console's style sheet", response: Type.String(), responseTypes: ['text/css'] },
  { method: 'GET', path: '/v1/openapi.json', tag: 'Operations', summary: 'This OpenAPI document', response: Type.Object({}, { description: 'OpenAPI 3.1 document' }) },
  { method: 'GET', path: '/api/v1/openapi.json', tag: 'Operations', summary: 'This OpenAPI document', response: Type.Object({}, { description: 'OpenAPI 3.1 document' }) },
];

/** Who may call an endpoint of each capability (the permission matrix). */
const CAPABILITY_HOLDERS: Readonly<Record<Capability, string>> = {
  read: 'read-only, read-write and admin API keys',
  write: 'read-write and admin API keys',
  admin: 'admin API keys',
  send_events: 'SDK keys, agent secrets, read-write and admin API keys',
  read_usage: 'every key type and agent secrets',
  validate_secret: 'SDK keys, every API key and agent secrets',
  agent_self: 'agent secrets (X-Agent-Secret) only',
};

/** Capabilities an agent secret (X-Agent-Secret) holds. */
const AGENT_SECRET_CAPABILITIES: ReadonlySet<Capability> = new Set(['send_events', 'read_usage', 'validate_secret', 'agent_self']);

function security(capability: Capability | undefined): Record<string, string[]>[] {
  if (!capability) return [];
  if (capability === 'agent_self') return [{ agentSecret: [] }];
  const keys: Record<string, string[]>[] = [{ bearer: [] }, { apiKeyHeader: [] }];
  return AGENT_SECRET_CAPABILITIES.has(capability) ? [...keys, { agentSecret: [] }] : keys;
}

/** The error answers (shared/errors.ts: `{"error": {code, message, request_id, details?}}`). */
const ERRORS = {
  400: ['BadRequest', 'Invalid request: invalid_json, invalid_body or validation_failed (details name the fields)'],
  401: ['Unauthorized', 'Missing or invalid credential'],
  403: ['Forbidden', 'The credential may not call this endpoint'],
  404: ['NotFound', 'Not found in this environment'],
  409: ['Conflict', 'Conflict: duplicate, still referenced, or not allowed in this state'],
  413: ['PayloadTooLarge', 'Request body over the limit (1 MiB unless stated)'],
  415: ['UnsupportedMediaType', 'Content-Type not supported'],
  429: ['TooManyRequests', "Over the credential's rate limit, or too many failed authentications from this address; retry after Retry-After"],
  503: ['ServiceUnavailable', 'A dependency (Postgres, NATS, ClickHouse) is unavailable, Tally is starting, or the process holds as many request bodies as its memory budget allows; retry after Retry-After'],
} as const satisfies Record<number, readonly [string, string]>;
type ErrorStatus = keyof typeof ERRORS;

const RETRY_AFTER = { 'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } };

function errorResponses(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, [name, description]] of Object.entries(ERRORS)) {
    out[name] = { description, content: { 'application/json': { schema: ref('Error') } }, ...(status === '429' || status === '503' ? { headers: RETRY_AFTER } : {}) };
  }
  const rejected = { anyOf: [ref('Error'), ref('EventsRejected')] };
  out.EventsRejected = { description: `${ERRORS[400][1]}; a batch whose every event was rejected adds the per-event results`, content: { 'application/json': { schema: rejected } } };
  out.EventsUnprocessable = { description: `Well-formed but refused (unknown or inactive agent, timestamp out of range); a batch whose every event was rejected adds the per-event results`, content: { 'application/json': { schema: rejected } } };
  return out;
}

/** The error statuses an operation can answer (what the server, authentication and the handler produce). */
function errorStatuses(e: DocumentedRoute): ErrorStatus[] {
  // Without a credential only the server's own refusals: blocked address, still starting.
  if (!e.capability) return [429];
  const out = new Set<ErrorStatus>([400, 401, 403, 429, 503]);
  if (e.path.includes(':')) out.add(404);
  if (e.capability === 'write' && e.method !== 'GET') out.add(409);
  if (e.requestBody || e.alsoAccepts || e.requestContent) out.add(413);
  for (const s of e.errors ?? []) out.add(s);
  return [...out].sort((a, b) => a - b);
}

/** `getApiAccountByAccountId` from `GET /api/v1/account/:account_id`. */
function operationIdOf(method: string, path: string): string {
  const words = path
    .split('/')
    .filter((s) => s !== '' && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `by_${s.slice(1)}` : s));
  const parts = [method.toLowerCase(), ...words].join('_').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return parts.map((p, i) => (i === 0 ? p : p[0]!.toUpperCase() + p.slice(1))).join('');
}

/** JSON Schema keywords TypeBox schemas carry that are not JSON Schema 2020-12 (validate.ts's custom messages). */
const NON_STANDARD_KEYWORDS = new Set(['errorMessage']);
/** Keywords whose value maps names (not keywords) to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);

/**
 * A TypeBox schema as standard JSON Schema 2020-12: non-standard keywords dropped (the
 * `[Kind]` symbols are not own enumerable string keys and vanish too), and every
 * sub-schema that is a named response component replaced by a `$ref` to it.
 */
function toJsonSchema(node: unknown, refs: ReadonlyMap<object, string> = new Map(), self?: object): unknown {
  if (Array.isArray(node)) return node.map((n) => toJsonSchema(n, refs));
  if (node === null || typeof node !== 'object') return node;
  const name = refs.get(node);
  if (name !== undefined && node !== self) return ref(name);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (NON_STANDARD_KEYWORDS.has(k)) continue;
    out[k] = SCHEMA_MAPS.has(k) && v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([n, s]) => [n, toJsonSchema(s, refs)])) : toJsonSchema(v, refs);
  }
  return out;
}

function parameters(e: DocumentedRoute, refs: ReadonlyMap<object, string>): Record<string, unknown>[] {
  const path = [...e.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const query = (e.query ?? []).flatMap((s: TObject) =>
    Object.entries(s.properties).map(([name, schema]) => {
      const { description, ...rest } = toJsonSchema(schema, refs) as Record<string, unknown>;
      return { name, in: 'query', required: (s.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest };
    }),
  );
  const headers = Object.entries(e.headers?.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = toJsonSchema(schema, refs) as Record<string, unknown>;
    return { name, in: 'header', required: (e.headers!.required ?? []).includes(name), ...(description ? { description } : {}), schema: rest };
  });
  return [...path, ...query, ...headers];
}

function successResponse(e: DocumentedRoute, refs: ReadonlyMap<object, string>): Record<string, unknown> {
  const status = e.status ?? 200;
  const schema = toJsonSchema(e.response ?? Type.Object({}), refs);
  const types = e.responseTypes ?? ['application/json'];
  return { [status]: { description: status === 201 ? 'Created' : 'OK', content: Object.fromEntries(types.map((t) => [t, { schema }])) } };
}

function operation(e: DocumentedRoute, refs: ReadonlyMap<object, string>): Record<string, unknown> {
  const op: Record<string, unknown> = {
    operationId: e.operationId ?? operationIdOf(e.method, e.path),
    summary: e.summary,
    tags: [e.tag ?? (e.path.startsWith('/api/v1') ? 'Family B' : 'Family A')],
    description: e.capability ? `Requires: ${CAPABILITY_HOLDERS[e.capability]}.` : 'No credential needed.',
    ...(e.capability ? { 'x-required-capability': e.capability } : {}),
    security: security(e.capability),
  };
  const params = parameters(e, refs);
  if (params.length) op.parameters = params;
  if (e.requestContent) op.requestBody = { required: true, content: toJsonSchema(e.requestContent, refs) };
  else if (e.requestBody || e.alsoAccepts) {
    const content: Record<string, unknown> = {};
    if (e.requestBody) content['application/json'] = { schema: toJsonSchema(e.requestBody, refs) };
    for (const [type, schema] of Object.entries(e.alsoAccepts ?? {})) content[type] = { schema: toJsonSchema(schema, refs) };
    op.requestBody = { required: true, content };
  }
  const errors = Object.fromEntries(errorStatuses(e).map((s) => [String(s), response(ERRORS[s][0])]));
  op.responses = e.responses ? toJsonSchema(e.responses, refs) : { ...successResponse(e, refs), ...errors };
  return op;
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'request_id'],
      properties: {
        code: { type: 'string', description: 'shared/errors.ts ErrorCode, e.g. validation_failed' },
        message: { type: 'string' },
        request_id: { type: 'string' },
        details: { type: 'array', items: { type: 'object', required: ['message'], properties: { path: { type: 'string' }, message: { type: 'string' } } } },
      },
    },
  },
};

/** An OpenAPI 3.1 document of both families, generated from the endpoints that are registered. */
function openApiDocument(endpoints: readonly Endpoint[]): Record<string, unknown> {
  const refs = new Map<object, string>(Object.entries(RESPONSE_COMPONENTS).map(([name, s]) => [s, name]));
  const paths: Record<string, Record<string, unknown>> = {};
  const ids = new Set<string>();
  for (const e of [...endpoints, ...OTHER_ENDPOINTS]) {
    const p = e.path.replace(/:(\w+)/g, '{$1}');
    const op = operation(e, refs);
    if (ids.has(op.operationId as string)) throw new Error(`duplicate operationId ${op.operationId as string} (${e.method} ${e.path})`);
    ids.add(op.operationId as string);
    (paths[p] ??= {})[e.method.toLowerCase()] = op;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Tally API',
      version: 'v1',
      description: 'Family A under /v1 and Family B under /api/v1, one data model. See docs/api-reference.md.',
    },
    servers: [
      {
        url: '{scheme}://{host}:{port}',
        description: 'Where Tally runs (self-hosted): by default http://localhost:8080 (`npm start`; the port is TALLY_HTTP_PORT)',
        variables: { scheme: { enum: ['http', 'https'], default: 'http' }, host: { default: 'localhost' }, port: { default: '8080' } },
      },
    ],
    tags: [
      { name: 'Family A', description: 'The /v1 API (limit/offset paging)' },
      { name: 'Family B', description: 'The /api/v1 API (skip/limit paging)' },
      { name: 'Ingest', description: 'Events and OTLP traces' },
      { name: 'Operations', description: 'Health, readiness, metrics and this document (no credential)' },
      { name: 'Console', description: 'The web console served by the api role (no credential: it signs in with an API key the person types)' },
    ],
    paths,
    webhooks: webhookOperations(),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key>' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'api-key' },
        agentSecret: { type: 'apiKey', in: 'header', name: 'X-Agent-Secret' },
      },
      responses: errorResponses(),
      schemas: {
        Error: ERROR_SCHEMA,
        EventsRejected: { allOf: [ref('Error'), toJsonSchema(EventBatchResult)] },
        ...Object.fromEntries(Object.entries(RESPONSE_COMPONENTS).map(([name, s]) => [name, toJsonSchema(s, refs, s)])),
      },
    },
  };
}

/**
 * The deliveries Tally sends (OpenAPI 3.1 `webhooks`): one schema per event, the same one
 * every real and test delivery is checked against before it is stored (payloads.ts).
 */
function webhookOperations(): Record<string, unknown> {
  const signed =
    'Signed twice. Standard Webhooks: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed with the base64-decoded part after `whsec_` of a `whsec_` secret (a secret without the prefix: its characters); verify with a Standard Webhooks library given the secret as issued (`format: raw` for a secret without the prefix) and reject timestamps more than 5 minutes old. `X-Tally-Signature` (the spec’s scheme): hex HMAC-SHA256 of the raw body keyed with the secret’s characters; it does not cover the timestamp.';
  const header = (name: string, description: string) => ({ name, in: 'header', required: true, schema: { type: 'string' }, description });
  const parameters = [
    header('webhook-id', 'the event id, the same on every retry: deduplicate on it'),
    header('webhook-timestamp', 'Unix seconds of the attempt, signed'),
    header('webhook-signature', '`v1,` and the base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{raw body}`'),
    header('X-Tally-Signature', 'hex HMAC-SHA256 of the raw body with the secret'),
    header('X-Tally-Event-Id', 'the event id (as webhook-id)'),
    header('X-Tally-Event', 'the event name'),
    header('X-Tally-Timestamp', 'Unix seconds of the attempt (not signed by X-Tally-Signature)'),
    header('X-Tally-Delivery-Id', 'the delivery (one per event and endpoint)'),
    header('X-Tally-Attempt', 'the attempt number, from 1'),
  ];
  return Object.fromEntries(
    WEBHOOK_EVENTS.map((event) => [
      event,
      {
        post: {
          operationId: `webhook${operationIdOf('', event.replace(/\./g, '_')).replace(/^./, (c) => c.toUpperCase())}`,
          summary: `${event} delivery`,
          description: signed,
          // Deliveries are authenticated by their signatures (parameters), not a security scheme.
          security: [],
          parameters,
          requestBody: { required: true, content: { 'application/json': { schema: toJsonSchema(deliveryBodySchema(event)) } } },
          responses: { '200': { description: 'Delivered: any 2xx answer; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h)' } },
        },
      },
    ]),
  );
}

/** GET /v1/openapi.json and /api/v1/openapi.json (no credential needed). */
export function openApiRoutes(endpoints: readonly Endpoint[]): Route[] {
  const doc = JSON.stringify(openApiDocument(endpoints));
  const handler = () => ({ status: 200, raw: doc, contentType: 'application/json' });
  return [
    { method: 'GET', path: '/v1/openapi.json', summary: 'OpenAPI document of both families', handler },
    { method: 'GET', path: '/api/v1/openapi.json', summary: 'OpenAPI document of both families', handler },
  ];
}
