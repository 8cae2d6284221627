import { describe, expect, it } from 'vitest';
import { addMonths, commitmentInForce, prepaidCommitment, splitInstallments, termGrantExpiry, termPlan } from './prepaid-commitment.ts';
import { commitmentAmount } from './commitments.ts';
import { creditAmount, plainDecimal } from '../credits/money-input.ts';

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

describe('one money parser for credits and commitments (issue 31)', () => {
  it('takes plain decimal digits only, and the grant and commitment checks agree on every input', () => {
    const refused = ['1e2', ' 100', '100 ', '+5', '1.', '.5', '', '1.2.3', '0x10', 'Infinity', 1e21, Number.NaN, null, true];
    for (const v of refused) {
      expect(plainDecimal(v), String(v)).toBeNull();
      expect('problem' in creditAmount(v, 'USD', 'amount'), String(v)).toBe(true);
      if (v !== null) expect(() => commitmentAmount(v as string, 'USD', 'prepaid_commitment.amount'), String(v)).toThrow(/plain notation|decimal|double/);
    }
    for (const [v, usd] of [['100', '100.00'], [100, '100.00'], ['0.01', '0.01'], [12.5, '12.50'], ['999999999999999.99', '999999999999999.99']] as const) {
      expect(creditAmount(v, 'USD', 'amount'), String(v)).toEqual({ value: usd });
      expect(commitmentAmount(v, 'USD', 'prepaid_commitment.amount'), String(v)).toBe(usd);
    }
    expect(commitmentAmount('0', 'JPY', 'x')).toBe('0');
    expect(creditAmount('1.234', 'KWD', 'amount')).toEqual({ value: '1.234' });
  });

  it('refuses a commitment smaller than one minor unit per installment (no 0.00 installment invoice)', () => {
    expect(() => prepaidCommitment({ amount: '0.01', installments: 12 }, 'USD')).toThrow(/at least one minor unit of USD per installment \(0\.12 for 12\)/);
    expect(() => prepaidCommitment({ amount: '11', installments: 12 }, 'JPY')).toThrow(/12 for 12/);
    expect(prepaidCommitment({ amount: '0.12', installments: 12 }, 'USD')!.amount).toBe('0.12');
    expect(prepaidCommitment({ amount: '0.012', term_months: 12, installments: 12 }, 'KWD')!.amount).toBe('0.012');
    expect(prepaidCommitment({ amount: '0' }, 'USD')!.amount).toBe('0.00'); // 0: none
  });

  it("a term's grant expires 1 ms after the billing period in which the term ends", () => {
    expect(termGrantExpiry(new Date('2027-02-10T00:00:00Z'), 'monthly').toISOString()).toBe('2027-03-01T00:00:00.001Z');
    expect(termGrantExpiry(new Date('2027-02-01T00:00:00Z'), 'monthly').toISOString()).toBe('2027-02-01T00:00:00.001Z');
    expect(termGrantExpiry(new Date('2027-02-10T00:00:00Z'), 'quarterly').toISOString()).toBe('2027-04-01T00:00:00.001Z');
  });
});
