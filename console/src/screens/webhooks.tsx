import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api';
import { useSession } from '../context';
import { timeText } from '../dates';
import { describeAttempt } from '../describe';
import { ErrorBox, Field, Paged, Panel, ShownOnce, useAction } from '../ui';

/** When the latest attempt started ('' before the first). */
function lastAttempt(attempts: readonly { attempt: number; started_at: string }[]): string | undefined {
  return attempts.reduce<{ attempt: number; started_at: string } | undefined>((last, a) => (!last || a.attempt > last.attempt ? a : last), undefined)?.started_at;
}

function Deliveries({ hook }: { hook: Schemas['WebhookEndpoint'] }) {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const [outcome, setOutcome] = useState('');
  const action = useAction();
  const send = (what: string, go: () => Promise<Parameters<typeof describeAttempt>[0]>) =>
    void action.run(async () => {
      setOutcome('');
      setOutcome(`${what}: ${describeAttempt(await go())}.`);
      setVersion((v) => v + 1);
    });
  return (
    <Panel title={`Deliveries to ${hook.url}`}>
      {canWrite ? (
        <button type="button" class="small" onClick={() => send('Test event', () => must(client.POST('/v1/webhooks/test', { body: { webhook_id: hook.id, event: 'invoice.created' } })))}>
          Send a test event
        </button>
      ) : null}
      {outcome ? (
        <p class="ok" role="status" data-testid="delivery-outcome">
          {outcome}
        </p>
      ) : null}
      <ErrorBox error={action.error} />
      <Paged
        caption="Deliveries"
        deps={[hook.id, version]}
        load={async (skip, limit) => {
          const r = await must(client.GET('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: hook.id }, query: { skip, limit } } }));
          return { items: r.deliveries, total: r.total };
        }}
        columns={[
          ['Event', (d) => d.event],
          ['Created', (d) => timeText(d.created_at)],
          ['Status', (d) => <span data-testid="delivery-status">{d.status}</span>],
          ['Attempts', (d) => String(d.attempt_count ?? '')],
          ['Last attempt', (d) => <span data-testid="delivery-time">{timeText(lastAttempt(d.attempts))}</span>],
          ['Delivered', (d) => timeText(d.delivered_at)],
          ['Next attempt', (d) => timeText(d.next_attempt_at)],
          ['Last code', (d) => String(d.last_status_code ?? '')],
          ['Error', (d) => d.last_error ?? ''],
          ['', (d) => (canWrite ? <button type="button" class="small" aria-label={`Resend delivery ${d.id}`} onClick={() => send(`Resent ${d.event}`, () => must(client.POST('/api/v1/webhook_deliveries/{delivery_id}/resend', { params: { path: { delivery_id: d.id } } })))}>Resend</button> : null)],
        ]}
      />
    </Panel>
  );
}

/** Webhooks: endpoints (create, rotate secret, delete), deliveries, resend, test event. */
export function Webhooks() {
  const { client, canWrite } = useSession();
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState('*');
  const [description, setDescription] = useState('');
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [selected, setSelected] = useState<Schemas['WebhookEndpoint'] | undefined>(undefined);
  const [version, setVersion] = useState(0);
  const action = useAction();
  return (
    <>
      <Panel title="Endpoints">
        <Paged
          caption="Webhook endpoints"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/webhooks', { params: { query: { skip, limit } } }));
            return { items: r.webhooks, total: r.total };
          }}
          columns={[
            ['URL', (w) => <button type="button" class="link" onClick={() => setSelected(w)}>{w.url}</button>],
            ['Events', (w) => w.events.join(', ')],
            ['Description', (w) => w.description ?? ''],
            ['Active', (w) => (w.is_active ? 'yes' : 'no')],
            ['Secret', (w) => w.secret_hint ?? ''],
            [
              '',
              (w) =>
                canWrite ? (
                  <span class="actions">
                    <button type="button" class="small" aria-label={`Rotate the secret of ${w.url}`} onClick={() => void action.run(async () => setSecret((await must(client.POST('/api/v1/webhooks/{webhook_id}/rotate-secret', { params: { path: { webhook_id: w.id } }, body: {} }))).secret))}>
                      Rotate secret
                    </button>
                    <button type="button" class="small danger" aria-label={`Delete ${w.url}`} onClick={() => confirm('Delete this endpoint?') && void action.run(async () => void (await must(client.DELETE('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: w.id } } })), setVersion((v) => v + 1)))}>
                      Delete
                    </button>
                  </span>
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
                const list = events.split(',').map((s) => s.trim()).filter(Boolean);
                const w = await must(client.POST('/api/v1/webhooks', { body: { url, events: list as never, ...(description ? { description } : {}) } }));
                setSecret(w.secret);
                // Cleared once added: a second click adds nothing twice.
                setUrl('');
                setEvents('*');
                setDescription('');
                setVersion((v) => v + 1);
              });
            }}
          >
            <Field label="URL" type="url" value={url} onInput={setUrl} required />
            <Field label="Events (comma-separated, * for all)" value={events} onInput={setEvents} />
            <Field label="Webhook description" value={description} onInput={setDescription} />
            <button type="submit" disabled={action.busy}>
              Add endpoint
            </button>
          </form>
        ) : null}
        <ErrorBox error={action.error} />
        <ShownOnce label="Signing secret" value={secret} />
      </Panel>
      {selected ? <Deliveries key={selected.id} hook={selected} /> : null}
    </>
  );
}
