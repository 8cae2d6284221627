import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api';
import { useSession } from '../context';
import { describeMove, describeScheduledMoves, moveLabel } from '../describe';
import { AccountName, PlanName } from '../named';
import { accountOptions, agentOptions, ratePlanOptions } from '../pickers';
import { ErrorBox, Field, Paged, PagedMultiSelect, PagedSelect, Panel, useAction, type Page } from '../ui';
import { AccountView } from './account';

/** The subscription actions each status allows (docs/billing.md). */
const ACTIONS: Readonly<Record<string, readonly ('activate' | 'pause' | 'resume' | 'renew' | 'cancel' | 'change-plan')[]>> = {
  draft: ['activate', 'cancel'],
  active: ['pause', 'renew', 'change-plan', 'cancel'],
  paused: ['resume', 'renew', 'cancel'],
  cancelled: [],
};

const EFFECTIVE_RULE =
  'Effective dates (default now) may not be before the subscription\'s last change (its activation at the earliest) nor before the end of its last issued invoice\'s period; a cancel date may not be before the contract date. The API refuses anything else, naming the field.';

function SubscriptionActions({ sub, onDone }: { sub: Schemas['Subscription']; onDone: (message: string) => void }) {
  const { client } = useSession();
  const [date, setDate] = useState('');
  const [plan, setPlan] = useState('');
  const action = useAction();
  const allowed = ACTIONS[sub.status] ?? [];
  if (allowed.length === 0) return null;
  const path = { params: { path: { subscription_id: sub.id } } };
  const at = date ? new Date(`${date}T00:00:00Z`).toISOString() : undefined;
  const run = (what: (typeof allowed)[number]) =>
    void action.run(async () => {
      const body = at ? { effective_date: at } : {};
      const done =
        what === 'activate'
          ? await must(client.POST('/api/v1/subscription/{subscription_id}/activate', { ...path, body: {} }))
          : what === 'renew'
            ? await must(client.POST('/api/v1/subscription/{subscription_id}/renew', { ...path, body: {} }))
            : what === 'pause'
              ? await must(client.POST('/api/v1/subscription/{subscription_id}/pause', { ...path, body }))
              : what === 'resume'
                ? await must(client.POST('/api/v1/subscription/{subscription_id}/resume', { ...path, body }))
                : what === 'cancel'
                  ? await must(client.POST('/api/v1/subscription/{subscription_id}/cancel', { ...path, body: at ? { cancel_date: at } : {} }))
                  : await must(client.POST('/api/v1/subscription/{subscription_id}/change-plan', { ...path, body: { rate_plan_id: plan, ...body } }));
      onDone(`${sub.id}: ${describeMove(what, done)}`);
    });
  return (
    <div class="actions">
      <Field label="Effective date (empty: now)" type="date" value={date} onInput={setDate} />
      {allowed.includes('change-plan') ? <PagedSelect label={`New rate plan of subscription ${sub.id}`} value={plan} onChange={setPlan} optional="(choose a plan)" load={(skip, limit) => ratePlanOptions(client, skip, limit)} /> : null}
      {allowed.map((a) => (
        <button type="button" class="small" key={a} onClick={() => run(a)} aria-label={`${moveLabel(a)} subscription ${sub.id}`}>
          {moveLabel(a)}
        </button>
      ))}
      <ErrorBox error={action.error} />
    </div>
  );
}

/** A subscription's state changes, newest first, paged. */
function SubscriptionHistory({ id }: { id: string }) {
  const { client } = useSession();
  return (
    <Panel title={`History of ${id}`}>
      <Paged
        caption="Subscription events"
        load={async (skip, limit) => {
          const r = await must(client.GET('/api/v1/subscription/{subscription_id}/events', { params: { path: { subscription_id: id }, query: { skip, limit } } }));
          return { items: r.events, total: r.total };
        }}
        columns={[
          ['Change', (e) => e.type],
          ['From', (e) => e.from_status ?? ''],
          ['To', (e) => e.to_status ?? ''],
          ['Rate plan', (e) => <PlanName id={e.rate_plan_id} />],
          ['Effective', (e) => e.effective_at],
        ]}
      />
    </Panel>
  );
}

