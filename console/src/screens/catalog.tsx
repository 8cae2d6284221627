import { useState } from 'preact/hooks';
import { must, type Schemas } from '../api';
import { useSession } from '../context';
import { timeText, yearMonth } from '../dates';
import { decimalProblem } from '../money';
import { isMoneyField, MODEL_FIELDS, pricingLines, pricingStrategy, pricingText, type Kind, type TierRow } from '../pricing';
import { agentTypeOptions } from '../pickers';
import { ErrorBox, Field, Paged, PagedSelect, Panel, Select, Table, useAction, useLoad } from '../ui';

const KINDS: readonly (readonly [Kind, string])[] = [
  ['per_unit', 'Per unit'],
  ['tiered', 'Tiered (graduated)'],
  ['volume', 'Volume'],
  ['package', 'Package'],
  ['overage', 'Overage'],
  ['flat', 'Flat fee'],
  ['one_time', 'One-time'],
  ['discount', 'Discount'],
];

/**
 * The tiers table: one row per band (its first unit, counting from 1; price per unit; package
 * size). The first band starts at unit 1 (shown, not typed); a band runs to the unit before
 * the next band's first, as the charges table reads it back (`units 1–10`, `units 11 and up`).
 */
function TiersTable({ tiers, onChange }: { tiers: TierRow[]; onChange: (t: TierRow[]) => void }) {
  const set = (i: number, k: keyof TierRow, v: string) => onChange(tiers.map((t, j) => (j === i ? { ...t, [k]: v } : t)));
  return (
    <fieldset class="tiers">
      <legend>Tiers</legend>
      <p class="muted" id="tiers-hint">
        From unit: the band's first unit, counting from 1 (the first 10 units at one price, then another: from 1, then from 11).
      </p>
      <table>
        <thead>
          <tr>
            <th scope="col">From unit</th>
            <th scope="col">Price per unit</th>
            <th scope="col">Units per price</th>
            <th scope="col">
              <span class="sr">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {tiers.map((t, i) => (
            <tr key={i}>
              {(['start', 'price', 'counter'] as const).map((k) => (
                <td key={k}>
                  {k === 'start' && i === 0 ? (
                    <span data-testid="tier-1-from">1</span>
                  ) : (
                  <input aria-label={`Tier ${i + 1} ${k === 'start' ? 'from unit' : k === 'price' ? 'price per unit' : 'units per price'}`} name={`tier-${i}-${k}`} inputMode="decimal" value={t[k]} aria-describedby={k === 'start' ? 'tiers-hint' : undefined} onInput={(e) => set(i, k, (e.target as HTMLInputElement).value)} />
                  )}
                </td>
              ))}
              <td>
                <button type="button" class="small" aria-label={`Remove tier ${i + 1}`} disabled={tiers.length === 1} onClick={() => onChange(tiers.filter((_, j) => j !== i))}>
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" class="small" onClick={() => onChange([...tiers, { start: '', price: '', counter: '1' }])}>
        Add tier
      </button>
    </fieldset>
  );
}

/** A charge's form: its model's fields (a table of tiers for tiered and volume), then the charge. */
function ChargeForm({ plan, onCreated }: { plan: Schemas['RatePlan']; onCreated: () => void }) {
  const { client } = useSession();
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('per_unit');
  const [chargeType, setChargeType] = useState<'usage' | 'recurring' | 'one_time'>('usage');
  const [unit, setUnit] = useState('@action');
  const [description, setDescription] = useState('');
  const [fields, setFields] = useState<Record<string, string>>({});
  const [tiers, setTiers] = useState<TierRow[]>([{ start: '1', price: '', counter: '1' }]);
  const action = useAction();
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => {
          const model = await must(client.POST('/api/v1/charge_models', { body: { name, description, type: kind, pricing_strategy: pricingStrategy(kind, kind === 'discount' ? '' : unit, fields, tiers) } }));
          await must(client.POST('/api/v1/products/rateplans/{rate_plan_id}/charges', { params: { path: { rate_plan_id: plan.id } }, body: { name, charge_model_id: model.id, charge_type_code: chargeType, ...(description ? { description } : {}) } }));
          setName('');
          onCreated();
        });
      }}
    >
      <div class="row">
        <Field label="Charge name" value={name} onInput={setName} required />
        <Select label="Charge model" value={kind} onChange={(v) => setKind(v as Kind)} options={KINDS} />
        <Select label="Charge type" value={chargeType} onChange={(v) => setChargeType(v as typeof chargeType)} options={[['usage', 'usage'], ['recurring', 'recurring'], ['one_time', 'one-time']]} />
        {kind === 'discount' ? null : <Select label="Unit of measure" value={unit} onChange={setUnit} options={[['@action', 'action'], ['@outcome', 'outcome'], ['@user', 'user'], ['@seat', 'seat']]} />}
      </div>
      <Field label="Description" value={description} onInput={setDescription} />
      <div class="row">
        {MODEL_FIELDS[kind].map(([f, label]) => (
          <Field key={f} label={isMoneyField(f) ? `${label} (${plan.currency})` : label} value={fields[f] ?? ''} onInput={(v) => setFields({ ...fields, [f]: v })} />
        ))}
      </div>
      {kind === 'tiered' || kind === 'volume' ? <TiersTable tiers={tiers} onChange={setTiers} /> : null}
      <button type="submit" disabled={action.busy}>
        Add charge
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

/** The pricing simulator: the invoice a usage would produce on a plan (nothing stored). */
function Simulator({ plan }: { plan: Schemas['RatePlan'] }) {
  const { client } = useSession();
  const [usage, setUsage] = useState<Record<string, string>>({ '@action': '1000', '@outcome': '0', '@user': '0', '@seat': '0' });
  const [period, setPeriod] = useState(yearMonth(new Date()));
  const [result, setResult] = useState<{ total: string; subtotal: string; currency: string; charges: Record<string, unknown>[] } | undefined>(undefined);
  const action = useAction();
  return (
    <Panel title="Pricing simulator">
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          // A result stays only beside the usage that gave it: cleared as a new one is asked (and on an error).
          setResult(undefined);
          void action.run(async () => {
            const usage_data = Object.fromEntries(Object.entries(usage).filter(([, v]) => v.trim() !== '').map(([k, v]) => [k, v.trim()]));
            const problem = Object.entries(usage_data)
              .map(([k, v]) => decimalProblem(`Usage ${k}`, v))
              .find((p) => p);
            if (problem) throw new Error(problem);
            setResult(await must(client.POST('/api/v1/simulation/charges', { body: { rate_plan_id: plan.id, usage_data, billing_period: period } })));
          });
        }}
      >
        {Object.keys(usage).map((k) => (
          <Field key={k} label={`Usage ${k}`} value={usage[k] ?? ''} onInput={(v) => setUsage({ ...usage, [k]: v })} />
        ))}
        <Field label="Billing period" type="month" value={period} onInput={setPeriod} />
        <button type="submit" disabled={action.busy}>
          Simulate
        </button>
      </form>
      <ErrorBox error={action.error} />
      {result ? (
        <>
          <Table
            rows={result.charges}
            caption="Simulated invoice"
            columns={[
              ['Charge', (c) => String(c.name ?? c.charge_name ?? c.type ?? '')],
              ['Quantity', (c) => String(c.quantity ?? '')],
              ['Amount', (c) => String(c.amount ?? '')],
            ]}
          />
          <p>
            Total: <strong data-testid="sim-total">{result.total}</strong> {result.currency}
          </p>
        </>
      ) : null}
    </Panel>
  );
}

