/**
 * Prepaid commitments through the API (docs/credits.md "Commitments") on the real Postgres, NATS
 * and ClickHouse: the field on plans and subscriptions of both families (validated
 * against the plan's currency), up front and in installments (equal parts, the remainder
 * on the last, each on its date), drawn down by the subscription's invoices before other
 * grants, overage due, the remainder expiring at the term's end, renewal, a cancel mid-term
 * invoicing the installments left, and JPY (0 decimals) and KWD (3 decimals).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { failedPaths } from '../../test/api-support.ts';
import { parseInvoicingConfig } from '../invoicing/config.ts';
import { createInvoicing } from '../invoicing/index.ts';
import { schedulerTick } from '../invoicing/scheduler.ts';
import { advanceCommitments } from './commitments.ts';
import { expireGrants } from './ledger.ts';

const at = (s: string) => Date.parse(s);
let clock = at('2026-11-01T00:00:00Z');
let stack: TestStack;
let admin: string;
let product: string;
const models: Record<string, string> = {};
const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: admin, ...(body !== undefined ? { body } : {}) });
const get = (path: string) => call(stack, 'GET', path, { key: admin });

async function ok(res: Promise<{ status: number; body: any }>, status = 201) {
  const r = await res;
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  return r.body;
}

/** A monthly plan: a recurring fee, optionally 10 an action, and its prepaid commitment. */
async function plan(name: string, currency: string, fee: string, commitment: Record<string, unknown> | null, perAction = false) {
  const p = await ok(post(`/api/v1/products/${product}/rateplans`, { name, billing_cycle_code: 'monthly', currency, prepaid_commitment: commitment }));
  await ok(post(`/api/v1/products/rateplans/${p.id}/charges`, { name: 'Fee', charge_model_id: models.flat, charge_type_code: 'recurring', pricing: { unit_price: fee } }));
  if (perAction) await ok(post(`/api/v1/products/rateplans/${p.id}/charges`, { name: 'Actions', charge_model_id: models.perAction, charge_type_code: 'usage', pricing: { unit_price: '10' } }));
  return p;
}

/** An account with an agent and a subscription active from the clock: Family A, or B (draft, then activated). */
async function subscribe(planId: string, opts: { family?: 'A' | 'B'; commitment?: Record<string, unknown> } = {}) {
  const account = (await ok(post('/v1/accounts', { name: `acct ${Math.random()}` }))).id as string;
  const agent = (await createAgent(stack, 'development', { accountId: account })).id;
  const body = { account_id: account, rate_plan_id: planId, agent_instance_ids: [agent], ...(opts.commitment ? { prepaid_commitment: opts.commitment } : {}) };
  let sub = await ok(post(opts.family === 'B' ? '/api/v1/subscription/create' : '/v1/subscriptions', body));
  if (opts.family === 'B') {
    expect(sub.commitment_terms).toEqual([]); // a draft owes nothing yet
    sub = await ok(post(`/api/v1/subscription/${sub.id}/activate`), 200);
  }
  return { id: sub.id as string, account, agent, sub };
}

/** `n` actions of the agent at `when` (within the clock's 35 days), waited for in the usage. */
async function actions(agent: string, n: number, when: number) {
  const events = Array.from({ length: n }, (_, i) => ({ agent_key: agent, action_type: 'llm_call', id: `${agent}-${when}-${i}`, timestamp: new Date(when + i * 1000).toISOString() }));
  expect((await call(stack, 'POST', '/v1/actions', { key: stack.keys.development.sdk, body: events })).status).toBe(200);
  const day = new Date(when).toISOString().slice(0, 10);
  const next = new Date(when + 86_400_000).toISOString().slice(0, 10);
  await waitFor(
    () => call(stack, 'GET', `/v1/usage?start_date=${day}&end_date=${next}&group_by=agent`, { key: stack.keys.development.sdk }),
    (r) => (r.body.usage ?? []).some((u: any) => u.agent_instance_id === agent && String(u.actions) === String(n)),
    30_000,
  );
}

