/**
 * Bill runs: for a billing date, the invoice of the last period that ended on or
 * before it, for every subscription with billable time in that period. Running a bill
 * run twice (or two at once) makes each invoice once: the second finds them existing.
 * The run is recorded with its counts and totals per currency.
 */
import { sql, type Selectable } from 'kysely';
import type { BillRunsTable } from '../../shared/db/schema.ts';
import { insertSlices, type Db } from '../../shared/db/postgres.ts';
import { AppError, isUnavailableError } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/log.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import { pageAndCount, type Page } from '../../shared/db/paging.ts';
import { Dec, formatMoney } from '../rating/money.ts';
import type { Invoicing } from './context.ts';
import { billableSubscriptionIds, generateInvoice, generationFailure, lastEndedPeriod, type GenerationFailure } from './generate.ts';
import { loadSubject } from './rate-subscription.ts';
import { BatchedUsage } from './batched-usage.ts';

const log = logger('bill-runs');

type BillRunRow = Selectable<BillRunsTable>;

/** Subscriptions generated at once in a bill run (each holds at most one Postgres connection at a time, plus short reads). */
const BILL_RUN_CONCURRENCY = 4;

/**
 * First key of the session advisory lock a running bill run holds (the second is
 * `hashtext(id)`): a 'running' row whose lock is free has no live run behind it (its
 * process died, or Postgres restarted under it) and is marked failed by the next run.
 */
const BILL_RUN_LOCK_CLASS = 734_190;

/** How long a run retries recording its result while Postgres is unreachable. */
const RECORD_RETRY_MS = 20_000;

/** Runs `fn` over `items` with at most `limit` in flight; `stop()` true ends it early. */
async function eachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>, stop: () => boolean = () => false): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stop()) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function billRunView(r: BillRunRow, invoiceIds?: string[]) {
  return {
    id: r.id,
    bill_run_id: r.id,
    billing_date: iso(r.billing_date),
    status: r.status,
    subscriptions_considered: r.subscriptions_considered,
    invoices_created: r.invoices_created,
    invoices_existing: r.invoices_existing,
    invoice_count: r.invoices_created + r.invoices_existing,
    subscriptions_skipped: r.subscriptions_skipped,
    failures: r.failures,
    totals: r.totals,
    created_at: iso(r.created_at),
    completed_at: iso(r.completed_at),
    ...(invoiceIds ? { invoice_ids: invoiceIds } : {}),
  };
}

/** Tally of one run, kept while it runs. */
interface Tally {
  considered: number;
  created: number;
  existing: number;
  skipped: number;
  failures: GenerationFailure[];
  totals: Map<string, Dec>;
  invoices: { id: string; created: boolean }[];
}

/**
 * Runs a bill run to completion and returns it. One failing subscription does not stop
 * the run: it is listed under `failures` (status stays completed; `failed` only when
 * the run itself could not proceed).
 *
 * When Postgres (or ClickHouse) becomes unreachable mid-run, the run stops, is recorded
 * as `failed` once Postgres answers again (retried for a while), and a retryable 503 is
 * thrown: running it again makes the missing invoices and none twice (invoices are
 * unique per subscription and period). If it cannot be recorded at all, the row stays
 * 'running' only until the next bill run of the environment marks it failed (see
 * {@link BILL_RUN_LOCK_CLASS}).
 */
export async function runBillRun(base: Invoicing, environmentId: string, billingDate: Date) {
  if (billingDate > base.now()) {
    // Periods ending after today have not been used yet: billing them would invoice full fees for time to come.
    throw new AppError('validation_failed', 'billing_date is in the future', { details: [{ path: 'billing_date', message: 'billing_date must not be in the future' }] });
  }
  // One grouped usage query per period for the whole run, not one per subscription.
  const inv: Invoicing = { ...base, usage: new BatchedUsage(base.usage) };
  const { db } = inv;
  const runId = newId('br');
  // The run's liveness lock lives on one connection held for the whole run.
  return db.connection().execute(async (conn) => {
    await failAbandonedRuns(db, conn, environmentId, inv.now());
    await sql`SELECT pg_advisory_lock(${BILL_RUN_LOCK_CLASS}, hashtext(${runId}))`.execute(conn);
    try {
      return await execute(inv, runId, environmentId, billingDate);
    } finally {
      // On a connection lost with Postgres the lock is already gone.
      await sql`SELECT pg_advisory_unlock(${BILL_RUN_LOCK_CLASS}, hashtext(${runId}))`.execute(conn).catch(() => {});
    }
  });
}

