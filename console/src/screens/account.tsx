import { useState } from 'preact/hooks';
import { must } from '../api';
import { useSession } from '../context';
import { ErrorBox, Field, Paged, Panel, RecordTable, Select, useAction, useLoad } from '../ui';
import { BalanceChart, GrantCorrection, Limits, TopUps } from './credits';

type Contact = { id: string; first_name: string; last_name: string; email: string; role?: 'billing' | 'technical' | null };

/** A contact's fields edited in place, or the contact deleted. */
function ContactEdit({ contact, onChange }: { contact: Contact; onChange: () => void }) {
  const { client } = useSession();
  const [first, setFirst] = useState(contact.first_name);
  const [last, setLast] = useState(contact.last_name);
  const [email, setEmail] = useState(contact.email);
  const action = useAction();
  const path = { params: { path: { contact_id: contact.id } } };
  const who = `${contact.first_name} ${contact.last_name}`;
  return (
    <form class="actions" aria-label={`Edit contact ${who}`} onSubmit={(e) => (e.preventDefault(), void action.run(async () => void (await must(client.PUT('/api/v1/contact/{contact_id}', { ...path, body: { first_name: first, last_name: last, email } })), onChange())))}>
      <Field label={`First name of ${who}`} value={first} onInput={setFirst} />
      <Field label={`Last name of ${who}`} value={last} onInput={setLast} />
      <Field label={`Email of ${who}`} type="email" value={email} onInput={setEmail} />
      <button type="submit" class="small">
        Save
      </button>
      <button type="button" class="small danger" aria-label={`Delete contact ${who}`} onClick={() => confirm(`Delete the contact ${who}?`) && void action.run(async () => void (await must(client.DELETE('/api/v1/contact/{contact_id}', path)), onChange()))}>
        Delete
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** The account's name, email and description edited, or the account deleted (the API refuses one still in use). */
function AccountEdit({ account, onChange, onDeleted }: { account: { id: string; name: string; email?: string | null; description?: string | null }; onChange: () => void; onDeleted: () => void }) {
  const { client } = useSession();
  const [name, setName] = useState(account.name);
  const [email, setEmail] = useState(account.email ?? '');
  const [description, setDescription] = useState(account.description ?? '');
  const action = useAction();
  const path = { params: { path: { account_id: account.id } } };
  return (
    <form
      class="row"
      aria-label="Edit the account"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          await must(client.PUT('/api/v1/account/{account_id}', { ...path, body: { name, email: email.trim() || null, description: description.trim() || null } }));
          onChange();
        });
      }}
    >
      <Field label="Rename account to" value={name} onInput={setName} required />
      <Field label="Billing email" type="email" value={email} onInput={setEmail} />
      <Field label="Notes (description)" value={description} onInput={setDescription} />
      <button type="submit" disabled={action.busy}>
        Save account
      </button>
      <button type="button" class="danger small" onClick={() => confirm(`Delete the account ${account.name}?`) && void action.run(async () => void (await must(client.DELETE('/api/v1/account/{account_id}', path)), onDeleted()))}>
        Delete account
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** One account: contacts, credit balances, grants (with metadata) and the credit ledger. */
export function AccountView({ accountId, onChange, onDeleted }: { accountId: string; onChange: () => void; onDeleted: () => void }) {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  const account = useLoad(() => must(client.GET('/api/v1/account/{account_id}', { params: { path: { account_id: accountId } } })), [accountId, version]);
  const balance = useLoad(() => must(client.GET('/api/v1/account/{account_id}/credit-balance', { params: { path: { account_id: accountId }, query: {} } })), [accountId, version]);
  const [first, setFirst] = useState('');
  const [last, setLast] = useState('');
  const [email, setEmail] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [kind, setKind] = useState<'free' | 'paid'>('free');
  const [usable, setUsable] = useState<'on_payment' | 'immediately'>('on_payment');
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const action = useAction();
  const path = { account_id: accountId };
  return (
    <Panel title={`Account: ${account.data?.name ?? accountId}`}>
      <ErrorBox error={account.error} />
      <p class="muted">{account.data?.description ?? ''}</p>
      {canWrite && account.data ? <AccountEdit key={account.data.updated_at ?? account.data.name} account={account.data} onChange={() => (bump(), onChange())} onDeleted={onDeleted} /> : null}
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
              ...(canWrite ? [['', (c: Contact) => <ContactEdit key={`${c.id}:${c.email}:${c.first_name}:${c.last_name}`} contact={c} onChange={bump} />] as const] : []),
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
          <BalanceChart accountId={accountId} version={version} />
          {canWrite ? (
            <form
              class="row"
              onSubmit={(e) => {
                e.preventDefault();
                void action.run(async () => {
                  await must(client.POST('/api/v1/credit/grants/create', { body: { account_id: accountId, currency, kind, amount, ...(kind === 'paid' ? { price: amount, usable } : {}), ...(note ? { metadata: { note } } : {}) } }));
                  setAmount('');
                  bump();
                });
              }}
            >
              <Field label="Grant currency" value={currency} onInput={(v) => setCurrency(v.toUpperCase())} />
              <Select label="Grant kind" value={kind} onChange={(v) => setKind(v as 'free')} options={[['free', 'free'], ['paid', 'paid (invoiced)']]} />
              {kind === 'paid' ? <Select label="Usable" value={usable} onChange={(v) => setUsable(v as 'on_payment')} options={[['on_payment', 'once its purchase invoice is paid'], ['immediately', 'immediately']]} /> : null}
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
          ['Id', (g) => String(g.id ?? '')],
          ['Kind', (g) => String(g.kind ?? '')],
          ['Amount', (g) => `${String(g.amount ?? '')} ${String(g.currency ?? '')}`],
          ['Remaining', (g) => String(g.remaining ?? '')],
          ['Status', (g) => String(g.status ?? '')],
          ['Metadata', (g) => JSON.stringify(g.metadata ?? {})],
        ]}
      />
      {canWrite ? <GrantCorrection onChange={bump} /> : null}
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
      <TopUps accountId={accountId} version={version} onChange={bump} />
      <Limits accountId={accountId} />
    </Panel>
  );
}
