/**
 * Model-based test through the real API, Postgres, NATS and ClickHouse (issue 37): random
 * sequences of subscription moves sent as requests on a clock the test moves (dates now,
 * past and future; changes to a quarterly plan, at the next quarter's start or refused;
 * changes to another currency, refused; November's draft generated in between; moves the
 * rules refuse included), random events sent through ingest,
 * then November's invoice of each subscription generated and compared, charge by charge
 * and in total, to the minor unit, with the independent model of test/lifecycle-model.ts
 * (the plan billed at each instant, from the moves the API accepted; money in exact
 * rationals, each charge rounded once; users counted once a period, at the price of the
 * plan billed at their first billed action: issue 35; a minimum commitment per plan or
 * overridden per subscription, owed over each plan's billed share of the period, rounded
 * once, trued up when the charges bill less: docs/credits.md "Commitments"). Covers what the pure model tests
 * cannot: the state machine and its refusals, the stored moves, the usage queries.
 *
 * LIFECYCLE_API_RUNS sequences (100 in npm test, ~5 s; `npm run test:lifecycle` runs 300), seeded by LIFECYCLE_SEED.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createAgent, startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { keySet, type KeySet } from '../../test/api-support.ts';
import { add, HOUR, minus, mul, planBilledAt, q, rng, roundText, ZERO, type Q } from '../../test/lifecycle-model.ts';
import type { StateChange } from './segments.ts';

const RUNS = Number(process.env.LIFECYCLE_API_RUNS ?? 100);
const SEED = Number(process.env.LIFECYCLE_SEED ?? 20261125);
const PS = Date.parse('2026-11-01T00:00:00Z');
const PE = Date.parse('2026-12-01T00:00:00Z');
const DAY = 24 * HOUR;
const iso = (t: number) => new Date(t).toISOString();
/**
 * Plans (USD): fee and per-action price that make rounding matter; the last one quarterly
 * (changes to it take effect at a quarter's start). `user`: a tiered @user charge, the
 * period's first USERS_FREE users free and each later one at that price (plan 1 has none:
 * users first seen on it count toward the others' tiers all the same).
 */
const PLAN_PRICES: { fee: string; price: string; cycle: string; currency?: string; user?: string; minimum?: string }[] = [
  { fee: '100', price: '0.005', cycle: 'monthly', user: '2.5', minimum: '150' },
  { fee: '31', price: '0.5', cycle: 'monthly' },
  { fee: '7.77', price: '1', cycle: 'monthly', user: '0.125', minimum: '40.01' },
  { fee: '300', price: '0.25', cycle: 'quarterly', user: '4', minimum: '900' },
  // Another currency: a change to it is always refused.
  { fee: '50', price: '1', cycle: 'monthly', currency: 'EUR', minimum: '60' },
];
/** Subscription overrides of the plans' minimum commitment, picked for some sequences. */
const OVERRIDES = ['0', '120', '99.99'];
const NEXT_QUARTER = Date.parse('2027-01-01T00:00:00Z');
const USERS_FREE = 1;

let clock = PS;
let stack: TestStack;
let dev: KeySet;
let plans: string[] = [];
const post = (path: string, body?: unknown) => call(stack, 'POST', path, { key: dev.admin, ...(body !== undefined ? { body } : {}) });

beforeAll(async () => {
  // Rate limits off: hundreds of sequences send thousands of requests a minute with one key.
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000', TALLY_INGEST_LINGER_MS: '5', TALLY_RATE_LIMITS: 'off' }, now: () => new Date(clock) });
  dev = await keySet(stack, 'development');
  const model = async (name: string, type: string, pricing_strategy: Record<string, unknown>) => (await post('/api/v1/charge_models', { name, description: name, type, pricing_strategy })).body.id as string;
  const typeId = (await post('/api/v1/agent_type/create', { name: 'model' })).body.id;
  const productId = (await post('/api/v1/products', { name: 'Model', agent_type_id: typeId })).body.id;
  const flat = await model('Fee', 'flat', {});
  const perAction = await model('Per action', 'per_unit', { unit_of_measure: '@action' });
  const perUser = await model('Users', 'tiered', { unit_of_measure: '@user', tiers: [{ price: 0, start: 0 }, { price: 1, start: USERS_FREE }] });
  plans = [];
  for (const [i, p] of PLAN_PRICES.entries()) {
    const plan = (await post(`/api/v1/products/${productId}/rateplans`, { name: `plan ${i}`, billing_cycle_code: p.cycle, currency: p.currency ?? 'USD', ...(p.minimum ? { minimum_commitment: p.minimum } : {}) })).body.id as string;
    expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Fee', charge_model_id: flat, charge_type_code: 'recurring', pricing: { unit_price: p.fee } })).status).toBe(201);
    expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Actions', charge_model_id: perAction, charge_type_code: 'usage', pricing: { unit_price: p.price } })).status).toBe(201);
    if (p.user) {
      const tiers = [{ price: 0, start: 0 }, { price: p.user, start: USERS_FREE }];
      expect((await post(`/api/v1/products/rateplans/${plan}/charges`, { name: 'Users', charge_model_id: perUser, charge_type_code: 'usage', pricing: { tiers } })).status).toBe(201);
    }
    plans.push(plan);
  }
});
afterAll(async () => {
  await stack?.cleanup();
});