async function execute(inv: Invoicing, runId: string, environmentId: string, billingDate: Date) {
  const { db } = inv;
  const run = await db.insertInto('bill_runs').values({ id: runId, environment_id: environmentId, billing_date: billingDate, status: 'running' }).returningAll().executeTakeFirstOrThrow();
  const t: Tally = { considered: 0, created: 0, existing: 0, skipped: 0, failures: [], totals: new Map(), invoices: [] };
  let status: 'completed' | 'failed' = 'completed';
  let unavailable: unknown;
  try {
    const ids = await billableSubscriptionIds(db, environmentId);
    await eachBounded(
      ids,
      BILL_RUN_CONCURRENCY,
      async (id) => {
        t.considered++;
        try {
          const subject = await loadSubject(db, environmentId, id);
          const r = await generateInvoice(inv, subject, lastEndedPeriod(subject, billingDate), { billRunId: run.id, source: 'bill_run' });
          if (!r.invoice) {
            t.skipped++;
            return;
          }
          if (r.outcome === 'created') t.created++;
          else t.existing++;
          t.invoices.push({ id: r.invoice.id, created: r.outcome === 'created' });
          t.totals.set(r.invoice.currency, (t.totals.get(r.invoice.currency) ?? new Dec(0)).plus(r.invoice.total));
        } catch (err) {
          if (isUnavailableError(err)) {
            // Not this subscription's fault: the run cannot proceed. Its invoice may or may not have been committed.
            unavailable ??= err;
            t.failures.push({ subscription_id: id, code: 'service_unavailable', message: 'a backing service became unavailable; run the bill run again' });
            return;
          }
          t.failures.push(generationFailure(id, err));
        }
      },
      () => unavailable !== undefined,
    );
  } catch (err) {
    if (isUnavailableError(err)) unavailable ??= err;
    else log.error('bill run failed', { bill_run_id: run.id, err });
    status = 'failed';
  }
  if (unavailable !== undefined) {
    status = 'failed';
    log.warn('bill run stopped: a backing service is unavailable', { bill_run_id: run.id, err: unavailable });
  }
  const done = await untilAvailable(async () => {
    // Three values a row: a run of more than 21,845 invoices takes several statements.
    for (const slice of insertSlices(t.invoices, 3)) {
      await db.insertInto('bill_run_invoices').values(slice.map((i) => ({ bill_run_id: run.id, invoice_id: i.id, created: i.created }))).onConflict((oc) => oc.doNothing()).execute();
    }
    return db
      .updateTable('bill_runs')
      .set({
        status,
        subscriptions_considered: t.considered,
        invoices_created: t.created,
        invoices_existing: t.existing,
        subscriptions_skipped: t.skipped,
        failures: JSON.stringify(t.failures),
        totals: JSON.stringify(Object.fromEntries([...t.totals].map(([c, v]) => [c, formatMoney(v, c)]))),
        completed_at: inv.now(),
      })
      .where('id', '=', run.id)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  if (unavailable !== undefined) {
    throw new AppError('service_unavailable', `a backing service became unavailable during bill run ${run.id}, recorded as failed; run it again (invoices already made are kept, none is made twice)`, {
      retryAfterSeconds: 2,
      cause: unavailable,
    });
  }
  return billRunView(done, t.invoices.map((i) => i.id));
}

/** Retries `fn` while it fails because Postgres is unreachable, for up to {@link RECORD_RETRY_MS}. */
async function untilAvailable<T>(fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + RECORD_RETRY_MS;
  for (let delay = 100; ; delay = Math.min(delay * 2, 2_000)) {
    try {
      return await fn();
    } catch (err) {
      if (!isUnavailableError(err) || Date.now() + delay > deadline) throw err;
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

/**
 * Marks failed the environment's 'running' bill runs that no live run holds (their
 * advisory lock is free): left behind by a process that died or a Postgres restart that
 * outlasted the run's retries. Uses `conn` for the session locks.
 */
async function failAbandonedRuns(db: Db, conn: Db, environmentId: string, now: Date): Promise<void> {
  const running = await db.selectFrom('bill_runs').select('id').where('environment_id', '=', environmentId).where('status', '=', 'running').execute();
  for (const { id } of running) {
    const got = await sql<{ ok: boolean }>`SELECT pg_try_advisory_lock(${BILL_RUN_LOCK_CLASS}, hashtext(${id})) AS ok`.execute(conn);
    if (!got.rows[0]?.ok) continue; // its run is alive
    try {
      const n = await conn.updateTable('bill_runs').set({ status: 'failed', completed_at: now }).where('id', '=', id).where('status', '=', 'running').executeTakeFirst();
      if (Number(n.numUpdatedRows)) log.warn('bill run abandoned (its process or Postgres stopped mid-run): marked failed', { bill_run_id: id });
    } finally {
      await sql`SELECT pg_advisory_unlock(${BILL_RUN_LOCK_CLASS}, hashtext(${id}))`.execute(conn);
    }
  }
}

export async function listBillRuns(inv: Invoicing, environmentId: string, page: Page) {
  const q = inv.db.selectFrom('bill_runs').where('environment_id', '=', environmentId);
  const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
  return { rows: rows.map((r) => billRunView(r)), total };
}

export async function getBillRun(inv: Invoicing, environmentId: string, id: string) {
  const row = await inv.db.selectFrom('bill_runs').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('bill run', id);
  const invoices = await inv.db.selectFrom('bill_run_invoices').select('invoice_id').where('bill_run_id', '=', id).orderBy('invoice_id').execute();
  return billRunView(row, invoices.map((i) => i.invoice_id));
}
