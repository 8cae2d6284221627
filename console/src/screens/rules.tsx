import { useState } from 'preact/hooks';
import { must } from '../api';
import { useSession } from '../context';
import { pairsText, parsePairs } from '../pairs';
import { ErrorBox, Field, Panel, RecordTable, Select, Table, useAction, useLoad } from '../ui';

type Tag = { name: string; description: string | null };

/**
 * Tagged actions or outcomes: the set shown, one added or removed, the whole set saved
 * (PUT replaces it).
 */
function Tagged({ kind }: { kind: 'action' | 'outcome' }) {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const tagged = useLoad(async (): Promise<Tag[]> => {
    if (kind === 'action') return (await must(client.GET('/api/v1/tagged_actions'))).tagged_actions.map((t) => ({ name: t.action_name, description: t.description ?? null }));
    return (await must(client.GET('/api/v1/tagged_outcomes'))).tagged_outcomes.map((t) => ({ name: t.outcome_name, description: t.description ?? null }));
  }, [version]);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const action = useAction();
  const current = tagged.data ?? [];
  const save = (next: Tag[]) =>
    void action.run(async () => {
      if (kind === 'action') await must(client.PUT('/api/v1/tagged_actions', { body: { tagged_actions: next.map((t) => ({ action_name: t.name, description: t.description })) } }));
      else await must(client.PUT('/api/v1/tagged_outcomes', { body: { tagged_outcomes: next.map((t) => ({ outcome_name: t.name, description: t.description })) } }));
      setVersion((v) => v + 1);
    });
  const Kind = kind === 'action' ? 'Action' : 'Outcome';
  return (
    <Panel title={`Tagged ${kind}s`}>
      <ErrorBox error={tagged.error ?? action.error} />
      <Table
        rows={current}
        csvName={`tagged-${kind}s`}
        columns={[
          [Kind, (t) => t.name],
          ['Description', (t) => t.description ?? ''],
          ['', (t) => (canWrite ? <button type="button" class="small danger" aria-label={`Untag ${t.name}`} onClick={() => save(current.filter((c) => c.name !== t.name))}>Untag</button> : null)],
        ]}
      />
      {canWrite ? (
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault();
            save([...current, { name: name.trim(), description: description.trim() || null }]);
            setName('');
            setDescription('');
          }}
        >
          <Field label={`${Kind} to tag`} value={name} onInput={setName} required />
          <Field label={`${Kind} tag description`} value={description} onInput={setDescription} />
          <button type="submit" disabled={action.busy}>
            Tag {kind}
          </button>
        </form>
      ) : null}
    </Panel>
  );
}

type Category = 'llm' | 'api' | 'infrastructure';
type Basis = 'per_input_token' | 'per_output_token' | 'per_total_token' | 'per_api_call' | 'per_action' | 'per_unit' | 'per_cache_read_token' | 'per_cache_write_token' | 'per_reasoning_token';
const BASES: readonly Basis[] = ['per_action', 'per_api_call', 'per_unit', 'per_input_token', 'per_output_token', 'per_total_token', 'per_cache_read_token', 'per_cache_write_token', 'per_reasoning_token'];

type CostRule = { id: string; name: string; rate?: string | null; model_rates?: Record<string, unknown> | null; action_type?: string | null };

/** A cost rule's name, rate, per-model rates and action type changed (a new version from now), as the API's PUT takes them. */
function CostRuleEdit({ rule, onChange }: { rule: CostRule; onChange: () => void }) {
  const { client } = useSession();
  const [name, setName] = useState(rule.name);
  const [rate, setRate] = useState(rule.rate ?? '');
  const [models, setModels] = useState(pairsText(rule.model_rates, false));
  const [actionType, setActionType] = useState(rule.action_type ?? '');
  const [open, setOpen] = useState(false);
  const action = useAction();
  if (!open)
    return (
      <button type="button" class="small" aria-label={`Edit cost rule ${rule.name}`} onClick={() => setOpen(true)}>
        Edit
      </button>
    );
  return (
    <form
      class="actions"
      aria-label={`Edit cost rule ${rule.name}`}
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const body = { name, rate: rate.trim() || null, model_rates: parsePairs(models, false) as Record<string, string>, action_type: actionType.trim() || null };
          await must(client.PUT('/v1/cost_rules/{rule_id}', { params: { path: { rule_id: rule.id } }, body }));
          setOpen(false);
          onChange();
        });
      }}
    >
      <Field label={`Name of cost rule ${rule.name}`} value={name} onInput={setName} required />
      <Field label={`Rate of ${rule.name}`} value={rate} onInput={setRate} />
      <label class="field">
        <span>Per-model rates (model=rate a line)</span>
        <textarea name={`model-rates-${rule.id}`} aria-label={`Per-model rates of ${rule.name}`} rows={2} value={models} onInput={(e) => setModels((e.target as HTMLTextAreaElement).value)} />
      </label>
      <Field label={`Action type of ${rule.name} (empty: any)`} value={actionType} onInput={setActionType} />
      <button type="submit" class="small">
        Save
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

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
          ['Model rates', (r) => pairsText(r.model_rates as Record<string, unknown> | null | undefined, false).replace(/\n/g, ', ')],
          ['Action type', (r) => r.action_type ?? 'any'],
          ['From', (r) => r.effective_from ?? ''],
          ['', (r) => (canWrite ? <CostRuleEdit key={`${r.id}:${r.name}:${r.rate ?? ''}`} rule={r as CostRule} onChange={bump} /> : null)],
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