interface Sequence {
  account: string;
  agent: string;
  sub: string;
  /** The moves the API accepted, as the model reads them. */
  accepted: StateChange[];
  /** Event times (whole minutes in November). */
  events: number[];
  /** The user of each event ('' for none), from a few per sequence. */
  users: string[];
  /** The subscription's minimum commitment override, if any. */
  override: string | null;
  log: string[];
}

type Action = 'activate' | 'pause' | 'resume' | 'cancel' | 'renew' | 'change_plan';
const TYPE: Record<Action, string> = { activate: 'activated', pause: 'paused', resume: 'resumed', cancel: 'cancelled', renew: 'renewed', change_plan: 'plan_changed' };

/** One sequence: a subscription created (draft or active) and up to 8 moves, each on the clock's now. */
async function runSequence(next: () => number, n: number): Promise<Sequence> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const hourIn = (from: number, to: number) => from + Math.floor(next() * Math.max(1, (to - from) / HOUR)) * HOUR;
  clock = hourIn(PS - 10 * DAY, PS + 20 * DAY);
  const account = (await post('/v1/accounts', { name: `model ${n}` })).body.id as string;
  const agent = (await createAgent(stack, 'development', { accountId: account })).id;
  // Created on a monthly plan (November is then one monthly period); changes may go to the quarterly one.
  let plan = pick(plans.slice(0, 3));
  const contract = hourIn(clock - 10 * DAY, clock + 5 * DAY);
  const active = next() < 0.5;
  const override = next() < 0.25 ? pick(OVERRIDES) : null;
  const created = await post(active ? '/v1/subscriptions' : '/api/v1/subscription/create', {
    account_id: account,
    rate_plan_id: plan,
    agent_instance_ids: [agent],
    contract_effective_date: iso(contract),
    ...(override !== null ? { minimum_commitment: override } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const sub = created.body.id as string;
  const accepted: StateChange[] = [{ type: 'created', to_status: active ? 'active' : 'draft', rate_plan_id: plan, effective_at: iso(active ? Math.max(contract, clock) : contract) }];
  const log = [`created ${active ? 'active' : 'draft'} on ${plans.indexOf(plan)} contract ${iso(contract)} minimum ${override} at ${iso(clock)}`];
  for (let k = Math.floor(next() * 8); k > 0; k--) {
    clock += Math.floor(next() * 4 * 24) * HOUR;
    if (clock >= PS && clock < PE && next() < 0.2) {
      // November's invoice generated in between, during November (a draft, re-rated as moves and events come).
      const draft = await post('/v1/invoices/generate', { billing_period: '2026-11', account_id: account });
      expect(draft.status, JSON.stringify(draft.body)).toBe(200);
      log.push(`generate 2026-11 at ${iso(clock)}`);
    }
    const action = pick(['activate', 'pause', 'resume', 'cancel', 'renew', 'change_plan'] as Action[]);
    // A date now (none sent), in the past or in the future: some of them refused by the rules.
    const to = action === 'change_plan' ? pick(plans.filter((p) => p !== plan)) : plan;
    const crossCycle = action === 'change_plan' && PLAN_PRICES[plans.indexOf(to)]!.cycle !== PLAN_PRICES[plans.indexOf(plan)]!.cycle;
    const dated = crossCycle && next() < 0.5 ? NEXT_QUARTER : next() < 0.3 ? undefined : hourIn(clock - 6 * DAY, clock + 12 * DAY);
    const body: Record<string, unknown> = {};
    if (action === 'cancel' && dated !== undefined) body.cancel_date = iso(dated);
    if ((action === 'pause' || action === 'resume' || action === 'change_plan') && dated !== undefined) body.effective_date = iso(dated);
    if (action === 'change_plan') body.rate_plan_id = to;
    const res = await post(`/api/v1/subscription/${sub}/${action === 'change_plan' ? 'change-plan' : action}`, body);
    log.push(`${action} ${JSON.stringify(body)} at ${iso(clock)} -> ${res.status}`);
    if (res.status !== 200) {
      // Refused by the state machine (409) or a date bound (400), with a JSON error; nothing recorded.
      expect([400, 409], JSON.stringify(res.body)).toContain(res.status);
      expect(res.body.error.code).toMatch(/^(conflict|validation_failed)$/);
      continue;
    }
    const at = action === 'activate' ? Math.max(contract, clock) : action === 'renew' ? clock : (dated ?? clock);
    if (action === 'change_plan') plan = to;
    accepted.push({ type: TYPE[action], to_status: action === 'pause' ? 'paused' : action === 'cancel' ? 'cancelled' : 'active', rate_plan_id: plan, effective_at: iso(at) });
  }
  // Events mostly in billed hours (so users meet plan changes and pauses), some anywhere.
  const billedHours = Array.from({ length: (PE - PS) / HOUR }, (_, h) => PS + h * HOUR).filter((t) => planBilledAt(accepted, t + HOUR / 2) !== null);
  const eventTime = () =>
    billedHours.length && next() < 0.8 ? pick(billedHours) + Math.floor(next() * 60) * 60_000 : PS + Math.floor(next() * ((PE - PS) / 60_000)) * 60_000;
  const events = Array.from({ length: Math.floor(next() * 12) }, eventTime);
  const users = events.map(() => pick(['', `u${n}-a`, `u${n}-b`]));
  return { account, agent, sub, accepted, events, users, override, log };
}

/**
 * The model's minimum commitment owed (exact), or null when no billed hour carries one: the
 * minimum in force each billed hour (the override, else that hour's plan's) x 1 / the period's hours.
 */
function expectedMinimum(s: Sequence): Q | null {
  let owed = ZERO;
  let any = false;
  for (let t = PS; t < PE; t += HOUR) {
    const plan = planBilledAt(s.accepted, t + HOUR / 2);
    const minimum = plan ? (s.override ?? PLAN_PRICES[plans.indexOf(plan)]!.minimum ?? null) : null;
    if (minimum === null) continue;
    any = true;
    owed = add(owed, mul(q(minimum), 1n, BigInt((PE - PS) / HOUR)));
  }
  return any ? owed : null;
}

/** The model's invoice: each charge's exact amount, from the plan billed at each hour and at each event. */
function expectedInvoice(s: Sequence): Map<string, Q> {
  const exact = new Map<string, Q>();
  const plus = (key: string, v: Q) => exact.set(key, add(exact.get(key) ?? ZERO, v));
  // Moves are on whole hours: the plan billed is constant within each hour.
  for (let t = PS; t < PE; t += HOUR) {
    const plan = planBilledAt(s.accepted, t + HOUR / 2);
    if (plan) plus(`fee:${plan}`, mul(q(PLAN_PRICES[plans.indexOf(plan)]!.fee), 1n, BigInt((PE - PS) / HOUR)));
  }
  for (const e of s.events) {
    const plan = planBilledAt(s.accepted, e);
    if (plan) plus(`actions:${plan}`, q(PLAN_PRICES[plans.indexOf(plan)]!.price));
  }
  // Users: the period's distinct users over its billed time, each once, in time order; a
  // user's place in the period (the first USERS_FREE free) priced by the plan billed at
  // their first billed action, if it has a Users charge.
  const seen = new Set<string>();
  const byTime = s.events.map((e, i) => ({ e, user: s.users[i]! })).sort((a, b) => a.e - b.e);
  for (const { e, user } of byTime) {
    const plan = planBilledAt(s.accepted, e);
    if (!plan || user === '' || seen.has(user)) continue;
    seen.add(user);
    const price = PLAN_PRICES[plans.indexOf(plan)]!.user;
    if (price !== undefined) plus(`users:${plan}`, seen.size > USERS_FREE ? q(price) : ZERO);
  }
  return exact;
}

describe(`subscription sequences through the API against the model (${RUNS} sequences, seed ${SEED})`, () => {
  it('bills every invoice line and total as the model does, to the cent', async () => {
    const next = rng(SEED + 2);
    const sequences: Sequence[] = [];
    for (let n = 0; n < RUNS; n++) sequences.push(await runSequence(next, n));

    // Events arrive on December 2 (inside November's grace): every one is on the drafts.
    clock = PE + DAY;
    const all = sequences.flatMap((s) => s.events.map((e, i) => ({ agent_key: s.agent, action_type: 'llm_call', id: `${s.sub}-${i}`, timestamp: iso(e), ...(s.users[i] ? { user_id: s.users[i] } : {}) })));
    for (let i = 0; i < all.length; i += 500) {
      const res = await call(stack, 'POST', '/v1/actions', { key: dev.sdk, body: all.slice(i, i + 500) });
      expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
    }
    await waitFor(
      () => call(stack, 'GET', '/v1/usage?start_date=2026-11-01&end_date=2026-12-01&group_by=none', { key: dev.sdk }),
      (r) => (r.body.usage?.[0]?.actions ?? '0') === String(all.length),
      30_000,
    );

    const moves = sequences.flatMap((s) => s.log.slice(1).filter((m) => !m.startsWith('generate')));
    console.log(`lifecycle-api: ${sequences.length} sequences, ${moves.length} moves (${moves.filter((m) => m.endsWith(" 200")).length} accepted, ${moves.filter((m) => m.includes("2027-01-01") && m.endsWith(" 200")).length} of them changes of cycle), ${all.length} events`);
    const generated = await post('/v1/invoices/generate', { billing_period: '2026-11' });
    expect(generated.status).toBe(200);
    expect(generated.body.failures).toEqual([]);
    let trueUpCount = 0;
    const bySub = new Map<string, { id: string; total: string }>(generated.body.invoices.map((i: { subscription_id: string; id: string; total: string }) => [i.subscription_id, i]));
    for (const s of sequences) {
      const context = `${s.log.join('; ')}; events ${s.events.map((e, i) => `${iso(e)} ${s.users[i]}`).join(', ')}`;
      const exact = expectedInvoice(s);
      const invoice = bySub.get(s.sub);
      if (exact.size === 0) {
        // Not billable in November: no invoice, or the draft generated while it was, voided.
        if (invoice) expect((invoice as { status?: string }).status, context).toBe('void');
        continue;
      }
      expect(invoice, context).toBeDefined();
      const lines = (await call(stack, 'GET', `/api/v1/invoice/invoices/${invoice!.id}`, { key: dev.admin })).body.lines as { rate_plan_id: string; charge_name: string; model: string; amount: string }[];
      let total = ZERO;
      for (const [key, amount] of exact) {
        const [kind, plan] = key.split(':') as [string, string];
        const name = { fee: 'Fee', actions: 'Actions', users: 'Users' }[kind];
        const billed = lines.filter((l) => l.rate_plan_id === plan && l.charge_name === name).reduce((a, l) => add(a, q(l.amount)), ZERO);
        expect(roundText(billed, 2), `${context}: ${key}`).toBe(roundText(amount, 2));
        total = add(total, q(roundText(amount, 2)));
      }
      // The true-up: what the rounded minimum owed exceeds the charges by, else no line.
      const minimum = expectedMinimum(s);
      const owed = minimum === null ? null : roundText(minimum, 2);
      const shortfall = owed === null ? ZERO : minus(q(owed), total);
      const trueUps = lines.filter((l) => l.model === 'minimum_commitment').map((l) => l.amount);
      if (shortfall.n > 0n) {
        expect(trueUps, `${context}: minimum owed ${owed}`).toEqual([roundText(shortfall, 2)]);
        total = q(owed!);
        trueUpCount++;
      } else {
        expect(trueUps, `${context}: minimum owed ${owed}`).toEqual([]);
      }
      expect(invoice!.total, context).toBe(roundText(total, 2));
    }
    console.log(`lifecycle-api: ${trueUpCount} invoices trued up to their minimum commitment`);
    // Not vacuous: some invoices fall under their minimum.
    expect(trueUpCount).toBeGreaterThan(RUNS / 20);
  }, 120_000 + RUNS * 1_000);
});