/** Generates (as a draft) then finalizes the invoice of a month of the account's subscriptions. */
async function bill(account: string, month: string) {
  const gen = await ok(post('/v1/invoices/generate', { billing_period: month, account_id: account }), 200);
  expect(gen.invoices, JSON.stringify(gen)).toHaveLength(1);
  await ok(post(`/api/v1/invoice/invoices/${gen.invoices[0].id}/finalize`), 200);
  return (await get(`/v1/invoices/${gen.invoices[0].id}`)).body;
}

const creditLines = (inv: any) => inv.lines.filter((l: any) => l.charge_type === 'credits_applied').map((l: any) => [l.charge_id, l.amount]);
const entries = async (grantId: string) => (await get(`/v1/credits/entries?limit=100&grant_id=${grantId}`)).body.entries.map((e: any) => [e.type, e.amount]);
const terms = async (subId: string) => (await get(`/v1/subscriptions/${subId}`)).body.commitment_terms as any[];
const invoice = async (id: string) => (await get(`/v1/invoices/${id}`)).body;
const netDays = 30;

beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '1', TALLY_INVOICE_GRACE_HOURS: '720' }, now: () => new Date(clock) });
  admin = stack.keys.development.admin;
  const agentType = (await post('/api/v1/agent_type/create', { name: 'sdr' })).body.id;
  product = (await ok(post('/api/v1/products', { name: 'Agents', agent_type_id: agentType }))).id;
  models.flat = (await ok(post('/api/v1/charge_models', { name: 'Fee', description: 'fee', type: 'flat', pricing_strategy: {} }))).id;
  models.perAction = (await ok(post('/api/v1/charge_models', { name: 'Per action', description: 'per action', type: 'per_unit', pricing_strategy: { unit_of_measure: '@action' } }))).id;
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('prepaid commitment fields', () => {
  it('is set on plans and overridden per subscription on both families; bad input is a 400 naming the field and writes nothing', async () => {
    const p = await plan('shown', 'USD', '1', { amount: '1200', installments: 4 });
    expect(p.prepaid_commitment).toEqual({ amount: '1200.00', term_months: 12, installments: 4, renews: true });
    expect((await get(`/v1/pricing/rate-plans/${p.id}`)).body.prepaid_commitment).toEqual(p.prepaid_commitment);
    expect((await plan('none', 'USD', '1', null)).prepaid_commitment).toBeNull();
    expect((await plan('kwd max', 'KWD', '1', { amount: '999999999999999.999', term_months: 3, installments: 3 })).prepaid_commitment.amount).toBe('999999999999999.999');

    const bad = async (path: string, body: Record<string, unknown>, field: string, message: RegExp) => {
      const res = await post(path, body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(failedPaths(res).join(' ')).toContain(field);
      expect(res.body.error.message).toMatch(message);
    };
    const plans = `/api/v1/products/${product}/rateplans`;
    await bad(plans, { name: 'b1', billing_cycle_code: 'monthly', currency: 'JPY', prepaid_commitment: { amount: '10.5' } }, 'prepaid_commitment.amount', /more than 0 decimals, the minor units of JPY/);
    await bad(plans, { name: 'b2', billing_cycle_code: 'monthly', currency: 'USD', prepaid_commitment: { amount: '-1' } }, 'prepaid_commitment.amount', /must not be negative/);
    await bad(plans, { name: 'b3', billing_cycle_code: 'monthly', currency: 'USD', prepaid_commitment: { amount: '100', term_months: 12, installments: 5 } }, 'prepaid_commitment.installments', /must divide term_months/);
    await bad(plans, { name: 'b4', billing_cycle_code: 'monthly', currency: 'USD', prepaid_commitment: { amount: '100', term_months: 0 } }, 'term_months', /1 to 120/);
    await bad(plans, { name: 'b5', billing_cycle_code: 'monthly', currency: 'KWD', prepaid_commitment: { amount: '1.0001' } }, 'prepaid_commitment.amount', /more than 3 decimals/);
    const listed = (await get(`${plans}?limit=100`)).body.rate_plans as { name: string }[];
    expect(listed.filter((x) => /^b\d$/.test(x.name))).toEqual([]);

    const a = await subscribe(p.id, { commitment: { amount: '0' } });
    expect(a.sub.prepaid_commitment).toEqual({ amount: '0.00', term_months: 12, installments: 1, renews: true });
    expect(a.sub.commitment_terms).toEqual([]); // 0: none, whatever the plan says
    const b = await subscribe(p.id, { family: 'B', commitment: { amount: '600.5', term_months: 6, installments: 2, renews: false } });
    expect((await get(`/api/v1/subscription/${b.id}`)).body.prepaid_commitment).toEqual({ amount: '600.50', term_months: 6, installments: 2, renews: false });
    expect(b.sub.commitment_terms[0].installments.map((i: any) => i.amount)).toEqual(['300.25', '300.25']);
    const account = (await ok(post('/v1/accounts', { name: 'refused' }))).id;
    await bad('/v1/subscriptions', { account_id: account, rate_plan_id: p.id, prepaid_commitment: { amount: '1.001' } }, 'prepaid_commitment.amount', /more than 2 decimals/);
    await bad('/api/v1/subscription/create', { account_id: account, rate_plan_id: p.id, prepaid_commitment: { amount: '12', term_months: 12, installments: 7 } }, 'prepaid_commitment.installments', /divide/);
    expect((await get('/v1/subscriptions?limit=100')).body.subscriptions.filter((s: { account_id: string }) => s.account_id === account)).toEqual([]);
  });

  it('is in the OpenAPI document: plan and subscription requests of both families and their answers', async () => {
    const doc = (await get('/v1/openapi.json')).body;
    const requestOf = (path: string) => JSON.stringify(doc.paths[path].post.requestBody);
    for (const path of ['/api/v1/products/{product_id}/rateplans', '/api/v1/subscription/create', '/v1/subscriptions']) expect(requestOf(path), path).toContain('prepaid_commitment');
    for (const schema of ['RatePlan', 'Subscription']) expect(JSON.stringify(doc.components.schemas[schema]), schema).toContain('prepaid_commitment');
    expect(JSON.stringify(doc.components.schemas.Subscription)).toContain('commitment_terms');
  });
});

describe('up front', () => {
  it('one invoice at the term start; usage draws it down before other grants; overage is due; the remainder expires at the term end; a renewing term starts again', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const up = await plan('up front', 'USD', '100', { amount: '1000', term_months: 3 }, true);
    // A: its own commitment (no renewal), 20, 50 and 30 actions; B: the plan's, only the fee.
    const a = await subscribe(up.id, { commitment: { amount: '1000', term_months: 3, renews: false } });
    const b = await subscribe(up.id, { family: 'B' });
    const free = await ok(post('/v1/credits/grants', { account_id: a.account, currency: 'USD', kind: 'free', amount: '50', priority: 1, effective_at: '2026-11-01T00:00:00Z' }));

    const [termA] = a.sub.commitment_terms;
    expect(termA).toMatchObject({ term: 1, starts_at: '2026-11-01T00:00:00.000Z', ends_at: '2027-02-01T00:00:00.000Z', amount: '1000.00', currency: 'USD', renews: false });
    expect(termA.installments).toHaveLength(1);
    expect(termA.installments[0]).toMatchObject({ n: 1, due_at: '2026-11-01T00:00:00.000Z', amount: '1000.00' });
    const upfront = await invoice(termA.installments[0].invoice_id);
    expect(upfront).toMatchObject({ subscription_id: null, account_id: a.account, status: 'finalized', total: '1000.00', amount_due: '1000.00', credits_applied: '0.00' });
    expect(upfront.number).toMatch(/^INV-/);
    expect(upfront.lines.map((l: any) => [l.charge_type, l.charge_id, l.amount])).toEqual([['prepaid_commitment', termA.grant_id, '1000.00']]);
    const grant = (await get(`/v1/credits/grants/${termA.grant_id}`)).body;
    expect(grant).toMatchObject({ kind: 'paid', amount: '1000.00', priority: 0, status: 'active', scope: { subscription_id: a.id }, effective_at: '2026-11-01T00:00:00.000Z', expires_at: '2027-02-01T00:00:00.001Z' });
    expect((await get(`/v1/accounts/${a.account}/credits/balance?at=2026-11-01T00:00:01Z`)).body.balances[0]).toMatchObject({ granted: '1050.00', available: '1050.00' });

    clock = at('2026-11-06T00:00:00Z');
    await actions(a.agent, 20, at('2026-11-05T00:00:00Z'));
    // Live: the open period so far (100 + 200) is covered by the commitment first.
    // The live balance counts the events once the live-usage poll has seen them stored (one poll after ClickHouse has them).
    const live = await waitFor(async () => (await get(`/v1/accounts/${a.account}/credits/balance`)).body.balances[0], (x: any) => x.pending === '300.00', 10_000);
    expect(live).toMatchObject({ pending: '300.00', pending_covered: '300.00', available: '750.00' });
    clock = at('2026-12-06T00:00:00Z');
    await actions(a.agent, 50, at('2026-12-05T00:00:00Z'));
    clock = at('2027-01-06T00:00:00Z');
    await actions(a.agent, 30, at('2027-01-05T00:00:00Z'));
    clock = at('2027-02-01T01:00:00Z');

    // November 100 + 200, December 100 + 500: the commitment pays it all (before the free grant of priority 1).
    const nov = await bill(a.account, '2026-11');
    expect(nov).toMatchObject({ total: '300.00', credits_applied: '300.00', amount_due: '0.00' });
    expect(creditLines(nov)).toEqual([[termA.grant_id, '-300.00']]);
    const dec = await bill(a.account, '2026-12');
    expect(dec).toMatchObject({ total: '600.00', credits_applied: '600.00', amount_due: '0.00' });
    // January 100 + 300: the last 100.00 of the commitment, then the free grant's 50; the overage is due at the plan's prices.
    const jan = await bill(a.account, '2027-01');
    expect(jan).toMatchObject({ total: '400.00', credits_applied: '150.00', amount_due: '250.00' });
    expect(creditLines(jan)).toEqual([
      [termA.grant_id, '-100.00'],
      [free.id, '-50.00'],
    ]);
    expect(await entries(termA.grant_id)).toEqual([
      ['grant', '1000.00'],
      ['burn', '-300.00'],
      ['burn', '-600.00'],
      ['burn', '-100.00'],
    ]);

    // B used 3 x 100 of its 1000; the rest expires at the term's end; the term renews.
    for (const month of ['2026-11', '2026-12', '2027-01']) expect(await bill(b.account, month)).toMatchObject({ total: '100.00', credits_applied: '100.00', amount_due: '0.00' });
    const inv = createInvoicing({ db: stack.tally.db!, usage: stack.tally.usage!, config: parseInvoicingConfig({ TALLY_INVOICE_GRACE_HOURS: '720' }), now: () => new Date(clock), inline: true });
    try {
      expect(await schedulerTick(inv)).toMatchObject({ ran: true, failures: 0 });
    } finally {
      await inv.rater.close();
    }
    const [termB1, termB2] = await terms(b.id);
    const expiry = (await get(`/v1/credits/entries?grant_id=${termB1.grant_id}&type=expiry`)).body.entries;
    expect(expiry.map((e: any) => [e.amount, e.occurred_at])).toEqual([['-700.00', '2027-02-01T00:00:00.001Z']]);
    expect(termB2).toMatchObject({ term: 2, starts_at: '2027-02-01T00:00:00.000Z', ends_at: '2027-05-01T00:00:00.000Z', amount: '1000.00' });
    expect(await invoice(termB2.installments[0].invoice_id)).toMatchObject({ total: '1000.00', subscription_id: null });
    expect((await get(`/v1/accounts/${b.account}/credits/balance?at=2027-02-01T01:00:00Z`)).body.balances[0]).toMatchObject({ burned: '300.00', expired: '700.00', available: '1000.00' });
    // A does not renew, and its commitment is used up: nothing expires.
    expect(await terms(a.id)).toHaveLength(1);
    expect((await get(`/v1/credits/entries?grant_id=${termA.grant_id}&type=expiry`)).body.entries).toEqual([]);
    // Again: nothing twice.
    expect(await advanceCommitments(stack.tally.db!, new Date(clock), netDays)).toEqual({ invoiced: 0, renewed: 0 });
  });
});

