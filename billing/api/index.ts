import type { Route } from '../../shared/http/types.ts';
import { accountEndpoints } from './accounts-routes.ts';
import { agentEndpoints } from './agents-routes.ts';
import { apiKeyEndpoints } from './api-keys-routes.ts';
import { invoiceEndpoints } from './invoices-routes.ts';
import { creditEndpoints } from './credits-routes.ts';
import { limitEndpoints } from './limits-routes.ts';
import { openApiRoutes } from './openapi.ts';
import { pricingEndpoints } from './pricing-routes.ts';
import { reportEndpoints } from './reports-routes.ts';
import { sqlEndpoints } from './sql-routes.ts';
import { toRoutes, type ApiDeps, type Endpoint } from './route.ts';
import { subscriptionEndpoints } from './subscriptions-routes.ts';
import { tagEndpoints } from './tags-routes.ts';
import { webhookEndpoints } from './webhooks-routes.ts';
import { webhookDeliveryEndpoints } from './webhook-deliveries-routes.ts';

export type { ApiDeps } from './route.ts';

/** Every control-plane endpoint, in registration order. */
export function apiEndpoints(deps: ApiDeps): Endpoint[] {
  return [
    ...accountEndpoints(deps),
    ...agentEndpoints(deps),
    ...apiKeyEndpoints(deps),
    ...pricingEndpoints(deps),
    ...subscriptionEndpoints(deps),
    ...tagEndpoints(deps),
    ...webhookEndpoints(deps),
    ...webhookDeliveryEndpoints(deps),
    ...reportEndpoints(deps),
    ...sqlEndpoints(deps),
    ...(deps.invoicing ? invoiceEndpoints({ ...deps, invoicing: deps.invoicing }) : []),
    ...(deps.invoicing ? creditEndpoints({ ...deps, invoicing: deps.invoicing }) : []),
    ...(deps.invoicing ? limitEndpoints({ ...deps, invoicing: deps.invoicing }) : []),
  ];
}

/**
 * Every control-plane route of both families (Family A `/v1`, Family B `/api/v1`):
 * the catalog, its customers, subscriptions, API keys, tags and webhook endpoints, plus
 * the OpenAPI document.
 * Each route authenticates and checks its capability (shared/auth/keys.ts) before
 * anything else; every query is scoped to the principal's environment.
 */
export function apiRoutes(deps: ApiDeps): Route[] {
  const endpoints = apiEndpoints(deps);
  return [...toRoutes(deps.auth, endpoints), ...openApiRoutes(endpoints)];
}
