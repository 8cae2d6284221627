/**
 * Every endpoint that takes a date range (both families) allows at most 5 calendar years,
 * exactly: end_date <= start_date + 5 years (issue 35: 2021-11-22 to 2026-11-25 answered 200).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTestStack, waitFor, type Answer, type TestStack } from '../../test/harness.ts';
import { failedPaths } from '../../test/api-support.ts';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ roles: ['api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

const ENDPOINTS: [string, (start: string, end: string) => Promise<Answer>][] = [
  ['GET /v1/usage', (s, e) => call(stack, 'GET', `/v1/usage?start_date=${s}&end_date=${e}&group_by=none`, { key: stack.keys.development.sdk })],
  ['GET /v1/costs', (s, e) => call(stack, 'GET', `/v1/costs?start_date=${s}&end_date=${e}`, { key: stack.keys.development.admin })],
  ['GET /v1/reports/revenue', (s, e) => call(stack, 'GET', `/v1/reports/revenue?start_date=${s}&end_date=${e}`, { key: stack.keys.development.admin })],
  ['GET /v1/reports/pnl', (s, e) => call(stack, 'GET', `/v1/reports/pnl?start_date=${s}&end_date=${e}`, { key: stack.keys.development.admin })],
  ['POST /api/v1/pnl', (s, e) => call(stack, 'POST', '/api/v1/pnl', { headers: { 'api-key': stack.keys.development.admin }, body: { analysis_type: 'environment', start_date: s, end_date: e } })],
];

describe('ranges of at most 5 calendar years', () => {
  it.each(ENDPOINTS)('%s: up to start_date + 5 years, not a millisecond more', async (_name, send) => {
    const ok = await send('2021-11-22', '2026-11-22');
    expect(ok.status, JSON.stringify(ok.body)).toBeLessThan(300);
    if (ok.status === 201) {
      // The analysis runs in the background: let it finish before the stack goes.
      await waitFor(() => call(stack, 'GET', `/api/v1/pnl/${ok.body.id}`, { key: stack.keys.development.admin }), (r) => r.body.status === 'completed' || r.body.status === 'failed');
    }
    for (const end of ['2026-11-25', '2026-11-22T00:00:00.001Z']) {
      const res = await send('2021-11-22', end);
      expect(res.status, `${end}: ${JSON.stringify(res.body)}`).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', message: 'the range covers at most 5 years: `end_date` must not be after 2026-11-22T00:00:00.000Z (`start_date` + 5 years)' });
      expect(failedPaths(res)).toEqual(['end_date']);
    }
  });
});