describe('installments', () => {
  it('equal parts with the remainder on the last, each invoiced on its date; a cancel invoices the rest at once and ends the renewals', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const p = await plan('quarterly parts', 'USD', '100', { amount: '1000', term_months: 3, installments: 3 });
    const c = await subscribe(p.id);
    const [term] = c.sub.commitment_terms;
    expect(term.installments.map((i: any) => [i.n, i.due_at, i.amount, i.invoice_id !== null])).toEqual([
      [1, '2026-11-01T00:00:00.000Z', '333.33', true],
      [2, '2026-12-01T00:00:00.000Z', '333.33', false],
      [3, '2027-01-01T00:00:00.000Z', '333.34', false],
    ]);
    // The whole commitment is usable from the start, not only what is invoiced.
    expect((await get(`/v1/credits/grants/${term.grant_id}`)).body).toMatchObject({ amount: '1000.00', remaining: '1000.00' });

    clock = at('2026-12-01T00:00:00Z');
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    const second = (await terms(c.id))[0].installments[1];
    expect(await invoice(second.invoice_id)).toMatchObject({ total: '333.33', issue_date: '2026-12-01T00:00:00.000Z', due_date: '2026-12-31T00:00:00.000Z' });
    expect((await invoice(second.invoice_id)).lines[0].charge_name).toMatch(/installment 2 of 3/);

    // November's invoice draws on it; cancelled from December 16, the last installment is invoiced at once.
    expect(await bill(c.account, '2026-11')).toMatchObject({ total: '100.00', credits_applied: '100.00', amount_due: '0.00' });
    clock = at('2026-12-10T00:00:00Z');
    expect((await terms(c.id))[0].renews).toBe(true);
    await ok(post(`/api/v1/subscription/${c.id}/cancel`, { cancel_date: '2026-12-16', reason: 'moving on' }), 200);
    // The term does not renew any more, and says so.
    expect((await terms(c.id))[0].renews).toBe(false);
    const third = (await terms(c.id))[0].installments[2];
    const last = await invoice(third.invoice_id);
    expect(last).toMatchObject({ total: '333.34', issue_date: '2026-12-10T00:00:00.000Z' });
    expect(last.lines.map((l: any) => l.amount)).toEqual(['333.34']);
    const billed = await Promise.all((await terms(c.id))[0].installments.map(async (i: any) => (await invoice(i.invoice_id)).total));
    expect(billed).toEqual(['333.33', '333.33', '333.34']); // 1000.00 exactly

    // December's final invoice (15 of 31 days) draws on it too; what is left expires at the term's end; no renewal.
    clock = at('2027-02-01T00:00:00.001Z');
    expect(await bill(c.account, '2026-12')).toMatchObject({ total: '48.39', credits_applied: '48.39', amount_due: '0.00' });
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    expect(await expireGrants(stack.tally.db!, new Date(clock))).toBeGreaterThanOrEqual(1);
    expect(await entries(term.grant_id)).toEqual([
      ['grant', '1000.00'],
      ['burn', '-100.00'],
      ['burn', '-48.39'],
      ['expiry', '-851.61'],
    ]);
    expect(await terms(c.id)).toHaveLength(1);
  });
});

