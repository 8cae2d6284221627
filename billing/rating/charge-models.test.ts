import { describe, expect, it } from 'vitest';
import {
  CHARGE_MODEL_KINDS,
  type ChargeModelKind,
  PRICING_VALIDATORS,
  buildRatedCharge,
  defaultChargeType,
  normalizeChargeModel,
  normalizeChargeType,
  normalizeUnitOfMeasure,
  validateChargeModel,
  validatePricing,
} from './charge-models.ts';

describe('normalizeChargeModel: every spelling to one canonical kind', () => {
  it.each([
    ['flat', 'flat'],
    ['FLAT', 'flat'],
    ['flat-fee', 'flat'],
    ['flat_fee', 'flat'],
    ['Flat Fee', 'flat'],
    ['per_unit', 'per_unit'],
    ['per-unit', 'per_unit'],
    ['Per-Unit', 'per_unit'],
    ['tiered', 'tiered'],
    ['Tiered', 'tiered'],
    ['graduated', 'tiered'],
    ['volume', 'volume'],
    ['VOLUME', 'volume'],
    ['package', 'package'],
    ['overage', 'overage'],
    ['overage-pricing', 'overage'],
    ['overage_pricing', 'overage'],
    ['discount', 'discount'],
    ['one-time', 'one_time'],
    ['one_time', 'one_time'],
    ['One-Time', 'one_time'],
    ['onetime', 'one_time'],
    ['  per-unit  ', 'per_unit'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizeChargeModel(input)).toBe(expected);
  });

  it.each(['tierd', '', 'flat fee fee', 'per--unitx', 42, null, undefined])('unknown %j -> null', (input) => {
    expect(normalizeChargeModel(input)).toBeNull();
  });
});

describe('normalizeChargeType', () => {
  it.each([
    ['usage', 'usage'],
    ['USAGE', 'usage'],
    ['recurring', 'recurring'],
    ['one_time', 'one_time'],
    ['one-time', 'one_time'],
    ['onetime', 'one_time'],
    ['One-Time', 'one_time'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizeChargeType(input)).toBe(expected);
  });
  it.each(['monthly', '', 'once', 1])('unknown %j -> null', (input) => {
    expect(normalizeChargeType(input)).toBeNull();
  });
});

describe('normalizeUnitOfMeasure', () => {
  it.each([
    ['@action', '@action'],
    ['@Action', '@action'],
    ['action', '@action'],
    ['actions', '@action'],
    ['@outcome', '@outcome'],
    ['outcomes', '@outcome'],
    ['@user', '@user'],
    ['USER', '@user'],
    ['@seat', '@seat'],
    ['seats', '@seat'],
  ])('%j -> %s', (input, expected) => {
    expect(normalizeUnitOfMeasure(input)).toBe(expected);
  });
  it.each(['@token', '', '@', 'act', 7])('unknown %j -> null', (input) => {
    expect(normalizeUnitOfMeasure(input)).toBeNull();
  });
});

describe('defaultChargeType', () => {
  it.each([
    ['flat', 'recurring'],
    ['overage', 'recurring'],
    ['discount', 'recurring'],
    ['one_time', 'one_time'],
    ['per_unit', 'usage'],
    ['tiered', 'usage'],
    ['volume', 'usage'],
    ['package', 'usage'],
  ] as const)('%s -> %s', (kind, expected) => {
    expect(defaultChargeType(kind)).toBe(expected);
  });
});

