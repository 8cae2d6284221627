import { describe, expect, it } from 'vitest';
import { h } from 'preact';
import { toCsv } from './csv';
import { Named, plain } from './ui';
import { addDecimal, compareDecimal, count, decimalProblem, runningBalances } from './money';
import { pairsText, parsePairs } from './pairs';
import { moneyText, pricingLines, pricingStrategy, pricingText } from './pricing';
import { environmentLabel } from './session';
import { countText, describeAttempt, describeMove, describeScheduled, describeScheduledMoves, moveLabel, reportCell, reportColumns, reportLabel } from './describe';

describe('compareDecimal (exact, on decimal text)', () => {
  it.each([
    ['0', '0', 0],
    ['0.00', '0', 0],
    ['-0.000', '0', 0],
    ['1', '1.000', 0],
    ['1235', '1234', 1], // JPY: no decimals
    ['0.375', '0.370', 1], // KWD: 3 decimals
    ['0.1', '0.09', 1],
    ['-5.50', '-5.5', 0],
    ['-5.51', '-5.5', -1],
    ['-1', '0.01', -1],
    ['999999999999999.99', '999999999999999.98', 1], // largest money values: beyond a double's precision
    ['9007199254740993', '9007199254740992', 1],
    ['100000000000000000000000000000', '99999999999999999999999999999.999', 1],
  ])('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareDecimal(a, b))).toBe(sign);
    expect(Math.sign(compareDecimal(b, a))).toBe(-sign || 0);
  });

  it('counts integer text', () => {
    expect(count('0')).toBe(0);
    expect(count('7')).toBe(7);
    expect(count(undefined)).toBe(0);
  });
});

describe('plain: a cell as CSV text', () => {
  it('gives a named cell as `name (id)`, the id alone before its name loaded, nothing without an id', () => {
    expect(plain(h(Named, { id: 'acct_1', name: 'Acme' }))).toBe('Acme (acct_1)');
    expect(plain(h(Named, { id: 'acct_1', name: undefined }))).toBe('acct_1');
    expect(plain(h(Named, { id: null, name: undefined }))).toBe('');
    expect(plain(['a', h('span', { 'data-csv': 'b' }), h('b', null, 'c')])).toBe('abc');
  });
});

describe('decimalProblem: quantities typed as the API takes them', () => {
  it.each([['150'], ['1.5'], ['-5'], [' 20 ']])('takes %s', (v) => expect(decimalProblem('Usage', v)).toBeUndefined());
  it.each([
    ['1.5e2', 'Usage: 1.5e2 has an exponent; write the plain number (digits and a decimal point)'],
    ['1E3', 'Usage: 1E3 has an exponent; write the plain number (digits and a decimal point)'],
    ['abc', 'Usage: abc is not a decimal number'],
    ['1.', 'Usage: 1. is not a decimal number'],
  ])('refuses %s', (v, message) => expect(decimalProblem('Usage', v)).toBe(message));
});

describe('small texts', () => {
  it('counts in words, singular for one', () => {
    expect(countText(1, 'row')).toBe('1 row');
    expect(countText(0, 'row')).toBe('0 rows');
    expect(countText(2, 'row')).toBe('2 rows');
  });
  it('names an unnamed environment by its place, with no part of its key', () => {
    expect(environmentLabel('  ', 2)).toBe('environment 2');
    expect(environmentLabel(' production ', 2)).toBe('production');
  });
});

describe('toCsv', () => {
  it('quotes commas, quotes and line breaks, and defuses spreadsheet formulas', () => {
    expect(toCsv(['a', 'b'], [['1,5', 'say "hi"'], ['line\nbreak', '=HYPERLINK("x")'], ['-12.50', '@SUM(A1)']])).toBe(
      'a,b\r\n"1,5","say ""hi"""\r\n"line\nbreak","\'=HYPERLINK(""x"")"\r\n-12.50,\'@SUM(A1)\r\n',
    );
  });
});