describe('money at the edges', () => {
  it('JPY (0 decimals) and KWD (3 decimals): installments add up to the amount, and the invoices draw on them', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const yen = await plan('yen', 'JPY', '1000', { amount: 10000, term_months: 3, installments: 3 });
    const dinar = await plan('dinar', 'KWD', '1.5', { amount: '10.001', term_months: 2, installments: 2 });
    const y = await subscribe(yen.id);
    const d = await subscribe(dinar.id, { family: 'B' });
    expect(y.sub.commitment_terms[0].installments.map((i: any) => i.amount)).toEqual(['3333', '3333', '3334']);
    expect(d.sub.commitment_terms[0].installments.map((i: any) => i.amount)).toEqual(['5.000', '5.001']);
    expect(await invoice(y.sub.commitment_terms[0].installments[0].invoice_id)).toMatchObject({ total: '3333', currency: 'JPY' });
    expect(await invoice(d.sub.commitment_terms[0].installments[0].invoice_id)).toMatchObject({ total: '5.000', currency: 'KWD' });
    clock = at('2026-12-01T00:00:01Z');
    expect(await bill(y.account, '2026-11')).toMatchObject({ total: '1000', credits_applied: '1000', amount_due: '0' });
    expect(await bill(d.account, '2026-11')).toMatchObject({ total: '1.500', credits_applied: '1.500', amount_due: '0.000' });
    expect((await get(`/v1/credits/grants/${d.sub.commitment_terms[0].grant_id}`)).body.remaining).toBe('8.501');
    expect((await get(`/v1/credits/grants/${y.sub.commitment_terms[0].grant_id}`)).body.remaining).toBe('9000');
  });
});

