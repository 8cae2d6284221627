import { useState } from 'preact/hooks';
import { must } from '../api';
import { TimeChart } from '../chart';
import { useSession } from '../context';
import { isoDay, monthStart } from '../dates';
import { reportCell, reportColumns } from '../describe';
import { NameOf } from '../named';
import type { NameKind } from '../pickers';
import { ErrorBox, Field, Panel, Select, Table, useLoad, type Column } from '../ui';

/** The group key fields of report rows, and what their ids name. */
const KEY_KIND: Readonly<Record<string, NameKind>> = { agent_id: 'agent', customer_id: 'account', product_id: 'product', rate_plan_id: 'rate_plan', agent_type_id: 'agent_type' };

type Row = Record<string, unknown>;

/**
 * A report's rows as a table: readable headers, group keys shown by name (with the id), and
 * itemized costs one column per category; CSV of the same columns.
 */
function ReportTable({ rows, caption, csvName }: { rows: readonly Row[]; caption: string; csvName: string }) {
  const columns: Column<Row>[] = reportColumns(rows).map((c) => {
    const kind = c.category === undefined ? KEY_KIND[c.field] : undefined;
    return [c.label, kind ? (r: Row) => <NameOf kind={kind} id={r[c.field] as string | null} testId="report-subject" /> : (r: Row) => reportCell(r, c)] as const;
  });
  return <Table rows={rows} columns={columns} caption={caption} csvName={csvName} />;
}

type Group = 'none' | 'agent' | 'customer' | 'product' | 'rate_plan' | 'agent_type';
type Granularity = 'week' | 'month' | 'quarter';

/** Reports: revenue by agent type, customer, product, rate plan; P&L with costs blended or itemized; charts, tables, CSV. */
export function Reports() {
  const { client } = useSession();
  const now = new Date();
  const [from, setFrom] = useState(isoDay(monthStart(now, -5)));
  const [to, setTo] = useState(isoDay(now));
  const [group, setGroup] = useState<Group>('none');
  const [granularity, setGranularity] = useState<Granularity>('month');
  const [costs, setCosts] = useState<'blended' | 'itemized'>('blended');
  const range = { start_date: from, end_date: `${to}T23:59:59Z` };
  const revenue = useLoad(() => must(client.GET('/v1/reports/revenue', { params: { query: { ...range, group_by: group, granularity } } })), [from, to, group, granularity]);
  const pnlGroup = group === 'agent' || group === 'customer' ? group : 'none';
  const pnl = useLoad(() => must(client.GET('/v1/reports/pnl', { params: { query: { ...range, group_by: pnlGroup, granularity, costs } } })), [from, to, pnlGroup, granularity, costs]);
  const rows = (pnl.data?.breakdown ?? []) as { period_start?: string; revenue?: string; costs?: string; margin?: string }[];
  return (
    <>
      <Panel title="Range">
        <div class="row">
          <Field label="From" type="date" value={from} onInput={setFrom} />
          <Field label="To" type="date" value={to} onInput={setTo} />
          <Select label="Group by" value={group} onChange={(v) => setGroup(v as Group)} options={[['none', 'none'], ['agent_type', 'agent type'], ['customer', 'customer'], ['product', 'product'], ['rate_plan', 'rate plan'], ['agent', 'agent']]} />
          <Select label="Granularity" value={granularity} onChange={(v) => setGranularity(v as Granularity)} options={[['week', 'weekly'], ['month', 'monthly'], ['quarter', 'quarterly']]} />
          <Select label="Costs" value={costs} onChange={(v) => setCosts(v as 'blended')} options={[['blended', 'blended'], ['itemized', 'itemized']]} />
        </div>
      </Panel>
      <Panel title="Revenue, cost and margin">
        <ErrorBox error={pnl.error} />
        {pnlGroup === 'none' ? (
          <TimeChart
            title="Revenue, cost and margin per period"
            xRange={[Date.parse(from) / 1000, Date.parse(`${to}T23:59:59Z`) / 1000]}
            x={rows.map((r) => Date.parse(r.period_start ?? '') / 1000)}
            series={[
              { label: 'revenue', values: rows.map((r) => Number(r.revenue ?? 0)), color: '#2563eb' },
              { label: 'cost', values: rows.map((r) => Number(r.costs ?? 0)), color: '#dc2626' },
              { label: 'margin', values: rows.map((r) => Number(r.margin ?? 0)), color: '#16a34a' },
            ]}
          />
        ) : null}
        <ReportTable rows={(pnl.data?.totals ?? []) as Row[]} csvName="pnl-totals" caption="Totals" />
        <ReportTable rows={(pnl.data?.breakdown ?? []) as Row[]} csvName="pnl" caption="Per period" />
      </Panel>
      <Panel title="Invoiced revenue">
        <ErrorBox error={revenue.error} />
        <ReportTable rows={(revenue.data?.breakdown ?? []) as Row[]} csvName="revenue" caption="Revenue" />
      </Panel>
    </>
  );
}
