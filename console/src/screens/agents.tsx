import { useState } from 'preact/hooks';
import { fetchText, must } from '../api';
import { TimeChart } from '../chart';
import { useSession } from '../context';
import { monthStart } from '../dates';
import { accountOptions, agentTypeOptions, useNames } from '../pickers';
import { AccountName } from '../named';
import { ErrorBox, Field, Named, Paged, PagedSelect, Panel, ShownOnce, Table, useAction, useLoad } from '../ui';

const DAYS = 30;
/** Actions per day per agent, each event once (docs/analytics.md), over the last 30 days. */
const PER_DAY = `SELECT toString(toDate(t)) AS day, agent_instance_id, count() AS actions
FROM (SELECT argMin(ts, ingested_at) AS t, agent_instance_id FROM actions
      WHERE ts >= now() - INTERVAL ${DAYS + 36} DAY GROUP BY agent_instance_id, event_id)
WHERE t >= today() - ${DAYS - 1}
GROUP BY day, agent_instance_id ORDER BY day`;

const COLORS = ['#2563eb', '#16a34a', '#dc2626', '#9333ea', '#ea580c'];

/** Usage per agent over time (the SQL endpoint: admin keys): the 5 busiest agents, a line each. */
function UsageOverTime() {
  const { session } = useSession();
  const rows = useLoad(async () => {
    const text = await fetchText(session.key, '/v1/sql', { method: 'POST', body: JSON.stringify({ query: PER_DAY, format: 'JSONEachRow' }), contentType: 'application/json' });
    return text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { day: string; agent_instance_id: string; actions: string });
  }, []);
  const data = rows.data ?? [];
  const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate());
  const days = Array.from({ length: DAYS }, (_, i) => new Date(today - (DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const totals = new Map<string, number>();
  for (const r of data) totals.set(r.agent_instance_id, (totals.get(r.agent_instance_id) ?? 0) + Number(r.actions));
  const top = [...totals.entries()].sort((a, b) => b[1] - a[1]).slice(0, COLORS.length).map(([id]) => id);
  const series = top.map((id, i) => ({
    label: id,
    color: COLORS[i]!,
    values: days.map((d) => Number(data.find((r) => r.day === d && r.agent_instance_id === id)?.actions ?? 0)),
  }));
  return (
    <Panel title={`Actions per day, busiest agents (last ${DAYS} days)`}>
      <ErrorBox error={rows.error} />
      <TimeChart title="Actions per day per agent" x={days.map((d) => Date.parse(d) / 1000)} series={series} />
    </Panel>
  );
}

type AgentType = { id: string; name: string; description?: string | null };
type Agent = { id: string; name: string; account_id?: string | null; is_active?: boolean };

/** An agent type renamed or described, or deleted (the API refuses one in use). */
function AgentTypeEdit({ type, onChange }: { type: AgentType; onChange: () => void }) {
  const { client } = useSession();
  const [name, setName] = useState(type.name);
  const [description, setDescription] = useState(type.description ?? '');
  const action = useAction();
  const path = { params: { path: { agent_type_id: type.id } } };
  return (
    <form class="actions" aria-label={`Edit agent type ${type.name}`} onSubmit={(e) => (e.preventDefault(), void action.run(async () => void (await must(client.PUT('/api/v1/agent_type/{agent_type_id}', { ...path, body: { name, description: description || null } })), onChange())))}>
      <Field label={`Rename agent type ${type.name} to`} value={name} onInput={setName} />
      <Field label={`Description of agent type ${type.name}`} value={description} onInput={setDescription} />
      <button type="submit" class="small">
        Save
      </button>
      <button type="button" class="small danger" aria-label={`Delete agent type ${type.name}`} onClick={() => confirm(`Delete the agent type ${type.name}?`) && void action.run(async () => void (await must(client.DELETE('/api/v1/agent_type/{agent_type_id}', path)), onChange()))}>
        Delete
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** An agent instance renamed, moved to another customer, (de)activated, or deleted. */
function AgentEdit({ agent, onChange, onSecret }: { agent: Agent; onChange: () => void; onSecret: (s: string) => void }) {
  const { client } = useSession();
  const [name, setName] = useState(agent.name);
  const [account, setAccount] = useState(agent.account_id ?? '');
  const [active, setActive] = useState(agent.is_active !== false);
  const action = useAction();
  const path = { params: { path: { agent_instance_id: agent.id } } };
  return (
    <form class="actions" aria-label={`Edit agent ${agent.name}`} onSubmit={(e) => (e.preventDefault(), void action.run(async () => void (await must(client.PUT('/api/v1/agent_instance/{agent_instance_id}', { ...path, body: { name, account_id: account.trim() || null, is_active: active } })), onChange())))}>
      <Field label={`Rename agent ${agent.name} to`} value={name} onInput={setName} />
      <PagedSelect label={`Customer account of ${agent.name}`} value={account} onChange={setAccount} optional="(no customer)" load={(skip, limit) => accountOptions(client, skip, limit)} />
      <label class="field">
        <span>Active</span>
        <input type="checkbox" name={`active-${agent.id}`} aria-label={`${agent.name} is active`} checked={active} onChange={(e) => setActive((e.target as HTMLInputElement).checked)} />
      </label>
      <button type="submit" class="small">
        Save
      </button>
      <button type="button" class="small" aria-label={`Rotate the secret of ${agent.name}`} onClick={() => void action.run(async () => onSecret((await must(client.POST('/api/v1/agent_instance/{agent_instance_id}/refresh', path))).secret))}>
        Rotate secret
      </button>
      <button type="button" class="small danger" aria-label={`Delete agent ${agent.name}`} onClick={() => confirm(`Delete the agent ${agent.name}?`) && void action.run(async () => void (await must(client.DELETE('/api/v1/agent_instance/{agent_instance_id}', path)), onChange()))}>
        Delete
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** Agents: agent types and instances, their secrets (shown once on create, rotate), usage per agent this month. */
export function Agents() {
  const { client, canWrite, isAdmin } = useSession();
  const [version, setVersion] = useState(0);
  const [typeName, setTypeName] = useState('');
  const [name, setName] = useState('');
  const [typeId, setTypeId] = useState('');
  const [accountId, setAccountId] = useState('');
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const action = useAction();
  const bump = () => setVersion((v) => v + 1);
  const now = new Date();
  const usage = useLoad(() => must(client.GET('/v1/usage', { params: { query: { start_date: monthStart(now).toISOString(), end_date: now.toISOString(), group_by: 'agent' } } })), [version]);
  const agentNames = useNames(client, 'agent', (usage.data?.usage ?? []).map((u) => u.agent_instance_id));
  return (
    <>
      <Panel title="Agent types">
        <Paged
          caption="Agent types"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/agent_type/all', { params: { query: { skip, limit } } }));
            return { items: r.agent_types, total: r.total };
          }}
          columns={[
            ['Name', (t) => t.name],
            ['Description', (t) => t.description ?? ''],
            ['Id', (t) => t.id],
            ...(canWrite ? [['', (t: AgentType) => <AgentTypeEdit key={`${t.id}:${t.name}:${t.description ?? ''}`} type={t} onChange={bump} />] as const] : []),
          ]}
        />
        {canWrite ? (
          <form class="row" onSubmit={(e) => (e.preventDefault(), void action.run(async () => void (await must(client.POST('/api/v1/agent_type/create', { body: { name: typeName } })), setTypeName(''), bump())))}>
            <Field label="Agent type name" value={typeName} onInput={setTypeName} required />
            <button type="submit" disabled={action.busy}>
              Add agent type
            </button>
          </form>
        ) : null}
      </Panel>
      <Panel title="Agent instances">
        <Paged
          caption="Agent instances"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/agent_instance/all', { params: { query: { skip, limit } } }));
            return { items: r.agent_instances, total: r.total };
          }}
          columns={[
            ['Name', (a) => a.name],
            ['Id', (a) => a.id],
            ['Account', (a) => (a.account_id ? <AccountName id={a.account_id} /> : '')],
            ['Active', (a) => (a.is_active ? 'yes' : 'no')],
            ['', (a) => (canWrite ? <AgentEdit key={`${a.id}:${a.name}:${a.account_id ?? ''}:${String(a.is_active)}`} agent={a} onChange={bump} onSecret={setSecret} /> : null)],
          ]}
        />
        {canWrite ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                const a = await must(client.POST('/api/v1/agent_instance/create', { body: { name, agent_type_id: typeId, ...(accountId.trim() ? { account_id: accountId.trim() } : {}) } }));
                setSecret(a.secret);
                setName('');
                bump();
              });
            }}
          >
            <Field label="Agent name" value={name} onInput={setName} required />
            <PagedSelect label="Agent type" value={typeId} onChange={setTypeId} load={(skip, limit) => agentTypeOptions(client, skip, limit)} deps={[version]} />
            <PagedSelect label="Customer account (optional)" value={accountId} onChange={setAccountId} optional="(no customer)" load={(skip, limit) => accountOptions(client, skip, limit)} deps={[version]} />
            <button type="submit" disabled={action.busy}>
              Add agent
            </button>
          </form>
        ) : null}
        <ErrorBox error={action.error} />
        <ShownOnce label="Agent secret" value={secret} />
      </Panel>
      {isAdmin ? <UsageOverTime /> : null}
      <Panel title="Usage per agent this month">
        <ErrorBox error={usage.error} />
        <Table
          rows={usage.data?.usage ?? []}
          csvName="usage-per-agent"
          columns={[
            ['Agent', (u) => <Named id={u.agent_instance_id} name={agentNames.get(u.agent_instance_id ?? '')} />],
            ['Actions', (u) => u.actions],
            ['Outcomes', (u) => u.outcomes],
            ['Outcome value', (u) => u.outcome_value],
            ['Tokens', (u) => u.total_tokens],
          ]}
        />
      </Panel>
    </>
  );
}
