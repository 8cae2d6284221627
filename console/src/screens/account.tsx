import { useState } from 'preact/hooks';
import { must } from '../api';
import { useSession } from '../context';
import { ErrorBox, Field, Paged, Panel, RecordTable, Select, useAction, useLoad } from '../ui';

/** One account: contacts, credit balances, grants (with metadata) and the credit ledger. */
export function AccountView({ accountId }: { accountId: string }) {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  const account = useLoad(() => must(client.GET('/api/v1/account/{account_id}', { params: { path: { account_id: accountId } } })), [accountId]);
  const balance = useLoad(() => must(client.GET('/api/v1/account/{account_id}/credit-balance', { params: { path: { account_id: accountId }, query: {} } })), [accountId, version]);
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [email, setEmail] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [kind, setKind] = useState<'free' | 'paid'>('free');
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const action = useAction();
  const path = { account_id: accountId };
  return (
    <Panel title={`Account: ${account.data?.name ?? accountId}`}>
      <ErrorBox error={account.error} />
      <p class="muted">{account.data?.description ?? ''}</p>
      <div class="two">
        <div>
          <Paged
            caption="Contacts"
            deps={[accountId, version]}
            load={async (skip, limit) => {
              const r = await must(client.GET('/api/v1/contact/all', { params: { query: { skip, limit, account_id: accountId } } }));
              return { items: r.contacts, total: r.total };
            }}
            columns={[
              ['Name', (c) => `${c.first_name} ${c.last_name}`],
              ['Email', (c) => c.email],
              ['Role', (c) => c.role ?? ''],
            ]}
          />
          {canWrite ? (
            <form class="row" onSubmit={(e) => (e.preventDefault(), void action.run(async () => void (await must(client.POST('/api/v1/contact/create', { body: { first_name: first, last_name: last, email, account_id: accountId } })), bump())))}>
              <Field label="First name" value={first} onInput={setFirst} required />
              <Field label="Last name" value={last} onInput={setLast} required />
              <Field label="Contact email" type="email" value={email} onInput={setEmail} required />
              <button type="submit" disabled={action.busy}>
                Add contact
              </button>
            </form>
          ) : null}
        </div>
        <div>
          <ErrorBox error={balance.error} />
          <RecordTable rows={(balance.data?.balances ?? []) as Record<string, unknown>[]} csvName="credit-balance" caption="Credit balance now" />
          {canWrite ? (
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                void action.run(async () => {
                  await must(client.POST('/api/v1/credit/grants/create', { body: { account_id: accountId, currency, kind, amount, ...(kind === 'paid' ? { price: amount } : {}), ...(note ? { metadata: { note } } : {}) } }));
                  setAmount('');
                  bump();
                });
              }}
            >
              <Field label="Grant currency" value={currency} onInput={(v) => setCurrency(v.toUpperCase())} />
              <Select label="Grant kind" value={kind} onChange={(v) => setKind(v as 'free')} options={[['free', 'free'], ['paid', 'paid (invoiced)']]} />
              <Field label="Grant amount" value={amount} onInput={setAmount} required />
              <Field label="Grant note (metadata)" value={note} onInput={setNote} />
              <button type="submit" disabled={action.busy}>
                Grant credits
              </button>
            </form>
          ) : null}
        </div>
      </div>
      <ErrorBox error={action.error} />
      <Paged
        caption="Credit grants"
        deps={[accountId, version]}
        load={async (skip, limit) => {
          const r = await must(client.GET('/api/v1/credit/grants', { params: { query: { skip, limit, account_id: accountId } } }));
          return { items: r.grants as Record<string, unknown>[], total: r.total };
        }}
        columns={[
          ['Kind', (g) => String(g.kind ?? '')],
          ['Amount', (g) => `${String(g.amount ?? '')} ${String(g.currency ?? '')}`],
          ['Remaining', (g) => String(g.remaining ?? '')],
          ['Status', (g) => String(g.status ?? '')],
          ['Metadata', (g) => JSON.stringify(g.metadata ?? {})],
        ]}
      />
      <Paged
        caption="Credit ledger"
        deps={[accountId, version]}
        load={async (skip, limit) => {
          const r = await must(client.GET('/api/v1/credit/entries', { params: { query: { skip, limit, account_id: accountId } } }));
          return { items: r.entries, total: r.total };
        }}
        columns={[
          ['When', (e) => e.occurred_at],
          ['Type', (e) => e.type],
          ['Amount', (e) => `${e.amount} ${e.currency}`],
          ['Grant', (e) => e.grant_id],
          ['Reason', (e) => e.reason ?? ''],
        ]}
      />
    </Panel>
  );
}
