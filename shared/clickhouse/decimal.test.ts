import { describe, expect, it } from 'vitest';
import { decimalFromClickHouse } from './decimal.ts';

describe('decimalFromClickHouse: one canonical text for every decimal leaving ClickHouse', () => {
  it.each([
    ['10', '10'], // trimmed output of current releases: zeros of the integer part stay
    ['300', '300'],
    ['0', '0'],
    ['-0', '0'],
    ['10.000000000', '10'], // full-scale output of older releases
    ['0.000000000000', '0'],
    ['-0.000000000', '0'],
    ['1.500000000000', '1.5'],
    ['1.5', '1.5'],
    ['0.000000001', '0.000000001'],
    ['-2.340', '-2.34'],
    ['1000000000000000000', '1000000000000000000'],
    ['99999999999999999999999999.999999999999', '99999999999999999999999999.999999999999'],
    ['007.50', '7.5'],
  ])('%s -> %s', (input, expected) => {
    expect(decimalFromClickHouse(input)).toBe(expected);
  });

  it.each(['', '1e5', 'NaN', 'abc', '1.', '.5'])('refuses %j (a bug, not a figure)', (input) => {
    expect(() => decimalFromClickHouse(input)).toThrow(/decimal was expected/);
  });
});
