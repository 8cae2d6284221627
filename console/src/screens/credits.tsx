import { useState } from 'preact/hooks';
import { must, type Client } from '../api';
import { TimeChart } from '../chart';
import { useSession } from '../context';
import { runningBalances } from '../money';
import { agentOptions } from '../pickers';
import { ErrorBox, Field, Paged, PagedSelect, Panel, Select, Table, useAction, useLoad } from '../ui';

/** The most ledger entries the balance chart reads (pages of 100): beyond it the chart says it is partial. */
const CHART_ENTRIES = 2000;
const COLORS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c'];

type Entry = { occurred_at: string; amount: string; currency: string };

/** Every ledger entry of an account from its start (up to CHART_ENTRIES), one page of 100 at a time. */
async function ledger(client: Client, accountId: string): Promise<{ entries: Entry[]; total: number }> {
  const entries: Entry[] = [];
  let total = 0;
  for (let skip = 0; skip < CHART_ENTRIES; skip += 100) {
    const r = await must(client.GET('/api/v1/credit/entries', { params: { query: { account_id: accountId, skip, limit: 100 } } }));
    entries.push(...r.entries);
    total = r.total;
    if (skip + 100 >= total) break;
  }
  return { entries, total };
}

/**
 * The credit balance over time: the running sum of the ledger's signed entries, per currency
 * (exact decimal text; the chart draws it, the table below gives the figures).
 */
export function BalanceChart({ accountId, version }: { accountId: string; version: number }) {
  const { client } = useSession();
  const data = useLoad(() => ledger(client, accountId), [accountId, version]);
  const points = runningBalances(data.data?.entries ?? []);
  const currencies = [...new Set(points.map((p) => p.currency))].sort();
  // One x per entry; each currency's line holds its balance from its first entry on.
  const last = new Map<string, number>();
  const x: number[] = [];
  const series = currencies.map(() => [] as (number | null)[]);
  for (const p of points) {
    last.set(p.currency, Number(p.balance));
    x.push(p.at);
    currencies.forEach((c, i) => series[i]!.push(last.get(c) ?? null));
  }
  const finals = currencies.map((c) => ({ currency: c, balance: [...points].reverse().find((p) => p.currency === c)!.balance }));
  return (
    <section aria-label="Credit balance over time">
      <ErrorBox error={data.error} />
      {data.data && data.data.total > data.data.entries.length ? (
        <p class="muted">The ledger has {data.data.total} entries; the chart shows the balance over the first {data.data.entries.length}.</p>
      ) : null}
      {points.length > 0 ? (
        <TimeChart title="Credit balance over time (ledger)" x={x} series={currencies.map((c, i) => ({ label: c, values: series[i]!, color: COLORS[i % COLORS.length]! }))} />
      ) : (
        <p class="muted">No ledger entries yet.</p>
      )}
      <Table rows={finals} caption="Ledger balance after the last entry" columns={[['Currency', (f) => f.currency], ['Balance', (f) => <span data-testid={`ledger-balance-${f.currency}`}>{f.balance}</span>]]} />
    </section>
  );
}

