import type { Selectable } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { WebhookEndpointsTable } from '../../shared/db/schema.ts';
import { AppError } from '../../shared/errors.ts';
import { newId, randomToken } from '../../shared/ids.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';

/** The spec's webhook event names (Events). `*` subscribes an endpoint to all of them. */
export const WEBHOOK_EVENTS = [
  'invoice.created',
  'invoice.paid',
  'outcome.completed',
  'payment.successful',
  'subscription.created',
  'subscription.updated',
  'subscription.cancelled',
  'credits.granted',
  'credits.expired',
  'credits.balance_low',
  'credits.depleted',
  'limit.threshold_reached',
  'limit.exceeded',
  'limit.reset',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Fields of an endpoint accepted on create and update (the secret only on create and rotate). */
interface WebhookEndpointInput {
  url?: string;
  events?: string[];
  description?: string | null;
  is_active?: boolean;
}

/** A new signing secret: `whsec_` then 40 random characters (~230 bits). */
function generateWebhookSecret(): string {
  return 'whsec_' + randomToken(40);
}

/** What may be shown of a secret after create: its prefix and last four characters. */
function secretHint(secret: string): string {
  const prefix = secret.startsWith('whsec_') ? 'whsec_' : '';
  return `${prefix}…${secret.slice(-4)}`;
}

/** An endpoint as the API returns it: never the secret, only a hint to tell secrets apart. */
function webhookEndpointView(r: Selectable<WebhookEndpointsTable>) {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    is_active: r.is_active,
    secret_hint: secretHint(r.secret),
    secret_rotated_at: iso(r.secret_rotated_at),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

/**
 * Checks what the schema cannot: the URL parses as http(s) with a host, and `*` stands
 * alone in `events`. A 400 naming the field otherwise.
 */
function checkWebhookInput(input: WebhookEndpointInput): void {
  if (input.url !== undefined) {
    let u: URL | undefined;
    try {
      u = new URL(input.url);
    } catch {
      u = undefined;
    }
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname) {
      throw new AppError('validation_failed', 'url must be an absolute http or https URL', { details: [{ path: 'url', message: 'url must be an absolute http or https URL' }] });
    }
  }
  if (input.events && input.events.length > 1 && input.events.includes('*')) {
    const message = 'events must be ["*"] alone or a list of event names';
    throw new AppError('validation_failed', message, { details: [{ path: 'events', message }] });
  }
}

async function findEndpoint(db: Db, environmentId: string, id: string) {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('webhook endpoint', id);
  return row;
}

/** Creates an endpoint; the secret (given or generated) is returned this once. */
export async function createWebhookEndpoint(db: Db, environmentId: string, input: WebhookEndpointInput & { url: string; events: string[]; secret?: string | undefined }) {
  checkWebhookInput(input);
  const secret = input.secret ?? generateWebhookSecret();
  const row = await db
    .insertInto('webhook_endpoints')
    .values({
      id: newId('wh'),
      environment_id: environmentId,
      url: input.url,
      events: input.events,
      description: input.description ?? null,
      secret,
      is_active: input.is_active ?? true,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { ...webhookEndpointView(row), secret };
}

/** One page of the environment's endpoints, oldest first, and the total count. */
export async function listWebhookEndpoints(db: Db, environmentId: string, page: Page) {
  const q = db.selectFrom('webhook_endpoints').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map(webhookEndpointView), total };
}

/** One endpoint of this environment, or 404. */
export async function getWebhookEndpoint(db: Db, environmentId: string, id: string) {
  return webhookEndpointView(await findEndpoint(db, environmentId, id));
}

/** Updates the given fields (url, events, description, is_active), or 404. */
export async function updateWebhookEndpoint(db: Db, environmentId: string, id: string, input: WebhookEndpointInput) {
  checkWebhookInput(input);
  const set: Record<string, unknown> = { updated_at: new Date() };
  for (const k of ['url', 'events', 'description', 'is_active'] as const) if (input[k] !== undefined) set[k] = input[k];
  const row = await db.updateTable('webhook_endpoints').set(set).where('environment_id', '=', environmentId).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('webhook endpoint', id);
  return webhookEndpointView(row);
}

/** Deletes an endpoint, or 404. */
export async function deleteWebhookEndpoint(db: Db, environmentId: string, id: string): Promise<void> {
  const res = await db.deleteFrom('webhook_endpoints').where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (res.numDeletedRows === 0n) throw notFound('webhook endpoint', id);
}

/**
 * Replaces the signing secret (given, or generated) and returns it this once. The old
 * secret stops signing at once: the next delivery is signed with the new one.
 */
export async function rotateWebhookSecret(db: Db, environmentId: string, id: string, secret?: string) {
  const fresh = secret ?? generateWebhookSecret();
  const now = new Date();
  const row = await db
    .updateTable('webhook_endpoints')
    .set({ secret: fresh, secret_rotated_at: now, updated_at: now })
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw notFound('webhook endpoint', id);
  return { ...webhookEndpointView(row), secret: fresh };
}
