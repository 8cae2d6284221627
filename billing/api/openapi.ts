import type { Capability } from '../../shared/auth/keys.ts';
import type { Route } from '../../shared/http/types.ts';
import type { Endpoint } from './route.ts';
import { WEBHOOK_EVENTS } from '../catalog/webhook-endpoints.ts';
import { deliveryBodySchema } from '../webhooks/payloads.ts';

/** Routes of other modules that the document lists too (ingest and usage), with the capability they require. */
export const OTHER_ENDPOINTS: readonly Pick<Endpoint, 'method' | 'path' | 'summary' | 'capability'>[] = [
  { method: 'POST', path: '/v1/actions', capability: 'send_events', summary: 'Send one action event or a batch (JSON, NDJSON, msgpack)' },
  { method: 'POST', path: '/v1/outcomes', capability: 'send_events', summary: 'Send one outcome event or a batch' },
  { method: 'GET', path: '/v1/usage', capability: 'read_usage', summary: 'Usage quantities per agent or account over [start_date, end_date)' },
];

/** Who may call an endpoint of each capability (the permission matrix). */
export const CAPABILITY_HOLDERS: Readonly<Record<Capability, string>> = {
  read: 'read-only, read-write and admin API keys',
  write: 'read-write and admin API keys',
  admin: 'admin API keys',
  send_events: 'SDK keys, agent secrets, read-write and admin API keys',
  read_usage: 'every key type and agent secrets',
  validate_secret: 'SDK keys, every API key and agent secrets',
  agent_self: 'agent secrets (X-Agent-Secret) only',
};

const ERROR = { $ref: '#/components/schemas/Error' };

function operation(e: Pick<Endpoint, 'method' | 'path' | 'summary' | 'capability' | 'requestBody'>): Record<string, unknown> {
  const params = [...e.path.matchAll(/:(\w+)/g)].map((m) => ({ name: m[1], in: 'path', required: true, schema: { type: 'string' } }));
  const op: Record<string, unknown> = {
    summary: e.summary,
    tags: [e.path.startsWith('/api/v1') ? 'Family B' : 'Family A'],
    description: `Requires: ${CAPABILITY_HOLDERS[e.capability]}.`,
    'x-required-capability': e.capability,
    security: [{ bearer: [] }, { apiKeyHeader: [] }],
    responses: {
      '2XX': { description: 'Success: 201 with the resource on creation, 200 otherwise' },
      '400': { description: 'Validation failed', content: { 'application/json': { schema: ERROR } } },
      '401': { description: 'Missing or invalid credential', content: { 'application/json': { schema: ERROR } } },
      '403': { description: 'The credential may not call this endpoint', content: { 'application/json': { schema: ERROR } } },
      '404': { description: 'Not found in this environment', content: { 'application/json': { schema: ERROR } } },
      '409': { description: 'Conflict (duplicate, referenced, or not allowed in this state)', content: { 'application/json': { schema: ERROR } } },
    },
  };
  if (params.length) op.parameters = params;
  if (e.requestBody) op.requestBody = { required: true, content: { 'application/json': { schema: JSON.parse(JSON.stringify(e.requestBody)) } } };
  return op;
}

/** An OpenAPI 3.1 document of both families, generated from the endpoints that are registered. */
export function openApiDocument(endpoints: readonly Endpoint[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const e of [...endpoints, ...OTHER_ENDPOINTS]) {
    const p = e.path.replace(/:(\w+)/g, '{$1}');
    (paths[p] ??= {})[e.method.toLowerCase()] = operation(e);
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Tally API', version: 'v1', description: 'Family A under /v1 and Family B under /api/v1, one data model. See docs/api-reference.md.' },
    paths,
    webhooks: webhookOperations(),
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <key>' },
        apiKeyHeader: { type: 'apiKey', in: 'header', name: 'api-key' },
        agentSecret: { type: 'apiKey', in: 'header', name: 'X-Agent-Secret' },
      },
      schemas: {
        Error: {
          type: 'object',
          required: ['error'],
          properties: {
            error: {
              type: 'object',
              required: ['code', 'message', 'request_id'],
              properties: {
                code: { type: 'string' },
                message: { type: 'string' },
                request_id: { type: 'string' },
                details: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
              },
            },
          },
        },
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
          summary: `${event} delivery`,
          description: signed,
          parameters,
          requestBody: { required: true, content: { 'application/json': { schema: JSON.parse(JSON.stringify(deliveryBodySchema(event))) } } },
          responses: { '2XX': { description: 'Delivered; any other answer, no answer within 30 s or a failed connection is retried (1 min, 5 min, 15 min, 1 h, 6 h, 24 h)' } },
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
