import { useEffect, useRef, useState } from 'preact/hooks';
import { fetchText, must, type Schemas } from '../api';
import { useSession } from '../context';
import { yearMonth } from '../dates';
import { AccountName } from '../named';
import { accountOptions } from '../pickers';
import { ErrorBox, Field, Paged, PagedSelect, Panel, Select, useAction } from '../ui';

type Status = 'draft' | 'finalized' | 'paid' | 'void';

/**
 * The invoice's HTML in a sandboxed frame (no scripts run in it). The page's policy allows
 * no inline style, so the template's own style sheet is applied as a constructed sheet.
 */
function InvoiceHtml({ html }: { html: string }) {
  const frame = useRef<HTMLIFrameElement>(null);
  useEffect(() => {
    const win = frame.current?.contentWindow as (Window & typeof globalThis) | null | undefined;
    const doc = frame.current?.contentDocument;
    if (!win || !doc) return;
    const parsed = new DOMParser().parseFromString(html, 'text/html');
    for (const s of parsed.querySelectorAll('script')) s.remove();
    const css = [...parsed.querySelectorAll('style')].map((s) => s.textContent ?? '').join('\n');
    doc.documentElement.replaceWith(doc.importNode(parsed.documentElement, true));
    const sheet = new win.CSSStyleSheet();
    sheet.replaceSync(css);
    doc.adoptedStyleSheets = [sheet];
  }, [html]);
  return <iframe ref={frame} class="invoice" title="Invoice HTML" sandbox="allow-same-origin" src="about:blank" />;
}

