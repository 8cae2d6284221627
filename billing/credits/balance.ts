/**
 * Pure: an account's credit balance in one currency at an instant, from its ledger
 * entries, what draft invoices hold, and its grants' expiry dates. Nothing but the
 * entries and the instant decides it (no clock job needed for it to be right): an entry
 * counts from its `occurred_at`; whatever is left of a grant past its `expires_at` (not
 * held by a draft) counts as expired, whether or not the scheduler has written its
 * `expiry` entry yet (the entry, dated at the expiry instant, then carries that amount,
 * and the computed part is zero).
 */
import { Dec, formatMoney } from '../rating/money.ts';
import type { CreditEntryType, CreditScope } from '../../shared/db/schema.ts';
import { allocateCredits, usableOn, type CreditableLine, type UsableGrant } from './allocate.ts';

/** One ledger entry as the balance reads it. */
export interface BalanceEntry {
  grant_id: string;
  type: CreditEntryType;
  /** Signed decimal text. */
  amount: string;
  invoice_id: string | null;
  occurred_at: Date;
}

/** One grant as the balance reads it. */
export interface BalanceGrant {
  id: string;
  expires_at: Date | null;
  voided_at: Date | null;
}

/** The figures of a balance (decimal text in the currency's minor units). */
export interface Balance {
  currency: string;
  /** Credit granted (grant entries, and overpayments of corrected invoices). */
  granted: string;
  /** Manual adjustments, net (+/-), and refunds (-). */
  adjusted: string;
  /** Burned on issued invoices, net of what voids and corrections released. */
  burned: string;
  /** Expired remainders (entries, and grants past expiry whose entry is not written yet). */
  expired: string;
  /** Remainders of voided grants (entries, and what drafts gave back after the void). */
  voided: string;
  /** Held by draft invoices now (at an earlier instant, at most what each grant had then): burned when they are issued, given back if they shrink. */
  held: string;
  /**
   * What the open periods' usage so far is rated at: the charges after discounts of the
   * account's subscriptions in this currency (no minimum-commitment true-up until the
   * period ends); null for a balance at an explicit instant (`at`).
   */
  pending: string | null;
  /** The part of `pending` the credits would pay: what the open periods' invoices would apply if they were stored now (null with `pending`). */
  pending_covered: string | null;
  /** granted + adjusted - burned - expired - voided - held - pending_covered. */
  available: string;
}

/** A grant as the live burn-down reads it (the invoice's burn order and usability). */
export interface LiveGrant {
  id: string;
  priority: number;
  expires_at: Date | null;
  created_at: Date;
  effective_at: Date;
  /** When it became usable (null: a paid grant not paid yet). */
  usable_at: Date | null;
  voided_at: Date | null;
  scope: CreditScope | null;
}

/** One open period as the balance reads it (billing/live/open-period.ts). */
export interface LiveCharge {
  period_end: Date;
  /** The subscription billed (a grant scoped to another one does not pay it); absent: none. */
  subscription_id?: string | null;
  /** Charges after discounts so far, decimal text. */
  total: string;
  lines: readonly CreditableLine[];
  /**
   * The grants the period's draft (superseded by this live figure) holds: one voided since
   * stays usable by this period for what is left of it, as re-generating the draft would
   * keep it (invoice-credits.ts `heldBefore`), and no other period may use it.
   */
  kept_grants?: readonly string[];
}

/** The open periods of the account in this currency, in the order their invoices take credit, and its grants. */
export interface LiveInput {
  charges: readonly LiveCharge[];
  grants: readonly LiveGrant[];
}

/**
 * Pure: what the credits pay of the open periods, as storing their invoices now would:
 * each period in turn takes the grants usable at its end (effective before it, not
 * expired by then, granted, not void) by the burn order and scope of allocate.ts, from
 * what is left of each after the earlier periods. `left` is what each grant has left now
 * (entries less holds).
 */
export function liveCovered(live: LiveInput, left: ReadonlyMap<string, Dec>): Dec {
  return [...liveCoveredByGrant(live, left).values()].reduce((s, d) => s.plus(d), new Dec(0));
}

/** {@link liveCovered}, per grant: what each grant would pay of the open periods. */
export function liveCoveredByGrant(live: LiveInput, left: ReadonlyMap<string, Dec>): Map<string, Dec> {
  const remaining = new Map(left);
  const covered = new Map<string, Dec>();
  for (const c of live.charges) {
    const usable: UsableGrant[] = live.grants
      .filter((g) => usableOn(g, c.period_end, c.subscription_id ?? null, c.kept_grants?.includes(g.id) ?? false))
      .map((g) => ({ id: g.id, priority: g.priority, expires_at: g.expires_at, created_at: g.created_at, scope: g.scope, remaining: (remaining.get(g.id) ?? new Dec(0)).toFixed() }))
      .filter((g) => new Dec(g.remaining).gt(0));
    for (const a of allocateCredits(c.total, c.lines, usable)) {
      remaining.set(a.grant_id, remaining.get(a.grant_id)!.minus(a.amount));
      covered.set(a.grant_id, (covered.get(a.grant_id) ?? new Dec(0)).plus(a.amount));
    }
  }
  return covered;
}

