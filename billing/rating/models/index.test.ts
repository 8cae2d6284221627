import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CHARGE_MODEL_KINDS, CHARGE_MODEL_SPELLINGS, CHARGE_MODELS, USAGE_KINDS, defaultChargeType } from './index.ts';
import { normalizeChargeModel } from '../charge-models.ts';
import type { ChargeModelKind } from '../types.ts';

/** Every kind of the ChargeModelKind type, in canonical order (a kind missing from the registry fails to compile there). */
const KINDS: readonly ChargeModelKind[] = ['flat', 'per_unit', 'tiered', 'volume', 'package', 'overage', 'one_time', 'discount'];

/** The module of a kind: models/<kind>.ts with "_" written "-" ("per_unit" -> per-unit.ts). */
const moduleOf = (kind: ChargeModelKind) => `./${kind.replace(/_/g, '-')}.ts`;

describe('charge model registry', () => {
  it('lists every kind once, in canonical order', () => {
    expect(Object.keys(CHARGE_MODELS)).toEqual(KINDS);
    expect(CHARGE_MODEL_KINDS).toEqual(KINDS);
  });

  it.each(KINDS)('%s has its own module exporting the registered model, whose kind is its key', async (kind) => {
    expect(existsSync(new URL(moduleOf(kind), import.meta.url))).toBe(true);
    const mod = (await import(moduleOf(kind))) as Record<string, unknown>;
    expect(Object.values(mod)).toContain(CHARGE_MODELS[kind]);
    expect(CHARGE_MODELS[kind].kind).toBe(kind);
  });

  it('spellings are unique across kinds, already normalized, and include the canonical name', () => {
    const all = KINDS.flatMap((k) => CHARGE_MODELS[k].spellings);
    expect(new Set(all).size).toBe(all.length);
    for (const kind of KINDS) {
      expect(CHARGE_MODELS[kind].spellings).toContain(kind);
      for (const s of CHARGE_MODELS[kind].spellings) {
        expect(s).toMatch(/^[a-z_]+$/);
        expect(normalizeChargeModel(s)).toBe(kind);
      }
    }
  });

  it('derives the kind tables from the models', () => {
    for (const kind of KINDS) {
      expect(CHARGE_MODEL_SPELLINGS[kind]).toBe(CHARGE_MODELS[kind].spellings);
      expect(defaultChargeType(kind)).toBe(CHARGE_MODELS[kind].defaultChargeType);
    }
    expect(USAGE_KINDS).toEqual(KINDS.filter((k) => CHARGE_MODELS[k].usage));
  });

  it('keeps one_time rules consistent with default charge types', () => {
    for (const kind of KINDS) {
      const m = CHARGE_MODELS[kind];
      if (m.oneTime === 'always') expect(m.defaultChargeType).toBe('one_time');
      if (m.oneTime === 'rejected') expect(m.defaultChargeType).not.toBe('one_time');
    }
  });
});
