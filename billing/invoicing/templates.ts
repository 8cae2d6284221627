/**
 * Invoice templates (company name, logo) with one active per environment, and HTML
 * rendering of an invoice with the active one. Creating a template makes it the active
 * one unless `is_active: false`; activating a template deactivates the others.
 */
import type { Selectable, Transaction } from 'kysely';
import type { Db } from '../../shared/db/postgres.ts';
import type { Database, InvoiceTemplatesTable } from '../../shared/db/schema.ts';
import { newId } from '../../shared/ids.ts';
import { iso, notFound } from '../../shared/db/db-errors.ts';
import type { InvoiceView } from './store.ts';
import { Dec } from '../rating/money.ts';

type Row = Selectable<InvoiceTemplatesTable>;

interface TemplateData {
  company_name?: string;
  logo_url?: string;
  [k: string]: unknown;
}

function templateView(r: Row) {
  return { id: r.id, name: r.name, template_data: r.template_data, is_active: r.is_active, created_at: iso(r.created_at), updated_at: iso(r.updated_at) };
}

async function deactivateOthers(tx: Transaction<Database>, environmentId: string, keepId: string) {
  await tx.updateTable('invoice_templates').set({ is_active: false, updated_at: new Date() }).where('environment_id', '=', environmentId).where('is_active', '=', true).where('id', '!=', keepId).execute();
}

async function lockTemplates(tx: Transaction<Database>, environmentId: string) {
  // Serializes activation per environment (the partial unique index backs it).
  await tx.selectFrom('environments').select('id').where('id', '=', environmentId).forUpdate().executeTakeFirst();
}

export async function createTemplate(db: Db, environmentId: string, input: { name: string; template_data: TemplateData; is_active?: boolean }) {
  const active = input.is_active ?? true;
  return db.transaction().execute(async (tx) => {
    await lockTemplates(tx, environmentId);
    const id = newId('tpl');
    if (active) await deactivateOthers(tx, environmentId, id);
    const row = await tx
      .insertInto('invoice_templates')
      .values({ id, environment_id: environmentId, name: input.name, template_data: JSON.stringify(input.template_data), is_active: active })
      .returningAll()
      .executeTakeFirstOrThrow();
    return templateView(row);
  });
}

export async function updateTemplate(db: Db, environmentId: string, id: string, input: { name?: string; template_data?: TemplateData; is_active?: boolean }) {
  return db.transaction().execute(async (tx) => {
    await lockTemplates(tx, environmentId);
    const row = await tx.selectFrom('invoice_templates').selectAll().where('environment_id', '=', environmentId).where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('invoice template', id);
    if (input.is_active) await deactivateOthers(tx, environmentId, id);
    const merged = input.template_data ? { ...(row.template_data as TemplateData), ...input.template_data } : undefined;
    const updated = await tx
      .updateTable('invoice_templates')
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(merged ? { template_data: JSON.stringify(merged) } : {}),
        ...(input.is_active !== undefined ? { is_active: input.is_active } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .returningAll()
      .executeTakeFirstOrThrow();
    return templateView(updated);
  });
}

export async function activeTemplate(db: Db, environmentId: string) {
  const row = await db.selectFrom('invoice_templates').selectAll().where('environment_id', '=', environmentId).where('is_active', '=', true).executeTakeFirst();
  return row ? templateView(row) : null;
}

export async function requireActiveTemplate(db: Db, environmentId: string) {
  const t = await activeTemplate(db, environmentId);
  if (!t) throw notFound('active invoice template', 'of this environment');
  return t;
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
/** HTML-escapes any value's string form. */
export function esc(v: unknown): string {
  return String(v ?? '').replace(/[&<>"']/g, (c) => ESC[c]!);
}

/** Only http(s) logo URLs are rendered (no javascript: or data: URLs). */
function safeUrl(u: unknown): string | null {
  return typeof u === 'string' && /^https?:\/\//i.test(u) ? u : null;
}

type Line = NonNullable<InvoiceView['lines']>[number];

/** The prepaid credits applied and the amount due, when credits were applied (the credits lines show each grant). */
function creditRows(invoice: Pick<InvoiceView, 'credits_applied' | 'amount_due' | 'currency'>): string {
  if (!invoice.credits_applied || new Dec(invoice.credits_applied).isZero()) return '';
  return `<tr><td colspan="5">Prepaid credits applied</td><td class="n">${esc(invoice.credits_applied)}</td></tr>
<tr><td colspan="5"><strong>Amount due</strong></td><td class="n"><strong>${esc(invoice.amount_due)} ${esc(invoice.currency)}</strong></td></tr>
`;
}

/** Pure: the invoice as a standalone HTML document with the template's company name and logo. */
export function renderInvoiceHtml(invoice: InvoiceView & { lines: Line[] }, template: { template_data: unknown } | null): string {
  const data = (template?.template_data ?? {}) as TemplateData;
  const company = data.company_name ?? '';
  const logo = safeUrl(data.logo_url);
  const rows = invoice.lines
    .map(
      (l) => `<tr><td>${esc(l.charge_name)}${l.agent_instance_id ? `<br><small>agent ${esc(l.agent_instance_id)}</small>` : ''}</td><td>${esc(l.unit ?? '')}</td>` +
        `<td class="n">${esc(l.quantity)}</td><td class="n">${esc(l.unit_price ?? (l.tiers ? 'tiered' : ''))}</td>` +
        `<td>${esc(l.service_period.start?.slice(0, 10))} – ${esc(l.service_period.end?.slice(0, 10))}</td><td class="n">${esc(l.amount)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${invoice.kind === 'credit_note' ? 'Credit note' : 'Invoice'} ${esc(invoice.number ?? 'draft')}</title>
<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px;text-align:left}.n{text-align:right}</style></head>
<body>
<header>${logo ? `<img src="${esc(logo)}" alt="${esc(company)}" style="max-height:60px">` : ''}<h1>${esc(company)}</h1></header>
<h2>${invoice.kind === 'credit_note' ? `Credit note ${esc(invoice.number ?? '')}` : invoice.number ? `Invoice ${esc(invoice.number)}` : 'Draft invoice'}</h2>
${invoice.corrects_invoice_id ? `<p>Reverses invoice ${esc(invoice.corrects_invoice_id)} in full</p>` : ''}${invoice.replaces_invoice_id ? `<p>Replaces invoice ${esc(invoice.replaces_invoice_id)}</p>` : ''}
<p>Status: ${esc(invoice.status)}<br>Account: ${esc(invoice.account_id)}<br>Subscription: ${esc(invoice.subscription_id)}<br>
Period: ${esc(invoice.period_start?.slice(0, 10))} – ${esc(invoice.period_end?.slice(0, 10))}<br>
Issued: ${esc(invoice.issue_date?.slice(0, 10))} · Due: ${esc(invoice.due_date?.slice(0, 10))}</p>
<table><thead><tr><th>Charge</th><th>Unit</th><th class="n">Quantity</th><th class="n">Unit price</th><th>Service period</th><th class="n">Amount (${esc(invoice.currency)})</th></tr></thead>
<tbody>
${rows}
</tbody>
<tfoot>
<tr><td colspan="5">Subtotal</td><td class="n">${esc(invoice.subtotal)}</td></tr>
<tr><td colspan="5">Discounts</td><td class="n">${esc(invoice.discount_total)}</td></tr>
<tr><td colspan="5"><strong>Total</strong></td><td class="n"><strong>${esc(invoice.total)} ${esc(invoice.currency)}</strong></td></tr>
${creditRows(invoice)}</tfoot></table>
</body></html>
`;
}
