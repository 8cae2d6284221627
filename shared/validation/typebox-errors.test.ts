import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { describe, expect, it } from 'vitest';
import { dottedPath, fieldProblems } from './typebox-errors.ts';

const Address = Type.Object(
  { zip: Type.Optional(Type.String({ maxLength: 5, errorMessage: 'must be a string of at most 5 characters' })) },
  { additionalProperties: false },
);
const Body = Type.Object({
  name: Type.String({ minLength: 1 }),
  address: Type.Optional(Type.Union([Address, Type.Null()])),
  tiers: Type.Optional(Type.Array(Type.Object({ price: Type.Number() }))),
});
const check = TypeCompiler.Compile(Body);
const problems = (value: unknown, prefix?: string) => fieldProblems(check.Errors(value), prefix);

describe('dottedPath', () => {
  it('turns a JSON pointer into a dotted path with [i] for array indices', () => {
    expect(dottedPath('')).toBe('');
    expect(dottedPath('/billing_address/zip')).toBe('billing_address.zip');
    expect(dottedPath('/tiers/0/price')).toBe('tiers[0].price');
    expect(dottedPath('/0')).toBe('[0]');
    expect(dottedPath('/tiers/1', 'pricing')).toBe('pricing.tiers[1]');
    expect(dottedPath('/a~1b/c~0d')).toBe('a/b.c~d');
  });
});

describe('fieldProblems', () => {
  it('says "is required" for a missing property, whatever its schema says', () => {
    expect(problems({})).toEqual([{ path: 'name', kind: 'required', message: 'is required' }]);
  });

  it('reports a property its object does not declare as unknown', () => {
    expect(problems({ name: 'n', address: { zip: '1', colour: 'red' } })).toEqual([
      { path: 'address.colour', kind: 'unknown', message: 'is not a known field' },
    ]);
  });

  it("uses the schema's errorMessage when there is one, TypeBox's message otherwise", () => {
    expect(problems({ name: 'n', address: { zip: '1234567' } })).toEqual([
      { path: 'address.zip', kind: 'invalid', message: 'must be a string of at most 5 characters' },
    ]);
    expect(problems({ name: 'n', tiers: [{ price: 1 }, { price: 'x' }] })).toEqual([
      { path: 'tiers[1].price', kind: 'invalid', message: 'Expected number' },
    ]);
  });

  it('keeps the first problem of each path only', () => {
    // An empty string and a non-string name both fail several checks at "name".
    expect(problems({ name: 5 }).map((p) => p.path)).toEqual(['name']);
    expect(problems({ name: '' })).toEqual([{ path: 'name', kind: 'invalid', message: 'Expected string length greater or equal to 1' }]);
  });

  it('reports inside the union variant that reached into the value, not the whole union', () => {
    expect(problems({ name: 'n', address: { zip: 7 } }).map((p) => p.path)).toEqual(['address.zip']);
    expect(problems({ name: 'n', address: 'x' })).toEqual([{ path: 'address', kind: 'invalid', message: 'Expected union value' }]);
  });

  it('puts every path under the prefix', () => {
    expect(problems({ tiers: [{}] }, 'pricing').map((p) => p.path)).toEqual(['pricing.name', 'pricing.tiers[0].price']);
    expect(problems(null, 'pricing').map((p) => p.path)).toEqual(['pricing']);
  });
});
