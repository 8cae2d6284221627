import { Type } from '@sinclair/typebox';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookEndpoints,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  WEBHOOK_EVENTS,
} from '../webhooks/endpoints.ts';
import { AppError } from '../../shared/errors.ts';
import { standardSecretProblem } from '../webhooks/signature.ts';
import { targetPolicy } from '../webhooks/config.ts';
import { targetProblem } from '../webhooks/targets.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, deleted, ok, type ApiDeps, type Endpoint } from './route.ts';
import { NullableText } from './schemas.ts';
import { body, optionalBody } from './validate.ts';
import { Deleted, listOfA, listOfB, WebhookEndpoint, WebhookEndpointWithSecret } from './response-schemas.ts';

const Url = Type.String({ minLength: 1, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://\\S+$', errorMessage: 'must be an absolute http or https URL' });
const EventName = Type.Union([...WEBHOOK_EVENTS, '*'].map((e) => Type.Literal(e)), { errorMessage: `must be one of ${WEBHOOK_EVENTS.join(', ')} or *` });
const Events = Type.Array(EventName, {
  minItems: 1,
  maxItems: WEBHOOK_EVENTS.length,
  uniqueItems: true,
  errorMessage: 'must be a non-empty array of distinct event names, or ["*"]',
});
const Secret = Type.String({
  minLength: 16,
  maxLength: 256,
  pattern: '^[\\x21-\\x7E]+$',
  errorMessage: 'must be 16 to 256 printable ASCII characters without spaces',
  description: 'the signing secret; one starting with whsec_ must go on with the base64 of a 24 to 64 byte key (Standard Webhooks)',
});
const IsActive = Type.Boolean({ errorMessage: 'must be true or false' });

const WebhookCreate = Type.Object({
  url: Url,
  events: Events,
  description: Type.Optional(NullableText),
  secret: Type.Optional(Secret),
  is_active: Type.Optional(IsActive),
});
const WebhookUpdate = Type.Object({
  url: Type.Optional(Url),
  events: Type.Optional(Events),
  description: Type.Optional(NullableText),
  is_active: Type.Optional(IsActive),
  secret: Type.Optional(Type.Never({ errorMessage: 'cannot be changed by PUT; use POST /api/v1/webhooks/{webhook_id}/rotate-secret' })),
});
const WebhookRotate = Type.Object({ secret: Type.Optional(Secret) });

/** A 400 naming the field, when it has a problem. */
function refuse(field: string, problem: string | undefined): void {
  if (problem) throw new AppError('validation_failed', `${field} ${problem}`, { details: [{ path: field, message: `${field} ${problem}` }] });
}

/**
 * Webhook endpoint configuration (URL, events, secret); delivery is the billing role's.
 * The secret is answered once, on create and on rotate-secret, never by a read.
 * Family A has create and list (`/v1/webhooks`, limit/offset), Family B the whole
 * resource (`/api/v1/webhooks`, skip/limit).
 */
export function webhookEndpoints({ db, webhooks }: ApiDeps): Endpoint[] {
  const policy = targetPolicy(webhooks);
  /**
   * The body, its url checked against the target policy (names are checked again at every
   * delivery) and a given `whsec_` secret against Standard Webhooks.
   */
  const checked = <T extends { url?: string | undefined; secret?: string | undefined }>(b: T): T => {
    refuse('url', b.url === undefined ? undefined : targetProblem(b.url, policy));
    refuse('secret', b.secret === undefined ? undefined : standardSecretProblem(b.secret));
    return b;
  };
  const create = (path: string): Endpoint => ({
    method: 'POST',
    path,
    capability: 'write',
    summary: 'Create a webhook endpoint (url, events, description, secret); the secret is returned once',
    requestBody: WebhookCreate,
    status: 201,
    response: WebhookEndpointWithSecret,
    handle: async (req, p) => created(await createWebhookEndpoint(db, p.environmentId, checked(body(req, WebhookCreate)))),
  });
  return [
    create('/v1/webhooks'),
    {
      method: 'GET',
      path: '/v1/webhooks',
      capability: 'read',
      query: [PageQueryA],
      response: listOfA('webhooks', WebhookEndpoint),
      summary: 'List webhook endpoints (limit/offset); never their secrets',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listWebhookEndpoints(db, p.environmentId, page);
        return ok(listA('webhooks', rows, total, page));
      },
    },
    create('/api/v1/webhooks'),
    {
      method: 'GET',
      path: '/api/v1/webhooks',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('webhooks', WebhookEndpoint),
      summary: 'List webhook endpoints (skip/limit); never their secrets',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listWebhookEndpoints(db, p.environmentId, page);
        return ok(listB('webhooks', rows, total, page));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/:webhook_id',
      capability: 'read',
      response: WebhookEndpoint,
      summary: 'One webhook endpoint (without its secret)',
      handle: async (req, p) => ok(await getWebhookEndpoint(db, p.environmentId, req.params.webhook_id!)),
    },
    {
      method: 'PUT',
      path: '/api/v1/webhooks/:webhook_id',
      capability: 'write',
      response: WebhookEndpoint,
      summary: 'Update a webhook endpoint (url, events, description, is_active)',
      requestBody: WebhookUpdate,
      handle: async (req, p) => {
        const { secret: _never, ...b } = checked(body(req, WebhookUpdate));
        return ok(await updateWebhookEndpoint(db, p.environmentId, req.params.webhook_id!, b));
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/webhooks/:webhook_id',
      capability: 'write',
      response: Deleted,
      summary: 'Delete a webhook endpoint',
      handle: async (req, p) => {
        await deleteWebhookEndpoint(db, p.environmentId, req.params.webhook_id!);
        return deleted(req.params.webhook_id!);
      },
    },
    {
      method: 'POST',
      path: '/api/v1/webhooks/:webhook_id/rotate-secret',
      capability: 'write',
      response: WebhookEndpointWithSecret,
      summary: 'Replace the signing secret (optional secret, else generated); returned once, the old one stops signing at once',
      requestBody: WebhookRotate,
      handle: async (req, p) => {
        const b = checked(optionalBody(req, WebhookRotate));
        return ok(await rotateWebhookSecret(db, p.environmentId, req.params.webhook_id!, b.secret));
      },
    },
  ];
}
