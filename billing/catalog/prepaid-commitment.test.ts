import { describe, expect, it } from 'vitest';
import { addMonths, commitmentInForce, prepaidCommitment, splitInstallments, termPlan } from './prepaid-commitment.ts';

describe('prepaid commitment terms', () => {
  it('splits into equal parts at the minor units, the remainder on the last, adding up exactly', () => {
    expect(splitInstallments('1000.00', 3, 'USD')).toEqual(['333.33', '333.33', '333.34']);
    expect(splitInstallments('10000', 3, 'JPY')).toEqual(['3333', '3333', '3334']);
    expect(splitInstallments('10.001', 2, 'KWD')).toEqual(['5.000', '5.001']);
    expect(splitInstallments('999999999999999.999', 3, 'KWD')).toEqual(['333333333333333.333', '333333333333333.333', '333333333333333.333']);
    expect(splitInstallments('0.01', 4, 'USD')).toEqual(['0.00', '0.00', '0.00', '0.01']);
    expect(splitInstallments('1200', 1, 'USD')).toEqual(['1200.00']);
  });

  it('adds calendar months, the day clamped to the month end', () => {
    expect(addMonths(new Date('2027-01-31T10:00:00Z'), 1).toISOString()).toBe('2027-02-28T10:00:00.000Z');
    expect(addMonths(new Date('2028-01-31T00:00:00Z'), 1).toISOString()).toBe('2028-02-29T00:00:00.000Z');
    expect(addMonths(new Date('2026-11-15T00:00:00Z'), 12).toISOString()).toBe('2027-11-15T00:00:00.000Z');
  });

  it('plans a term: its end and installment dates', () => {
    const plan = termPlan({ amount: '1200.00', term_months: 12, installments: 4, renews: true }, new Date('2026-11-01T00:00:00Z'), 'USD');
    expect(plan.ends_at.toISOString()).toBe('2027-11-01T00:00:00.000Z');
    expect(plan.installments.map((i) => [i.n, i.due_at.toISOString().slice(0, 10), i.amount])).toEqual([
      [1, '2026-11-01', '300.00'],
      [2, '2027-02-01', '300.00'],
      [3, '2027-05-01', '300.00'],
      [4, '2027-08-01', '300.00'],
    ]);
  });

  it('checks the input against the currency and names the field; a subscription overrides its plan, 0 is none', () => {
    expect(prepaidCommitment({ amount: 5 }, 'USD')).toEqual({ amount: '5.00', term_months: 12, installments: 1, renews: true });
    expect(prepaidCommitment(null, 'USD')).toBeNull();
    expect(() => prepaidCommitment({ amount: '1.5' }, 'JPY')).toThrow(/prepaid_commitment.amount has more than 0 decimals/);
    expect(() => prepaidCommitment({ amount: '10', term_months: 12, installments: 5 }, 'USD')).toThrow(/must divide term_months/);
    const plan = { amount: '100.00', term_months: 12, installments: 1, renews: true };
    expect(commitmentInForce(null, plan)).toBe(plan);
    expect(commitmentInForce({ ...plan, amount: '0.00' }, plan)).toBeNull();
    expect(commitmentInForce(null, null)).toBeNull();
  });
});