describe('validatePricing: valid configurations become canonical', () => {
  it.each([
    ['flat', { amount: 100 }, undefined, { kind: 'flat', amount: '100' }],
    ['flat', { price: '99.90' }, undefined, { kind: 'flat', amount: '99.9' }],
    ['flat', { tiers: [{ price: 100, start: 0, counter: 1 }] }, undefined, { kind: 'flat', amount: '100' }],
    ['flat', {}, { unit_price: 25 }, { kind: 'flat', amount: '25' }],
    ['flat', { amount: 100 }, { unit_price: 80 }, { kind: 'flat', amount: '80' }], // charge overrides model
    ['one_time', { amount: '49.99' }, undefined, { kind: 'one_time', amount: '49.99' }],
    ['per_unit', { unit_price: 2e-6 }, undefined, { kind: 'per_unit', unit_price: '0.000002' }],
    ['per_unit', { unit_price: '2E-6' }, undefined, { kind: 'per_unit', unit_price: '0.000002' }],
    ['per_unit', {}, { unit_price: 0.05 }, { kind: 'per_unit', unit_price: '0.05' }],
    ['per_unit', {}, { list_price: 0.07 }, { kind: 'per_unit', unit_price: '0.07' }],
    ['per_unit', { tiers: [{ price: 0.3, start: 1 }] }, undefined, { kind: 'per_unit', unit_price: '0.3' }],
    [
      'tiered',
      { tiers: [{ price: 0.1, start: 0 }, { price: 0.08, start: 100 }, { price: 0.05, start: 1000, counter: 10 }] },
      undefined,
      {
        kind: 'tiered',
        tiers: [
          { start: '1', price: '0.1', counter: '1' },
          { start: '101', price: '0.08', counter: '1' },
          { start: '1001', price: '0.05', counter: '10' },
        ],
      },
    ],
    [
      // the same bands written 1-based
      'tiered',
      { tiers: [{ price: '0.1', start: 1 }, { price: '0.08', start: 101 }, { price: '0.05', start: '1001', counter: '10' }] },
      undefined,
      {
        kind: 'tiered',
        tiers: [
          { start: '1', price: '0.1', counter: '1' },
          { start: '101', price: '0.08', counter: '1' },
          { start: '1001', price: '0.05', counter: '10' },
        ],
      },
    ],
    ['tiered', { tiers: [{ price: 1 }] }, undefined, { kind: 'tiered', tiers: [{ start: '1', price: '1', counter: '1' }] }], // first start defaults
    [
      'volume',
      { tiers: [{ price: 2, start: 0 }, { price: 1, start: 10 }] },
      { tiers: [{ price: 3, start: 0 }] },
      { kind: 'volume', tiers: [{ start: '1', price: '3', counter: '1' }] },
    ],
    [
      'tiered',
      { tiers: [{ price: 2, start: 0 }] },
      { tiers: [{ price: 3, start: 1 }, { price: 1, start: 5 }] }, // charge tiers replace the model's
      { kind: 'tiered', tiers: [{ start: '1', price: '3', counter: '1' }, { start: '5', price: '1', counter: '1' }] },
    ],
    ['package', { package_size: 1000, unit_price: 2.5 }, undefined, { kind: 'package', package_size: '1000', package_price: '2.5' }],
    ['package', { tiers: [{ price: 5, start: 0, counter: 100 }] }, undefined, { kind: 'package', package_size: '100', package_price: '5' }],
    ['package', { package_size: 10 }, { unit_price: 4 }, { kind: 'package', package_size: '10', package_price: '4' }],
    [
      'overage',
      { base_fee: 20, included_units: 1000, overage_unit_price: 0.01 },
      undefined,
      { kind: 'overage', base_fee: '20', included_units: '1000', overage_unit_price: '0.01' },
    ],
    [
      'overage',
      { base_fee: 20, included_units: 1000, unit_price: 0.01 },
      { unit_price: 0.02 },
      { kind: 'overage', base_fee: '20', included_units: '1000', overage_unit_price: '0.02' },
    ],
    ['discount', { percent: 10 }, undefined, { kind: 'discount', percent: '10', amount: null, applies_to: null }],
    ['discount', { percentage: '12.5' }, undefined, { kind: 'discount', percent: '12.5', amount: null, applies_to: null }],
    ['discount', { amount: 15 }, undefined, { kind: 'discount', percent: null, amount: '15', applies_to: null }],
    ['discount', { percent: 100, applies_to: 'c1' }, undefined, { kind: 'discount', percent: '100', amount: null, applies_to: 'c1' }],
    ['discount', { percent: 10 }, { amount: 5, applies_to_charge_id: 'c2' }, { kind: 'discount', percent: null, amount: '5', applies_to: 'c2' }],
  ] as [ChargeModelKind, unknown, unknown, unknown][])('%s %j + charge pricing %j', (kind, strategy, chargePricing, expected) => {
    expect(validatePricing(kind, strategy, chargePricing)).toEqual({ ok: true, value: expected });
    expect(PRICING_VALIDATORS[kind](strategy, chargePricing)).toEqual({ ok: true, value: expected });
  });
});

