import { Type } from '@sinclair/typebox';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '../catalog/api-keys.ts';
import { listB, pageB } from './paging.ts';
import { created, ok, type ApiDeps, type Endpoint } from './route.ts';
import { Name } from './schemas.ts';
import { body } from './validate.ts';

const KeyCreate = Type.Object({
  name: Name,
  permission: Type.Union([Type.Literal('read-only'), Type.Literal('read-write'), Type.Literal('admin'), Type.Literal('sdk')], {
    errorMessage: 'must be read-only, read-write, admin (API keys) or sdk (an SDK key)',
  }),
});

/** API key management (admin keys only): create, list, revoke, rotate. */
export function apiKeyEndpoints({ db, bus }: ApiDeps): Endpoint[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/api_keys',
      capability: 'admin',
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
      summary: 'Create a key (name, permission); the key is returned once',
      requestBody: KeyCreate,
      handle: async (req, p) => created(await createApiKey(db, p, body(req, KeyCreate))),
    },
    {
      method: 'DELETE',
      path: '/api/v1/api_keys/:key_id',
      capability: 'admin',
      summary: 'Revoke a key at once',
      handle: async (req, p) => ok(await revokeApiKey(db, bus, p.environmentId, req.params.key_id!)),
    },
    {
      method: 'POST',
      path: '/api/v1/api_keys/:key_id/rotate',
      capability: 'admin',
      summary: 'Rotate a key: a new key now, the old one works 24 more hours',
      handle: async (req, p) => created(await rotateApiKey(db, bus, p, req.params.key_id!)),
    },
  ];
}
