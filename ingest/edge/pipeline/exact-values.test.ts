import { describe, expect, it } from 'vitest';
import { pack } from 'msgpackr';
import { decodeEvents } from './decode.ts';
import { plainDecimal, valueTexts } from './exact-values.ts';
import { normalizeStep, validateStep } from './normalize.ts';

describe('outcome values keep the digits the client wrote', () => {
  it.each([
    ['123456789.123456789', '123456789.123456789'],
    ['999999999999999999', '999999999999999999'],
    ['1e18', '1000000000000000000'],
    ['1.5E3', '1500'],
    ['1E-7', '0.0000001'],
    ['0', '0'],
    ['-0', '-0'],
    ['2.50', '2.5'],
    ['1e999', '1e999'], // not expanded: refused by validation
  ])('plainDecimal(%s) = %s', (text, plain) => expect(plainDecimal(text)).toBe(plain));

  it('finds the value of each event, not values nested in metadata or inside strings', () => {
    const text = `{"events": [
      {"value": 1.10, "metadata": {"value": 3, "x": [1, {"value": 4}]}, "outcome_type": "a\\"value\\": 9"},
      {"outcome_type": "b"},
      {"metadata": {"value": 5}, "value": 123456789.123456789}
    ]}`;
    expect(valueTexts(text)).toEqual({ top: undefined, events: ['1.10', undefined, '123456789.123456789'] });
    expect(valueTexts('[{"value":7},{"value":1e18}]').events).toEqual(['7', '1e18']);
    expect(valueTexts(' {"value" : 999999999999999999 , "metadata":{"value":1}}').top).toBe('999999999999999999');
  });

  it.each([
    ['application/json', '{"agent_key":"k","outcome_type":"x","value":123456789.123456789}'],
    ['application/json', '[{"agent_key":"k","outcome_type":"x","value":123456789.123456789}]'],
    ['application/json', '{"events":[{"agent_key":"k","outcome_type":"x","value":123456789.123456789}]}'],
    ['application/x-ndjson', '{"agent_key":"k","outcome_type":"x","value":123456789.123456789}\n'],
    ['application/json', '{"agent_key":"k","outcome_type":"x","value":"123456789.123456789"}'],
  ])('%s %s is stored as 123456789.123456789', (type, body) => {
    const [item] = decodeEvents(Buffer.from(body), type, true).items;
    const v = validateStep('outcome', (item as { value: unknown }).value);
    const n = v.ok ? normalizeStep('outcome', v.value, Date.now(), undefined) : v;
    expect(n.ok && n.value.val).toBe('123456789.123456789');
  });

  it.each([
    [999999999999999999, '999999999999999999'], // parsed as a double it was 1e18
    ['999999999999999999.999999999', '999999999999999999.999999999'],
    ['1000000000000000000', '1000000000000000000'],
    ['1000000000000000000.000', '1000000000000000000'],
    [0, '0'],
    ['0.000000001', '0.000000001'],
    ['007.50', '7.5'],
  ])('accepts %j as %s', (value, val) => {
    const body = `{"agent_key":"k","outcome_type":"x","value":${typeof value === 'string' ? JSON.stringify(value) : String(value).replace('1000000000000000000', '999999999999999999')}}`;
    const [item] = decodeEvents(Buffer.from(body), 'application/json', true).items;
    const v = validateStep('outcome', (item as { value: unknown }).value);
    const n = v.ok ? normalizeStep('outcome', v.value, Date.now(), undefined) : v;
    expect(n.ok && n.value.val).toBe(val);
  });

  it.each([['1000000000000000000.000000001'], ['1000000000000000001'], ['-1'], ['0.0000000001'], ['1e3'], ['abc'], [''], ['1e999'], [-0.5], [1e19]])('refuses %j', (value) => {
    const v = validateStep('outcome', { agent_key: 'k', outcome_type: 'x', value });
    const n = v.ok ? normalizeStep('outcome', v.value, Date.now(), undefined) : v;
    expect(n.ok).toBe(false);
  });

  it.each([
    ['123456789.123456789', '123456789.123456789'], // msgpack string: exact
    [123.456, '123.456'], // float64: its shortest decimal
    [0.000000001, '0.000000001'],
    [4294967296, '4294967296'],
    [999999999999999999n, '999999999999999999'], // a 64-bit integer: exact (read as a number it was 1e18)
  ])('msgpack %s is stored as %s', (value, val) => {
    const [item] = decodeEvents(pack({ agent_key: 'k', outcome_type: 'x', value }), 'application/msgpack', true).items;
    const v = validateStep('outcome', (item as { value: unknown }).value);
    const n = v.ok ? normalizeStep('outcome', v.value, Date.now(), undefined) : v;
    expect(n.ok && n.value.val).toBe(val);
  });

  it.each([[-999999999999999999n], [18446744073709551615n], [0.0000000001]])('msgpack %s is refused with the rule', (value) => {
    const [item] = decodeEvents(pack({ agent_key: 'k', outcome_type: 'x', value }), 'application/msgpack', true).items;
    const v = validateStep('outcome', (item as { value: unknown }).value);
    const n = v.ok ? normalizeStep('outcome', v.value, Date.now(), undefined) : v;
    expect(!n.ok && n.message).toMatch(/decimal from 0 to 10\^18/);
  });
});

