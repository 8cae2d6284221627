import { Type } from '@sinclair/typebox';
import { AppError } from '../../shared/errors.ts';
import { parseTimestamp } from '../../shared/time.ts';
import { requireRef } from '../catalog/refs.ts';
import type { Invoicing } from '../invoicing/context.ts';
import { getBillRun, listBillRuns, runBillRun } from '../invoicing/bill-runs.ts';
import { finalizeIfDraft, finalizeInvoice, generateForPeriod, previewInvoice } from '../invoicing/generate.ts';
import { simulateCharges } from '../invoicing/simulate.ts';
import { correctInvoice } from '../invoicing/corrections.ts';
import { checkPaymentDate, getInvoice, listInvoices, payInvoice, voidInvoice, type InvoiceFilter } from '../invoicing/store.ts';
import { activeTemplate, createTemplate, renderInvoiceHtml, requireActiveTemplate, updateTemplate } from '../invoicing/templates.ts';
import type { Usage } from '../rating/index.ts';
import { listA, listB, pageA, pageB, PageQueryA, PageQueryB } from './paging.ts';
import { created, ok, type ApiDeps, type Endpoint } from './route.ts';
import { DateLike, Id, Name } from './schemas.ts';
import { body, optionalBody, query } from './validate.ts';
import { BillRun, Invoice, InvoiceCorrection, InvoiceGeneration, InvoicePreview, InvoiceTemplate, listOfA, listOfB, Simulation } from './response-schemas.ts';

const BillingPeriod = Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', errorMessage: 'must be a month YYYY-MM' });
const Decimal = Type.Union([Type.Number(), Type.String({ pattern: '^[+]?(\\d+(\\.\\d*)?|\\.\\d+)$' })], { errorMessage: 'must be a non-negative number or decimal string' });
const UsageCounters = Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object of usage counters keyed by unit (@action, @outcome, @user, @seat)' });

const InvoiceGenerate = Type.Object({ account_id: Type.Optional(Id), billing_period: BillingPeriod });
const InvoicePay = Type.Object({ amount: Type.Optional(Decimal), reference: Type.Optional(Type.String({ maxLength: 200, errorMessage: 'must be a string of at most 200 characters' })), paid_at: Type.Optional(DateLike) });
const BillRunCreate = Type.Object({ billing_date: DateLike });
const InvoiceCorrect = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500, errorMessage: 'must be a string of at most 500 characters' })) });
const SimulateA = Type.Object({ rate_plan_id: Id, usage: UsageCounters, billing_period: Type.Optional(BillingPeriod) });
const SimulateB = Type.Object({ rate_plan_id: Id, usage_data: UsageCounters, billing_period: Type.Optional(BillingPeriod) });
const TemplateData = Type.Object(
  {
    company_name: Type.Optional(Type.String({ maxLength: 200, errorMessage: 'must be a string of at most 200 characters' })),
    logo_url: Type.Optional(Type.String({ maxLength: 2000, pattern: '^https?://', errorMessage: 'must be an http(s) URL' })),
  },
  { errorMessage: 'must be an object with company_name and logo_url' },
);
const TemplateCreate = Type.Object({ name: Name, template_data: TemplateData, is_active: Type.Optional(Type.Boolean({ errorMessage: 'must be a boolean' })) });
const TemplateUpdate = Type.Partial(TemplateCreate);
const InvoiceQuery = Type.Object({
  account_id: Type.Optional(Id),
  subscription_id: Type.Optional(Id),
  status: Type.Optional(Type.Union([Type.Literal('draft'), Type.Literal('finalized'), Type.Literal('paid'), Type.Literal('void')], { errorMessage: 'must be draft, finalized, paid or void' })),
  kind: Type.Optional(Type.Union([Type.Literal('invoice'), Type.Literal('credit_note')], { errorMessage: 'must be invoice or credit_note' })),
  billing_period_from: Type.Optional(Type.String({ pattern: BillingPeriod.pattern, errorMessage: 'must be a month YYYY-MM', description: 'only invoices whose billing period (YYYY-MM of period_start) is this month or later' })),
  billing_period_to: Type.Optional(Type.String({ pattern: BillingPeriod.pattern, errorMessage: 'must be a month YYYY-MM', description: 'only invoices whose billing period (YYYY-MM of period_start) is this month or earlier' })),
});

/** A date of the DateLike schema; an impossible one (2026-02-30) is a 400. */
function date(v: string, field: string): Date {
  const t = parseTimestamp(v);
  if (t === undefined) throw new AppError('validation_failed', `${field} is not a valid date`, { details: [{ path: field, message: `${field} is not a valid date` }] });
  return new Date(t);
}

/** The first instant (UTC) of the month YYYY-MM, `offset` months on. */
function monthStart(period: string, offset = 0): Date {
  return new Date(Date.UTC(Number(period.slice(0, 4)), Number(period.slice(5, 7)) - 1 + offset, 1));
}