describe('validatePricing: invalid configurations are rejected with clear messages', () => {
  it.each([
    ['per_unit', { unit_price: -1 }, undefined, 'pricing_strategy.unit_price', 'unit_price must not be negative'],
    ['per_unit', { unit_price: 'abc' }, undefined, 'pricing_strategy.unit_price', 'unit_price must be a number or a decimal string'],
    ['per_unit', { unit_price: true }, undefined, 'pricing_strategy.unit_price', 'unit_price must be a number or a decimal string'],
    ['per_unit', {}, undefined, 'pricing_strategy.unit_price', "unit_price is required for per_unit pricing (on the charge model's pricing_strategy or the charge's pricing.unit_price)"],
    ['per_unit', {}, { unit_price: -0.5 }, 'pricing.unit_price', 'unit_price must not be negative'],
    ['per_unit', { tiers: [{ price: 1, start: 0, counter: 5 }] }, undefined, 'pricing_strategy.tiers[0].counter', 'per_unit pricing has counter 1; use package for a package size'],
    ['per_unit', 'abc', undefined, 'pricing_strategy', 'pricing_strategy must be an object'],
    ['per_unit', { unit_of_measure: '@token', unit_price: 1 }, undefined, 'pricing_strategy.unit_of_measure', 'unit_of_measure must be one of @action, @outcome, @user, @seat'],
    ['flat', { amount: -5 }, undefined, 'pricing_strategy.amount', 'amount must not be negative'],
    ['flat', { tiers: [{ price: 1, start: 0 }, { price: 2, start: 5 }] }, undefined, 'pricing_strategy.tiers', 'flat pricing takes a single price; use tiered or volume for several tiers'],
    ['tiered', {}, undefined, 'pricing_strategy.tiers', 'tiers are required for tiered pricing'],
    ['tiered', { tiers: [] }, undefined, 'pricing_strategy.tiers', 'tiers must contain at least one tier'],
    ['tiered', { tiers: 'x' }, undefined, 'pricing_strategy.tiers', 'tiers must be an array of tiers'],
    ['tiered', { tiers: [{ price: 1, start: 2 }] }, undefined, 'pricing_strategy.tiers', 'tiers must start at 0 or 1 and be strictly increasing'],
    ['tiered', { tiers: [{ price: 1, start: 0 }, { price: 1, start: 10 }, { price: 1, start: 10 }] }, undefined, 'pricing_strategy.tiers', 'tiers must start at 0 or 1 and be strictly increasing'],
    ['volume', { tiers: [{ price: 1, start: 0 }, { price: 1, start: 100 }, { price: 1, start: 50 }] }, undefined, 'pricing_strategy.tiers', 'tiers must start at 0 or 1 and be strictly increasing'],
    ['tiered', { tiers: [{ price: 1, start: 0 }, { price: 2 }] }, undefined, 'pricing_strategy.tiers[1].start', 'start is required on every tier after the first'],
    ['tiered', { tiers: [{ price: 1, start: -1 }] }, undefined, 'pricing_strategy.tiers[0].start', 'start must be a non-negative integer'],
    ['tiered', { tiers: [{ price: 1, start: 1.5 }] }, undefined, 'pricing_strategy.tiers[0].start', 'start must be an integer'],
    ['tiered', { tiers: [{ price: -1, start: 0 }] }, undefined, 'pricing_strategy.tiers[0].price', 'price must not be negative'],
    ['tiered', { tiers: [{ start: 0 }] }, undefined, 'pricing_strategy.tiers[0].price', 'price is required'],
    ['tiered', { tiers: [{ price: 1, start: 0, counter: 0 }] }, undefined, 'pricing_strategy.tiers[0].counter', 'counter must be an integer of at least 1'],
    ['tiered', { tiers: [{ price: 1, start: 0 }] }, { tiers: [{ price: 1, start: 3 }] }, 'pricing.tiers', 'tiers must start at 0 or 1 and be strictly increasing'],
    ['package', { unit_price: 1 }, undefined, 'pricing_strategy.package_size', 'package_size is required for package pricing'],
    ['package', { package_size: 0, unit_price: 1 }, undefined, 'pricing_strategy.package_size', 'package_size must be an integer of at least 1'],
    ['package', { package_size: 10 }, undefined, 'pricing_strategy.package_price', "package_price is required for package pricing (on the charge model's pricing_strategy or the charge's pricing.unit_price)"],
    ['overage', { included_units: 10, overage_unit_price: 1 }, undefined, 'pricing_strategy.base_fee', 'base_fee is required for overage pricing'],
    ['overage', { base_fee: 10, overage_unit_price: 1 }, undefined, 'pricing_strategy.included_units', 'included_units is required for overage pricing'],
    ['overage', { base_fee: 10, included_units: -1, overage_unit_price: 1 }, undefined, 'pricing_strategy.included_units', 'included_units must not be negative'],
    ['discount', {}, undefined, 'pricing_strategy.percent', 'discount requires percent or amount'],
    ['discount', { percent: 0 }, undefined, 'pricing_strategy.percent', 'percent must be greater than 0 and at most 100'],
    ['discount', { percent: 120 }, undefined, 'pricing_strategy.percent', 'percent must be greater than 0 and at most 100'],
    ['discount', { percent: -10 }, undefined, 'pricing_strategy.percent', 'percent must be greater than 0 and at most 100'],
    ['discount', { amount: -5 }, undefined, 'pricing_strategy.amount', 'discount amount must be greater than 0'],
    ['discount', { percent: 10, amount: 5 }, undefined, 'pricing_strategy.percent', 'discount takes either percent or amount, not both'],
    ['discount', { percent: 10, applies_to: '' }, undefined, 'pricing_strategy.applies_to', 'applies_to must be a non-empty string'],
  ] as [ChargeModelKind, unknown, unknown, string, string][])('%s %j + %j -> %s: %s', (kind, strategy, chargePricing, path, message) => {
    const r = validatePricing(kind, strategy, chargePricing);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toContainEqual({ path, message });
  });

  it('reports every semantic problem at once', () => {
    const r = validatePricing('tiered', { tiers: [{ price: -1, start: 0, counter: 0 }, { price: -2, start: 10 }] });
    expect(r).toEqual({
      ok: false,
      errors: [
        { path: 'pricing_strategy.tiers[0].price', message: 'price must not be negative' },
        { path: 'pricing_strategy.tiers[0].counter', message: 'counter must be an integer of at least 1' },
        { path: 'pricing_strategy.tiers[1].price', message: 'price must not be negative' },
      ],
    });
  });
});

