import { describe, expect, it } from 'vitest';
import { Dec, MoneyError, formatDecimal, formatMoney, formatScaled, formatScaledMoney, minorUnits, normalizeCurrency, parseDecimal, percentOf, roundToMinor, sumDecimals, toDecimalString, toScaled } from './money.ts';

describe('minorUnits', () => {
  it.each([
    ['USD', 2],
    ['eur', 2],
    ['GBP', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['JOD', 3],
    ['OMR', 3],
    ['TND', 3],
    ['CLF', 4],
    ['CHF', 2],
    // ISO 4217 data, not a hand-written table: these were rounded to 2 decimals before.
    ['CLP', 0],
    ['ISK', 0],
    ['VND', 0],
    ['UGX', 0],
    ['XAF', 0],
    ['XOF', 0],
    ['PYG', 0],
    ['LYD', 3],
    ['IQD', 3],
  ])('%s has %i minor units', (code, units) => {
    expect(minorUnits(code)).toBe(units);
  });

  it.each(['US', 'USDX', '12A', '', 'U$D', 'XYZ', 'QQQ', 'XAU', 'XXX', 'XTS'])('rejects a code that is not an ISO 4217 currency: %j', (code) => {
    expect(() => minorUnits(code)).toThrow(MoneyError);
  });

  it('upper-cases currency codes', () => {
    expect(normalizeCurrency('jpy')).toBe('JPY');
  });
});

describe('roundToMinor: half up (away from zero) to minor units', () => {
  it.each([
    ['2.345', 'USD', '2.35'],
    ['2.344999', 'USD', '2.34'],
    ['-2.345', 'USD', '-2.35'],
    ['-2.344', 'USD', '-2.34'],
    ['0.005', 'USD', '0.01'],
    ['0.004999999', 'USD', '0.00'],
    ['-0.004', 'USD', '0.00'], // never "-0.00"
    ['10', 'USD', '10.00'],
    ['1234.5', 'JPY', '1235'],
    ['1234.4999', 'JPY', '1234'],
    ['-0.5', 'JPY', '-1'],
    ['1.2345', 'BHD', '1.235'],
    ['1.2344', 'BHD', '1.234'],
    ['0.0005', 'KWD', '0.001'],
    ['0.00005', 'CLF', '0.0001'],
    ['0.00004', 'CLF', '0.0000'],
    ['2e-6', 'USD', '0.00'],
    ['1e12', 'USD', '1000000000000.00'],
    ['123456789012345678901234567.125', 'USD', '123456789012345678901234567.13'],
  ])('roundToMinor(%s, %s) = %s', (amount, currency, expected) => {
    expect(roundToMinor(amount, currency)).toBe(expected);
  });

  it('reads numbers through their shortest decimal string (1.005 rounds to 1.01, unlike float math)', () => {
    expect(roundToMinor(1.005, 'USD')).toBe('1.01');
    expect(roundToMinor('4.50', 'CLP')).toBe('5');
    expect(roundToMinor('1.2345', 'LYD')).toBe('1.235');
    expect(roundToMinor(0.615, 'USD')).toBe('0.62');
  });

  it('accepts a Dec instance', () => {
    expect(roundToMinor(new Dec('7.125'), 'USD')).toBe('7.13');
  });
});

describe('canonical decimal strings', () => {
  it.each([
    [2e-6, '0.000002'],
    ['2e-6', '0.000002'],
    ['2E-6', '0.000002'],
    ['1.50', '1.5'],
    [0.1, '0.1'],
    ['-0', '0'],
    ['-0.000', '0'],
    ['+3', '3'],
    ['.5', '0.5'],
    ['007', '7'],
    ['1e21', '1000000000000000000000'],
    [1e21, '1000000000000000000000'],
    [1e-7, '0.0000001'],
  ])('toDecimalString(%j) = %s', (input, expected) => {
    expect(toDecimalString(input)).toBe(expected);
  });

  it.each(['abc', '', ' 1', '1 ', '0x10', '1,5', '1.2.3', 'Infinity', NaN, Infinity, -Infinity, null, {}])('rejects %j', (input) => {
    expect(() => parseDecimal(input as never, 'field')).toThrow(MoneyError);
  });

  it('names the field in the error', () => {
    expect(() => parseDecimal('abc', 'pricing.unit_price')).toThrow(/pricing\.unit_price/);
  });

  it('formatMoney refuses an amount that still needs rounding', () => {
    expect(() => formatMoney(new Dec('1.005'), 'USD')).toThrow(/round/);
    expect(formatMoney(new Dec('1.5'), 'USD')).toBe('1.50');
    expect(formatMoney(new Dec('1.5'), 'BHD')).toBe('1.500');
  });

  it('sums exactly (0.1 + 0.2 = 0.3)', () => {
    expect(sumDecimals(['0.1', '0.2']).toFixed()).toBe('0.3');
    expect(sumDecimals(['0.000002', '1000000000000', -1]).toFixed()).toBe('999999999999.000002');
  });
});

describe('fixed-point decimals (reports): exact, and as Decimal.js prints', () => {
  it.each([
    ['0', '0'], ['-0', '0'], ['0.000', '0'], ['10', '10'], ['149.00', '149'], ['0.000000000001', '0.000000000001'],
    ['-7.5', '-7.5'], ['123456789012345678901234567890.123456789012', '123456789012345678901234567890.123456789012'],
  ])('%s reads back as %s', (input, printed) => {
    expect(formatScaled(toScaled(input, 12), 12)).toBe(printed);
  });

  it('refuses what is not plain decimal text with at most the scale\'s decimals', () => {
    for (const bad of ['', '1e5', '0.0000000000001', '+1', '1.', '.5', ' 1', 'NaN']) expect(() => toScaled(bad, 12), bad).toThrow(MoneyError);
  });

  it('prints sums as money exactly as formatMoney does: 0-, 2- and 3-decimal currencies, zeros, signs, the largest amounts', () => {
    const cases: [string, string][] = [
      ['0', 'USD'], ['-0.00', 'USD'], ['149', 'USD'], ['149.5', 'USD'], ['-7.25', 'EUR'], ['1500', 'JPY'], ['-3', 'JPY'], ['0', 'JPY'],
      ['12.345', 'KWD'], ['-0.001', 'BHD'], ['999999999999999999999999.99', 'USD'], ['123456789012345678901234567890', 'JPY'],
    ];
    for (const [amount, currency] of cases) expect(formatScaledMoney(toScaled(amount, 12), 12, currency), `${amount} ${currency}`).toBe(formatMoney(new Dec(amount), currency));
    // More decimals than the currency has: refused, as formatMoney refuses them.
    for (const [amount, currency] of [['0.001', 'USD'], ['1.5', 'JPY'], ['0.0001', 'KWD']] as const) {
      expect(() => formatScaledMoney(toScaled(amount, 12), 12, currency)).toThrow(MoneyError);
      expect(() => formatMoney(new Dec(amount), currency)).toThrow(MoneyError);
    }
  });

  it('sums, differences and percentages equal Decimal.js\'s on random amounts, zeros and signs', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed / 2 ** 31);
    const amount = () => {
      const r = rand();
      if (r < 0.1) return '0';
      const whole = String(Math.floor(rand() * 10 ** Math.floor(rand() * 12)));
      const decimals = Math.floor(rand() * 13);
      const text = decimals ? `${whole}.${String(Math.floor(rand() * 10 ** decimals)).padStart(decimals, '0')}` : whole;
      return r < 0.4 ? `-${text}` : text;
    };
    for (let i = 0; i < 2000; i++) {
      const xs = Array.from({ length: 1 + Math.floor(rand() * 5) }, amount);
      const [revenue, ...costs] = xs as [string, ...string[]];
      const costSum = costs.reduce((s, c) => s + toScaled(c, 12), 0n);
      const decCosts = costs.reduce((s, c) => s.plus(c), new Dec(0));
      const margin = toScaled(revenue, 12) - costSum;
      const decMargin = new Dec(revenue).minus(decCosts);
      expect(formatScaled(costSum, 12)).toBe(formatDecimal(decCosts));
      expect(formatScaled(margin, 12)).toBe(formatDecimal(decMargin));
      const expected = new Dec(revenue).isZero() ? null : decMargin.div(revenue).times(100).toDecimalPlaces(2, Dec.ROUND_HALF_UP).toFixed(2);
      expect(percentOf(margin, toScaled(revenue, 12)), `${decMargin} / ${revenue}`).toBe(expected);
    }
  });
});