describe('voids and renewals (issue 31 defects)', () => {
  const voidInvoice = (id: string) => ok(post(`/api/v1/invoice/invoices/${id}/void`, {}), 200);

  it('voiding an immediately usable paid grant\'s purchase invoice voids what is left of the grant', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const account = (await ok(post('/v1/accounts', { name: 'void immediate' }))).id;
    const g = await ok(post('/v1/credits/grants', { account_id: account, currency: 'USD', kind: 'paid', usable: 'immediately', amount: '100' }));
    expect(g.status).toBe('active');
    await voidInvoice(g.invoice_id);
    expect((await get(`/v1/credits/grants/${g.id}`)).body).toMatchObject({ status: 'void', remaining: '0.00' });
    expect(await entries(g.id)).toEqual([
      ['grant', '100.00'],
      ['void', '-100.00'],
    ]);
    expect((await get(`/v1/accounts/${account}/credits/balance`)).body.balances[0].available).toBe('0.00');
  });

  it('a commitment grant is not refunded (409 naming its subscription), paid installments or not', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const p = await plan('unrefundable commitment', 'USD', '100', { amount: '900', term_months: 3, installments: 3 });
    const c = await subscribe(p.id);
    const [term] = c.sub.commitment_terms;
    for (const path of ['/v1/credits/refunds', '/api/v1/credit/refunds/create']) {
      const r = await post(path, { grant_id: term.grant_id, amount: '1.00', reason: 'asked back' });
      expect(r.status, JSON.stringify(r.body)).toBe(409);
      expect(JSON.stringify(r.body)).toContain(c.id);
    }
    expect((await entries(term.grant_id)).filter(([type]: [string]) => type === 'refund')).toEqual([]);
  });

  it('a voided commitment grant ends its term: no further installments, no renewal', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const p = await plan('voided commitment', 'USD', '100', { amount: '900', term_months: 3, installments: 3 });
    const c = await subscribe(p.id);
    const [term] = c.sub.commitment_terms;
    await ok(post(`/v1/credits/grants/${term.grant_id}/void`, { reason: 'deal off' }), 200);
    expect((await terms(c.id))[0].renews).toBe(false);
    clock = at('2027-02-01T01:00:00Z');
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    const after = await terms(c.id);
    expect(after).toHaveLength(1);
    expect(after[0].installments.map((i: any) => i.invoice_id !== null)).toEqual([true, false, false]);
  });

  it('voiding an installment invoice unpaid takes its amount out of the commitment grant; correcting it is a 409 saying what to do', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const p = await plan('voided installment', 'USD', '100', { amount: '1000', term_months: 3, installments: 3, renews: false });
    const c = await subscribe(p.id);
    const [term] = c.sub.commitment_terms;
    const first = term.installments[0].invoice_id;
    const correct = await post(`/api/v1/invoice/invoices/${first}/correct`);
    expect(correct.status).toBe(409);
    expect(correct.body.error.message).toMatch(/void it while unpaid/);
    await voidInvoice(first);
    // A void invoice owes nothing.
    expect(await invoice(first)).toMatchObject({ status: 'void', total: '333.33', amount_due: '0.00' });
    expect((await get(`/v1/credits/grants/${term.grant_id}`)).body).toMatchObject({ status: 'active', remaining: '666.67' });
    const voids = (await get(`/v1/credits/entries?grant_id=${term.grant_id}&type=void`)).body.entries;
    expect(voids.map((e: any) => [e.amount, e.invoice_id])).toEqual([['-333.33', first]]);
    // The other installments are still billed on their dates.
    clock = at('2026-12-01T00:00:00Z');
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    expect((await terms(c.id))[0].installments.map((i: any) => i.invoice_id !== null)).toEqual([true, true, false]);
  });

  it('renewal follows the status in force at the term end: a cancel dated after it renews the term (owed at once), none after', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const p = await plan('cancel later', 'USD', '100', { amount: '300', term_months: 3, installments: 3 });
    const c = await subscribe(p.id);
    await ok(post(`/api/v1/subscription/${c.id}/cancel`, { cancel_date: '2027-03-15' }), 200);
    expect((await terms(c.id))[0].renews).toBe(true);
    clock = at('2027-02-01T01:00:00Z');
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    const [, second] = await terms(c.id);
    expect(second).toMatchObject({ term: 2, starts_at: '2027-02-01T00:00:00.000Z' });
    expect(second.installments.map((i: any) => i.invoice_id !== null)).toEqual([true, true, true]);
    expect(second.renews).toBe(false);
    clock = at('2027-05-01T01:00:00Z');
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    expect(await terms(c.id)).toHaveLength(2);
  });
});