/** Invoices: list with filters, generate, finalize, record payment, void, correct, the HTML invoice, bill runs. */
export function Invoices() {
  const { client, session, canWrite } = useSession();
  const [status, setStatus] = useState('');
  const [account, setAccount] = useState('');
  const [periodFrom, setPeriodFrom] = useState('');
  const [periodTo, setPeriodTo] = useState('');
  const [period, setPeriod] = useState(yearMonth(new Date()));
  const [version, setVersion] = useState(0);
  const [html, setHtml] = useState<string | undefined>(undefined);
  const [billingDate, setBillingDate] = useState(new Date().toISOString().slice(0, 10));
  const [paying, setPaying] = useState<Schemas['Invoice'] | undefined>(undefined);
  const [correcting, setCorrecting] = useState<Schemas['Invoice'] | undefined>(undefined);
  const [paidAt, setPaidAt] = useState('');
  const [reference, setReference] = useState('');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const action = useAction();
  const bump = () => setVersion((v) => v + 1);
  const id = (i: Schemas['Invoice']) => ({ params: { path: { invoice_id: i.id } } });
  const label = (i: Schemas['Invoice']) => i.number ?? i.id;
  return (
    <>
      <Panel title="Invoices">
        <div class="row">
          <Select label="Status" value={status} onChange={setStatus} options={[['', 'any'], ['draft', 'draft'], ['finalized', 'finalized'], ['paid', 'paid'], ['void', 'void']]} />
          <PagedSelect label="Customer" value={account} onChange={setAccount} optional="any" load={(skip, limit) => accountOptions(client, skip, limit)} />
          <Field label="From billing period" type="month" value={periodFrom} onInput={setPeriodFrom} placeholder="YYYY-MM" />
          <Field label="Through billing period" type="month" value={periodTo} onInput={setPeriodTo} placeholder="YYYY-MM" />
        </div>
        <Paged
          key={`${status}|${account}|${periodFrom}|${periodTo}`}
          caption="Invoices"
          deps={[version]}
          load={async (skip, limit) => {
            const query = {
              skip,
              limit,
              ...(status ? { status: status as Status } : {}),
              ...(account.trim() ? { account_id: account.trim() } : {}),
              ...(periodFrom ? { billing_period_from: periodFrom } : {}),
              ...(periodTo ? { billing_period_to: periodTo } : {}),
            };
            const r = await must(client.GET('/api/v1/invoice/invoices', { params: { query } }));
            return { items: r.invoices, total: r.total };
          }}
          columns={[
            ['Number', (i) => i.number ?? i.id],
            ['Kind', (i) => i.kind ?? 'invoice'],
            ['Account', (i) => <AccountName id={i.account_id} />],
            ['Period', (i) => i.billing_period ?? ''],
            ['Status', (i) => <span data-testid="invoice-status">{i.status}</span>],
            ['Total', (i) => `${i.total} ${i.currency}`],
            ['Paid', (i) => <span data-testid="invoice-paid">{i.paid_at ? `${i.paid_at.slice(0, 10)}${i.payment_reference ? ` (${i.payment_reference})` : ''}` : ''}</span>],
            [
              'Actions',
              (i) => (
                <span class="actions">
                  <button type="button" class="small" aria-label={`Open the HTML of invoice ${i.number ?? i.id}`} onClick={() => void action.run(async () => setHtml(await fetchText(session.key, `/api/v1/invoice/invoices/${encodeURIComponent(i.id)}/html`)))}>
                    HTML
                  </button>
                  {canWrite && i.status === 'draft' ? (
                    <button type="button" class="small" aria-label={`Finalize invoice ${i.number ?? i.id}`} onClick={() => void action.run(async () => void (await must(client.POST('/api/v1/invoice/invoices/{invoice_id}/finalize', id(i))), bump()))}>
                      Finalize
                    </button>
                  ) : null}
                  {canWrite && (i.status === 'draft' || i.status === 'finalized') && i.kind !== 'credit_note' ? (
                    <>
                      <button type="button" class="small" aria-label={`Record payment of invoice ${i.number ?? i.id}`} onClick={() => (setCorrecting(undefined), setPaying(i))}>
                        Record payment
                      </button>
                      <button type="button" class="small danger" aria-label={`Void invoice ${i.number ?? i.id}`} onClick={() => confirm('Void this invoice?') && void action.run(async () => void (await must(client.POST('/api/v1/invoice/invoices/{invoice_id}/void', id(i))), bump()))}>
                        Void
                      </button>
                    </>
                  ) : null}
                  {canWrite && i.status !== 'draft' && i.kind !== 'credit_note' ? (
                    <button type="button" class="small" aria-label={`Correct invoice ${i.number ?? i.id}`} onClick={() => (setPaying(undefined), setCorrecting(i))}>
                      Correct
                    </button>
                  ) : null}
                </span>
              ),
            ],
          ]}
        />
        {canWrite ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                await must(client.POST('/v1/invoices/generate', { body: { billing_period: period, ...(account.trim() ? { account_id: account.trim() } : {}) } }));
                bump();
              });
            }}
          >
            <Field label="Billing period to generate" type="month" value={period} onInput={setPeriod} />
            <button type="submit" disabled={action.busy}>
              Generate invoices
            </button>
          </form>
        ) : null}
        {canWrite && paying ? (
          <form
            class="row"
            aria-label={`Record payment of ${label(paying)}`}
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                const body = { ...(paidAt ? { paid_at: new Date(`${paidAt}Z`).toISOString() } : {}), ...(reference.trim() ? { reference: reference.trim() } : {}), ...(amount.trim() ? { amount: amount.trim() } : {}) };
                await must(client.POST('/api/v1/invoice/invoices/{invoice_id}/pay', { ...id(paying), body }));
                setPaying(undefined);
                setPaidAt('');
                setReference('');
                setAmount('');
                bump();
              });
            }}
          >
            <strong>Payment of {label(paying)}</strong>
            <Field label="Paid at (UTC; empty: now)" type="datetime-local" value={paidAt} onInput={setPaidAt} />
            <Field label="Payment reference" value={reference} onInput={setReference} />
            <Field label={`Amount (optional: must equal the amount due, ${paying.amount_due} ${paying.currency})`} value={amount} onInput={setAmount} />
            <button type="submit" disabled={action.busy}>
              Save payment
            </button>
            <button type="button" class="small" onClick={() => setPaying(undefined)}>
              Cancel payment
            </button>
          </form>
        ) : null}
        {canWrite && correcting ? (
          <form
            class="row"
            aria-label={`Correct ${label(correcting)}`}
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                await must(client.POST('/api/v1/invoice/invoices/{invoice_id}/correct', { ...id(correcting), body: reason.trim() ? { reason: reason.trim() } : {} }));
                setCorrecting(undefined);
                setReason('');
                bump();
              });
            }}
          >
            <strong>Correction of {label(correcting)}</strong>
            <Field label="Correction reason" value={reason} onInput={setReason} />
            <button type="submit" disabled={action.busy}>
              Save correction
            </button>
            <button type="button" class="small" onClick={() => setCorrecting(undefined)}>
              Cancel correction
            </button>
          </form>
        ) : null}
        <ErrorBox error={action.error} />
      </Panel>
      {html ? (
        <Panel title="Invoice">
          <button type="button" class="small" onClick={() => setHtml(undefined)}>
            Close invoice
          </button>
          <InvoiceHtml html={html} />
        </Panel>
      ) : null}
      <Panel title="Bill runs">
        {canWrite ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                await must(client.POST('/api/v1/invoice/bill-runs/create', { body: { billing_date: billingDate } }));
                bump();
              });
            }}
          >
            <Field label="Billing date (each subscription's last period ended by then)" type="date" value={billingDate} onInput={setBillingDate} />
            <button type="submit" disabled={action.busy}>
              Run billing
            </button>
          </form>
        ) : null}
        <Paged
          caption="Bill runs"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/invoice/bill-runs', { params: { query: { skip, limit } } }));
            return { items: r.bill_runs, total: r.total };
          }}
          columns={[
            ['Id', (b) => b.id],
            ['Status', (b) => b.status],
            ['Considered', (b) => String(b.subscriptions_considered ?? '')],
            ['Created', (b) => String(b.invoices_created ?? '')],
            ['Failures', (b) => ((b.failures ?? []) as { subscription_id: string; message: string }[]).map((f) => `${f.subscription_id}: ${f.message}`).join('; ')],
          ]}
        />
      </Panel>
    </>
  );
}