/** A charge's prices as a list that wraps in its cell: each tier's band or price field, then its price in the plan's currency. */
function Pricing({ pricing, currency }: { pricing: Record<string, unknown> | undefined; currency: string }) {
  return (
    <dl class="pricing" data-csv={pricingText(pricing, currency)}>
      {pricingLines(pricing, currency).map(([term, value]) => (
        <div key={term}>
          <dt>{term}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function RatePlanView({ planId }: { planId: string }) {
  const { client, canWrite } = useSession();
  const plan = useLoad(() => must(client.GET('/api/v1/products/rateplans/{rate_plan_id}', { params: { path: { rate_plan_id: planId } } })), [planId]);
  if (!plan.data) return <ErrorBox error={plan.error} />;
  const p = plan.data;
  return (
    <div class="two">
      <Panel title={`Rate plan: ${p.name} (${p.currency}, ${p.billing_cycle_code ?? ''})`}>
        <Table
          rows={p.charges}
          caption="Charges"
          columns={[
            ['Name', (c) => c.name],
            ['Type', (c) => c.charge_type ?? ''],
            ['Model', (c) => String((c.resolved_pricing as { kind?: string } | undefined)?.kind ?? '')],
            ['Unit', (c) => c.unit_of_measure ?? ''],
            ['Pricing', (c) => <Pricing pricing={c.resolved_pricing as Record<string, unknown> | undefined} currency={p.currency} />],
          ]}
        />
        {canWrite ? <ChargeForm plan={p} onCreated={plan.reload} /> : null}
      </Panel>
      <Simulator plan={p} />
    </div>
  );
}

/** A product's name, description and agent type edited, or the product deleted (the API refuses one in use). */
function ProductEdit({ product, onChange }: { product: Schemas['Product']; onChange: (p: Schemas['Product'] | undefined) => void }) {
  const { client } = useSession();
  const [name, setName] = useState(product.name);
  const [description, setDescription] = useState(product.description ?? '');
  const [type, setType] = useState(product.agent_type_id ?? '');
  const action = useAction();
  const path = { params: { path: { product_id: product.id } } };
  return (
    <form
      class="row"
      aria-label="Edit the product"
      onSubmit={(e) => {
        e.preventDefault();
        void action.run(async () => onChange(await must(client.PUT('/api/v1/products/{product_id}', { ...path, body: { name, description: description || null, ...(type ? { agent_type_id: type } : {}) } }))));
      }}
    >
      <Field label="Rename product to" value={name} onInput={setName} required />
      <Field label="Product's new description" value={description} onInput={setDescription} />
      <PagedSelect label="Product's agent type" value={type} onChange={setType} load={(skip, limit) => agentTypeOptions(client, skip, limit)} />
      <button type="submit" disabled={action.busy}>
        Save product
      </button>
      <button type="button" class="small danger" onClick={() => confirm(`Delete the product ${product.name}?`) && void action.run(async () => void (await must(client.DELETE('/api/v1/products/{product_id}', path)), onChange(undefined)))}>
        Delete product
      </button>
      <ErrorBox error={action.error} />
    </form>
  );
}

function ProductView({ product, onChange }: { product: Schemas['Product']; onChange: (p: Schemas['Product'] | undefined) => void }) {
  const { client, canWrite } = useSession();
  const [plan, setPlan] = useState<string | undefined>(undefined);
  const [name, setName] = useState('');
  const [cycle, setCycle] = useState('monthly');
  const [currency, setCurrency] = useState('USD');
  const [minimum, setMinimum] = useState('');
  const [version, setVersion] = useState(0);
  const action = useAction();
  return (
    <>
      <Panel title={`Product: ${product.name}`}>
        <p class="muted">{product.description ?? ''}</p>
        {canWrite ? <ProductEdit key={`${product.id}:${product.name}:${product.description ?? ''}`} product={product} onChange={onChange} /> : null}
        <Paged
          caption="Rate plans"
          deps={[product.id, version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/products/{product_id}/rateplans', { params: { path: { product_id: product.id }, query: { skip, limit } } }));
            return { items: r.rate_plans, total: r.total };
          }}
          columns={[
            ['Name', (r) => <button type="button" class="link" onClick={() => setPlan(r.id)}>{r.name}</button>],
            ['Cycle', (r) => r.billing_cycle_code ?? ''],
            ['Currency', (r) => r.currency],
            ['Minimum', (r) => r.minimum_commitment ?? ''],
          ]}
        />
        {canWrite ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                const r = await must(client.POST('/api/v1/products/{product_id}/rateplans', { params: { path: { product_id: product.id } }, body: { name, billing_cycle_code: cycle as 'monthly', currency, ...(minimum.trim() ? { minimum_commitment: minimum.trim() } : {}) } }));
                setName('');
                setVersion((v) => v + 1);
                setPlan(r.id);
              });
            }}
          >
            <Field label="Rate plan name" value={name} onInput={setName} required />
            <Select label="Billing cycle" value={cycle} onChange={setCycle} options={[['monthly', 'monthly'], ['quarterly', 'quarterly'], ['annual', 'annual']]} />
            <Field label="Currency" value={currency} onInput={(v) => setCurrency(v.toUpperCase())} />
            <Field label="Minimum commitment (optional)" value={minimum} onInput={setMinimum} />
            <button type="submit" disabled={action.busy}>
              Add rate plan
            </button>
          </form>
        ) : null}
        <ErrorBox error={action.error} />
      </Panel>
      {plan ? <RatePlanView key={plan} planId={plan} /> : null}
    </>
  );
}

