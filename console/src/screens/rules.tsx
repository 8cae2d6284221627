import { useState } from 'preact/hooks';
import { must } from '../api';
import { useSession } from '../context';
import { ErrorBox, Field, Panel, RecordTable, Table, useAction, useLoad } from '../ui';

type Tag = { action_name: string; description?: string | null };

/** The tagged actions: the set shown, an action added or removed, the whole set saved (PUT replaces it). */
function TaggedActions() {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const tagged = useLoad(() => must(client.GET('/api/v1/tagged_actions')), [version]);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const current: Tag[] = (tagged.data?.tagged_actions ?? []).map((t) => ({ action_name: t.action_name, description: t.description ?? null }));
  const save = (next: Tag[]) =>
    void action.run(async () => {
      await must(client.PUT('/api/v1/tagged_actions', { body: { tagged_actions: next } }));
      setVersion((v) => v + 1);
    });
  return (
    <Panel title="Tagged actions">
      <ErrorBox error={tagged.error ?? action.error} />
      <Table
        rows={current}
        csvName="tagged-actions"
        columns={[
          ['Action', (t) => t.action_name],
          ['Description', (t) => t.description ?? ''],
          ['', (t) => (canWrite ? <button type="button" class="small danger" aria-label={`Untag ${t.action_name}`} onClick={() => save(current.filter((c) => c.action_name !== t.action_name))}>Untag</button> : null)],
        ]}
      />
      {canWrite ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            save([...current, { action_name: name.trim(), description: description.trim() || null }]);
            setName('');
            setDescription('');
          }}
        >
          <Field label="Action to tag" value={name} onInput={setName} required />
          <Field label="Tag description" value={description} onInput={setDescription} />
          <button type="submit" disabled={action.busy}>
            Tag action
          </button>
        </form>
      ) : null}
    </Panel>
  );
}

/** Costs and outcome rules (shown), and the tagged actions (edited). */
export function Rules() {
  const { client } = useSession();
  const cost = useLoad(() => must(client.GET('/v1/cost_rules', { params: { query: {} } })), []);
  const outcome = useLoad(() => must(client.GET('/api/v1/outcome_rules', { params: { query: {} } })), []);
  return (
    <>
      <Panel title="Cost rules">
        <ErrorBox error={cost.error} />
        <RecordTable rows={(cost.data?.cost_rules ?? []) as Record<string, unknown>[]} csvName="cost-rules" />
      </Panel>
      <Panel title="Outcome rules">
        <ErrorBox error={outcome.error} />
        <RecordTable rows={(outcome.data?.outcome_rules ?? []) as Record<string, unknown>[]} csvName="outcome-rules" />
      </Panel>
      <TaggedActions />
    </>
  );
}