/** Top-up rules of an account: listed, created (recurring or threshold), disabled. */
export function TopUps({ accountId, onChange, version }: { accountId: string; onChange: () => void; version: number }) {
  const { client, canWrite } = useSession();
  const [type, setType] = useState<'recurring' | 'threshold'>('recurring');
  const [currency, setCurrency] = useState('USD');
  const [kind, setKind] = useState<'free' | 'paid'>('free');
  const [amount, setAmount] = useState('');
  const [interval, setInterval] = useState<'week' | 'month'>('month');
  const [threshold, setThreshold] = useState('');
  const [target, setTarget] = useState('');
  const action = useAction();
  return (
    <Panel title="Credit top-ups">
      <Paged
        caption="Top-up rules"
        deps={[accountId, version]}
        load={async (skip, limit) => {
          const r = await must(client.GET('/api/v1/credit/topups', { params: { query: { skip, limit, account_id: accountId } } }));
          return { items: r.topups, total: r.total };
        }}
        columns={[
          ['Type', (t) => t.type],
          ['Kind', (t) => t.kind],
          ['Amount', (t) => (t.amount ? `${t.amount} ${t.currency}` : `up to ${t.target_balance ?? ''} ${t.currency}`)],
          ['When', (t) => (t.type === 'recurring' ? `every ${t.interval ?? ''}; next ${t.next_run_at ?? '-'}` : `available below ${t.threshold ?? ''}`)],
          ['Status', (t) => <span data-testid="topup-status">{t.status}</span>],
          [
            '',
            (t) =>
              canWrite && t.status === 'active' ? (
                <button type="button" class="small danger" aria-label={`Disable ${t.type} top-up ${t.id}`} onClick={() => void action.run(async () => void (await must(client.POST('/api/v1/credit/topups/{topup_id}/disable', { params: { path: { topup_id: t.id } } })), onChange()))}>
                  Disable
                </button>
              ) : null,
          ],
        ]}
      />
      {canWrite ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const money = type === 'threshold' && target.trim() ? { target_balance: target.trim() } : { amount: amount.trim() };
              const when = type === 'recurring' ? { interval } : { threshold: threshold.trim() };
              const price = kind === 'paid' && 'amount' in money ? { price: money.amount } : {};
              await must(client.POST('/api/v1/credit/topups/create', { body: { account_id: accountId, type, currency, kind, ...money, ...when, ...price } }));
              setAmount('');
              onChange();
            });
          }}
        >
          <Select label="Top-up type" value={type} onChange={(v) => setType(v as 'recurring')} options={[['recurring', 'recurring'], ['threshold', 'when the balance falls below']]} />
          <Field label="Top-up currency" value={currency} onInput={(v) => setCurrency(v.toUpperCase())} />
          <Select label="Top-up kind" value={kind} onChange={(v) => setKind(v as 'free')} options={[['free', 'free'], ['paid', 'paid (invoiced)']]} />
          {type === 'recurring' ? (
            <Select label="Every" value={interval} onChange={(v) => setInterval(v as 'month')} options={[['month', 'month'], ['week', 'week']]} />
          ) : (
            <>
              <Field label="Threshold (available below)" value={threshold} onInput={setThreshold} required />
              <Field label="Target balance (instead of an amount)" value={target} onInput={setTarget} />
            </>
          )}
          <Field label="Top-up amount" value={amount} onInput={setAmount} required={type === 'recurring' || !target.trim()} />
          <button type="submit" disabled={action.busy}>
            Add top-up
          </button>
        </form>
      ) : null}
      <ErrorBox error={action.error} />
    </Panel>
  );
}

/** A refund (−, what is left of a paid grant) or a manual adjustment (±, never below what is left) of a grant, with its reason. */
export function GrantCorrection({ onChange }: { onChange: () => void }) {
  const { client } = useSession();
  const [what, setWhat] = useState<'adjustment' | 'refund'>('adjustment');
  const [grant, setGrant] = useState('');
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const action = useAction();
  return (
    <form
      class="row"
      aria-label="Refund or adjust a grant"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const body = { grant_id: grant.trim(), amount: amount.trim(), reason };
          if (what === 'refund') await must(client.POST('/api/v1/credit/refunds/create', { body }));
          else await must(client.POST('/api/v1/credit/adjustments/create', { body }));
          setAmount('');
          setReason('');
          onChange();
        });
      }}
    >
      <Select label="Adjustment or refund" value={what} onChange={(v) => setWhat(v as 'refund')} options={[['adjustment', 'manual adjustment (+ or −)'], ['refund', 'refund (−)']]} />
      <Field label="Grant id" value={grant} onInput={setGrant} required />
      <Field label={what === 'refund' ? 'Refund amount' : 'Adjustment amount (signed)'} value={amount} onInput={setAmount} required />
      <Field label="Reason" value={reason} onInput={setReason} required />
      <button type="submit" disabled={action.busy}>
        {what === 'refund' ? 'Refund' : 'Adjust'}
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

type Limit = { id: string; scope: string; metric: string; currency: string | null; unit: string | null; window: string; value: string; action: string; description: string | null };

/** A limit's last evaluation (current, remaining, reached, blocked). */
function LimitState({ id, version }: { id: string; version: number }) {
  const { client } = useSession();
  const s = useLoad(() => must(client.GET('/api/v1/limit/{limit_id}/state', { params: { path: { limit_id: id } } })), [id, version]);
  if (s.error) return <ErrorBox error={s.error} />;
  const d = s.data;
  if (!d) return null;
  if (!d.evaluated_at) return <span data-testid="limit-state">not evaluated yet</span>;
  return (
    <span data-testid="limit-state">
      {d.blocked ? 'blocked' : d.reached ? 'reached' : 'ok'}: {d.current} used, {d.remaining} left
      {d.resets_at ? `, resets ${d.resets_at}` : ''}
    </span>
  );
}

