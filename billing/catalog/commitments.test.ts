import { describe, expect, it } from 'vitest';
import { AppError } from '../../shared/errors.ts';
import { commitmentAmount, commitmentView } from './commitments.ts';

describe('commitmentAmount', () => {
  it.each([
    ['1000', 'USD', '1000.00'],
    [1000, 'USD', '1000.00'],
    ['0', 'USD', '0.00'],
    [0, 'JPY', '0'],
    ['12.5', 'USD', '12.50'],
    [12.25, 'USD', '12.25'],
    ['5000', 'JPY', '5000'],
    ['10.125', 'BHD', '10.125'],
    ['999999999999999.99', 'USD', '999999999999999.99'],
    ['999999999999999.999', 'KWD', '999999999999999.999'],
    ['999999999999999', 'JPY', '999999999999999'],
    [null, 'USD', null],
    [undefined, 'USD', null],
  ])('%j %s -> %j', (value, currency, expected) => {
    expect(commitmentAmount(value as string | number | null | undefined, currency, 'minimum_commitment')).toBe(expected);
  });

  it.each([
    ['-1', 'USD', /must not be negative/],
    [-0.5, 'USD', /must not be negative/],
    ['1.001', 'USD', /more than 2 decimals, the minor units of USD/],
    ['1.5', 'JPY', /more than 0 decimals, the minor units of JPY/],
    ['1.0001', 'BHD', /more than 3 decimals/],
    ['1000000000000000', 'USD', /below 10\^15/],
    ['abc', 'USD', /non-negative decimal/],
    ['1e3', 'USD', /non-negative decimal/],
    ['', 'USD', /non-negative decimal/],
    [999999999999999.9, 'USD', /send it as a decimal string/],
    [1e21, 'USD', /send it as a decimal string/],
  ])('%j %s is a 400 naming the field', (value, currency, message) => {
    let err: unknown;
    try {
      commitmentAmount(value as string | number, currency, 'minimum_commitment');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).message).toMatch(/^minimum_commitment /);
    expect((err as AppError).message).toMatch(message);
    expect((err as AppError).details?.[0]?.path).toBe('minimum_commitment');
  });

  it('shows a stored numeric at the currency minor units', () => {
    expect(commitmentView('1000.00', 'USD')).toBe('1000.00');
    expect(commitmentView('7', 'BHD')).toBe('7.000');
    expect(commitmentView(null, 'USD')).toBeNull();
  });
});
