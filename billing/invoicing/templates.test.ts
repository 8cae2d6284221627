import { describe, expect, it } from 'vitest';
import { esc, renderInvoiceHtml } from './templates.ts';

const invoice = {
  number: 'INV-000007', status: 'finalized', account_id: 'acct_1', subscription_id: 'sub_1', currency: 'USD',
  period_start: '2026-11-01T00:00:00.000Z', period_end: '2026-12-01T00:00:00.000Z', issue_date: '2026-12-01T00:00:00.000Z', due_date: '2026-12-31T00:00:00.000Z',
  subtotal: '150.00', discount_total: '0.00', total: '150.00',
  lines: [{ charge_name: 'Base <fee>', unit: null, quantity: '1', unit_price: '100', tiers: null, amount: '50.00', agent_instance_id: null, service_period: { start: '2026-11-01T00:00:00.000Z', end: '2026-11-16T00:00:00.000Z' } }],
} as never;

describe('renderInvoiceHtml', () => {
  it('shows the company name, logo, lines and totals, escaped', () => {
    const html = renderInvoiceHtml(invoice, { template_data: { company_name: 'Acme & Co', logo_url: 'https://acme.test/logo.png' } });
    expect(html).toContain('<h1>Acme &amp; Co</h1>');
    expect(html).toContain('<img src="https://acme.test/logo.png"');
    expect(html).toContain('Base &lt;fee&gt;');
    expect(html).toContain('INV-000007');
    expect(html).toContain('<strong>150.00 USD</strong>');
  });

  it('shows the prepaid credits applied and the amount due when credits were applied, nothing of them otherwise', () => {
    expect(renderInvoiceHtml(invoice, null)).not.toContain('Amount due');
    const withCredits = renderInvoiceHtml({ ...(invoice as object), credits_applied: '50.00', amount_due: '100.00' } as never, null);
    expect(withCredits).toContain('Prepaid credits applied</td><td class="n">50.00</td>');
    expect(withCredits).toContain('<strong>100.00 USD</strong>');
  });

  it('never renders a non-http logo URL; works without a template', () => {
    expect(renderInvoiceHtml(invoice, { template_data: { logo_url: 'javascript:alert(1)' } })).not.toContain('javascript:');
    expect(renderInvoiceHtml(invoice, null)).toContain('INV-000007');
  });

  it.each([['<script>', '&lt;script&gt;'], ['"\'', '&quot;&#39;'], [null, '']])('esc(%j) = %j', (v, out) => expect(esc(v)).toBe(out));
});
