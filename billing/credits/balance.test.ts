/**
 * The live balance of a grant voided while the open period's draft holds it (issue 31,
 * tester's D1): the draft keeps what it held, so the live figure (which supersedes that
 * draft) takes it from the void grant first, and `available` is what it will be once the
 * draft is finalized. Pure: balanceAt with the ledger and one open period.
 */
import { describe, expect, it } from 'vitest';
import { balanceAt, type BalanceEntry, type LiveGrant } from './balance.ts';

const NOW = new Date('2026-11-20T12:00:00Z');
const PERIOD_END = new Date('2026-12-01T00:00:00Z');
const BEFORE = new Date('2026-10-01T00:00:00Z');

const grant = (id: string, priority: number, voided: boolean): LiveGrant => ({ id, priority, expires_at: null, created_at: BEFORE, effective_at: BEFORE, usable_at: BEFORE, voided_at: voided ? NOW : null, scope: null });
const entry = (grant_id: string, type: BalanceEntry['type'], amount: string): BalanceEntry => ({ grant_id, type, amount, invoice_id: null, occurred_at: BEFORE });
const charge = (total: string, kept: string[]) => ({ period_end: PERIOD_END, subscription_id: 'sub_1', total, lines: [{ position: 1, charge_id: 'ch_1', unit: '@action', amount: total, product_id: null }], kept_grants: kept });

describe('a void grant the open period\'s draft held', () => {
  // G 8.00 (priority 1) voided with 7.55 held by the open period's draft (void entry -0.45); G2 5.00 (priority 90).
  const grants = [grant('G', 1, true), grant('G2', 90, false)];
  const entries = [entry('G', 'grant', '8'), entry('G', 'void', '-0.45'), entry('G2', 'grant', '5')];
  it.each([
    // pending, kept by the draft, want: voided, pending_covered, available
    ['8.55', ['G'], { voided: '0.45', pending_covered: '8.55', available: '4.00' }],
    ['7.00', ['G'], { voided: '1.00', pending_covered: '7.00', available: '5.00' }],
    ['20.00', ['G'], { voided: '0.45', pending_covered: '12.55', available: '0.00' }],
    // Not held by this period's draft: the void grant pays nothing more; what is left of it is void.
    ['8.55', [], { voided: '8.00', pending_covered: '5.00', available: '0.00' }],
  ])('pending %s, draft held %j', (pending, kept, want) => {
    const live = { charges: [charge(pending, kept)], grants };
    const b = balanceAt('USD', grants, entries, new Map(), NOW, live);
    expect(b).toMatchObject({ granted: '13.00', held: '0.00', pending, ...want });
    // The agent's own figure (every grant may pay for it) is the account's.
    expect(balanceAt('USD', grants, entries, new Map(), NOW, live, new Set(['G', 'G2'])).available).toBe(want.available);
  });
});
