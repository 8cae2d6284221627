import openapiTS, { astToString } from 'openapi-typescript';
import { apiEndpoints, type ApiDeps } from '../billing/api/index.ts';
import { openApiRoutes } from '../billing/api/openapi.ts';

/** Where the console's API types are written (generated; never edited by hand). */
export const TYPES_FILE = new URL('./src/api-types.d.ts', import.meta.url);

/**
 * The API's OpenAPI document, built in-process exactly as the api role serves it
 * (GET /v1/openapi.json): the endpoints are listed, not run, so no dependency is needed.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const route = openApiRoutes(apiEndpoints({ invoicing: {} } as unknown as ApiDeps)).find((r) => r.path === '/v1/openapi.json');
  if (!route) throw new Error('the OpenAPI route is missing');
  const res = await route.handler({} as never);
  return JSON.parse(String(res.raw ?? JSON.stringify(res.body))) as Record<string, unknown>;
}

/** The console's API types: openapi-typescript's rendering of the OpenAPI document. */
export async function consoleApiTypes(): Promise<string> {
  const ast = await openapiTS(await openApiDocument() as never, { alphabetize: true });
  return `// Generated from Tally's OpenAPI document by \`npm run console:types\` (console/openapi-types.ts). Do not edit.\n${astToString(ast)}`;
}