/** A complete strategy of each kind, and the `pricing` fields its charges may override (the documented table). */
const OVERRIDABLE: Record<ChargeModelKind, { strategy: Record<string, unknown>; accepts: string[] }> = {
  flat: { strategy: { amount: 100 }, accepts: ['unit_price', 'list_price'] },
  one_time: { strategy: { amount: 100 }, accepts: ['unit_price', 'list_price'] },
  per_unit: { strategy: { unit_price: 1 }, accepts: ['unit_price', 'list_price'] },
  package: { strategy: { package_size: 10, package_price: 1 }, accepts: ['unit_price', 'list_price'] },
  overage: { strategy: { base_fee: 10, included_units: 5, overage_unit_price: 1 }, accepts: ['unit_price', 'list_price'] },
  tiered: { strategy: { tiers: [{ price: 1, start: 0 }] }, accepts: ['tiers'] },
  volume: { strategy: { tiers: [{ price: 1, start: 0 }] }, accepts: ['tiers'] },
  discount: { strategy: { percent: 10 }, accepts: ['percent', 'percentage', 'amount', 'applies_to', 'applies_to_charge_id'] },
};
/** A valid value of every `pricing` field a client might send (and one no model knows). */
const OVERRIDE_VALUES: Record<string, unknown> = {
  unit_price: 1500,
  list_price: 1500,
  tiers: [{ price: 7, start: 0 }],
  percent: 50,
  percentage: 50,
  amount: 3,
  applies_to: 'c1',
  applies_to_charge_id: 'c1',
  package_price: 4,
  base_fee: 9,
  unit_of_measure: '@seat',
  prcie: 2,
};
const OVERRIDE_CASES = CHARGE_MODEL_KINDS.flatMap((kind) => Object.keys(OVERRIDE_VALUES).map((field) => [kind, field] as const));

