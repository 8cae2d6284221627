/**
 * Model-based test of the credit burn-down and balance (issue 31): random histories of
 * grants (amount, priority, effective date, expiry, scope), adjustments, voided grants,
 * and invoices (random lines over charges, products and units, discounts, issued or left
 * draft, some voided later), each applied by the pure code the invoicing store uses
 * (allocateCredits) and recorded as the ledger records it, against an independent model in
 * BigInt minor units (per-line greedy coverage in burn order; per-grant counters) of the
 * rules of docs/credits.md:
 *
 * - an invoice applies at most its total, never below zero, and each line at most once;
 * - grants burn by priority, then the earliest expiry, then the oldest, each only on the
 *   lines its scope names, only when usable on the invoice's period end;
 * - the balance at any instant (balanceAt) equals the model's: available + held + burned
 *   + expired + voided = granted + adjusted, nothing negative, and available + held is
 *   the sum of the entries up to that instant less what is left of voided and expired
 *   grants (a closed grant gives nothing more, even when a draft re-rated smaller gives
 *   credit back to it).
 *
 * - prepaid commitments (docs/credits.md "Commitments"): a grant of priority 0 scoped to one of two
 *   subscriptions, effective at its term's start and expiring 1 ms after its end, pays
 *   only that subscription's invoices, before any other grant, on any of their lines; its
 *   installments (termPlan) are equal parts at the minor units with the remainder on the
 *   last, adding up to the amount.
 *
 * Currencies with 0, 2 and 3 decimals, zeros, whole numbers and the largest amounts
 * (10^15). Seeded and reproducible (CREDITS_SEED, CREDITS_RUNS).
 */
import { describe, expect, it } from 'vitest';
import { rng } from '../../test/lifecycle-model.ts';
import { allocateCredits, usableOn, type CreditableLine, type UsableGrant } from './allocate.ts';
import { termPlan } from '../catalog/prepaid-commitment.ts';
import { balanceAt, type BalanceEntry } from './balance.ts';
import { Dec } from '../rating/money.ts';
import type { CreditScope } from '../../shared/db/schema.ts';

const RUNS = Number(process.env.CREDITS_RUNS ?? 2000);
const SEED = Number(process.env.CREDITS_SEED ?? 20261126);
const DAY = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const CURRENCIES = [
  { code: 'USD', places: 2 },
  { code: 'JPY', places: 0 },
  { code: 'KWD', places: 3 },
];
const CHARGES = ['c1', 'c2', 'c3', 'c4'];
const PRODUCT_OF: Record<string, string> = { c1: 'pA', c2: 'pA', c3: 'pB', c4: 'pB' };
const UNIT_OF: Record<string, string | null> = { c1: null, c2: '@action', c3: '@action', c4: '@outcome' };
/** The largest amount, in minor units of a currency. */
const maxUnits = (places: number) => 10n ** BigInt(15 + places);

/** Minor units as decimal text ("1234", 2 -> "12.34"). */
function text(units: bigint, places: number): string {
  const neg = units < 0n;
  const s = (neg ? -units : units).toString().padStart(places + 1, '0');
  return (neg ? '-' : '') + (places === 0 ? s : `${s.slice(0, -places)}.${s.slice(-places)}`);
}
/** Decimal text -> minor units (exact; the text has at most `places` decimals). */
function units(dec: string, places: number): bigint {
  const neg = dec.startsWith('-');
  const [i, f = ''] = (neg ? dec.slice(1) : dec).split('.');
  const v = BigInt(i! + f.padEnd(places, '0'));
  return neg ? -v : v;
}

interface ModelGrant {
  id: string;
  priority: number;
  effective: number;
  expires: number | null;
  created: number;
  scope: CreditScope | null;
  /** Counters in minor units. */
  entries: bigint;
  voided: boolean;
  voidedAt: number | null;
  /** A prepaid commitment's grant: the only subscription whose invoices it pays; null for others. */
  sub: string | null;
}
const SUBS = ['s1', 's2'];

