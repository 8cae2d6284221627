import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENTS, type WebhookEvent } from '../webhooks/endpoints.ts';
import { getDelivery, listDeliveries, queueTestDelivery } from '../webhooks/deliveries.ts';
import { resendDelivery, WebhookDispatcher } from '../webhooks/dispatcher.ts';
import { notFound } from '../../shared/db/db-errors.ts';
import { listB, pageB, PageQueryB } from './paging.ts';
import { ok, type ApiDeps, type Endpoint } from './route.ts';
import { body } from './validate.ts';
import { AttemptResult, Delivery, DeliveryDetail, listOfB, WebhookTestResult } from './response-schemas.ts';

const TestBody = Type.Object(
  {
    webhook_id: Type.String({ minLength: 1, maxLength: 128, errorMessage: 'must be a webhook id' }),
    event: Type.Union(WEBHOOK_EVENTS.map((e) => Type.Literal(e)), { errorMessage: `must be one of ${WEBHOOK_EVENTS.join(', ')}` }),
  },
  { additionalProperties: false },
);

/**
 * Webhook deliveries: each delivery's attempts (status code or error, duration), a
 * resend by hand, and POST /v1/webhooks/test (a signed test delivery sent at once).
 */
export function webhookDeliveryEndpoints({ db, webhooks }: ApiDeps): Endpoint[] {
  const dispatcher = new WebhookDispatcher(db, { ...webhooks });
  return [
    {
      method: 'POST',
      path: '/v1/webhooks/test',
      capability: 'write',
      response: WebhookTestResult,
      errors: [404],
      summary: 'Send a signed test delivery of the named event to a webhook now; answers with the attempt',
      requestBody: TestBody,
      handle: async (req, p) => {
        const input = body(req, TestBody);
        const { eventId, deliveryId } = await queueTestDelivery(db, p.environmentId, input.webhook_id, input.event as WebhookEvent);
        return ok({ event_id: eventId, ...(await dispatcher.sendNow(deliveryId)) });
      },
    },
    {
      method: 'GET',
      path: '/api/v1/webhooks/:webhook_id/deliveries',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('deliveries', Delivery),
      summary: "A webhook's deliveries, newest first (skip/limit), each with its attempts",
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listDeliveries(db, p.environmentId, req.params.webhook_id!, page);
        return ok(listB('deliveries', rows, total, page));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/webhook_deliveries/:delivery_id',
      capability: 'read',
      response: DeliveryDetail,
      summary: 'One delivery: its event body, status and every attempt',
      handle: async (req, p) => ok(await getDelivery(db, p.environmentId, req.params.delivery_id!)),
    },
    {
      method: 'POST',
      path: '/api/v1/webhook_deliveries/:delivery_id/resend',
      capability: 'write',
      response: AttemptResult,
      summary: 'Send a delivery again now (same event id and body); the schedule restarts',
      handle: async (req, p) => {
        const row = await resendDelivery(db, p.environmentId, req.params.delivery_id!);
        if (!row) throw notFound('webhook delivery', req.params.delivery_id!);
        return ok(await dispatcher.sendNow(row.id));
      },
    },
  ];
}