type OutcomeRule = { id: string; name: string; action_type: string; outcome_type: string; value?: string | null; value_field?: string | null; metadata_match?: Record<string, unknown> | null; effective_from?: string | null };

/** Outcome rules: listed, created, changed (a new version from now), ended (DELETE ends the rule now). */
function OutcomeRules() {
  const { client, canWrite } = useSession();
  const [version, setVersion] = useState(0);
  const rules = useLoad(() => must(client.GET('/api/v1/outcome_rules', { params: { query: {} } })), [version]);
  const [editing, setEditing] = useState<OutcomeRule | undefined>(undefined);
  const [name, setName] = useState('');
  const [actionType, setActionType] = useState('');
  const [outcomeType, setOutcomeType] = useState('');
  const [value, setValue] = useState('1');
  const [match, setMatch] = useState('');
  const action = useAction();
  const bump = () => setVersion((v) => v + 1);
  const edit = (r: OutcomeRule | undefined) => {
    setEditing(r);
    setName(r?.name ?? '');
    setActionType(r?.action_type ?? '');
    setOutcomeType(r?.outcome_type ?? '');
    setValue(r?.value ?? '1');
    setMatch(pairsText(r?.metadata_match, true));
  };
  return (
    <Panel title="Outcome rules">
      <ErrorBox error={rules.error ?? action.error} />
      <Table
        rows={(rules.data?.outcome_rules ?? []) as OutcomeRule[]}
        csvName="outcome-rules"
        columns={[
          ['Name', (r) => r.name],
          ['When action', (r) => r.action_type],
          ['Metadata match', (r) => pairsText(r.metadata_match, true).replace(/\n/g, ', ')],
          ['Outcome', (r) => r.outcome_type],
          ['Value', (r) => r.value_field ? `metadata.${r.value_field}` : (r.value ?? '')],
          ['From', (r) => r.effective_from ?? ''],
          [
            '',
            (r) =>
              canWrite ? (
                <span class="actions">
                  <button type="button" class="small" aria-label={`Edit outcome rule ${r.name}`} onClick={() => edit(r)}>
                    Edit
                  </button>
                  <button type="button" class="small danger" aria-label={`End outcome rule ${r.name}`} onClick={() => confirm(`End the outcome rule "${r.name}" now?`) && void action.run(async () => void (await must(client.DELETE('/api/v1/outcome_rules/{rule_id}', { params: { path: { rule_id: r.id } } })), bump()))}>
                    End
                  </button>
                </span>
              ) : null,
          ],
        ]}
      />
      {canWrite ? (
        <form
          class="row"
          aria-label={editing ? `Change outcome rule ${editing.name}` : 'Add an outcome rule'}
          onSubmit={(e) => {
            e.preventDefault();
            void action.run(async () => {
              const metadata_match = parsePairs(match, true);
              const body = { name, action_type: actionType.trim(), outcome_type: outcomeType.trim(), value: value.trim() || '1', metadata_match };
              if (editing) await must(client.PUT('/api/v1/outcome_rules/{rule_id}', { params: { path: { rule_id: editing.id } }, body }));
              else await must(client.POST('/api/v1/outcome_rules', { body }));
              edit(undefined);
              bump();
            });
          }}
        >
          <Field label="Outcome rule name" value={name} onInput={setName} required />
          <Field label="When action type" value={actionType} onInput={setActionType} required />
          <label class="field">
            <span>Metadata match (key=value a line)</span>
            <textarea name="metadata_match" rows={2} value={match} onInput={(e) => setMatch((e.target as HTMLTextAreaElement).value)} />
          </label>
          <Field label="Outcome type" value={outcomeType} onInput={setOutcomeType} required />
          <Field label="Outcome value" value={value} onInput={setValue} />
          <button type="submit" disabled={action.busy}>
            {editing ? 'Save outcome rule' : 'Add outcome rule'}
          </button>
          {editing ? (
            <button type="button" class="small" onClick={() => edit(undefined)}>
              Cancel
            </button>
          ) : null}
        </form>
      ) : null}
    </Panel>
  );
}

/** Cost rules, outcome rules, and the tagged actions and outcomes: each listed and edited. */
export function Rules() {
  return (
    <>
      <CostRules />
      <OutcomeRules />
      <Tagged kind="action" />
      <Tagged kind="outcome" />
    </>
  );
}