/** Edits a limit's value (raise or lower) inline, or deletes it. */
function LimitEdit({ limit, onChange }: { limit: Limit; onChange: () => void }) {
  const { client } = useSession();
  const [value, setValue] = useState(limit.value);
  const action = useAction();
  const path = { params: { path: { limit_id: limit.id } } };
  return (
    <span class="actions">
      <Field label={`New value of limit ${limit.id}`} value={value} onInput={setValue} />
      <button type="button" class="small" aria-label={`Save the value of limit ${limit.id}`} onClick={() => void action.run(async () => void (await must(client.PUT('/api/v1/limit/{limit_id}', { ...path, body: { value: value.trim() } })), onChange()))}>
        Save
      </button>
      <button type="button" class="small danger" aria-label={`Delete limit ${limit.id}`} onClick={() => confirm('Delete this limit? It blocks, flags and alerts no more.') && void action.run(async () => void (await must(client.DELETE('/api/v1/limit/{limit_id}', path)), onChange()))}>
        Delete
      </button>
      <ErrorBox error={action.error} />
    </span>
  );
}

/**
 * Spend and usage limits of an account, or of one of its agents: with their state, created,
 * their value changed (raised or lowered), deleted.
 */
export function Limits({ accountId }: { accountId: string }) {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  const [agent, setAgent] = useState('');
  const [metric, setMetric] = useState<'spend' | 'available_balance' | 'quantity'>('spend');
  const [value, setValue] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [unit, setUnit] = useState('@action');
  const [window, setWindow] = useState<'day' | 'week' | 'billing_period'>('billing_period');
  const [act, setAct] = useState<'notify' | 'flag' | 'block'>('notify');
  const [description, setDescription] = useState('');
  const action = useAction();
  const agentId = agent.trim();
  return (
    <Panel title="Limits">
      <PagedSelect label="Limits of" value={agent} onChange={setAgent} optional="the account itself" load={(skip, limit) => agentOptions(client, skip, limit, accountId)} />
      <Paged
        caption={agentId ? 'Limits of the agent' : 'Limits of the account'}
        deps={[accountId, agentId, version]}
        load={async (skip, limit) => {
          const query = agentId ? { agent_instance_id: agentId } : { account_id: accountId };
          const r = await must(client.GET('/api/v1/limit/all', { params: { query: { skip, limit, ...query } } }));
          return { items: r.limits as Limit[], total: r.total };
        }}
        columns={[
          ['Metric', (l) => `${l.metric}${l.currency ? ` (${l.currency})` : ''}${l.unit ? ` (${l.unit})` : ''}`],
          ['Window', (l) => l.window],
          ['Value', (l) => <span data-testid="limit-value">{l.value}</span>],
          ['Action', (l) => l.action],
          ['Description', (l) => l.description ?? ''],
          ['State', (l) => <LimitState id={l.id} version={version} />],
          ['', (l) => (canWrite ? <LimitEdit key={`${l.id}:${l.value}`} limit={l} onChange={bump} /> : null)],
        ]}
      />
      {canWrite ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const scope = agentId ? { scope: 'agent_instance' as const, agent_instance_id: agentId } : { scope: 'account' as const, account_id: accountId };
              const what = metric === 'quantity' ? { unit } : { currency };
              await must(client.POST('/api/v1/limit/create', { body: { ...scope, metric, ...what, value: value.trim(), window: metric === 'quantity' ? window : 'billing_period', action: act, ...(description.trim() ? { description: description.trim() } : {}) } }));
              setValue('');
              bump();
            });
          }}
        >
          <Select label="Limit metric" value={metric} onChange={(v) => setMetric(v as 'spend')} options={[['spend', 'spend'], ['available_balance', 'available credit balance'], ['quantity', 'quantity']]} />
          {metric === 'quantity' ? (
            <>
              <Select label="Limit unit" value={unit} onChange={setUnit} options={['@action', '@outcome', '@user', 'tokens', 'input_tokens', 'output_tokens'].map((u) => [u, u] as const)} />
              <Select label="Limit window" value={window} onChange={(v) => setWindow(v as 'day')} options={[['billing_period', 'billing period'], ['week', 'week'], ['day', 'day']]} />
            </>
          ) : (
            <Field label="Limit currency" value={currency} onInput={(v) => setCurrency(v.toUpperCase())} />
          )}
          <Field label="Limit value" value={value} onInput={setValue} required />
          <Select label="When reached" value={act} onChange={(v) => setAct(v as 'notify')} options={[['notify', 'notify'], ['flag', 'flag'], ['block', 'block (402)']]} />
          <Field label="Limit description" value={description} onInput={setDescription} />
          <button type="submit" disabled={action.busy}>
            Add limit
          </button>
        </form>
      ) : null}
      <ErrorBox error={action.error} />
    </Panel>
  );
}
