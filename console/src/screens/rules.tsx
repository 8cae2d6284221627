import { useState } from 'preact/hooks';
import { must } from '../api';
import { useSession } from '../context';
import { ErrorBox, Field, Panel, RecordTable, Select, Table, useAction, useLoad } from '../ui';

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

type Category = 'llm' | 'api' | 'infrastructure';
type Basis = 'per_input_token' | 'per_output_token' | 'per_total_token' | 'per_api_call' | 'per_action' | 'per_unit' | 'per_cache_read_token' | 'per_cache_write_token' | 'per_reasoning_token';
const BASES: readonly Basis[] = ['per_action', 'per_api_call', 'per_unit', 'per_input_token', 'per_output_token', 'per_total_token', 'per_cache_read_token', 'per_cache_write_token', 'per_reasoning_token'];

/** Cost rules: listed, created (a flat rate on a basis, optionally for one action type), deleted. */
function CostRules() {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const cost = useLoad(() => must(client.GET('/v1/cost_rules', { params: { query: {} } })), [version]);
  const [name, setName] = useState('');
  const [category, setCategory] = useState<Category>('llm');
  const [basis, setBasis] = useState<Basis>('per_action');
  const [rate, setRate] = useState('');
  const [currency, setCurrency] = useState('USD');
  const [actionType, setActionType] = useState('');
  const action = useAction();
  const bump = () => setVersion((v) => v + 1);
  return (
    <Panel title="Cost rules">
      <ErrorBox error={cost.error ?? action.error} />
      <Table
        rows={cost.data?.cost_rules ?? []}
        csvName="cost-rules"
        columns={[
          ['Name', (r) => r.name],
          ['Category', (r) => r.category],
          ['Basis', (r) => r.basis],
          ['Rate', (r) => `${r.rate ?? ''} ${r.currency}`],
          ['Action type', (r) => r.action_type ?? 'any'],
          ['From', (r) => r.effective_from ?? ''],
          ['', (r) => (canWrite ? <button type="button" class="small danger" aria-label={`Delete cost rule ${r.name}`} onClick={() => confirm(`Delete the cost rule "${r.name}"?`) && void action.run(async () => void (await must(client.DELETE('/v1/cost_rules/{rule_id}', { params: { path: { rule_id: r.id } } })), bump()))}>Delete</button> : null)],
        ]}
      />
      {canWrite ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              await must(client.POST('/v1/cost_rules', { body: { name, category, basis, rate: rate.trim(), currency, ...(actionType.trim() ? { action_type: actionType.trim() } : {}) } }));
              setName('');
              bump();
            });
          }}
        >
          <Field label="Cost rule name" value={name} onInput={setName} required />
          <Select label="Category" value={category} onChange={(v) => setCategory(v as Category)} options={[['llm', 'LLM'], ['api', 'API'], ['infrastructure', 'infrastructure']]} />
          <Select label="Basis" value={basis} onChange={(v) => setBasis(v as Basis)} options={BASES.map((b) => [b, b.replace(/_/g, ' ')] as const)} />
          <Field label="Rate" value={rate} onInput={setRate} required />
          <Field label="Cost currency" value={currency} onInput={(v) => setCurrency(v.toUpperCase())} />
          <Field label="Only for action type (optional)" value={actionType} onInput={setActionType} />
          <button type="submit" disabled={action.busy}>
            Add cost rule
          </button>
        </form>
      ) : null}
    </Panel>
  );
}

/** Cost rules (created, deleted), outcome rules (shown), and the tagged actions (edited). */
export function Rules() {
  const { client } = useSession();
  const outcome = useLoad(() => must(client.GET('/api/v1/outcome_rules', { params: { query: {} } })), []);
  return (
    <>
      <CostRules />
      <Panel title="Outcome rules">
        <ErrorBox error={outcome.error} />
        <RecordTable rows={(outcome.data?.outcome_rules ?? []) as Record<string, unknown>[]} csvName="outcome-rules" />
      </Panel>
      <TaggedActions />
    </>
  );
}