/** Customers: accounts, their subscriptions (create, activate, change plan, pause, resume, cancel). */
export function Customers() {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [description, setDescription] = useState('');
  const [accountId, setAccountId] = useState('');
  const [shown, setShown] = useState<string | undefined>(undefined);
  const [history, setHistory] = useState<string | undefined>(undefined);
  const [planId, setPlanId] = useState('');
  const [agentIds, setAgentIds] = useState<string[]>([]);
  const [moved, setMoved] = useState('');
  const action = useAction();
  const bump = () => setVersion((v) => v + 1);
  return (
    <>
      <Panel title="Accounts">
        <Paged
          caption="Accounts"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/account/all', { params: { query: { skip, limit } } }));
            return { items: r.accounts, total: r.total };
          }}
          columns={[
            ['Name', (a) => a.name],
            ['Email', (a) => a.email ?? ''],
            ['Description', (a) => a.description ?? ''],
            ['Id', (a) => a.id],
            [
              '',
              (a) => (
                <button type="button" class="small" onClick={() => (setAccountId(a.id), setShown(a.id))} aria-label={`Open account ${a.name}`}>
                  Open
                </button>
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
                const a = await must(client.POST('/api/v1/account/create', { body: { name, ...(email ? { email } : {}), ...(description ? { description } : {}) } }));
                setAccountId(a.id);
                setShown(a.id);
                setName('');
                setEmail('');
                setDescription('');
                bump();
              });
            }}
          >
            <Field label="Account name" value={name} onInput={setName} required />
            <Field label="Email" type="email" value={email} onInput={setEmail} />
            <Field label="Account description" value={description} onInput={setDescription} />
            <button type="submit" disabled={action.busy}>
              Add account
            </button>
          </form>
        ) : null}
      </Panel>
      {shown ? <AccountView key={shown} accountId={shown} onChange={bump} onDeleted={() => (setShown(undefined), bump())} /> : null}
      <Panel title={shown ? 'Subscriptions of the open account' : 'Subscriptions'}>
        <p class="muted">{EFFECTIVE_RULE}</p>
        <Paged
          caption={shown ? `Subscriptions of account ${shown}` : 'Subscriptions'}
          deps={[version, shown]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/subscription/all', { params: { query: { skip, limit, ...(shown ? { account_id: shown } : {}) } } }));
            return { items: r.subscriptions, total: r.total };
          }}
          columns={[
            ['Id', (s) => s.id],
            ['Account', (s) => <AccountName id={s.account_id} />],
            ['Rate plan', (s) => <PlanName id={s.rate_plan_id} />],
            ['Status', (s) => <span data-testid="sub-status">{s.status}</span>],
            ['Since', (s) => (s.activated_at ?? s.contract_effective_date ?? '').slice(0, 10)],
            ['Scheduled', (s) => <span data-testid="sub-scheduled">{describeScheduledMoves(s, Date.now())}</span>],
            ['History', (s) => <button type="button" class="small" aria-label={`History of subscription ${s.id}`} onClick={() => setHistory(s.id)}>History</button>],
            ['Actions', (s) => (canWrite ? <SubscriptionActions sub={s} onDone={(m) => (setMoved(m), bump())} /> : null)],
          ]}
        />
        {moved ? (
          <p class="ok" role="status" data-testid="sub-moved">
            {moved}
          </p>
        ) : null}
        {canWrite ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                const s = await must(client.POST('/api/v1/subscription/create', { body: { account_id: accountId, rate_plan_id: planId, agent_instance_ids: agentIds } }));
                await must(client.POST('/api/v1/subscription/{subscription_id}/activate', { params: { path: { subscription_id: s.id } }, body: {} }));
                bump();
              });
            }}
          >
            <PagedSelect label="Account" value={accountId} onChange={(v) => (setAccountId(v), setAgentIds([]))} load={(skip, limit) => accountOptions(client, skip, limit)} deps={[version]} />
            <PagedSelect label="Rate plan" value={planId} onChange={setPlanId} load={(skip, limit) => ratePlanOptions(client, skip, limit)} />
            <PagedMultiSelect label="Agents of that account (optional; Ctrl or Shift to choose several)" values={agentIds} onChange={setAgentIds} load={(skip, limit): Promise<Page<readonly [string, string]>> => (accountId ? agentOptions(client, skip, limit, accountId) : Promise.resolve({ items: [], total: 0 }))} deps={[accountId]} />
            <button type="submit" disabled={action.busy}>
              Subscribe (created and activated now)
            </button>
          </form>
        ) : null}
        <ErrorBox error={action.error} />
      </Panel>
      {history ? <SubscriptionHistory key={`${history}:${version}`} id={history} /> : null}
    </>
  );
}
