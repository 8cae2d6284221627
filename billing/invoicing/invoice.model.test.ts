/**
 * Model-based test of invoice money (issue 37): random sequences of subscription moves
 * (as segments.model.test.ts records them) and random events, turned into an invoice by
 * the pure code invoicing uses (billableSegments, then the rating engine's rateSegments
 * on each segment's charges and usage, then invoiceLines), against an independent model
 * in exact rationals (BigInt fractions) of the billing rules (docs/billing.md):
 *
 * - a plan's recurring fee bills fee x (time billed on the plan) / (the period's length);
 * - a per-unit charge bills price x (events whose time was billed on its plan);
 * - each charge is rounded once for the invoice, half up to the currency's minor units
 *   (USD 2, JPY 0, BHD 3), however its time is split; the total is the sum of the lines;
 * - a minimum commitment (each plan's, or the subscription's override, README
 *   "Commitments") owes minimum x (time billed on the plan) / (the period's length) summed
 *   over plans, rounded once; when the charges bill less, a true-up line makes up the rest.
 *
 * Seeded and reproducible (LIFECYCLE_SEED, LIFECYCLE_RUNS; `npm run test:lifecycle`).
 */
import { describe, expect, it } from 'vitest';
import { rateSegments, type RatedCharge } from '../rating/index.ts';
import { invoiceLines } from './lines.ts';
import { billableSegments } from './segments.ts';
import { add, minus, mul, PERIOD, PLANS, q, randomMoves, rng, roundText, ZERO, type Q } from '../../test/lifecycle-model.ts';

const RUNS = Math.max(1, Math.floor(Number(process.env.LIFECYCLE_RUNS ?? 5000) / 2));
const SEED = Number(process.env.LIFECYCLE_SEED ?? 20261125);
const PS = Date.parse(PERIOD.start);
const PE = Date.parse(PERIOD.end);
const MINUTE = 60_000;

/** Currencies and their minor units, with prices that make rounding matter. */
const CURRENCIES = [
  { code: 'USD', places: 2, fees: ['100', '31', '0', '99999999.99'], prices: ['0.005', '0.5', '1', '0.001'], minimums: [null, '0', '150', '1000', '33.33', '999999999999999.99'] },
  { code: 'JPY', places: 0, fees: ['1000', '7', '0'], prices: ['0.5', '3', '1'], minimums: [null, '0', '1', '5000', '999999999999999'] },
  { code: 'BHD', places: 3, fees: ['10.5', '1', '0.001'], prices: ['0.0005', '0.125'], minimums: [null, '0', '0.001', '12.345', '999999999999999.999'] },
];

describe(`invoice money against the model (${RUNS} random sequences with events, seed ${SEED})`, () => {
  it('bills each charge once, exactly, to the minor unit, whatever the moves', () => {
    const next = rng(SEED + 1);
    let trueUpRuns = 0;
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    for (let run = 0; run < RUNS; run++) {
      const currency = pick(CURRENCIES);
      const plans = new Map(PLANS.map((p) => [p, { fee: pick(currency.fees), price: pick(currency.prices), minimum: pick(currency.minimums) }]));
      // Sometimes the subscription overrides every plan's minimum.
      const override = next() < 0.25 ? pick(currency.minimums.filter((m) => m !== null)) : null;
      const minimumOn = (plan: string) => override ?? plans.get(plan)!.minimum;
      const charges = (plan: string): RatedCharge[] => [
        { id: `fee-${plan}`, name: `Fee ${plan}`, model: 'flat', charge_type: 'recurring', unit_of_measure: null, pricing: { kind: 'flat', amount: plans.get(plan)!.fee } },
        { id: `act-${plan}`, name: `Actions ${plan}`, model: 'per_unit', charge_type: 'usage', unit_of_measure: '@action', pricing: { kind: 'per_unit', unit_price: plans.get(plan)!.price } },
      ];
      const rows = randomMoves(next);
      const events = Array.from({ length: Math.floor(next() * 12) }, () => PS + Math.floor(next() * ((PE - PS) / MINUTE)) * MINUTE);

      // The code under test.
      const segments = billableSegments(rows, PERIOD);
      const context = () => `run ${run}: ${currency.code} ${JSON.stringify([...plans])} override ${override} ${JSON.stringify(rows)} events ${JSON.stringify(events.map((e) => new Date(e).toISOString()))}`;
      if (segments.length === 0) continue;
      const measured = segments.map((s) => ({ ...s, usage: { '@action': String(events.filter((e) => e >= Date.parse(s.from) && e < Date.parse(s.to)).length) } }));
      const result = rateSegments({ currency: currency.code, period: PERIOD, segments: measured.map((s) => ({ from: s.from, to: s.to, charges: charges(s.rate_plan_id), usage: s.usage, minimum_commitment: minimumOn(s.rate_plan_id) })) });
      const lines = invoiceLines(result, measured, { account_id: 'acct' });

      // The model: exact amounts per charge, from the segments' time and the events' times.
      const exact = new Map<string, Q>();
      const period = BigInt(PE - PS);
      for (const s of segments) {
        const p = plans.get(s.rate_plan_id)!;
        const ms = BigInt(Date.parse(s.to) - Date.parse(s.from));
        exact.set(`fee-${s.rate_plan_id}`, add(exact.get(`fee-${s.rate_plan_id}`) ?? ZERO, mul(q(p.fee), ms, period)));
        const count = BigInt(events.filter((e) => e >= Date.parse(s.from) && e < Date.parse(s.to)).length);
        exact.set(`act-${s.rate_plan_id}`, add(exact.get(`act-${s.rate_plan_id}`) ?? ZERO, mul(q(p.price), count)));
      }
      let total = ZERO;
      for (const [chargeId, amount] of exact) {
        const expected = roundText(amount, currency.places);
        const billed = lines.filter((l) => l.charge_id === chargeId).reduce((a, l) => add(a, q(l.amount)), ZERO);
        expect(roundText(billed, currency.places), `${context()}: ${chargeId}`).toBe(expected);
        total = add(total, q(expected));
      }
      // The minimum owed: each segment's minimum over its share of the period, rounded once.
      let owed = ZERO;
      const anyMinimum = segments.some((s) => minimumOn(s.rate_plan_id) !== null);
      for (const s of segments) owed = add(owed, mul(q(minimumOn(s.rate_plan_id) ?? '0'), BigInt(Date.parse(s.to) - Date.parse(s.from)), period));
      const owedText = roundText(owed, currency.places);
      const shortfall = minus(q(owedText), total);
      const trueUps = lines.filter((l) => l.model === 'minimum_commitment');
      if (anyMinimum && shortfall.n > 0n) {
        expect(trueUps.map((l) => l.amount), context()).toEqual([roundText(shortfall, currency.places)]);
        expect(trueUps[0]!.minimum_commitment!.prorated_minimum, context()).toBe(owedText);
        total = q(owedText);
        trueUpRuns++;
      } else {
        expect(trueUps, context()).toEqual([]);
      }
      expect(result.total, context()).toBe(roundText(total, currency.places));
      // Every line is in minor units, and the total is their sum.
      for (const l of lines) expect(l.amount, context()).toMatch(currency.places ? new RegExp(`^\\d+\\.\\d{${currency.places}}$`) : /^\d+$/);
    }
    // Not vacuous: a good share of the invoices fall under their minimum.
    expect(trueUpRuns).toBeGreaterThan(RUNS / 10);
  }, 60_000 + RUNS * 5);
});
