/** Charge model forms as pure data: the fields each model reads, and the body a form gives. */
export type Kind = 'flat' | 'per_unit' | 'tiered' | 'volume' | 'package' | 'overage' | 'one_time' | 'discount';
export type TierRow = { start: string; price: string; counter: string };

/** The fields each charge model reads (billing/rating/charge-models.ts), as form fields. */
export const MODEL_FIELDS: Readonly<Record<Kind, readonly (readonly [field: string, label: string])[]>> = {
  flat: [['amount', 'Amount per period']],
  one_time: [['amount', 'Amount (once)']],
  per_unit: [['unit_price', 'Unit price']],
  tiered: [],
  volume: [],
  package: [
    ['package_size', 'Package size (units)'],
    ['package_price', 'Package price'],
  ],
  overage: [
    ['base_fee', 'Base fee'],
    ['included_units', 'Included units'],
    ['overage_unit_price', 'Overage unit price'],
  ],
  discount: [
    ['percent', 'Percent (or leave empty)'],
    ['amount', 'Amount (or leave empty)'],
  ],
};

/** The pricing_strategy of a form: decimal text kept as text. */
export function pricingStrategy(kind: Kind, unit: string, fields: Readonly<Record<string, string>>, tiers: readonly TierRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (unit) out.unit_of_measure = unit;
  if (kind === 'tiered' || kind === 'volume') out.tiers = tiers.map((t) => ({ start: t.start.trim(), price: t.price.trim(), ...(t.counter.trim() && t.counter.trim() !== '1' ? { counter: t.counter.trim() } : {}) }));
  for (const [f] of MODEL_FIELDS[kind]) if ((fields[f] ?? '').trim() !== '') out[f] = fields[f]!.trim();
  return out;
}

/** A charge's prices in a line: its tiers as `from N: price`, else its price fields. */
export function pricingText(p: Record<string, unknown> | undefined): string {
  if (!p) return '';
  const tiers = p.tiers as { start: string; price: string; counter?: string }[] | undefined;
  if (tiers) return tiers.map((t) => `from ${t.start}: ${t.price}${t.counter && t.counter !== '1' ? ` per ${t.counter}` : ''}`).join('; ');
  return Object.entries(p)
    .filter(([k]) => k !== 'kind' && k !== 'unit_of_measure')
    .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(', ');
}

