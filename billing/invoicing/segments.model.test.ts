/**
 * Model-based test of billable segments (issue 37): random sequences of subscription
 * moves, recorded as the catalog records them (each row a snapshot of the subscription's
 * status and plan after the move, pending moves included, in recorded order), against an
 * independent model of the README's rules evaluated instant by instant:
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
 * Money is not compared here yet: the engine still rounds each segment's lines (issue 37,
 * case 5), where the README's rule is once per charge.
 */
import { describe, expect, it } from 'vitest';
import { billableSegments, type PlanSegment, type StateChange } from './segments.ts';

const RUNS = Number(process.env.LIFECYCLE_RUNS ?? 5000);
const SEED = Number(process.env.LIFECYCLE_SEED ?? 20261125);
const HOUR = 3_600_000;
const PERIOD = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const PS = Date.parse(PERIOD.start);
const PE = Date.parse(PERIOD.end);
const PLANS = ['p1', 'p2', 'p3'];

/** mulberry32: a small seeded generator. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Action = 'activate' | 'pause' | 'resume' | 'cancel' | 'renew' | 'change_plan';
/** The catalog's state machine: the statuses each move is allowed from (billing/catalog/subscriptions.ts). */
const ALLOWED: Record<Action, string[]> = {
  activate: ['draft'],
  pause: ['active'],
  resume: ['paused'],
  cancel: ['draft', 'active', 'paused'],
  renew: ['active', 'paused'],
  change_plan: ['draft', 'active', 'paused'],
};
const TYPE: Record<Action, string> = { activate: 'activated', pause: 'paused', resume: 'resumed', cancel: 'cancelled', renew: 'renewed', change_plan: 'plan_changed' };

/** A random sequence of moves as the catalog records them (times on whole hours). */
function sequence(next: () => number): StateChange[] {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const hourIn = (from: number, to: number) => from + Math.floor(next() * Math.max(1, (to - from) / HOUR)) * HOUR;
  // Created somewhere from a month before the period to its end; recorded "now" moves forward.
  let now = hourIn(PS - 30 * 24 * HOUR, PE);
  const contract = next() < 0.5 ? now : hourIn(now - 20 * 24 * HOUR, now + 10 * 24 * HOUR);
  let status = next() < 0.5 ? 'draft' : 'active';
  let plan = pick(PLANS);
  const rows: StateChange[] = [{ type: 'created', to_status: status, rate_plan_id: plan, effective_at: new Date(status === 'active' ? Math.max(contract, now) : contract).toISOString() }];
  let lastChange = Date.parse(rows[0]!.effective_at);
  let activatedAt = status === 'active' ? lastChange : undefined;
  const moves = Math.floor(next() * 9);
  for (let k = 0; k < moves; k++) {
    now += Math.floor(next() * 5 * 24) * HOUR;
    const action = pick(Object.keys(ALLOWED) as Action[]);
    if (!ALLOWED[action].includes(status)) continue;
    // Dated moves: now, in the past back to the last change, or in the future (pending).
    const dated = () => (next() < 0.3 ? Math.max(now, lastChange) : hourIn(lastChange, lastChange + 20 * 24 * HOUR));
    let at: number;
    switch (action) {
      case 'activate':
        at = Math.max(contract, now);
        status = 'active';
        activatedAt = at;
        break;
      case 'pause':
        at = dated();
        status = 'paused';
        break;
      case 'resume':
        at = dated();
        status = 'active';
        break;
      case 'change_plan': {
        const to = pick(PLANS.filter((p) => p !== plan));
        at = dated();
        plan = to;
        break;
      }
      case 'cancel': {
        const bound = Math.max(contract, activatedAt ?? contract);
        at = next() < 0.3 ? Math.max(now, bound) : hourIn(bound, bound + 40 * 24 * HOUR);
        status = 'cancelled';
        break;
      }
      case 'renew':
        at = now;
        break;
    }
    if (action === 'pause' || action === 'resume' || action === 'change_plan') lastChange = Math.max(lastChange, at);
    rows.push({ type: TYPE[action], to_status: status, rate_plan_id: plan, effective_at: new Date(at).toISOString() });
  }
  return rows;
}

/** The model: the plan billed at instant `t`, or null (see the file's doc). */
function billedAt(rows: readonly StateChange[], t: number): string | null {
  const inEffect = rows.map((r, i) => ({ r, i, at: Date.parse(r.effective_at) })).filter((x) => x.at <= t);
  const created = rows[0]!;
  if (Date.parse(created.effective_at) > t && !inEffect.some((x) => x.r.type !== 'created')) return null;
  if (inEffect.some((x) => x.r.type === 'cancelled')) return null;
  const latest = (types: string[]) =>
    inEffect.filter((x) => types.includes(x.r.type!)).reduce<(typeof inEffect)[number] | undefined>((m, x) => (!m || x.at > m.at || (x.at === m.at && x.i > m.i) ? x : m), undefined);
  const statusMove = latest(['created', 'activated', 'paused', 'resumed']);
  const planMove = latest(['created', 'plan_changed']);
  if (!statusMove) return null;
  const status = statusMove.r.type === 'created' ? statusMove.r.to_status : statusMove.r.type === 'paused' ? 'paused' : 'active';
  if (status !== 'active') return null;
  return planMove ? planMove.r.rate_plan_id : created.rate_plan_id;
}

function segmentAt(segments: readonly PlanSegment[], t: number): string | null {
  const s = segments.find((x) => Date.parse(x.from) <= t && t < Date.parse(x.to));
  return s ? s.rate_plan_id : null;
}

describe(`billable segments against the model (${RUNS} random sequences, seed ${SEED})`, () => {
  it('bill every hour of the period on the plan the rules say, in ordered, merged, non-empty segments', () => {
    const next = rng(SEED);
    for (let run = 0; run < RUNS; run++) {
      const rows = sequence(next);
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
        const expected = billedAt(rows, t);
        const actual = segmentAt(segments, t);
        if (expected !== actual) expect(actual, `${context()} at ${new Date(t).toISOString()}`).toBe(expected);
      }
    }
  });
});
