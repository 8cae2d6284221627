/**
 * Property tests of the rating engine with a seeded PRNG. Expectations come from an
 * independent reference written here with BigInt integer arithmetic (prices in
 * millionths, unit-by-unit band assignment), not from the engine's own code.
 */
import { describe, expect, it } from 'vitest';
import { type CanonicalPricing, type RatedCharge, type Tier, validatePricing } from './charge-models.ts';
import { rate, rateSegments } from './rate.ts';

/** mulberry32: small deterministic PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)); // inclusive
  return { next, int, pick: <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]! };
}

const SCALE = 6; // prices generated in millionths
/** BigInt n scaled by 10^places -> decimal string ("1234", 2 -> "12.34"). */
function scaled(n: bigint, places: number): string {
  const neg = n < 0n;
  const s = (neg ? -n : n).toString().padStart(places + 1, '0');
  const out = places ? `${s.slice(0, -places)}.${s.slice(-places)}` : s;
  return neg ? `-${out}` : out;
}
/** Decimal string -> BigInt scaled by 10^places (the string must not have more decimals). */
function toScaled(s: string, places: number): bigint {
  const neg = s.startsWith('-');
  const [i, f = ''] = (neg ? s.slice(1) : s).split('.');
  if (f.length > places) throw new Error(`${s} has more than ${places} decimals`);
  const v = BigInt(i! + f.padEnd(places, '0'));
  return neg ? -v : v;
}
/** Half-up rounding of a non-negative value in millionths to `places` decimals, in units of 10^-places. */
function roundMicro(micro: bigint, places: number): bigint {
  const div = 10n ** BigInt(SCALE - places);
  return (micro + div / 2n) / div;
}
const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;

interface RawTier {
  start: number;
  priceMicro: bigint;
  counter: number;
}
function randomTiers(r: ReturnType<typeof prng>, zeroBased: boolean): RawTier[] {
  const n = r.int(1, 5);
  const out: RawTier[] = [];
  let start = zeroBased ? 0 : 1;
  for (let i = 0; i < n; i++) {
    out.push({ start, priceMicro: BigInt(r.int(0, 5_000_000)), counter: r.next() < 0.6 ? 1 : r.int(2, 10) });
    start += r.int(1, 300);
  }
  return out;
}
/** Canonical tiers via the validator (exercises 0- and 1-based input). */
function canonical(kind: 'tiered' | 'volume', raw: RawTier[]): Tier[] {
  const v = validatePricing(kind, { tiers: raw.map((t) => ({ start: t.start, price: scaled(t.priceMicro, SCALE), counter: t.counter })) });
  if (!v.ok || (v.value.kind !== 'tiered' && v.value.kind !== 'volume')) throw new Error(JSON.stringify(v));
  return v.value.tiers;
}
/** Band index of 1-based unit u, from the documented semantics of the RAW input. */
function bandOfUnit(raw: RawTier[], u: number): number {
  const zeroBased = raw[0]!.start === 0;
  let idx = 0;
  raw.forEach((t, i) => {
    const firstUnit = zeroBased ? t.start + 1 : t.start;
    if (u >= firstUnit) idx = i;
  });
  return idx;
}

const period = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const usageCharge = (id: string, pricing: CanonicalPricing): RatedCharge => ({
  id,
  name: id,
  model: pricing.kind,
  charge_type: 'usage',
  unit_of_measure: '@action',
  pricing,
});

describe('property: tiered amount equals the sum of its bands', () => {
  it('holds for 400 random tier sets and quantities', () => {
    const r = prng(20261101);
    for (let iter = 0; iter < 400; iter++) {
      const raw = randomTiers(r, r.next() < 0.5);
      const q = r.int(0, 2000);
      const counts = raw.map(() => 0n);
      for (let u = 1; u <= q; u++) counts[bandOfUnit(raw, u)]! += 1n;
      const expectedMicro = counts.reduce((s, c, i) => s + ceilDiv(c, BigInt(raw[i]!.counter)) * raw[i]!.priceMicro, 0n);

      const res = rate({ currency: 'USD', period, charges: [usageCharge('t', { kind: 'tiered', tiers: canonical('tiered', raw) })], usage: { '@action': String(q) } });
      const line = res.lines[0]!;
      const ctx = JSON.stringify({ raw: raw.map((t) => ({ ...t, priceMicro: String(t.priceMicro) })), q });
      expect(toScaled(line.amount, 2), ctx).toBe(roundMicro(expectedMicro, 2));
      const bandSum = line.tiers!.reduce((s, b) => s + toScaled(b.amount, SCALE), 0n);
      expect(bandSum, ctx).toBe(expectedMicro);
      expect(line.tiers!.reduce((s, b) => s + BigInt(b.quantity), 0n), ctx).toBe(BigInt(q));
      expect(line.tiers!.map((b) => b.quantity), ctx).toEqual(counts.filter((c) => c > 0n).map(String));
    }
  });
});

describe('property: volume amount equals quantity times one band price', () => {
  it('holds for 400 random tier sets and quantities', () => {
    const r = prng(424242);
    for (let iter = 0; iter < 400; iter++) {
      const raw = randomTiers(r, r.next() < 0.5).map((t) => ({ ...t, counter: 1 }));
      const q = r.int(0, 2000);
      const res = rate({ currency: 'USD', period, charges: [usageCharge('v', { kind: 'volume', tiers: canonical('volume', raw) })], usage: { '@action': String(q) } });
      const line = res.lines[0]!;
      const ctx = JSON.stringify({ raw: raw.map((t) => ({ ...t, priceMicro: String(t.priceMicro) })), q });
      if (q === 0) {
        expect(line.amount, ctx).toBe('0.00');
        continue;
      }
      const band = raw[bandOfUnit(raw, q)]!;
      expect(line.tiers, ctx).toHaveLength(1);
      expect(toScaled(line.unit_price!, SCALE), ctx).toBe(band.priceMicro);
      expect(toScaled(line.amount, 2), ctx).toBe(roundMicro(BigInt(q) * band.priceMicro, 2));
    }
  });
});

