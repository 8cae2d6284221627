/**
 * Bill runs: for a billing date, the invoice of the last period that ended on or
 * before it, for every subscription with billable time in that period. Running a bill
 * run twice (or two at once) makes each invoice once: the second finds them existing.
 * The run is recorded with its counts and totals per currency.
 */
import type { Selectable } from 'kysely';
import type { BillRunsTable } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { logger } from '../../shared/log.ts';
import { iso, notFound } from '../catalog/db-errors.ts';
import type { Page } from '../api/paging.ts';
import { Dec, formatDecimal } from '../rating/money.ts';
import type { Invoicing } from './context.ts';
import { billableSubscriptionIds, generateInvoice, lastEndedPeriod } from './generate.ts';
import { loadSubject } from './rate-subscription.ts';
import { BatchedUsage } from './batched-usage.ts';

const log = logger('bill-runs');

type BillRunRow = Selectable<BillRunsTable>;

/** Subscriptions generated at once in a bill run (each holds at most one Postgres connection at a time, plus short reads). */
export const BILL_RUN_CONCURRENCY = 4;

/** Runs `fn` over `items` with at most `limit` in flight. */
async function eachBounded<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

export function billRunView(r: BillRunRow, invoiceIds?: string[]) {
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
  failures: { subscription_id: string; message: string }[];
  totals: Map<string, Dec>;
  invoices: { id: string; created: boolean }[];
}

/**
 * Runs a bill run to completion and returns it. One failing subscription does not stop
 * the run: it is listed under `failures` (status stays completed; `failed` only when
 * the run itself could not proceed).
 */
export async function runBillRun(base: Invoicing, environmentId: string, billingDate: Date) {
  // One grouped usage query per period for the whole run, not one per subscription.
  const inv: Invoicing = { ...base, usage: new BatchedUsage(base.usage) };
  const { db } = inv;
  const run = await db.insertInto('bill_runs').values({ id: newId('br'), environment_id: environmentId, billing_date: billingDate, status: 'running' }).returningAll().executeTakeFirstOrThrow();
  const t: Tally = { considered: 0, created: 0, existing: 0, skipped: 0, failures: [], totals: new Map(), invoices: [] };
  let status: 'completed' | 'failed' = 'completed';
  try {
    await eachBounded(await billableSubscriptionIds(db, environmentId), BILL_RUN_CONCURRENCY, async (id) => {
      t.considered++;
      try {
        const subject = await loadSubject(db, environmentId, id);
        const r = await generateInvoice(inv, subject, lastEndedPeriod(subject, billingDate), { billRunId: run.id });
        if (!r.invoice) {
          t.skipped++;
          return;
        }
        if (r.outcome === 'created') t.created++;
        else t.existing++;
        t.invoices.push({ id: r.invoice.id, created: r.outcome === 'created' });
        t.totals.set(r.invoice.currency, (t.totals.get(r.invoice.currency) ?? new Dec(0)).plus(r.invoice.total));
      } catch (err) {
        log.warn('bill run: subscription failed', { bill_run_id: run.id, subscription_id: id, err });
        t.failures.push({ subscription_id: id, message: err instanceof Error && err.name === 'AppError' ? err.message : 'internal error' });
      }
    });
  } catch (err) {
    status = 'failed';
    log.error('bill run failed', { bill_run_id: run.id, err });
  }
  if (t.invoices.length) {
    await db.insertInto('bill_run_invoices').values(t.invoices.map((i) => ({ bill_run_id: run.id, invoice_id: i.id, created: i.created }))).onConflict((oc) => oc.doNothing()).execute();
  }
  const done = await db
    .updateTable('bill_runs')
    .set({
      status,
      subscriptions_considered: t.considered,
      invoices_created: t.created,
      invoices_existing: t.existing,
      subscriptions_skipped: t.skipped,
      failures: JSON.stringify(t.failures),
      totals: JSON.stringify(Object.fromEntries([...t.totals].map(([c, v]) => [c, formatDecimal(v)]))),
      completed_at: inv.now(),
    })
    .where('id', '=', run.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  return billRunView(done, t.invoices.map((i) => i.id));
}

export async function listBillRuns(inv: Invoicing, environmentId: string, page: Page) {
  const q = inv.db.selectFrom('bill_runs').where('environment_id', '=', environmentId);
  const [rows, count] = await Promise.all([
    q.selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset).execute(),
    q.select((e) => e.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map((r) => billRunView(r)), total: Number(count.n) };
}

export async function getBillRun(inv: Invoicing, environmentId: string, id: string) {
  const row = await inv.db.selectFrom('bill_runs').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('bill run', id);
  const invoices = await inv.db.selectFrom('bill_run_invoices').select('invoice_id').where('bill_run_id', '=', id).orderBy('invoice_id').execute();
  return billRunView(row, invoices.map((i) => i.invoice_id));
}
