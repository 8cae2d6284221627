/**
 * Pure: what an open period's invoice bills for each of its agent instances (an agent
 * instance's `spend`, docs/spend-limits.md), from the rated lines and the usage they were
 * rated from. Every line's amount goes to agent instances or to the account (key `''`),
 * so the agents' figures and the account's part add up to the invoice:
 *
 * - a line of one agent instance (per-unit charges are split per agent): all of it; a
 *   per-unit line of no agent instance (events sent without one) is the account's;
 * - another line of @action or @outcome (tiered, volume, package, overage): shared by the
 *   agent instances' quantities of that unit in the line's window (the usage it was rated
 *   from; events of no agent instance are the account's part);
 * - a discount: shared as what it reduces is, after the discounts before it: one that targets
 *   a charge, by the shares of that charge's lines in its window; one of the whole invoice,
 *   by the shares of all the window's lines;
 * - everything else (fees, flat and one-time charges, @user and @seat charges: users are
 *   counted over the whole scope, not per agent instance): the account's.
 *
 * Shares are exact (no rounding until the caller formats the figure in minor units).
 */
import type { StoredLine, MeasuredSegment } from '../invoicing/lines.ts';
import type { UsageBreakdown } from '../rating/index.ts';
import { Dec } from '../rating/money.ts';

/** Amounts per owner: agent instance id, or `''` for the account. */
type Shares = Map<string, Dec>;

const ACCOUNT = '';
const SPLIT_UNITS = new Set(['@action', '@outcome']);

function add(to: Shares, from: Shares): void {
  for (const [k, v] of from) to.set(k, (to.get(k) ?? new Dec(0)).plus(v));
}

function entry(map: Map<string, Shares>, key: string): Shares {
  let m = map.get(key);
  if (!m) map.set(key, (m = new Map()));
  return m;
}

/** `amount` shared in proportion to `weights` (all to the account when they sum to zero). */
function shareOf(amount: Dec, weights: Shares): Shares {
  const total = [...weights.values()].reduce((s, v) => s.plus(v), new Dec(0));
  if (total.isZero()) return new Map([[ACCOUNT, amount]]);
  return new Map([...weights].filter(([, w]) => !w.isZero()).map(([k, w]) => [k, amount.times(w).div(total)]));
}

/** A unit's quantities per owner in a segment's usage. */
function quantities(usage: UsageBreakdown | string | undefined): Shares {
  const out: Shares = new Map();
  if (usage === undefined || typeof usage !== 'object') return out;
  for (const [id, q] of Object.entries(usage.by_agent_instance ?? {})) out.set(id || ACCOUNT, (out.get(id || ACCOUNT) ?? new Dec(0)).plus(q));
  return out;
}

/** Per agent instance, the exact part of the lines that is billed for it (the true-up line left out by the caller). */
export function agentShares(lines: readonly StoredLine[], segments: readonly MeasuredSegment[]): Map<string, Dec> {
  const owners: Shares = new Map();
  // Per window (service period): what each charge's lines and all its lines stand at, per owner, after the discounts so far.
  const byCharge = new Map<string, Shares>();
  const byWindow = new Map<string, Shares>();
  for (const line of lines) {
    const window = `${line.service_period.start}/${line.service_period.end}`;
    const amount = new Dec(line.amount);
    let shares: Shares;
    if (line.model === 'discount') {
      const target = line.discount?.applies_to ?? null;
      shares = shareOf(amount, (target === null ? byWindow.get(window) : byCharge.get(`${window}|${target}`)) ?? new Map());
    } else if (line.agent_instance_id) {
      shares = new Map([[line.agent_instance_id, amount]]);
    } else if (line.model !== 'per_unit' && line.unit !== null && SPLIT_UNITS.has(line.unit) && line.usage_query) {
      // (A per-unit charge is split per agent instance already: its line of no agent instance is the account's.)
      const q = line.usage_query;
      const segment = segments.find((s) => s.from === q.from && s.to === q.to);
      shares = shareOf(amount, quantities(segment?.usage[line.unit] as UsageBreakdown | string | undefined));
    } else {
      shares = new Map([[ACCOUNT, amount]]);
    }
    // What a later discount of this charge shares: the charge's lines, less the discounts that targeted it.
    const charge = line.model === 'discount' ? line.discount?.applies_to ?? null : line.charge_id;
    if (charge !== null) add(entry(byCharge, `${window}|${charge}`), shares);
    add(entry(byWindow, window), shares);
    add(owners, shares);
  }
  owners.delete(ACCOUNT);
  return owners;
}