describe('charge pricing overrides: applied, or refused naming what the model accepts (never dropped)', () => {
  it.each(OVERRIDE_CASES)('%s + pricing.%s', (kind, field) => {
    const { strategy, accepts } = OVERRIDABLE[kind];
    const without = validatePricing(kind, strategy);
    const withIt = validatePricing(kind, strategy, { [field]: OVERRIDE_VALUES[field] });
    expect(without.ok).toBe(true);
    if (accepts.includes(field)) {
      expect(withIt.ok, JSON.stringify(withIt)).toBe(true);
      if (withIt.ok && without.ok) expect(withIt.value).not.toEqual(without.value); // it took effect
    } else {
      expect(withIt).toEqual({
        ok: false,
        errors: [{ path: `pricing.${field}`, message: `pricing.${field} does not apply to the ${kind} charge model; its charges' pricing accepts ${accepts.length === 1 ? accepts[0] : `${accepts.slice(0, -1).join(', ')} or ${accepts.at(-1)}`}` }],
      });
    }
  });

  it('the documented example: a tiered model with pricing.unit_price is refused, naming tiers', () => {
    const r = buildRatedCharge({ id: 'c', name: 'Successful hire', model_type: 'tiered', pricing_strategy: { tiers: [{ price: 0.02, start: 0 }] }, charge_type_code: 'usage', pricing: { unit_price: 1500 } });
    expect(r).toEqual({ ok: false, errors: [{ path: 'pricing.unit_price', message: "pricing.unit_price does not apply to the tiered charge model; its charges' pricing accepts tiers" }] });
  });
});

