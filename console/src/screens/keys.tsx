import { useState } from 'preact/hooks';
import { must } from '../api';
import { useSession } from '../context';
import { timeText } from '../dates';
import { ErrorBox, Field, Paged, Panel, Select, ShownOnce, useAction } from '../ui';

/** A key's name and rate limit changed in place (empty: the default rate limit). */
function KeyEdit({ apiKey, onChange }: { apiKey: { id: string; name: string; rate_limit_per_minute?: number | null }; onChange: () => void }) {
  const { client } = useSession();
  const [rate, setRate] = useState(apiKey.rate_limit_per_minute == null ? '' : String(apiKey.rate_limit_per_minute));
  const action = useAction();
  return (
    <form class="actions" aria-label={`Rate limit of ${apiKey.name}`} onSubmit={(e) => (e.preventDefault(), void action.run(async () => void (await must(client.PUT('/api/v1/api_keys/{key_id}', { params: { path: { key_id: apiKey.id } }, body: { rate_limit_per_minute: rate.trim() ? Number.parseInt(rate, 10) : null } })), onChange())))}>
      <Field label={`Rate limit per minute of ${apiKey.name}`} type="number" value={rate} onInput={setRate} />
      <button type="submit" class="small" aria-label={`Save the rate limit of ${apiKey.name}`}>
        Save
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** Settings → API keys: create (permission, rate limit), rotate, revoke. Admin keys only. */
export function Keys() {
  const { client, isAdmin } = useSession();
  const [name, setName] = useState('');
  const [permission, setPermission] = useState<'read-only' | 'read-write' | 'admin' | 'sdk'>('read-only');
  const [rate, setRate] = useState('');
  const [shown, setShown] = useState<string | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const action = useAction();
  if (!isAdmin) return <p class="muted">API keys are managed with an admin key.</p>;
  const done = (key: string) => {
    setShown(key);
    setVersion((v) => v + 1);
  };
  return (
    <>
      <Panel title="Create a key">
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const body = { name, permission, ...(rate.trim() ? { rate_limit_per_minute: Number.parseInt(rate, 10) } : {}) };
              done((await must(client.POST('/api/v1/api_keys', { body }))).key);
              setName('');
            });
          }}
        >
          <Field label="Name" value={name} onInput={setName} required />
          <Select label="Permission" value={permission} onChange={(v) => setPermission(v as typeof permission)} options={[['read-only', 'read-only'], ['read-write', 'read-write'], ['admin', 'admin'], ['sdk', 'sdk (events only)']]} />
          <Field label="Rate limit per minute (empty: default)" type="number" value={rate} onInput={setRate} />
          <button type="submit" disabled={action.busy}>
            Create key
          </button>
        </form>
        <ErrorBox error={action.error} />
        <ShownOnce label="New key" value={shown} />
      </Panel>
      <Panel title="Keys">
        <Paged
          caption="API keys"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/api_keys', { params: { query: { skip, limit } } }));
            return { items: r.api_keys, total: r.total };
          }}
          columns={[
            ['Name', (k) => k.name],
            ['Permission', (k) => k.permission],
            ['Prefix', (k) => <code>{k.prefix}</code>],
            ['Status', (k) => k.status],
            ['Expires', (k) => (k.status === 'revoked' ? 'revoked' : timeText(k.expires_at))],
            ['Rate limit', (k) => (k.status === 'revoked' || k.status === 'expired' ? String(k.rate_limit_per_minute ?? 'default') : <KeyEdit key={`${k.id}:${String(k.rate_limit_per_minute)}`} apiKey={k} onChange={() => setVersion((v) => v + 1)} />)],
            [
              'Actions',
              (k) =>
                k.status === 'revoked' || k.status === 'expired' ? null : (
                  <span class="actions">
                    <button type="button" class="small" aria-label={`Rotate ${k.name}`} onClick={() => void action.run(async () => done((await must(client.POST('/api/v1/api_keys/{key_id}/rotate', { params: { path: { key_id: k.id } } }))).key))}>
                      Rotate
                    </button>
                    <button
                      type="button"
                      class="small"
                      aria-label={`Rotate ${k.name} and revoke the old key now`}
                      onClick={() =>
                        void action.run(async () => {
                          const r = await must(client.POST('/api/v1/api_keys/{key_id}/rotate', { params: { path: { key_id: k.id } } }));
                          await must(client.DELETE('/api/v1/api_keys/{key_id}', { params: { path: { key_id: k.id } } }));
                          done(r.key);
                        })
                      }
                    >
                      Rotate, revoke old now
                    </button>
                    <button
                      type="button"
                      class="small danger"
                      aria-label={`Revoke ${k.name}`}
                      onClick={() =>
                        confirm(`Revoke the key "${k.name}" now?`) &&
                        void action.run(async () => {
                          await must(client.DELETE('/api/v1/api_keys/{key_id}', { params: { path: { key_id: k.id } } }));
                          setVersion((v) => v + 1);
                        })
                      }
                    >
                      Revoke
                    </button>
                  </span>
                ),
            ],
          ]}
        />
      </Panel>
    </>
  );
}