/** Catalog: products, rate plans, charges (a form per model), and the pricing simulator. */
export function Catalog() {
  const { client, canWrite } = useSession();
  const [product, setProduct] = useState<Schemas['Product'] | undefined>(undefined);
  const [name, setName] = useState('');
  const [description, setDescription] = useState('');
  const [type, setType] = useState('');
  const [version, setVersion] = useState(0);
  const action = useAction();
  return (
    <>
      <Panel title="Products">
        <Paged
          caption="Products"
          deps={[version]}
          load={async (skip, limit) => {
            const r = await must(client.GET('/api/v1/products', { params: { query: { skip, limit } } }));
            return { items: r.products, total: r.total };
          }}
          columns={[
            ['Name', (p) => <button type="button" class="link" onClick={() => setProduct(p)}>{p.name}</button>],
            ['Description', (p) => p.description ?? ''],
            ['Created', (p) => timeText(p.created_at)],
          ]}
        />
        {canWrite ? (
          <form
            class="row"
            onSubmit={(e) => {
              e.preventDefault();
              void action.run(async () => {
                if (!type) throw new Error('Create an agent type first (Agents)');
                const p = await must(client.POST('/api/v1/products', { body: { name, description, agent_type_id: type } }));
                setName('');
                setDescription('');
                setVersion((v) => v + 1);
                setProduct(p);
              });
            }}
          >
            <Field label="Product name" value={name} onInput={setName} required />
            <Field label="Product description" value={description} onInput={setDescription} />
            <PagedSelect label="Agent type" value={type} onChange={setType} load={(skip, limit) => agentTypeOptions(client, skip, limit)} deps={[version]} />
            <button type="submit" disabled={action.busy}>
              Add product
            </button>
          </form>
        ) : null}
        <ErrorBox error={action.error} />
      </Panel>
      {product ? <ProductView key={product.id} product={product} onChange={(p) => (setProduct(p), setVersion((v) => v + 1))} /> : null}
    </>
  );
}
