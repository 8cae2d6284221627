
import { performance } from 'node:perf_hooks';
import type { Db } from '../../shared/db/postgres.ts';
import { newId, randomToken } from '../../shared/ids.ts';
import { logger } from '../../shared/log.ts';
import { startLoop, type Loop } from '../../shared/loop.ts';
import { countWebhookAttempt } from '../metrics.ts';
import { signBody, standardSignature } from './signature.ts';
import { targetPolicy } from './config.ts';
import { postWebhook, type DeliveryFailure } from './targets.ts';

const log = logger('webhooks');

/** Waits before each retry after a failed attempt: 6 retries, then the delivery fails (at once for `blocked_address`). */
export const RETRY_SCHEDULE_MS = [60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000, 6 * 60 * 60_000, 24 * 60 * 60_000] as const;
const ATTEMPT_TIMEOUT_MS = 30_000;

interface DispatcherOptions {
  /** The clock (tests move it instead of waiting 31 hours). */
  now?: () => Date;
  pollIntervalMs?: number;
  batchSize?: number;
  timeoutMs?: number;
  /** Allow loopback and private receivers (`TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS=on`); refused by default. */
  allowPrivateTargets?: boolean;
  /** Allow cloud metadata addresses too (`TALLY_WEBHOOK_ALLOW_METADATA_TARGETS=on`); refused by default. */
  allowMetadataTargets?: boolean;
}

interface AttemptResult {
  delivery_id: string;
  status: 'delivered' | 'pending' | 'failed';
  attempt: number;
  status_code: number | null;
  /** Why the attempt failed: refused, timeout, tls, dns, blocked_address, connection_failed or status (see status_code). */
  error: DeliveryFailure | null;
  next_attempt_at: string | null;
}

/**
 * Sends due webhook deliveries from the Postgres outbox. A dispatcher claims due
 * deliveries with `FOR UPDATE SKIP LOCKED` and a lease (its claim token, and the next
 * attempt pushed past the attempt timeout), so several dispatchers never send the same
 * attempt twice; if one dies mid-attempt, the lease runs out and another retries.
 * Receivers deduplicate with `X-Tally-Event-Id`, stable across retries.
 */
export class WebhookDispatcher {
  readonly #now: () => Date;
  readonly #timeoutMs: number;
  #loop: Loop | undefined;

