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

/**
 * The pricing_strategy of a form: decimal text kept as text. Tiers are sent as the form shows
 * them: unit ordinals, the first band from unit 1 (the API's 1-based form, stored as given),
 * so the charges table reads back the numbers typed.
 */
export function pricingStrategy(kind: Kind, unit: string, fields: Readonly<Record<string, string>>, tiers: readonly TierRow[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (unit) out.unit_of_measure = unit;
  if (kind === 'tiered' || kind === 'volume') out.tiers = tiers.map((t, i) => ({ start: i === 0 ? '1' : t.start.trim(), price: t.price.trim(), ...(t.counter.trim() && t.counter.trim() !== '1' ? { counter: t.counter.trim() } : {}) }));
  for (const [f] of MODEL_FIELDS[kind]) if ((fields[f] ?? '').trim() !== '') out[f] = fields[f]!.trim();
  return out;
}

/** Digits after the point of a currency's minor unit (ISO 4217 as the browser knows it: USD 2, JPY 0, KWD 3); 2 for a code it does not know. */
export function minorDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * A price as money: the decimal text padded to the currency's minor units (never cut: a
 * unit price of 0.005 USD stays 0.005), then the currency ("0.1", "USD" → "0.10 USD").
 */
export function moneyText(amount: string, currency: string): string {
  const m = /^(-?\d*)(?:\.(\d*))?$/.exec(amount.trim());
  if (!m) return `${amount} ${currency}`;
  const digits = minorDigits(currency);
  const frac = (m[2] ?? '').padEnd(digits, '0');
  return `${m[1] || '0'}${frac ? `.${frac}` : ''} ${currency}`;
}

/** The fields of a charge's pricing that are not money: counts of units, the charge a discount applies to. */
const NOT_MONEY = new Set(['package_size', 'included_units', 'applies_to', 'applies_to_charge_id']);

/** Whether a pricing field is an amount of money (in the plan's currency), not a count or a percent. */
export function isMoneyField(field: string): boolean {
  return !NOT_MONEY.has(field) && field !== 'percent' && field !== 'percentage';
}

/** The label of a pricing field: its form label without the form's hints ("Package size (units)" → "Package size"). */
function fieldLabel(field: string): string {
  for (const fields of Object.values(MODEL_FIELDS)) for (const [f, label] of fields) if (f === field) return label.replace(/ \(.*\)$/, '');
  return field.replace(/_/g, ' ');
}

/**
 * A stored charge's prices as [term, value] lines: each tier as the band of units it prices
 * (`units 1–10`, `units 11 and up`; the API's 1-based, inclusive starts, as the form takes
 * them) and its price in the currency; else each price field by its label, money as money.
 */
export function pricingLines(p: Record<string, unknown> | undefined, currency: string): [term: string, value: string][] {
  if (!p) return [];
  const tiers = p.tiers as { start: string; price: string; counter?: string }[] | undefined;
  if (tiers)
    return tiers.map((t, i) => {
      const next = tiers[i + 1];
      const band = next ? `units ${t.start}–${BigInt(next.start) - 1n}` : `units ${t.start} and up`;
      return [band, `${moneyText(t.price, currency)} ${t.counter && t.counter !== '1' ? `per ${t.counter} units` : 'per unit'}`];
    });
  return Object.entries(p)
    .filter(([k]) => k !== 'kind' && k !== 'unit_of_measure')
    .map(([k, v]) => {
      const text = typeof v === 'object' ? JSON.stringify(v) : String(v);
      return [fieldLabel(k), k === 'percent' || k === 'percentage' ? `${text}%` : !isMoneyField(k) || typeof v === 'object' ? text : moneyText(text, currency)];
    });
}

/** A charge's prices in a line (CSV, titles): its {@link pricingLines} as `term: value; …`. */
export function pricingText(p: Record<string, unknown> | undefined, currency: string): string {
  return pricingLines(p, currency)
    .map(([t, v]) => `${t}: ${v}`)
    .join('; ');
}