/**
 * The balance at `at`. `held` maps grant ids to what drafts hold of them now. Invariant
 * (tested on random histories): available + held = (sum of the entries up to `at`) -
 * what is left (not held) of grants voided or past expiry. A voided grant that the open
 * period's draft held keeps paying that period in the live figure (`kept_grants`): what
 * the live figure takes of it is `pending_covered`, not voided, so `available` is the same
 * before and after that draft is issued.
 *
 * With `counted` (an agent's own balance), `available` counts only those grants: what is
 * left of each (not held, not closed) less what it would pay of the open periods; the
 * other figures stay the account's.
 */
export function balanceAt(currency: string, grants: readonly BalanceGrant[], entries: readonly BalanceEntry[], held: ReadonlyMap<string, string>, at: Date, live?: LiveInput, counted?: ReadonlySet<string>): Balance {
  const sum: Record<CreditEntryType, Dec> = { grant: new Dec(0), burn: new Dec(0), release: new Dec(0), expiry: new Dec(0), void: new Dec(0), adjustment: new Dec(0), overpayment: new Dec(0), refund: new Dec(0) };
  const perGrant = new Map<string, Dec>();
  for (const e of entries) {
    if (e.occurred_at > at) continue;
    sum[e.type] = sum[e.type].plus(e.amount);
    perGrant.set(e.grant_id, (perGrant.get(e.grant_id) ?? new Dec(0)).plus(e.amount));
  }
  let computedExpiry = new Dec(0);
  let computedVoid = new Dec(0);
  let heldTotal = new Dec(0);
  const open = new Map<string, Dec>();
  for (const g of grants) {
    // Drafts hold now; at an earlier instant they held at most what the grant had then.
    const had = Dec.max(perGrant.get(g.id) ?? new Dec(0), 0);
    const h = Dec.min(new Dec(held.get(g.id) ?? 0), had);
    heldTotal = heldTotal.plus(h);
    const left = had.minus(h);
    if (left.gt(0)) open.set(g.id, left);
  }
  const coveredBy = live ? liveCoveredByGrant(live, open) : new Map<string, Dec>();
  const closed = new Set<string>();
  for (const g of grants) {
    const left = open.get(g.id);
    if (!left) continue;
    // A closed grant gives nothing more: what is left of it (a draft that shrank after the
    // void or the expiry entry) counts as voided or expired, never as available, except
    // what the open period whose draft held it takes of it (live: `pending_covered`).
    const gone = left.minus(coveredBy.get(g.id) ?? 0);
    if (g.voided_at && g.voided_at <= at) computedVoid = computedVoid.plus(gone);
    else if (g.expires_at && g.expires_at <= at) computedExpiry = computedExpiry.plus(gone);
    else continue;
    closed.add(g.id);
  }
  const f = (d: Dec) => formatMoney(d, currency);
  const covered = [...coveredBy.values()].reduce((s, d) => s.plus(d), new Dec(0));
  const pending = live ? live.charges.reduce((s, c) => s.plus(c.total), new Dec(0)) : null;
  const expired = sum.expiry.neg().plus(computedExpiry);
  // Overpayments (money paid beyond a corrected invoice's replacement) count as granted, refunds as adjustments.
  const granted = sum.grant.plus(sum.overpayment);
  const adjusted = sum.adjustment.plus(sum.refund);
  const available = counted
    ? [...open].filter(([id]) => counted.has(id) && !closed.has(id)).reduce((s, [id, left]) => s.plus(left).minus(coveredBy.get(id) ?? 0), new Dec(0))
    : granted.plus(adjusted).plus(sum.burn).plus(sum.release).plus(sum.expiry).plus(sum.void).minus(computedExpiry).minus(computedVoid).minus(heldTotal).minus(covered);
  return {
    currency,
    granted: f(granted),
    adjusted: f(adjusted),
    burned: f(sum.burn.plus(sum.release).neg()),
    expired: f(expired),
    voided: f(sum.void.neg().plus(computedVoid)),
    held: f(heldTotal),
    pending: pending ? f(pending) : null,
    pending_covered: live ? f(covered) : null,
    available: f(available),
  };
}
