/**
 * Pure: which credits an invoice applies, grant by grant (no IO; the invoicing store
 * calls it inside the transaction that holds the account's grants locked).
 *
 * Rules (docs/credits.md, Credits):
 * - Only what the invoice bills is covered: at most its `total` (after discounts and
 *   any minimum-commitment true-up), never below zero.
 * - Grants burn by priority (lower first), then the earliest expiry (no expiry last),
 *   then the oldest grant (created first, then id).
 * - A scoped grant covers only the lines it names (charge ids, product ids, units of
 *   measure: a line matches if any list names it); each line is covered once in all,
 *   in position order. An unscoped grant covers any line.
 * - A grant scoped to a subscription (a prepaid commitment's) is usable only on that
 *   subscription's invoices ({@link fitsSubscription}, checked by the callers when they
 *   pick the usable grants), on any of their lines.
 */
import { Dec } from '../rating/money.ts';
import type { CreditScope } from '../../shared/db/schema.ts';

/** One line of the invoice as the burn-down sees it. */
export interface CreditableLine {
  position: number;
  charge_id: string;
  product_id: string | null;
  unit: string | null;
  /** Decimal text in the currency's minor units; negative lines (discounts) cover nothing. */
  amount: string;
}

/** One usable grant with what is left of it for this invoice. */
export interface UsableGrant {
  id: string;
  priority: number;
  expires_at: Date | null;
  created_at: Date;
  /** Decimal text, > 0. */
  remaining: string;
  scope: CreditScope | null;
}

/** What one grant pays of the invoice (amount > 0, decimal text). */
export interface Allocation {
  grant_id: string;
  amount: string;
}

/** The burn order: priority, then earliest expiry (none last), then oldest, then id. */
export function burnOrder(a: UsableGrant, b: UsableGrant): number {
  if (a.priority !== b.priority) return a.priority - b.priority;
  const ea = a.expires_at?.getTime() ?? Infinity;
  const eb = b.expires_at?.getTime() ?? Infinity;
  if (ea !== eb) return ea < eb ? -1 : 1;
  if (a.created_at.getTime() !== b.created_at.getTime()) return a.created_at.getTime() - b.created_at.getTime();
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** Whether a scope covers a line (null scope: every line). */
export function inScope(scope: CreditScope | null, line: Pick<CreditableLine, 'charge_id' | 'product_id' | 'unit'>): boolean {
  if (!scope || [scope.charge_ids, scope.product_ids, scope.units].every((l) => !l?.length)) return true;
  return (
    (scope.charge_ids ?? []).includes(line.charge_id) ||
    (line.product_id !== null && (scope.product_ids ?? []).includes(line.product_id)) ||
    (line.unit !== null && (scope.units ?? []).includes(line.unit))
  );
}

/** A grant as the usability rule reads it. */
export interface GrantDates {
  effective_at: Date;
  expires_at: Date | null;
  usable_at: Date | null;
  voided_at: Date | null;
  scope: CreditScope | null;
}

/**
 * Whether a grant pays toward an invoice of `subscriptionId` whose period ends `at`: granted
 * (usable), effective before `at`, not expired by then, not void (unless `keepVoided`: a
 * draft keeps what it held of a grant voided since), and not scoped to another subscription.
 */
export function usableOn(g: GrantDates, at: Date, subscriptionId: string | null, keepVoided = false): boolean {
  return (g.voided_at === null || keepVoided) && g.usable_at !== null && g.effective_at < at && (g.expires_at === null || g.expires_at > at) && fitsSubscription(g.scope, subscriptionId);
}

/** Whether a grant of this scope may pay an invoice of `subscriptionId` (null: an invoice of no subscription). */
export function fitsSubscription(scope: CreditScope | null, subscriptionId: string | null): boolean {
  return scope?.subscription_id === undefined || scope.subscription_id === subscriptionId;
}

/** The credits an invoice of `total` with `lines` applies from `grants` (see the module comment). */
export function allocateCredits(total: string, lines: readonly CreditableLine[], grants: readonly UsableGrant[]): Allocation[] {
  let cap = Dec.max(new Dec(total), 0);
  const open = lines.map((l) => ({ line: l, open: Dec.max(new Dec(l.amount), 0) }));
  const out: Allocation[] = [];
  for (const g of [...grants].sort(burnOrder)) {
    if (cap.isZero()) break;
    const covered = open.filter((o) => o.open.gt(0) && inScope(g.scope, o.line));
    const coverable = covered.reduce((s, o) => s.plus(o.open), new Dec(0));
    const take = Dec.min(new Dec(g.remaining), cap, coverable);
    if (take.lte(0)) continue;
    let left = take;
    for (const o of covered) {
      const part = Dec.min(o.open, left);
      o.open = o.open.minus(part);
      left = left.minus(part);
      if (left.isZero()) break;
    }
    cap = cap.minus(take);
    out.push({ grant_id: g.id, amount: take.toFixed() });
  }
  return out;
}
