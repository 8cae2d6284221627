import type { Db } from '../../shared/db/postgres.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import type { WebhookEvent } from './endpoints.ts';
import { sampleEventData, webhookBodyProblems } from './payloads.ts';

/** Queues a signed test delivery of `event` to one endpoint, whatever it subscribes to. */
export async function queueTestDelivery(db: Db, environmentId: string, endpointId: string, event: WebhookEvent, now = new Date()) {
  return db.transaction().execute(async (tx) => {
    const endpoint = await tx.selectFrom('webhook_endpoints').select('id').where('environment_id', '=', environmentId).where('id', '=', endpointId).executeTakeFirst();
    if (!endpoint) throw notFound('webhook', endpointId);
    const eventId = newId('whe');
    const payload = { event, timestamp: now.toISOString(), data: sampleEventData(event) };
    const problems = webhookBodyProblems(event, payload);
    if (problems.length > 0) throw new Error(`test webhook ${event} does not match its schema: ${problems.join('; ')}`);
    const body = JSON.stringify(payload);
    await tx.insertInto('webhook_events').values({ id: eventId, environment_id: environmentId, event, body, created_at: now }).execute();
    const deliveryId = newId('whd');
    await tx.insertInto('webhook_deliveries').values({ id: deliveryId, environment_id: environmentId, event_id: eventId, endpoint_id: endpointId, next_attempt_at: now }).execute();
    return { eventId, deliveryId };
  });
}

/** One delivery with its event and every attempt. */
export async function getDelivery(db: Db, environmentId: string, id: string) {
  const d = await db
    .selectFrom('webhook_deliveries as d')
    .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select(['e.event', 'e.body'])
    .where('d.environment_id', '=', environmentId)
    .where('d.id', '=', id)
    .executeTakeFirst();
  if (!d) throw notFound('webhook delivery', id);
  const attempts = await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', '=', id).orderBy('attempt').execute();
  return { ...deliveryView(d), payload: JSON.parse(d.body) as unknown, attempts: attempts.map(attemptView) };
}

/** One page of an endpoint's deliveries, newest first, with their attempts. */
export async function listDeliveries(db: Db, environmentId: string, endpointId: string, page: Page) {
  const endpoint = await db.selectFrom('webhook_endpoints').select('id').where('environment_id', '=', environmentId).where('id', '=', endpointId).executeTakeFirst();
  if (!endpoint) throw notFound('webhook', endpointId);
  const q = db.selectFrom('webhook_deliveries as d').where('d.endpoint_id', '=', endpointId);
  const { rows, total } = await pageAndCount(q, page, (q) =>
    q.innerJoin('webhook_events as e', 'e.id', 'd.event_id').selectAll('d').select(['e.event', 'e.body']).orderBy('d.created_at', 'desc').orderBy('d.id', 'desc'),
  );
  const attempts = rows.length
    ? await db.selectFrom('webhook_attempts').selectAll().where('delivery_id', 'in', rows.map((r) => r.id)).orderBy('attempt').execute()
    : [];
  return {
    rows: rows.map((r) => ({ ...deliveryView(r), attempts: attempts.filter((a) => a.delivery_id === r.id).map(attemptView) })),
    total,
  };
}

function deliveryView(d: {
  id: string;
  event_id: string;
  endpoint_id: string;
  event: string;
  status: string;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  created_at: Date;
}) {
  return {
    id: d.id,
    event_id: d.event_id,
    webhook_id: d.endpoint_id,
    event: d.event,
    status: d.status,
    attempt_count: d.attempts,
    next_attempt_at: d.status === 'pending' ? iso(d.next_attempt_at) : null,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    delivered_at: iso(d.delivered_at),
    created_at: iso(d.created_at),
  };
}

function attemptView(a: { attempt: number; started_at: Date; duration_ms: number; status_code: number | null; error: string | null }) {
  return { attempt: a.attempt, started_at: iso(a.started_at), duration_ms: a.duration_ms, status_code: a.status_code, error: a.error };
}