describe('numbers in metadata keep the digits the client wrote', () => {
  const actionMeta = (body: string, type = 'application/json') =>
    decodeEvents(Buffer.from(body), type).items.map((item) => {
      const v = validateStep('action', (item as { value: unknown }).value);
      const n = v.ok ? normalizeStep('action', v.value, Date.now(), undefined) : v;
      return n.ok ? n.value.meta : `rejected: ${n.message}`;
    });

  it.each([
    ['application/json', '{"agent_key":"k","action_type":"a","metadata":{"amount":123456789.123456789,"n":1.5,"s":"x"}}'],
    ['application/json', '[{"agent_key":"k","action_type":"a","metadata":{"amount":123456789.123456789,"n":1.5,"s":"x"}}]'],
    ['application/json', '{"events":[{"agent_key":"k","action_type":"a","metadata":{"amount":123456789.123456789,"n":1.5,"s":"x"}}]}'],
    ['application/x-ndjson', '{"agent_key":"k","action_type":"a","metadata":{"amount":123456789.123456789,"n":1.5,"s":"x"}}\n'],
  ])('%s %s keeps 123456789.123456789 (as decimal text)', (type, body) => {
    expect(actionMeta(body, type)).toEqual(['{"amount":"123456789.123456789","n":1.5,"s":"x"}']);
  });

  it('keeps nested objects exact, leaves numbers a double keeps as JSON.stringify prints them, and finds each event of a batch', () => {
    const body = `[
      {"agent_key":"k","action_type":"a","metadata":{"cost":{"amount":123456789012.123456789012,"currency":"USD"},"x":[1.00000000000000001],"y":1e-7}},
      {"agent_key":"k","action_type":"a","metadata":{"s":"12345678901234567.5","z":2}},
      {"agent_key":"k","action_type":"a","metadata":{"big":99999999999999999999,"e":1.2345678901234567891e3}}
    ]`;
    expect(actionMeta(body)).toEqual([
      // Numbers inside arrays are not followed (no rule reads them).
      '{"cost":{"amount":"123456789012.123456789012","currency":"USD"},"x":[1],"y":1e-7}',
      '{"s":"12345678901234567.5","z":2}',
      '{"big":"99999999999999999999","e":"1234.5678901234567891"}',
    ]);
  });

  it('checks cost inputs on the exact digits', () => {
    // 7 decimals: a double prints 5, yet the client wrote 7.
    expect(actionMeta('{"agent_key":"k","action_type":"a","metadata":{"units":123456789012.1234567}}')[0]).toMatch(/rejected: `metadata.units`/);
    expect(actionMeta('{"agent_key":"k","action_type":"a","metadata":{"units":123456789012.123456}}')).toEqual(['{"units":"123456789012.123456"}']);
  });
});
