/**
 * Random sequences of subscription moves for the lifecycle model tests
 * (billing/invoicing/*.model.test.ts), recorded as the catalog records them
 * (billing/catalog/subscriptions.ts): each row a snapshot of the subscription's status and
 * plan after the move, pending moves included, in recorded order; the state machine's
 * allowed moves and effective-date bounds as the API enforces them.
 */
import type { StateChange } from '../billing/invoicing/segments.ts';
import { ALLOWED } from '../billing/catalog/subscriptions.ts';

export const HOUR = 3_600_000;
export const PERIOD = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const PS = Date.parse(PERIOD.start);
const PE = Date.parse(PERIOD.end);
export const PLANS = ['p1', 'p2', 'p3'];

/** mulberry32: a small seeded generator. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Action = keyof typeof ALLOWED;
const TYPE: Record<Action, string> = { activate: 'activated', pause: 'paused', resume: 'resumed', cancel: 'cancelled', renew: 'renewed', change_plan: 'plan_changed' };

/** A random sequence of moves as the catalog records them (times on whole hours). */
export function randomMoves(next: () => number): StateChange[] {
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
    if (!(ALLOWED[action] as readonly string[]).includes(status)) continue;
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

/**
 * The model of the billing rules (docs/billing.md), instant by instant: the plan billed at `t`, or null.
 * Nothing is billable before the creation, nor at or after the effective time of any
 * cancel; otherwise the status is that of the latest status move in effect (latest
 * effective time, then latest recorded), else the creation's; the plan that of the latest
 * plan change in effect, else the creation's; a renew changes neither; billed while active.
 */
export function planBilledAt(rows: readonly StateChange[], t: number): string | null {
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

/** An exact fraction n/d (d > 0), for money in the models. */
export type Q = { n: bigint; d: bigint };
export const ZERO: Q = { n: 0n, d: 1n };
/** A decimal string as a fraction. */
export const q = (dec: string): Q => {
  const negative = dec.startsWith('-');
  const [i, f = ''] = (negative ? dec.slice(1) : dec).split('.');
  const n = BigInt(i! + f);
  return { n: negative ? -n : n, d: 10n ** BigInt(f.length) };
};
export const add = (a: Q, b: Q): Q => ({ n: a.n * b.d + b.n * a.d, d: a.d * b.d });
export const mul = (a: Q, n: bigint, d = 1n): Q => ({ n: a.n * n, d: a.d * d });
export const minus = (a: Q, b: Q): Q => add(a, { n: -b.n, d: b.d });
/** Half up (non-negative) to `places` decimals, as text. */
export function roundText(x: Q, places: number): string {
  const scale = 10n ** BigInt(places);
  const units = (2n * x.n * scale + x.d) / (2n * x.d);
  const s = units.toString().padStart(places + 1, '0');
  return places === 0 ? s : `${s.slice(0, -places)}.${s.slice(-places)}`;
}
