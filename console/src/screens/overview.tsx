import { useEffect, useRef, useState } from 'preact/hooks';
import { must } from '../api';
import { TimeChart } from '../chart';
import { useSession } from '../context';
import { monthStart } from '../dates';
import { useNames } from '../pickers';
import { compareDecimal, count } from '../money';
import { ErrorBox, Named, Panel, Table, useLoad } from '../ui';

type PnlRow = { agent_id?: string | null; customer_id?: string | null;  period?: string; currency: string; revenue: string; costs: string; margin: string; margin_percent: string | null };

const POLL_MS = 2000;
const WINDOW = 90;

/** Actions and outcomes this period, polled: the live chart and the events-per-second figure. */
function LiveUsage() {
  const { client } = useSession();
  const [samples, setSamples] = useState<{ t: number; actions: number; outcomes: number }[]>([]);
  const [error, setError] = useState<unknown>(undefined);
  const last = useRef(samples);
  last.current = samples;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      const now = new Date();
      try {
        const res = await must(client.GET('/v1/usage', { params: { query: { start_date: monthStart(now).toISOString(), end_date: new Date(now.getTime() + 60_000).toISOString(), group_by: 'none' } } }));
        const row = res.usage[0];
        if (live) {
          setSamples([...last.current, { t: now.getTime() / 1000, actions: count(row?.actions), outcomes: count(row?.outcomes) }].slice(-WINDOW));
          setError(undefined);
        }
      } catch (e) {
        if (live) setError(e);
      }
      if (live) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [client]);
  const n = samples.length;
  const cur = samples[n - 1];
  const prev = samples[n - 2];
  const rate = cur && prev ? Math.max(0, (cur.actions + cur.outcomes - prev.actions - prev.outcomes) / (cur.t - prev.t)) : 0;
  return (
    <Panel title="Live usage">
      <ErrorBox error={error} />
      <dl class="figures">
        <div>
          <dt>Events per second now</dt>
          <dd data-testid="eps">{rate.toFixed(1)}</dd>
        </div>
        <div>
          <dt>Actions this period</dt>
          <dd data-testid="actions">{cur ? String(cur.actions) : '…'}</dd>
        </div>
        <div>
          <dt>Outcomes this period</dt>
          <dd data-testid="outcomes">{cur ? String(cur.outcomes) : '…'}</dd>
        </div>
      </dl>
      <TimeChart
        title="Actions and outcomes this period (live)"
        windowSeconds={(WINDOW * POLL_MS) / 1000}
        x={samples.map((s) => s.t)}
        series={[
          { label: 'actions', values: samples.map((s) => s.actions), color: '#2563eb' },
          { label: 'outcomes', values: samples.map((s) => s.outcomes), color: '#16a34a' },
        ]}
      />
    </Panel>
  );
}

function byMargin(rows: readonly PnlRow[]): PnlRow[] {
  return [...rows].sort((a, b) => compareDecimal(b.margin, a.margin)).slice(0, 5);
}

const PNL_COLUMNS = [
  ['Period', (r: PnlRow) => r.period ?? ''],
  ['Currency', (r: PnlRow) => r.currency],
  ['Revenue', (r: PnlRow) => r.revenue],
  ['Cost', (r: PnlRow) => r.costs],
  ['Margin', (r: PnlRow) => r.margin],
  ['Margin %', (r: PnlRow) => r.margin_percent ?? ''],
] as const;

/** Revenue, cost and margin this period against the last; top agents and customers by margin. */
function Money() {
  const { client } = useSession();
  const now = new Date();
  const q = (group_by: 'none' | 'agent' | 'customer', from: Date) =>
    must(client.GET('/v1/reports/pnl', { params: { query: { start_date: from.toISOString(), end_date: now.toISOString(), granularity: 'month', group_by, costs: 'blended' } } })).then((r) => r.breakdown as unknown as PnlRow[]);
  const periods = useLoad(() => q('none', monthStart(now, -1)), []);
  const agents = useLoad(() => q('agent', monthStart(now)), []);
  const customers = useLoad(() => q('customer', monthStart(now)), []);
  const agentNames = useNames(client, 'agent', (agents.data ?? []).map((r) => r.agent_id));
  const customerNames = useNames(client, 'account', (customers.data ?? []).map((r) => r.customer_id));
  const keyed = (label: string, names: ReadonlyMap<string, string>, id: (r: PnlRow) => string | null | undefined) =>
    [[label, (r: PnlRow) => <Named id={id(r)} name={names.get(id(r) ?? '')} testId="pnl-subject" />], ...PNL_COLUMNS.slice(1)] as const;
  return (
    <>
      <Panel title="Revenue, cost and margin: this month against the last">
        <ErrorBox error={periods.error} />
        <Table rows={periods.data ?? []} columns={PNL_COLUMNS} csvName="pnl-periods" />
      </Panel>
      <div class="two">
        <Panel title="Top agents by margin (this month)">
          <ErrorBox error={agents.error} />
          <Table rows={byMargin(agents.data ?? [])} columns={keyed('Agent', agentNames, (r) => r.agent_id)} />
        </Panel>
        <Panel title="Top customers by margin (this month)">
          <ErrorBox error={customers.error} />
          <Table rows={byMargin(customers.data ?? [])} columns={keyed('Customer', customerNames, (r) => r.customer_id)} />
        </Panel>
      </div>
    </>
  );
}

function Recent() {
  const { client } = useSession();
  const invoices = useLoad(() => must(client.GET('/api/v1/invoice/invoices', { params: { query: { limit: 5 } } })), []);
  const failed = useLoad(async () => {
    const hooks = await must(client.GET('/api/v1/webhooks', { params: { query: { limit: 20 } } }));
    const lists = await Promise.all(hooks.webhooks.map((w) => must(client.GET('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: w.id }, query: { limit: 10 } } }))));
    return lists.flatMap((l) => l.deliveries).filter((d) => d.status === 'failed' || (d.last_status_code !== null && d.last_status_code !== undefined && d.last_status_code >= 400));
  }, []);
  return (
    <div class="two">
      <Panel title="Last invoices">
        <ErrorBox error={invoices.error} />
        <Table
          rows={invoices.data?.invoices ?? []}
          columns={[
            ['Number', (i) => i.number ?? i.id],
            ['Status', (i) => i.status],
            ['Period', (i) => i.billing_period ?? ''],
            ['Total', (i) => `${i.total} ${i.currency}`],
          ]}
        />
      </Panel>
      <Panel title="Failed webhook deliveries">
        <ErrorBox error={failed.error} />
        <Table
          rows={failed.data ?? []}
          columns={[
            ['Event', (d) => d.event],
            ['Status', (d) => d.status],
            ['Last code', (d) => String(d.last_status_code ?? '')],
            ['Error', (d) => d.last_error ?? ''],
          ]}
        />
      </Panel>
    </div>
  );
}

export function Overview() {
  return (
    <>
      <LiveUsage />
      <Money />
      <Recent />
    </>
  );
}