describe('pricingStrategy: the form as the API takes it, prices as decimal text', () => {
  it('keeps tiers as text, leaves out a package size of 1', () => {
    expect(pricingStrategy('tiered', '@action', {}, [{ start: '1', price: '0.02', counter: '1' }, { start: ' 11 ', price: '0.010', counter: '100' }])).toEqual({
      unit_of_measure: '@action',
      tiers: [{ start: '1', price: '0.02' }, { start: '11', price: '0.010', counter: '100' }],
    });
    // The first band is from unit 1 whatever the row holds: the API stores the starts as typed.
    expect((pricingStrategy('volume', '', {}, [{ start: '0', price: '1', counter: '1' }]).tiers as { start: string }[])[0]!.start).toBe('1');
  });

  it('takes only the fields of the chosen model, and the largest and smallest values unchanged', () => {
    const fields = { unit_price: '999999999999999.999', amount: '5', package_size: '' };
    expect(pricingStrategy('per_unit', '@outcome', fields, [])).toEqual({ unit_of_measure: '@outcome', unit_price: '999999999999999.999' });
    expect(pricingStrategy('flat', '', { amount: '0' }, [])).toEqual({ amount: '0' });
    expect(pricingStrategy('discount', '', { percent: '12.5', amount: '' }, [])).toEqual({ percent: '12.5' });
  });

  it('reads a stored charge back as typed: tiers as bands of units from 1, prices as money in the currency', () => {
    // Typed in the form as from 1 @0.10, from 11 @0.05: read back with the same numbers.
    const typed = pricingStrategy('tiered', '@action', {}, [{ start: '1', price: '0.10', counter: '1' }, { start: '11', price: '0.05', counter: '5' }]);
    expect(pricingLines(typed, 'USD')).toEqual([['units 1–10', '0.10 USD per unit'], ['units 11 and up', '0.05 USD per 5 units']]);
    expect(pricingText({ kind: 'tiered', tiers: [{ start: '1', price: '0.1', counter: '1' }] }, 'USD')).toBe('units 1 and up: 0.10 USD per unit');
    expect(pricingLines({ kind: 'package', package_size: '10', package_price: '20' }, 'USD')).toEqual([['Package size', '10'], ['Package price', '20.00 USD']]);
    expect(pricingLines({ kind: 'per_unit', unit_of_measure: '@action', unit_price: '1235' }, 'JPY')).toEqual([['Unit price', '1235 JPY']]);
    expect(pricingLines({ kind: 'discount', percent: '12.5' }, 'USD')).toEqual([['Percent', '12.5%']]);
  });

  it.each([
    ['0.1', 'USD', '0.10 USD'],
    ['20', 'USD', '20.00 USD'],
    ['0.005', 'USD', '0.005 USD'], // never cut below the minor unit
    ['0.125', 'KWD', '0.125 KWD'],
    ['1', 'KWD', '1.000 KWD'],
    ['1235', 'JPY', '1235 JPY'],
    ['999999999999999.99', 'USD', '999999999999999.99 USD'],
  ])('moneyText(%s, %s) = %s', (amount, currency, text) => {
    expect(moneyText(amount, currency)).toBe(text);
  });
});

describe('addDecimal and runningBalances (exact, on decimal text)', () => {
  it.each([
    ['12.50', '-0.125', '12.375'],
    ['0', '0', '0'],
    ['100.00', '-100.00', '0.00'],
    ['-1', '0.5', '-0.5'],
    ['1235', '1', '1236'],
    ['999999999999999.99', '0.01', '1000000000000000.00'],
    ['0.1', '0.2', '0.3'],
  ])('%s + %s = %s', (a, b, sum) => {
    expect(addDecimal(a, b)).toBe(sum);
  });

  it('sums each currency on its own, in the order the entries occurred', () => {
    const rows = runningBalances([
      { occurred_at: '2026-11-02T00:00:00Z', amount: '-30.00', currency: 'USD' },
      { occurred_at: '2026-11-01T00:00:00Z', amount: '100.00', currency: 'USD' },
      { occurred_at: '2026-11-01T12:00:00Z', amount: '500', currency: 'JPY' },
      { occurred_at: '2026-11-03T00:00:00Z', amount: '5.25', currency: 'USD' },
    ]);
    expect(rows.map((r) => [r.currency, r.balance])).toEqual([
      ['USD', '100.00'],
      ['JPY', '500'],
      ['USD', '70.00'],
      ['USD', '75.25'],
    ]);
  });
});

describe('key=value lines (model rates, metadata match)', () => {
  it('parses lines, typed or as text, and refuses a line without a key', () => {
    expect(parsePairs('gpt-4o=0.0000025\n\n claude = 0.000003 ', false)).toEqual({ 'gpt-4o': '0.0000025', claude: '0.000003' });
    expect(parsePairs('stage=won\nvip=true\nseats=3\ncode="42"\nurl=a=b', true)).toEqual({ stage: 'won', vip: true, seats: 3, code: '42', url: 'a=b' });
    expect(() => parsePairs('=1', true)).toThrow(/not key=value/);
    expect(() => parsePairs('novalue', true)).toThrow(/not key=value/);
  });

  it('writes what it parses back the same', () => {
    const typed = { stage: 'won', vip: true, seats: 3, code: '42', flag: 'true' };
    expect(parsePairs(pairsText(typed, true), true)).toEqual(typed);
    expect(pairsText({ a: '1', b: 2 }, true)).toBe('a="1"\nb=2');
    expect(pairsText({ 'gpt-4o': '0.0000025' }, false)).toBe('gpt-4o=0.0000025');
    expect(pairsText(null, true)).toBe('');
  });
});

