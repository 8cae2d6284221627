/**
 * Model-based test of billable segments (issue 37): random sequences of subscription
 * moves, recorded as the catalog records them (each row a snapshot of the subscription's
 * status and plan after the move, pending moves included, in recorded order), against an
 * independent model of the billing rules (docs/billing.md) evaluated instant by instant:
 *
 * - nothing is billable before the subscription's creation, nor at or after the
 *   effective time of any cancel (a cancel is final);
 * - otherwise the status is that of the latest status move (activate, pause, resume) in
 *   effect (latest effective time, then latest recorded), else the creation's; the plan
 *   is that of the latest plan change in effect, else the creation's; a renew changes
 *   neither;
 * - the subscription is billed on its plan while its status is active.
 *
 * Seeded and reproducible: LIFECYCLE_SEED picks the seed, LIFECYCLE_RUNS the number of
 * sequences (5,000 in `npm test`; `npm run test:lifecycle` runs 100,000, or LIFECYCLE_RUNS).
 * Money: invoice.model.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { billableSegments, scheduledChanges, stateAt, type PlanSegment, type StateChange } from './segments.ts';
import { HOUR, PERIOD, planBilledAt, randomMoves, rng } from '../../test/lifecycle-model.ts';

const RUNS = Number(process.env.LIFECYCLE_RUNS ?? 5000);
const SEED = Number(process.env.LIFECYCLE_SEED ?? 20261125);
const PS = Date.parse(PERIOD.start);
const PE = Date.parse(PERIOD.end);

function segmentAt(segments: readonly PlanSegment[], t: number): string | null {
  const s = segments.find((x) => Date.parse(x.from) <= t && t < Date.parse(x.to));
  return s ? s.rate_plan_id : null;
}

describe(`billable segments against the model (${RUNS} random sequences, seed ${SEED})`, () => {
  it('bill every hour of the period on the plan the rules say, in ordered, merged, non-empty segments', () => {
    const next = rng(SEED);
    for (let run = 0; run < RUNS; run++) {
      const rows = randomMoves(next);
      const segments = billableSegments(rows, PERIOD);
      const context = () => `run ${run} (seed ${SEED}): ${JSON.stringify(rows)} -> ${JSON.stringify(segments)}`;
      for (let k = 0; k < segments.length; k++) {
        const s = segments[k]!;
        expect(Date.parse(s.to) > Date.parse(s.from), context()).toBe(true);
        expect(Date.parse(s.from) >= PS && Date.parse(s.to) <= PE, context()).toBe(true);
        const prev = segments[k - 1];
        if (prev) {
          expect(Date.parse(prev.to) <= Date.parse(s.from), context()).toBe(true);
          expect(prev.to === s.from && prev.rate_plan_id === s.rate_plan_id, `${context()}: adjacent segments on one plan are one`).toBe(false);
        }
      }
      for (let t = PS + HOUR / 2; t < PE; t += HOUR) {
        const expected = planBilledAt(rows, t);
        const actual = segmentAt(segments, t);
        if (expected !== actual) expect(actual, `${context()} at ${new Date(t).toISOString()}`).toBe(expected);
      }
    }
  }, 60_000 + RUNS * 5);

  it('show, at every hour, the state billing bills by (GET subscription), and as scheduled the moves still to come', () => {
    const next = rng(SEED + 1);
    for (let run = 0; run < RUNS; run++) {
      const rows = randomMoves(next);
      const context = (t: number) => `run ${run} (seed ${SEED + 1}) at ${new Date(t).toISOString()}: ${JSON.stringify(rows)}`;
      const end = stateAt(rows, Number.MAX_SAFE_INTEGER);
      // Each instant a move takes effect, the hour before and after it, and the period's first hour.
      const instants = new Set([PS + HOUR / 2, ...rows.flatMap((r) => [-HOUR, -1, 0, HOUR].map((d) => Date.parse(r.effective_at) + d))]);
      for (const t of instants) {
        const now = stateAt(rows, t);
        const billed = planBilledAt(rows, t);
        // Billed on plan P at t exactly when the state shown at t is active on P.
        if ((now.status === 'active' ? now.rate_plan_id : null) !== billed) expect({ status: now.status, plan: now.rate_plan_id }, context(t)).toEqual({ status: 'active', plan: billed });
        // A cancel in effect shows cancelled.
        if (rows.some((r) => r.type === 'cancelled' && Date.parse(r.effective_at) <= t)) expect(now.status, context(t)).toBe('cancelled');
        // What is scheduled is what takes effect later: the last scheduled state is the state at the end of time.
        const later = scheduledChanges(rows, t);
        expect(later.every((c) => Date.parse(c.effective_at) > t), context(t)).toBe(true);
        const last = later.at(-1) ?? now;
        expect({ status: last.status, plan: last.rate_plan_id }, context(t)).toEqual({ status: end.status, plan: end.rate_plan_id });
      }
    }
  }, 60_000 + RUNS * 5);
});