function filter(req: Parameters<Endpoint['handle']>[0]): InvoiceFilter {
  const q = query(req, InvoiceQuery);
  if (q.billing_period_from && q.billing_period_to && q.billing_period_from > q.billing_period_to) {
    const message = `billing_period_to (${q.billing_period_to}) must not be before billing_period_from (${q.billing_period_from})`;
    throw new AppError('validation_failed', message, { details: [{ path: 'billing_period_to', message }] });
  }
  return {
    ...(q.account_id ? { account_id: q.account_id } : {}),
    ...(q.status ? { status: q.status } : {}),
    ...(q.subscription_id ? { subscription_id: q.subscription_id } : {}),
    ...(q.kind ? { kind: q.kind } : {}),
    ...(q.billing_period_from ? { period_start_from: monthStart(q.billing_period_from) } : {}),
    ...(q.billing_period_to ? { period_start_before: monthStart(q.billing_period_to, 1) } : {}),
  };
}

/**
 * Invoices, payments, bill runs, simulation, previews and templates on both families.
 * Reads need `read`; generating, bill runs, payments and templates need `write`;
 * simulation and preview change nothing and need `read`.
 */
export function invoiceEndpoints(deps: ApiDeps & { invoicing: Invoicing }): Endpoint[] {
  const inv = deps.invoicing;
  const { db } = deps;
  const invoiceActions = (prefix: string): Endpoint[] => [
    {
      method: 'GET',
      path: `${prefix}/:invoice_id`,
      capability: 'read',
      response: Invoice,
      summary: 'One invoice with its lines and the usage that produced them',
      handle: async (req, p) => ok(await getInvoice(db, p.environmentId, req.params.invoice_id!)),
    },
    {
      method: 'POST',
      path: `${prefix}/:invoice_id/pay`,
      capability: 'write',
      response: Invoice,
      summary: 'Record the payment of an invoice (amount must equal the total when given; a draft is re-rated and issued first): draft/finalized -> paid',
      requestBody: InvoicePay,
      handle: async (req, p) => {
        const b = optionalBody(req, InvoicePay);
        const id = req.params.invoice_id!;
        const paidAt = b.paid_at ? date(b.paid_at, 'paid_at') : undefined;
        if (paidAt) await checkPaymentDate(db, p.environmentId, id, paidAt, inv.now());
        await finalizeIfDraft(inv, p.environmentId, id, 'api');
        return ok(await payInvoice(db, p.environmentId, id, { ...(b.amount !== undefined ? { amount: String(b.amount) } : {}), ...(b.reference ? { reference: b.reference } : {}), ...(paidAt ? { paid_at: paidAt } : {}) }, inv.now()));
      },
    },
  ];
  return [
    {
      method: 'GET',
      path: '/v1/invoices',
      capability: 'read',
      query: [PageQueryA, InvoiceQuery],
      response: listOfA('invoices', Invoice),
      summary: 'List invoices and credit notes (limit/offset; filters account_id, status, subscription_id, kind, billing_period_from, billing_period_to)',
      handle: async (req, p) => {
        const page = pageA(req);
        const { rows, total } = await listInvoices(db, p.environmentId, filter(req), page);
        return ok(listA('invoices', rows, total, page));
      },
    },
    {
      method: 'POST',
      path: '/v1/invoices/generate',
      capability: 'write',
      response: InvoiceGeneration,
      summary: 'Generate the invoices of a billing period (YYYY-MM) for one account or all; existing ones are returned, never duplicated',
      requestBody: InvoiceGenerate,
      handle: async (req, p) => {
        const b = body(req, InvoiceGenerate);
        if (b.account_id) await requireRef(db, 'accounts', p.environmentId, 'account_id', b.account_id);
        const { invoices, failures } = await generateForPeriod(inv, p.environmentId, b.billing_period, b.account_id);
        return ok({ invoices, total: invoices.length, billing_period: b.billing_period, failures });
      },
    },
    ...invoiceActions('/v1/invoices'),
    {
      method: 'POST',
      path: '/v1/pricing/simulate',
      capability: 'read',
      response: Simulation,
      summary: 'Rate hypothetical usage against a rate plan (same engine as invoices)',
      requestBody: SimulateA,
      handle: async (req, p) => {
        const b = body(req, SimulateA);
        return ok(await simulateCharges(inv, p.environmentId, { ratePlanId: b.rate_plan_id, usage: b.usage as Usage, usageField: 'usage', ...(b.billing_period ? { billingPeriod: b.billing_period } : {}) }));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/simulation/charges',
      capability: 'read',
      response: Simulation,
      summary: 'Simulate the charges of a rate plan for usage_data (same engine as invoices)',
      requestBody: SimulateB,
      handle: async (req, p) => {
        const b = body(req, SimulateB);
        return ok(await simulateCharges(inv, p.environmentId, { ratePlanId: b.rate_plan_id, usage: b.usage_data as Usage, usageField: 'usage_data', ...(b.billing_period ? { billingPeriod: b.billing_period } : {}) }));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/subscription/:subscription_id/invoice-preview',
      capability: 'read',
      response: InvoicePreview,
      summary: "Preview the invoice of the subscription's current period with the usage so far (not stored)",
      handle: async (req, p) => ok(await previewInvoice(inv, p.environmentId, req.params.subscription_id!)),
    },
    {
      method: 'GET',
      path: '/api/v1/invoice/invoices',
      capability: 'read',
      query: [PageQueryB, InvoiceQuery],
      response: listOfB('invoices', Invoice),
      summary: 'List invoices and credit notes (skip/limit; filters account_id, status, subscription_id, kind, billing_period_from, billing_period_to)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listInvoices(db, p.environmentId, filter(req), page);
        return ok(listB('invoices', rows, total, page));
      },
    },
    ...invoiceActions('/api/v1/invoice/invoices'),
    {
      method: 'POST',
      path: '/api/v1/invoice/invoices/:invoice_id/finalize',
      capability: 'write',
      response: Invoice,
      summary: 'Finalize a draft now (re-rated first); finalized invoices never change',
      handle: async (req, p) => {
        const id = await finalizeInvoice(inv, p.environmentId, req.params.invoice_id!, 'api');
        return ok(await getInvoice(db, p.environmentId, id));
      },
    },
    {
      method: 'POST',
      path: '/api/v1/invoice/invoices/:invoice_id/void',
      capability: 'write',
      response: Invoice,
      summary: 'Void a draft or finalized invoice',
      handle: async (req, p) => ok(await voidInvoice(db, p.environmentId, req.params.invoice_id!, inv.now())),
    },
    {
      method: 'POST',
      path: '/api/v1/invoice/invoices/:invoice_id/correct',
      capability: 'write',
      status: 201,
      response: InvoiceCorrection,
      summary: 'Correct a finalized, paid or void invoice with new documents: re-rates its period, issues a credit note reversing it (not for void) and a finalized replacement invoice; 409 when nothing changed',
      requestBody: InvoiceCorrect,
      handle: async (req, p) => {
        const b = optionalBody(req, InvoiceCorrect);
        return created(await correctInvoice(inv, p.environmentId, req.params.invoice_id!, b.reason ?? null));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/invoice/invoices/:invoice_id/html',
      capability: 'read',
      response: Type.String({ description: 'the invoice as an HTML page' }),
      responseTypes: ['text/html'],
      summary: 'The invoice rendered as HTML with the active template',
      handle: async (req, p) => {
        const invoice = await getInvoice(db, p.environmentId, req.params.invoice_id!);
        const html = renderInvoiceHtml(invoice as Parameters<typeof renderInvoiceHtml>[0], await activeTemplate(db, p.environmentId));
        return { status: 200, raw: html, contentType: 'text/html; charset=utf-8' };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/invoice/bill-runs/create',
      capability: 'write',
      status: 201,
      response: BillRun,
      summary: 'Run a bill run: invoices of the last ended period for every subscription billable in it (runs to completion)',
      requestBody: BillRunCreate,
      handle: async (req, p) => {
        const b = body(req, BillRunCreate);
        return created(await runBillRun(inv, p.environmentId, date(b.billing_date, 'billing_date')));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/invoice/bill-runs',
      capability: 'read',
      query: [PageQueryB],
      response: listOfB('bill_runs', BillRun),
      summary: 'List bill runs (skip/limit)',
      handle: async (req, p) => {
        const page = pageB(req);
        const { rows, total } = await listBillRuns(inv, p.environmentId, page);
        return ok(listB('bill_runs', rows, total, page));
      },
    },
    {
      method: 'GET',
      path: '/api/v1/invoice/bill-runs/:bill_run_id',
      capability: 'read',
      response: BillRun,
      summary: 'One bill run with its counts, totals per currency and invoice ids',
      handle: async (req, p) => ok(await getBillRun(inv, p.environmentId, req.params.bill_run_id!)),
    },
    {
      method: 'POST',
      path: '/api/v1/invoice/templates/create',
      capability: 'write',
      status: 201,
      response: InvoiceTemplate,
      summary: 'Create an invoice template (name, template_data {company_name, logo_url}); it becomes the active one unless is_active is false',
      requestBody: TemplateCreate,
      handle: async (req, p) => created(await createTemplate(db, p.environmentId, body(req, TemplateCreate))),
    },
    {
      method: 'GET',
      path: '/api/v1/invoice/invoice-templates/active',
      capability: 'read',
      response: InvoiceTemplate,
      errors: [404],
      summary: "The environment's active invoice template (404 when none)",
      handle: async (_req, p) => ok(await requireActiveTemplate(db, p.environmentId)),
    },
    {
      method: 'PUT',
      path: '/api/v1/invoice/invoice-templates/:template_id',
      capability: 'write',
      response: InvoiceTemplate,
      summary: 'Update a template (name, template_data merged, is_active: true makes it the one active template)',
      requestBody: TemplateUpdate,
      handle: async (req, p) => ok(await updateTemplate(db, p.environmentId, req.params.template_id!, body(req, TemplateUpdate))),
    },
  ];
}