describe('validateChargeModel', () => {
  it('a strategy field the model does not read is refused, naming what it takes (never dropped)', () => {
    expect(validateChargeModel({ type: 'tiered', pricing_strategy: { tiers: [{ price: 0.02, start: 0 }], unit_price: 5 } })).toEqual({
      ok: false,
      errors: [{ path: 'pricing_strategy.unit_price', message: 'pricing_strategy.unit_price does not apply to the tiered charge model; its pricing_strategy takes tiers (and unit_of_measure)' }],
    });
    const unknown = validateChargeModel({ type: 'per_unit', pricing_strategy: { unit_price: 1, currency: 'USD' } });
    expect(unknown.ok).toBe(false);
    expect(!unknown.ok && unknown.errors.map((e) => e.path)).toEqual(['pricing_strategy.currency']);
    expect(validateChargeModel({ type: 'overage', pricing_strategy: { base_fee: 10, included_units: 5, unit_price: 1, package_size: 3 } }).ok).toBe(false);
    // Every field a kind lists is read: a strategy of only that field is never refused as not applying.
    // One value given in two spellings, or tiers beside the price they would give: refused, never one silently unused.
    const twice: [string, Record<string, unknown>, Record<string, unknown> | undefined, string][] = [
      ['per_unit', { price: 2, unit_price: 5 }, undefined, 'pricing_strategy.unit_price'],
      ['per_unit', { unit_price: 2, list_price: 5 }, undefined, 'pricing_strategy.list_price'],
      ['flat', { amount: 10, price: 7 }, undefined, 'pricing_strategy.price'],
      ['package', { package_size: 10, package_price: 5, price: 9 }, undefined, 'pricing_strategy.package_price'],
      ['overage', { base_fee: 10, included_units: 5, overage_unit_price: 1, unit_price: 2 }, undefined, 'pricing_strategy.overage_unit_price'],
      ['per_unit', { unit_price: 1, tiers: [] }, undefined, 'pricing_strategy.tiers'],
      ['per_unit', { unit_price: 1 }, { unit_price: 0.5, list_price: 0.9 }, 'pricing.list_price'],
    ];
    for (const [kind, strategy, pricing, path] of twice) {
      const r = validatePricing(kind as ChargeModelKind, strategy, pricing);
      expect(r.ok, JSON.stringify([kind, strategy, pricing])).toBe(false);
      expect(!r.ok && r.errors.map((e) => e.path), JSON.stringify([kind, strategy, pricing])).toContain(path);
    }
    // A field inside a tier that is not one of a tier's (a volume tier's flat amount) is refused too.
    const flat = validateChargeModel({ type: 'volume', pricing_strategy: { tiers: [{ price: 1, start: 0, flat_amount: 50 }] } });
    expect(flat).toEqual({ ok: false, errors: [{ path: 'pricing_strategy.tiers[0].flat_amount', message: 'flat_amount is not a field of a tier (a tier takes price, start and counter)' }] });
    for (const kind of CHARGE_MODEL_KINDS) {
      const r = validateChargeModel({ type: kind, pricing_strategy: { unit_of_measure: '@action' } });
      if (!r.ok) expect(r.errors.some((e) => e.message.includes('does not apply'))).toBe(false);
    }
  });

  it('normalizes type and strategy; a per_unit model may leave the price to its charges', () => {
    expect(validateChargeModel({ type: 'Per-Unit', pricing_strategy: { unit_of_measure: 'outcome' } })).toEqual({
      ok: true,
      value: { type: 'per_unit', pricing_strategy: { unit_of_measure: '@outcome' } },
    });
  });

  it('stores 0-based tiers 1-based, and the stored form validates to itself', () => {
    const first = validateChargeModel({ type: 'tiered', pricing_strategy: { tiers: [{ price: 1, start: 0, counter: 1 }, { price: 0.5, start: 100, counter: 1 }] } });
    expect(first).toEqual({
      ok: true,
      value: { type: 'tiered', pricing_strategy: { tiers: [{ start: '1', price: '1', counter: '1' }, { start: '101', price: '0.5', counter: '1' }] } },
    });
    if (!first.ok) return;
    expect(validateChargeModel(first.value)).toEqual(first);
  });

  it.each(CHARGE_MODEL_KINDS.filter((k) => k !== 'tiered' && k !== 'volume' && k !== 'overage' && k !== 'package'))(
    '%s model without a price is accepted at model level',
    (kind) => {
      expect(validateChargeModel({ type: kind, pricing_strategy: {} }).ok).toBe(true);
    },
  );

  it.each([
    [{ type: 'bogus', pricing_strategy: {} }, 'type', 'type must be one of flat, per_unit, tiered, volume, package, overage, one_time, discount (got "bogus")'],
    [{ type: 'flat' }, 'pricing_strategy', 'pricing_strategy is required'],
    [{ type: 'tiered', pricing_strategy: {} }, 'pricing_strategy.tiers', 'tiers are required for tiered pricing'],
    [null, '', 'charge model must be an object'],
  ])('rejects %j', (input, path, message) => {
    expect(validateChargeModel(input)).toEqual({ ok: false, errors: [{ path, message }] });
  });
});