describe('scheduled subscription changes', () => {
  const changes = [
    { type: 'paused', effective_at: '2027-06-01T00:00:00.000Z', status: 'paused', rate_plan_id: 'p1' },
    { type: 'plan_changed', effective_at: '2027-07-01T00:00:00.000Z', status: 'active', rate_plan_id: 'p2' },
    { type: 'cancelled', effective_at: '2026-12-15T00:00:00.000Z', status: 'cancelled', rate_plan_id: 'p2' },
  ];
  it('describes each change and its day', () => {
    expect(describeScheduled(changes)).toBe('pause on 2027-06-01; plan → p2 on 2027-07-01; cancel on 2026-12-15');
    expect(describeScheduled([])).toBe('');
  });
  it('shows every move recorded for later: one an earlier cancel leaves out of scheduled_changes is said so', () => {
    const now = Date.parse('2026-11-26T00:00:00Z');
    // Paused for 2027-06-01, then cancelled for 2027-05-01: the API schedules the cancel only, and still records the pause.
    const cancel = { type: 'cancelled', effective_at: '2027-05-01T00:00:00.000Z', status: 'cancelled', rate_plan_id: 'p1' };
    expect(describeScheduledMoves({ scheduled_changes: [cancel], paused_at: '2027-06-01T00:00:00.000Z', cancel_date: '2027-05-01T00:00:00.000Z' }, now)).toBe(
      'cancel on 2027-05-01; pause on 2027-06-01 (recorded; does not apply: cancelled before)',
    );
    // A pause that applies is listed once; a past pause is not scheduled.
    expect(describeScheduledMoves({ scheduled_changes: [changes[0]!], paused_at: '2027-06-01T00:00:00.000Z', cancel_date: null }, now)).toBe('pause on 2027-06-01');
    expect(describeScheduledMoves({ scheduled_changes: [], paused_at: '2026-01-01T00:00:00.000Z' }, now)).toBe('');
  });
  it.each([
    ['change-plan', 'Change plan'],
    ['pause', 'Pause'],
  ])('names the move %s in words: %s', (move, label) => expect(moveLabel(move)).toBe(label));
  it('says what a move scheduled and when, or that it took effect now', () => {
    expect(describeMove('cancel', { status: 'active', scheduled_changes: changes })).toBe('Scheduled: cancel on 2026-12-15.');
    expect(describeMove('change-plan', { status: 'active', scheduled_changes: changes })).toBe('Scheduled: plan → p2 on 2027-07-01.');
    expect(describeMove('pause', { status: 'paused', scheduled_changes: [] })).toBe('Done now: pause; the subscription is paused.');
  });
});

describe('report columns (readable headers; itemized costs as columns)', () => {
  it.each([
    ['margin_percent', 'Margin %'],
    ['customer_id', 'Customer'],
    ['rate_plan_id', 'Rate plan'],
    ['period_start', 'From'],
    ['some_new_field', 'Some new field'],
  ])('%s is headed %s', (field, label) => expect(reportLabel(field)).toBe(label));

  it('expands costs_by_category into a column per category, where it stood', () => {
    const rows = [
      { period: '2026-11', currency: 'USD', customer_id: 'acct_1', revenue: '1.00', costs: '0.30', costs_by_category: { llm: '0.20', api: '0.10', infrastructure: '0' }, margin: '0.70', margin_percent: '70.00' },
      { period: '2026-12', customer_id: null, currency: 'USD', revenue: '0', costs: '0', costs_by_category: { llm: '0', api: '0', infrastructure: '0' }, margin: '0', margin_percent: null },
    ];
    const cols = reportColumns(rows);
    expect(cols.map((c) => c.label)).toEqual(['Period', 'Customer', 'Currency', 'Revenue', 'Cost', 'Cost: LLM', 'Cost: API', 'Cost: infrastructure', 'Margin', 'Margin %']);
    expect(cols.map((c) => reportCell(rows[0]!, c))).toEqual(['2026-11', 'acct_1', 'USD', '1.00', '0.30', '0.20', '0.10', '0', '0.70', '70.00']);
    expect(reportCell(rows[1]!, cols[9]!)).toBe('');
    expect(JSON.stringify(cols.map((c) => reportCell(rows[0]!, c)))).not.toContain('{');
  });

  it('shows period bounds at midnight UTC as their day, and puts the group key after the period', () => {
    const row = { period: '2026-11', period_start: '2026-11-01T00:00:00.000Z', period_end: '2026-12-01T00:00:00.000Z', revenue: '1', agent_type_id: 'at_1' };
    const cols = reportColumns([row]);
    expect(cols.map((c) => c.label)).toEqual(['Period', 'Agent type', 'From', 'Until', 'Revenue']);
    expect(cols.map((c) => reportCell(row, c))).toEqual(['2026-11', 'at_1', '2026-11-01', '2026-12-01', '1']);
  });
});

describe('describeAttempt (the message after a webhook resend or test)', () => {
  const base = { delivery_id: 'whd_1', attempt: 2, error: null, next_attempt_at: null };
  it.each([
    [{ ...base, status: 'delivered', status_code: 200 }, 'attempt 2: delivered (HTTP 200)'],
    [{ ...base, status: 'pending', status_code: 500, error: 'status', next_attempt_at: '2026-11-26T10:05:00.000Z' }, 'attempt 2: pending (HTTP 500); next attempt at 2026-11-26 10:05:00 UTC'],
    [{ ...base, status: 'failed', status_code: null, error: 'connection_failed' }, 'attempt 2: failed (connection_failed)'],
  ])('%o', (a, text) => expect(describeAttempt(a)).toBe(text));
});