  constructor(
    private readonly db: Db,
    private readonly opts: DispatcherOptions = {},
  ) {
    this.#now = opts.now ?? (() => new Date());
    this.#timeoutMs = opts.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  }

  /** Sends due deliveries now, then every `pollIntervalMs` (1 s) after each pass, until {@link stop}. */
  start(): void {
    this.#loop ??= startLoop({ name: 'webhook-dispatcher', intervalMs: this.opts.pollIntervalMs ?? 1000, run: () => this.runOnce() });
  }

  async stop(): Promise<void> {
    await this.#loop?.stop();
    this.#loop = undefined;
  }

  /** Claims and sends every delivery due now (in batches); returns how many were attempted. */
  async runOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const claimed = await this.#claim();
      if (claimed.length === 0) return total;
      await Promise.all(claimed.map((d) => this.#attempt(d.id, d.claim_token!)));
      total += claimed.length;
    }
  }

  /** Sends one delivery now, whatever its schedule (test deliveries, resends). */
  async sendNow(deliveryId: string): Promise<AttemptResult> {
    const token = randomToken(16);
    const now = this.#now();
    const row = await this.db
      .updateTable('webhook_deliveries')
      .set({ claim_token: token, next_attempt_at: new Date(now.getTime() + this.#timeoutMs * 2), updated_at: now })
      .where('id', '=', deliveryId)
      .where('status', '=', 'pending')
      .returning('id')
      .executeTakeFirst();
    if (!row) throw new Error(`delivery ${deliveryId} is not pending`);
    return this.#attempt(deliveryId, token);
  }

  async #claim() {
    const now = this.#now();
    const lease = new Date(now.getTime() + this.#timeoutMs * 2);
    const token = randomToken(16);
    return this.db
      .updateTable('webhook_deliveries')
      .set({ claim_token: token, next_attempt_at: lease, updated_at: now })
      .where('id', 'in', (q) =>
        q
          .selectFrom('webhook_deliveries')
          .select('id')
          .where('status', '=', 'pending')
          .where('next_attempt_at', '<=', now)
          // A disabled endpoint gets no attempts; re-enabled, its due deliveries go out.
          .where('endpoint_id', 'in', (e) => e.selectFrom('webhook_endpoints').select('id').where('is_active', '=', true))
          .orderBy('next_attempt_at')
          .limit(this.opts.batchSize ?? 20)
          .forUpdate()
          .skipLocked(),
      )
      .returning(['id', 'claim_token'])
      .execute();
  }

  async #attempt(deliveryId: string, token: string): Promise<AttemptResult> {
    const d = await this.db
      .selectFrom('webhook_deliveries as d')
      .innerJoin('webhook_events as e', 'e.id', 'd.event_id')
      .innerJoin('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .select(['d.id', 'd.attempts', 'd.event_id', 'e.body', 'e.event', 'w.url', 'w.secret'])
      .where('d.id', '=', deliveryId)
      .executeTakeFirstOrThrow();
    const attempt = d.attempts + 1;
    const startedAt = this.#now();
    const t0 = performance.now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    const { statusCode, error } = await postWebhook(
      d.url,
      d.body,
      {
        'content-type': 'application/json',
        'user-agent': 'Tally-Webhooks/1',
        'x-tally-signature': signBody(d.body, d.secret),
        'x-tally-event-id': d.event_id,
        'x-tally-event': d.event,
        'x-tally-timestamp': String(timestamp),
        'x-tally-delivery-id': d.id,
        'x-tally-attempt': String(attempt),
        // Standard Webhooks: the id is the event's (the same on every retry), the timestamp signed.
        'webhook-id': d.event_id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': standardSignature(d.event_id, timestamp, d.body, d.secret),
      },
      { timeoutMs: this.#timeoutMs, ...targetPolicy(this.opts) },
    );
    const durationMs = Math.round(performance.now() - t0);
    countWebhookAttempt(error);
    const delivered = error === null;
    // A blocked address will not change by waiting: the delivery fails at once, with that reason.
    const failed = !delivered && (error === 'blocked_address' || attempt > RETRY_SCHEDULE_MS.length);
    const now = this.#now();
    const next = delivered || failed ? now : new Date(now.getTime() + RETRY_SCHEDULE_MS[attempt - 1]!);
    const status = delivered ? 'delivered' : failed ? 'failed' : 'pending';
    await this.db.transaction().execute(async (tx) => {
      const updated = await tx
        .updateTable('webhook_deliveries')
        .set({
          status,
          attempts: attempt,
          next_attempt_at: next,
          claim_token: null,
          last_status_code: statusCode,
          last_error: error,
          delivered_at: delivered ? now : null,
          updated_at: now,
        })
        .where('id', '=', deliveryId)
        .where('claim_token', '=', token)
        .returning('id')
        .executeTakeFirst();
      // Lost the lease to another dispatcher meanwhile: its result counts, not ours.
      if (!updated) return;
      await tx
        .insertInto('webhook_attempts')
        .values({ id: newId('wha'), delivery_id: deliveryId, attempt, started_at: startedAt, duration_ms: durationMs, status_code: statusCode, error })
        .execute();
    });
    if (!delivered) log.info('webhook attempt failed', { deliveryId, attempt, statusCode, error, status });
    return { delivery_id: deliveryId, status, attempt, status_code: statusCode, error, next_attempt_at: status === 'pending' ? next.toISOString() : null };
  }
}

/** Makes a failed or delivered delivery pending again, due now (a resend by hand). */
export async function resendDelivery(db: Db, environmentId: string, deliveryId: string, now = new Date()) {
  return db
    .updateTable('webhook_deliveries')
    .set({ status: 'pending', attempts: 0, next_attempt_at: now, claim_token: null, delivered_at: null, updated_at: now })
    .where('environment_id', '=', environmentId)
    .where('id', '=', deliveryId)
    .returningAll()
    .executeTakeFirst();
}