describe('a term ending mid billing period (issue 31 defects)', () => {
  it('activated November 10: the grant stays usable through February, the period the term ends in, renewing or not', async () => {
    clock = at('2026-11-10T00:00:00Z');
    const p = await plan('mid month', 'USD', '100', { amount: '1000', term_months: 3, renews: false });
    const once = await subscribe(p.id);
    const renewing = await subscribe(p.id, { commitment: { amount: '1000', term_months: 3, renews: true } });
    const [t1] = once.sub.commitment_terms;
    expect(t1).toMatchObject({ starts_at: '2026-11-10T00:00:00.000Z', ends_at: '2027-02-10T00:00:00.000Z' });
    expect((await get(`/v1/credits/grants/${t1.grant_id}`)).body.expires_at).toBe('2027-03-01T00:00:00.001Z');

    clock = at('2027-02-10T01:00:00Z');
    await advanceCommitments(stack.tally.db!, new Date(clock), netDays);
    const [r1, r2] = await terms(renewing.id);
    expect(r2).toMatchObject({ term: 2, starts_at: '2027-02-10T00:00:00.000Z' });

    clock = at('2027-03-01T01:00:00Z');
    for (const s of [once, renewing]) {
      expect(await bill(s.account, '2026-11')).toMatchObject({ total: '70.00', credits_applied: '70.00' }); // 21 of 30 days
      for (const month of ['2026-12', '2027-01']) expect(await bill(s.account, month)).toMatchObject({ total: '100.00', credits_applied: '100.00' });
    }
    // February (ending March 1, after the term's end) still draws on term 1: before term 2's grant (earlier expiry).
    const febOnce = await bill(once.account, '2027-02');
    expect(febOnce).toMatchObject({ total: '100.00', credits_applied: '100.00', amount_due: '0.00' });
    expect(creditLines(febOnce)).toEqual([[t1.grant_id, '-100.00']]);
    expect(creditLines(await bill(renewing.account, '2027-02'))).toEqual([[r1.grant_id, '-100.00']]);

    await expireGrants(stack.tally.db!, new Date(clock));
    const expiry = (await get(`/v1/credits/entries?grant_id=${t1.grant_id}&type=expiry`)).body.entries;
    expect(expiry.map((e: any) => [e.amount, e.occurred_at])).toEqual([['-630.00', '2027-03-01T00:00:00.001Z']]);
  });
});