/** A random invoice: usage charges, flat fees, overage, discounts; returns input pieces. */
function randomInvoice(r: ReturnType<typeof prng>, bigDiscounts: boolean) {
  const charges: RatedCharge[] = [];
  const n = r.int(1, 6);
  for (let i = 0; i < n; i++) {
    const id = `c${i}`;
    const kind = r.pick(['per_unit', 'flat', 'tiered', 'overage', 'one_time'] as const);
    const price = scaled(BigInt(r.int(0, 3_000_000)), SCALE);
    if (kind === 'per_unit') charges.push(usageCharge(id, { kind, unit_price: price }));
    else if (kind === 'tiered') charges.push(usageCharge(id, { kind, tiers: canonical('tiered', randomTiers(r, false)) }));
    else if (kind === 'overage') charges.push({ ...usageCharge(id, { kind, base_fee: scaled(BigInt(r.int(0, 5000)), 2), included_units: String(r.int(0, 500)), overage_unit_price: price }), charge_type: 'recurring' });
    else if (kind === 'flat') charges.push({ id, name: id, model: kind, charge_type: 'recurring', unit_of_measure: null, pricing: { kind, amount: scaled(BigInt(r.int(0, 50000)), 2) } });
    else charges.push({ id, name: id, model: kind, charge_type: 'one_time', unit_of_measure: null, pricing: { kind, amount: scaled(BigInt(r.int(0, 50000)), 2) }, already_charged: r.next() < 0.3 });
  }
  const d = r.int(0, 4);
  for (let i = 0; i < d; i++) {
    const target = r.next() < 0.4 ? `c${r.int(0, n - 1)}` : null;
    const percent = r.next() < 0.5;
    charges.push({
      id: `d${i}`,
      name: `d${i}`,
      model: 'discount',
      charge_type: r.pick(['recurring', 'usage'] as const),
      unit_of_measure: null,
      pricing: {
        kind: 'discount',
        percent: percent ? scaled(BigInt(r.int(1, bigDiscounts ? 10000 : 5000)), 2) : null,
        amount: percent ? null : scaled(BigInt(r.int(1, bigDiscounts ? 10_000_000 : 5000)), 2),
        applies_to: target,
      },
    });
  }
  const usage = { '@action': String(r.int(0, 3000)) };
  return { charges, usage };
}

function sumLines(lines: { amount: string; model: string }[], places: number, filter: (m: string) => boolean) {
  return lines.filter((l) => filter(l.model)).reduce((s, l) => s + toScaled(l.amount, places), 0n);
}

describe('property: invoice total equals the sum of its lines', () => {
  it.each([
    ['USD', 2],
    ['JPY', 0],
    ['BHD', 3],
  ])('holds for 300 random %s invoices (rate and rateSegments)', (currency, places) => {
    const r = prng(7 + places);
    for (let iter = 0; iter < 300; iter++) {
      const { charges, usage } = randomInvoice(r, false);
      const day = r.int(2, 30); // split strictly inside the month
      const active = r.next() < 0.5 ? { from: `2026-11-${String(day).padStart(2, '0')}T00:00:00Z` } : undefined;
      const res = rate({ currency, period, active, charges, usage });
      const ctx = JSON.stringify({ charges, usage, active });
      for (const l of res.lines) expect(l.amount.split('.')[1]?.length ?? 0, ctx).toBe(places);
      const all = sumLines(res.lines, places, () => true);
      expect(toScaled(res.total, places), ctx).toBe(all);
      expect(toScaled(res.subtotal, places), ctx).toBe(sumLines(res.lines, places, (m) => m !== 'discount'));
      expect(toScaled(res.discount_total, places), ctx).toBe(sumLines(res.lines, places, (m) => m === 'discount'));

      const split = `2026-11-${String(day).padStart(2, '0')}T00:00:00.000Z`;
      const seg = rateSegments({
        currency,
        period,
        segments: [
          { from: period.start, to: split, charges, usage },
          { from: split, to: period.end, charges: randomInvoice(r, false).charges, usage },
        ],
      });
      expect(toScaled(seg.total, places), ctx).toBe(sumLines(seg.lines, places, () => true));
      expect(toScaled(seg.total, places), ctx).toBe(seg.segments.reduce((s, x) => s + toScaled(x.total, places), 0n));
    }
  });
});

describe('property: discounts never make a total negative', () => {
  it('holds for 400 random invoices with oversized discounts', () => {
    const r = prng(99);
    let sawCapped = 0;
    for (let iter = 0; iter < 400; iter++) {
      const { charges, usage } = randomInvoice(r, true);
      const res = rate({ currency: 'USD', period, charges, usage });
      const ctx = JSON.stringify({ charges, usage });
      expect(toScaled(res.total, 2) >= 0n, ctx).toBe(true);
      for (const l of res.lines) {
        const a = toScaled(l.amount, 2);
        if (l.model === 'discount') {
          expect(a <= 0n, ctx).toBe(true);
          expect(-a <= toScaled(l.discount!.base, 2), ctx).toBe(true); // never more than what it applies to
        } else expect(a >= 0n, ctx).toBe(true);
      }
      if (res.total === '0.00' && res.subtotal !== '0.00') sawCapped++;
    }
    expect(sawCapped).toBeGreaterThan(20); // the generator really exercises the cap
  });
});
