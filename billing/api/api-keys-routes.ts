import { Type } from '@sinclair/typebox';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey, updateApiKey } from '../catalog/api-keys.ts';
import { listB, pageB, PageQueryB } from './paging.ts';
import { created, ok, type ApiDeps, type Endpoint } from './route.ts';
import { Name } from './schemas.ts';
import { body } from './validate.ts';
import { ApiKey, ApiKeyCreated, ApiKeyRotated, listOfB } from './response-schemas.ts';

const RateLimit = Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000_000 }), Type.Null()], {
  errorMessage: 'must be a whole number of requests per minute from 1 to 1000000000, or null for the default',
});
const KeyCreate = Type.Object({
  name: Name,
  permission: Type.Union([Type.Literal('read-only'), Type.Literal('read-write'), Type.Literal('admin'), Type.Literal('sdk')], {
    errorMessage: 'must be read-only, read-write, admin (API keys) or sdk (an SDK key)',
  }),
  rate_limit_per_minute: Type.Optional(RateLimit),
});
const KeyUpdate = Type.Object({ name: Type.Optional(Name), rate_limit_per_minute: Type.Optional(RateLimit) }, { additionalProperties: false });

/** API key management (admin keys only): create, list, revoke, rotate. */
export function apiKeyEndpoints({ db, bus }: ApiDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/api_keys',
      capability: 'admin',
      query: [PageQueryB],
      response: listOfB('api_keys', ApiKey),
      summary: "List this environment's keys (skip/limit); never the keys themselves",
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listApiKeys(db, p.environmentId, page);
        return ok(listB('api_keys', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/api_keys',
      capability: 'admin',
      status: 201,
      response: ApiKeyCreated,
      summary: 'Create a key (name, permission); the key is returned once',
      requestBody: KeyCreate,
      handle: async (req, p) => created(await createApiKey(db, p, body(req, KeyCreate))),
    },
    {
      method: 'PUT',
      path: '/api/v1/api_keys/:key_id',
      capability: 'admin',
      response: ApiKey,
      summary: "Rename a key or set its rate limit (requests per minute; null: the default)",
      requestBody: KeyUpdate,
      handle: async (req, p) => ok(await updateApiKey(db, bus, p.environmentId, req.params.key_id!, body(req, KeyUpdate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/api_keys/:key_id',
      capability: 'admin',
      response: ApiKey,
      summary: 'Revoke a key at once',
      handle: async (req, p) => ok(await revokeApiKey(db, bus, p.environmentId, req.params.key_id!)),
    },
    {
      method: 'POST',
      path: '/api/v1/api_keys/:key_id/rotate',
      capability: 'admin',
      status: 201,
      response: ApiKeyRotated,
      errors: [409],
      summary: 'Rotate a key: a new key now, the old one works 24 more hours',
      handle: async (req, p) => created(await rotateApiKey(db, bus, p, req.params.key_id!)),
    },
  ];
}