describe('expiry after the last invoice (issue 31 defects)', () => {
  it('an expiry step before the term\'s last invoice is generated waits; the on-demand generate after it burns the grant first', async () => {
    clock = at('2026-11-01T00:00:00Z');
    const p = await plan('late generate', 'USD', '100', { amount: '1000', term_months: 3, renews: false });
    const c = await subscribe(p.id);
    const [term] = c.sub.commitment_terms;
    clock = at('2027-02-01T01:00:00Z');
    for (const month of ['2026-11', '2026-12']) await bill(c.account, month);
    await expireGrants(stack.tally.db!, new Date(clock)); // January not generated yet: nothing expires
    expect((await get(`/v1/credits/entries?grant_id=${term.grant_id}&type=expiry`)).body.entries).toEqual([]);
    const jan = await bill(c.account, '2027-01');
    expect(jan).toMatchObject({ total: '100.00', credits_applied: '100.00', amount_due: '0.00' });
    await expireGrants(stack.tally.db!, new Date(clock));
    expect(await entries(term.grant_id)).toEqual([
      ['grant', '1000.00'],
      ['burn', '-100.00'],
      ['burn', '-100.00'],
      ['burn', '-100.00'],
      ['expiry', '-700.00'],
    ]);
  });
});

describe("an agent's own balance (issue 31 defects)", () => {
  it("counts only the credit that may pay for the agent's subscriptions: another subscription's commitment is left out", async () => {
    clock = at('2026-11-01T00:00:00Z');
    const committed = await plan('agent scope', 'USD', '100', { amount: '1000', term_months: 3 });
    const plain = await plan('agent scope plain', 'USD', '0', null);
    const a = await subscribe(committed.id);
    const other = await createAgent(stack, 'development', { accountId: a.account });
    await ok(post('/v1/subscriptions', { account_id: a.account, rate_plan_id: plain.id, agent_instance_ids: [other.id] }));
    await ok(post('/v1/credits/grants', { account_id: a.account, currency: 'USD', kind: 'free', amount: '50', effective_at: '2026-11-01T00:00:00Z' }));
    clock = at('2026-11-02T00:00:00Z');
    const account = (await get(`/v1/accounts/${a.account}/credits/balance`)).body.balances[0].available;
    const mine = async (secret: string, path: string) => (await call(stack, 'GET', path, { headers: { 'x-agent-secret': secret } })).body.balances[0].available;
    for (const path of ['/v1/agents/me/credit-balance', '/api/v1/agent_instance/credit-balance']) {
      // The other agent's subscription can only ever draw on the account-wide 50.00.
      expect(await mine(other.secret, path)).toBe('50.00');
    }
    expect(Number(account)).toBeGreaterThan(50); // the account's figure counts the commitment too
  });
});
