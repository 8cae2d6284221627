import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import type { WebhookEvent } from './endpoints.ts';
import { webhookBodyProblems } from './payloads.ts';

type Tx = Transaction<Database> | Kysely<Database>;

/**
 * Writes a webhook event and one pending delivery per active endpoint of the
 * environment subscribed to it (or to `*`). Call it inside the transaction of the
 * change that causes the event: the event exists exactly when the change committed.
 * The body `{event, timestamp, data}` is fixed here, so every attempt sends (and signs)
 * the same bytes. Returns the event id.
 */
export async function emitWebhookEvent(
  tx: Tx,
  environmentId: string,
  event: WebhookEvent,
  data: object,
  now = new Date(),
): Promise<string> {
  const id = newId('whe');
  const payload = { event, timestamp: now.toISOString(), data };
  // One schema per event, for every delivery: a body that departs from it is a bug, never sent.
  const problems = webhookBodyProblems(event, payload);
  if (problems.length > 0) throw new Error(`webhook ${event} does not match its schema: ${problems.join('; ')}`);
  const body = JSON.stringify(payload);
  await tx.insertInto('webhook_events').values({ id, environment_id: environmentId, event, body, created_at: now }).execute();
  const endpoints = await tx
    .selectFrom('webhook_endpoints')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('is_active', '=', true)
    .where(sql<boolean>`(${event} = any(events) or '*' = any(events))`)
    .execute();
  if (endpoints.length > 0) {
    await tx
      .insertInto('webhook_deliveries')
      .values(endpoints.map((e) => ({ id: newId('whd'), environment_id: environmentId, event_id: id, endpoint_id: e.id, next_attempt_at: now })))
      .execute();
  }
  return id;
}
