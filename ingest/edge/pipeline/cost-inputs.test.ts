import { describe, expect, it } from 'vitest';
import { costInputsProblem } from './cost-inputs.ts';

describe('costInputsProblem: what an action\'s cost is computed from', () => {
  it.each([
    [{}],
    [{ api_calls: 0 }],
    [{ api_calls: 3 }],
    [{ api_calls: 1_000_000_000_000 }],
    [{ units: 0 }],
    [{ units: '2.5' }],
    [{ units: 1.123456 }],
    [{ units: '1000000000000.000000' }],
    [{ cost: { amount: 10, currency: 'GBP' } }],
    [{ cost: { amount: '0', currency: 'usd', category: 'api' } }],
    [{ cost: { amount: 1.5e-7, currency: 'EUR', category: 'infrastructure' } }],
    [{ cost: { amount: '0.000000000001', currency: 'JPY', category: 'llm' } }],
    [{ cost: { amount: '1000000000000', currency: 'CLP' } }],
  ])('accepts %j', (m) => expect(costInputsProblem(m)).toBeUndefined());

  it.each([
    [{ api_calls: -1 }, 'api_calls'],
    [{ api_calls: '3' }, 'api_calls'], // counted as 1 before
    [{ api_calls: 2.5 }, 'api_calls'], // counted as 2 before
    [{ api_calls: 1e21 }, 'api_calls'],
    [{ units: -1 }, 'units'],
    [{ units: 1e21 }, 'units'], // overflowed to a negative cost before
    [{ units: '1000000000000.5' }, 'units'],
    [{ units: '1e3' }, 'units'],
    [{ units: 0.0000001 }, 'units'],
    [{ units: true }, 'units'],
    [{ cost: 5 }, 'cost'],
    [{ cost: { amount: -1, currency: 'USD' } }, 'cost.amount'],
    [{ cost: { amount: '1e21', currency: 'USD' } }, 'cost.amount'],
    [{ cost: { amount: '0.0000000000001', currency: 'USD' } }, 'cost.amount'],
    [{ cost: { currency: 'USD' } }, 'cost.amount'],
    [{ cost: { amount: 1, currency: 'XYZ' } }, 'cost.currency'],
    [{ cost: { amount: 1 } }, 'cost.currency'],
    [{ cost: { amount: 1, currency: 'USD', category: 'gpu' } }, 'cost.category'], // became llm before
  ])('rejects %j, naming metadata.%s', (m, field) => {
    expect(costInputsProblem(m)?.message).toContain(`\`metadata.${field}\``);
    expect(costInputsProblem(m)?.path).toBe(`metadata.${field}`);
  });
});