describe(`credits against the model (${RUNS} random histories, seed ${SEED})`, () => {
  it('applies credits in order and scope, exactly, never below zero; the balance is the sum of its entries at every instant', () => {
    const next = rng(SEED);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
    const amount = (places: number): bigint => {
      const r = next();
      if (r < 0.05) return maxUnits(places); // the largest accepted
      if (r < 0.3) return BigInt(1 + Math.floor(next() * 200)) * 10n ** BigInt(places); // whole numbers
      if (r < 0.4) return 1n; // one minor unit
      return BigInt(1 + Math.floor(next() * 50_000));
    };
    const randomScope = (): CreditScope | null => {
      const r = next();
      if (r < 0.5) return null;
      if (r < 0.7) return { charge_ids: CHARGES.filter(() => next() < 0.4).concat(pick(CHARGES)) };
      if (r < 0.85) return { product_ids: [pick(['pA', 'pB', 'pZ'])] };
      return { units: [pick(['@action', '@outcome'])], ...(next() < 0.3 ? { charge_ids: ['c1'] } : {}) };
    };
    const inScope = (s: CreditScope | null, charge: string) =>
      s === null || (s.charge_ids ?? []).includes(charge) || (s.product_ids ?? []).includes(PRODUCT_OF[charge]!) || (UNIT_OF[charge] !== null && (s.units ?? []).includes(UNIT_OF[charge]!));

    for (let run = 0; run < RUNS; run++) {
      const { code, places } = pick(CURRENCIES);
      const grants: ModelGrant[] = [];
      const entries: BalanceEntry[] = [];
      /** Held by drafts: grant -> minor units (the model's), and per draft. */
      const drafts = new Map<string, Map<string, bigint>>();
      const issued = new Map<string, Map<string, bigint>>();
      const log: string[] = [];
      let t = T0;
      const entry = (g: ModelGrant, type: BalanceEntry['type'], v: bigint, at: number, invoice: string | null = null) => {
        entries.push({ grant_id: g.id, type, amount: text(v, places), invoice_id: invoice, occurred_at: new Date(at) });
        g.entries += v;
      };
      const held = (g: string, except?: string) => [...drafts].filter(([id]) => id !== except).reduce((s, [, m]) => s + (m.get(g) ?? 0n), 0n);

      const steps = 1 + Math.floor(next() * 14);
      for (let step = 0; step < steps; step++) {
        t += Math.floor(next() * 20) * DAY;
        const r = next();
        if (r < 0.08) {
          // A prepaid commitment's term: its grant, and its installments checked against an independent split.
          const sub = pick(SUBS);
          const amt = amount(places);
          const n = pick([1, 2, 3, 4, 6, 12]);
          const plan = termPlan({ amount: text(amt, places), term_months: 12, installments: n, renews: true }, new Date(t), code);
          const part = amt / BigInt(n);
          expect(plan.installments.map((i) => units(i.amount, places))).toEqual([...Array.from({ length: n - 1 }, () => part), amt - part * BigInt(n - 1)]);
          expect(plan.installments.map((i) => i.n)).toEqual(Array.from({ length: n }, (_, i) => i + 1));
          expect(plan.installments[0]!.due_at.getTime()).toBe(t);
          const g: ModelGrant = { id: `g${String(grants.length).padStart(3, '0')}`, priority: 0, effective: t, expires: plan.ends_at.getTime() + 1, created: t, scope: { subscription_id: sub }, entries: 0n, voided: false, voidedAt: null, sub };
          grants.push(g);
          entry(g, 'grant', amt, t);
          log.push(`commitment ${JSON.stringify({ ...g, entries: String(g.entries) })}`);
        } else if (r < 0.35 || grants.length === 0) {
          const effective = t + (next() < 0.3 ? Math.floor(next() * 30) * DAY : 0);
          const g: ModelGrant = { id: `g${String(grants.length).padStart(3, '0')}`, priority: 1 + Math.floor(next() * 4), effective, expires: next() < 0.4 ? effective + (1 + Math.floor(next() * 60)) * DAY : null, created: t, scope: randomScope(), entries: 0n, voided: false, voidedAt: null, sub: null };
          grants.push(g);
          entry(g, 'grant', amount(places), effective);
          log.push(`grant ${JSON.stringify({ ...g, entries: String(g.entries) })}`);
        } else if (r < 0.45) {
          const g = pick(grants);
          const left = g.entries - held(g.id);
          if (g.voided) continue;
          const v = next() < 0.5 ? amount(places) : -(left > 0n ? 1n + BigInt(Math.floor(next() * Number(left > 10n ** 9n ? 10n ** 9n : left))) : 0n);
          if (v === 0n || left + v < 0n) continue;
          entry(g, 'adjustment', v, Math.max(t, g.effective)); // counts from the grant's effective date at the earliest
          log.push(`adjust ${g.id} ${v}`);
        } else if (r < 0.5) {
          const g = pick(grants);
          if (g.voided) continue;
          const left = g.entries - held(g.id);
          g.voided = true;
          g.voidedAt = Math.max(t, g.effective);
          if (left > 0n) entry(g, 'void', -left, Math.max(t, g.effective));
          log.push(`void ${g.id}`);
        } else if (r < 0.55) {
          // A draft re-rated smaller: it holds half of what it held (credit on a closed grant stays closed).
          const ids = [...drafts.keys()];
          if (ids.length === 0) continue;
          const id = pick(ids);
          drafts.set(id, new Map([...drafts.get(id)!].map(([g, v]) => [g, v / 2n] as const).filter(([, v]) => v > 0n)));
          log.push(`shrink draft ${id}`);
        } else if (r < 0.9) {
          // An invoice whose period ends now.
          const id = `inv${step}`;
          const lines: CreditableLine[] = Array.from({ length: 1 + Math.floor(next() * 4) }, (_, i) => {
            const c = pick(CHARGES);
            const amt = next() < 0.1 ? 0n : next() < 0.1 ? -BigInt(Math.floor(next() * 5000)) : amount(places);
            return { position: i + 1, charge_id: c, product_id: PRODUCT_OF[c]!, unit: UNIT_OF[c]!, amount: text(amt, places) };
          });
          const total = lines.reduce((s, l) => s + units(l.amount, places), 0n);
          const invoiceSub = pick(SUBS);
          const usable = grants.filter((g) => !g.voided && g.effective < t && (g.expires === null || g.expires > t) && (g.sub === null || g.sub === invoiceSub));
          // The code under test picks the usable grants itself (usableOn), then allocates.
          const codeUsable = grants.filter((g) =>
            usableOn({ effective_at: new Date(g.effective), expires_at: g.expires === null ? null : new Date(g.expires), usable_at: new Date(g.effective), voided_at: g.voided ? new Date(g.voidedAt!) : null, scope: g.scope }, new Date(t), invoiceSub),
          );
          const input: UsableGrant[] = codeUsable
            .map((g) => ({ id: g.id, priority: g.priority, expires_at: g.expires === null ? null : new Date(g.expires), created_at: new Date(g.created), scope: g.scope, remaining: text(g.entries - held(g.id), places) }))
            .filter((g) => units(g.remaining, places) > 0n);
          // The code under test.
          const got = allocateCredits(text(total, places), lines, input);

          // The model: lines covered one by one in burn order, each at most once, at most the total.
          const order = [...usable].sort((a, b) => a.priority - b.priority || (a.expires ?? Infinity) - (b.expires ?? Infinity) || a.created - b.created || (a.id < b.id ? -1 : 1));
          const open = lines.map((l) => ({ charge: l.charge_id, open: units(l.amount, places) > 0n ? units(l.amount, places) : 0n }));
          let cap = total > 0n ? total : 0n;
          const want: { grant_id: string; amount: string }[] = [];
          for (const g of order) {
            let left = g.entries - held(g.id);
            let took = 0n;
            for (const o of open) {
              if (left <= 0n || cap <= 0n) break;
              // A commitment covers any line of its subscription's invoices.
              if (o.open <= 0n || (g.sub === null && !inScope(g.scope, o.charge))) continue;
              const x = [o.open, left, cap].reduce((a, b) => (a < b ? a : b));
              o.open -= x;
              left -= x;
              cap -= x;
              took += x;
            }
            if (took > 0n) want.push({ grant_id: g.id, amount: text(took, places) });
          }
          const context = () => `run ${run} ${code}: ${log.join(' | ')} | invoice ${JSON.stringify(lines)}`;
          expect(got.map((a) => ({ grant_id: a.grant_id, amount: text(units(a.amount, places), places) })), context()).toEqual(want);
          const applied = want.reduce((s, a) => s + units(a.amount, places), 0n);
          expect(applied <= (total > 0n ? total : 0n), context()).toBe(true);

          const byGrant = new Map(want.map((a) => [a.grant_id, units(a.amount, places)]));
          const fate = next();
          if (fate < 0.4) drafts.set(id, byGrant);
          else {
            for (const [gid, v] of byGrant) entry(grants.find((g) => g.id === gid)!, 'burn', -v, t, id);
            issued.set(id, byGrant);
          }
          log.push(`invoice ${id} of ${invoiceSub} total ${total} ${fate < 0.4 ? 'draft' : 'issued'} ${JSON.stringify([...byGrant].map(([g, v]) => [g, String(v)]))}`);
        } else {
          // Void an issued invoice: its burns come back (and leave again on a closed grant).
          const ids = [...issued.keys()];
          if (ids.length === 0) continue;
          const id = pick(ids);
          for (const [gid, v] of issued.get(id)!) {
            const g = grants.find((x) => x.id === gid)!;
            entry(g, 'release', v, t, id);
            if (g.voided) entry(g, 'void', -v, t, id);
            else if (g.expires !== null && g.expires <= t) entry(g, 'expiry', -v, t, id);
          }
          issued.delete(id);
          log.push(`void invoice ${id}`);
        }
      }

      // The balance at random instants (and now), against the model's counters.
      const heldNow = new Map(grants.map((g) => [g.id, text(held(g.id), places)]));
      for (const at of [t, T0 - DAY, T0 + Math.floor(next() * (t - T0 + 1)), t + 90 * DAY]) {
        const rows = grants.map((g) => ({ id: g.id, expires_at: g.expires === null ? null : new Date(g.expires), voided_at: g.voidedAt === null ? null : new Date(g.voidedAt) }));
        const b = balanceAt(code, rows, entries, heldNow, new Date(at));
        // An agent's own figure counting every grant is the account's; counting none, zero.
        expect(balanceAt(code, rows, entries, heldNow, new Date(at), undefined, new Set(grants.map((g) => g.id))).available).toBe(b.available);
        expect(new Dec(balanceAt(code, rows, entries, heldNow, new Date(at), undefined, new Set()).available).isZero()).toBe(true);
        const upTo = entries.filter((e) => e.occurred_at.getTime() <= at);
        const sum = (type?: BalanceEntry['type']) => upTo.filter((e) => !type || e.type === type).reduce((s, e) => s + units(e.amount, places), 0n);
        let expiredLeft = 0n;
        let voidedLeft = 0n;
        let heldTotal = 0n;
        for (const g of grants) {
          const mine = upTo.filter((e) => e.grant_id === g.id).reduce((s, e) => s + units(e.amount, places), 0n);
          // What drafts hold now, at most what the grant had at that instant.
          const h = held(g.id) < mine ? held(g.id) : mine > 0n ? mine : 0n;
          heldTotal += h;
          if (mine - h <= 0n) continue;
          if (g.voidedAt !== null && g.voidedAt <= at) voidedLeft += mine - h;
          else if (g.expires !== null && g.expires <= at) expiredLeft += mine - h;
        }
        const context = `run ${run} ${code} at ${new Date(at).toISOString()}: ${log.join(' | ')}`;
        const u = (x: string) => units(x, places);
        expect(u(b.granted), context).toBe(sum('grant'));
        expect(u(b.adjusted), context).toBe(sum('adjustment'));
        expect(u(b.burned), context).toBe(-(sum('burn') + sum('release')));
        expect(u(b.voided), context).toBe(-sum('void') + voidedLeft);
        expect(u(b.expired), context).toBe(-sum('expiry') + expiredLeft);
        expect(u(b.held), context).toBe(heldTotal);
        // The balance is the sum of its entries (less what is left of closed grants, less what drafts hold).
        expect(u(b.available), context).toBe(sum() - expiredLeft - voidedLeft - heldTotal);
        expect(u(b.available) + u(b.held) + u(b.burned) + u(b.expired) + u(b.voided), context).toBe(u(b.granted) + u(b.adjusted));
        if (at === t) for (const g of grants) expect(g.entries - held(g.id) >= 0n, `${context}: ${g.id} below zero`).toBe(true);
        expect(u(b.available) >= 0n, `${context}: available below zero`).toBe(true);
        expect(b.pending).toBeNull();
      }
    }
  }, 120_000);
});