describe('buildRatedCharge', () => {
  const base = { id: 'c1', name: 'Calls' };
  it('builds a usage per_unit charge from spec-style input', () => {
    expect(
      buildRatedCharge({
        ...base,
        model_type: 'per_unit',
        pricing_strategy: { unit_of_measure: '@action' },
        charge_type_code: 'usage',
        pricing: { unit_price: 0.05 },
      }),
    ).toEqual({
      ok: true,
      value: { id: 'c1', name: 'Calls', model: 'per_unit', charge_type: 'usage', unit_of_measure: '@action', pricing: { kind: 'per_unit', unit_price: '0.05' } },
    });
  });

  it.each([
    // [model_type, charge_type_code, charge_type, expected charge type]
    ['flat-fee', undefined, undefined, 'recurring'],
    ['flat', 'one-time', undefined, 'one_time'],
    ['flat', undefined, 'ONETIME', 'one_time'],
    ['flat', 'usage', undefined, 'usage'],
    ['one-time', undefined, undefined, 'one_time'],
    ['one_time', 'recurring', undefined, 'one_time'], // the one_time kind forces it
    ['discount', undefined, undefined, 'recurring'],
  ])('%s with charge_type_code %j / charge_type %j -> %s', (model_type, charge_type_code, charge_type, expected) => {
    const r = buildRatedCharge({ ...base, model_type, charge_type_code, charge_type, pricing_strategy: { amount: 10 } });
    expect(r.ok && r.value.charge_type).toBe(expected);
  });

  it('unit of measure: the charge overrides the model; usage kinds default to @action; flat has none', () => {
    const a = buildRatedCharge({ ...base, model_type: 'per-unit', pricing_strategy: { unit_price: 1, unit_of_measure: '@action' }, unit_of_measure: 'seat' });
    expect(a.ok && a.value.unit_of_measure).toBe('@seat');
    const b = buildRatedCharge({ ...base, model_type: 'volume', pricing_strategy: { tiers: [{ price: 1, start: 0 }] } });
    expect(b.ok && b.value.unit_of_measure).toBe('@action');
    const c = buildRatedCharge({ ...base, model_type: 'flat', pricing_strategy: { amount: 1 } });
    expect(c.ok && c.value.unit_of_measure).toBeNull();
  });

  it('keeps already_charged for one-time charges', () => {
    const r = buildRatedCharge({ ...base, model_type: 'one-time', pricing_strategy: { amount: 1 }, already_charged: true });
    expect(r.ok && r.value.already_charged).toBe(true);
  });

  it.each([
    [{ model_type: 'nope', pricing_strategy: {} }, 'type'],
    [{ model_type: 'per_unit', pricing_strategy: { unit_price: 1 }, charge_type_code: 'monthly' }, 'charge_type_code'],
    [{ model_type: 'tiered', pricing_strategy: { tiers: [{ price: 1, start: 0 }] }, charge_type_code: 'one-time' }, 'charge_type_code'],
    [{ model_type: 'per_unit', pricing_strategy: { unit_price: 1 }, unit_of_measure: '@token' }, 'unit_of_measure'],
    [{ model_type: 'per_unit', pricing_strategy: {} }, 'pricing_strategy.unit_price'],
    [{ model_type: 'per_unit', pricing_strategy: {}, pricing: { unit_price: 'ten' } }, 'pricing.unit_price'],
  ])('rejects %j at %s', (input, path) => {
    const r = buildRatedCharge({ ...base, ...input });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path)).toContain(path);
  });

  it('rejects a missing id', () => {
    const r = buildRatedCharge({ id: '', name: 'x', model_type: 'flat', pricing_strategy: { amount: 1 } });
    expect(r).toEqual({ ok: false, errors: [{ path: 'id', message: 'id must be a non-empty string' }] });
  });
});
