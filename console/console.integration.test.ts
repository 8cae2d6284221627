import { existsSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { Tally } from '../sdk/src/index.ts';
import { call, startTestStack, waitFor, type TestStack } from '../test/harness.ts';
import { CONSOLE_CSP } from './server.ts';

/** Debian's chromium (apt package `chromium`; .ci/run installs it). */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p): p is string => !!p && existsSync(p));
if (!CHROMIUM) console.warn('console browser tests SKIPPED: no chromium (apt-get install -y chromium, or set CHROMIUM_PATH)');

const XSS_NAME = '<img src=x onerror=alert(1)>';
const XSS_SCRIPT = '<script>alert(2)</script>';
const XSS_URL = 'javascript:alert(3)';
/** expect.poll with room for a loaded machine (its default waits 1 s). */
const poll = <T>(fn: () => T | Promise<T>, opts: { timeout?: number } = {}) => expect.poll(fn, { timeout: 15_000, ...opts });
/** Screenshots: into docs/console (the README's) with CONSOLE_SCREENSHOTS=1, else a temporary directory (a test run leaves the tree clean). */
const SHOTS = process.env.CONSOLE_SCREENSHOTS === '1' ? 'docs/console' : path.join(os.tmpdir(), `tally-console-shots-${process.pid}`);
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`) });

describe.skipIf(!CHROMIUM)('console in a real browser', () => {
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  const dialogs: string[] = [];
  const pageErrors: string[] = [];
  let admin: string;

  beforeAll(async () => {
    stack = await startTestStack();
    admin = stack.keys.development.admin;
    browser = await chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    // The console's own confirm() questions are accepted; any other dialog (an alert from an
    // injected script) is recorded, and the XSS test expects none.
    page.on('dialog', (d) => {
      if (d.type() === 'confirm') return void d.accept();
      dialogs.push(`${d.type()}: ${d.message()}`);
      void d.dismiss();
    });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.cleanup();
    if (SHOTS !== 'docs/console') rmSync(SHOTS, { recursive: true, force: true });
  });

  /** The CSV a table's Export CSV button downloads (the table named by its caption, or the only one of a region). */
  const exportCsv = async (table: string | ReturnType<Page['getByRole']>) => {
    const wrap = typeof table === 'string' ? page.locator('.table-wrap', { has: page.getByRole('table', { name: table, exact: true }) }) : table;
    const [download] = await Promise.all([page.waitForEvent('download'), wrap.getByRole('button', { name: 'Export CSV' }).click()]);
    return readFile((await download.path())!, 'utf8');
  };

  const nav = async (label: string) => {
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: label, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: label }).waitFor();
  };

  it('serves the page with a strict Content-Security-Policy and no outside request', async () => {
    const outside: string[] = [];
    const failed: string[] = [];
    const cached: Record<string, string | undefined> = {};
    page.on('request', (r) => !r.url().startsWith(stack.baseUrl) && !r.url().startsWith('data:') && outside.push(r.url()));
    page.on('response', (r) => {
      if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
      if (/\/console\/app\.(js|css)\?v=/.test(r.url())) cached[new URL(r.url()).pathname] = r.headers()['cache-control'];
    });
    const res = await page.goto(`${stack.baseUrl}/console`);
    expect(res!.headers()['cache-control']).toBe('no-cache');
    expect(res!.status()).toBe(200);
    const csp = res!.headers()['content-security-policy']!;
    expect(csp).toBe(CONSOLE_CSP);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    await page.getByLabel('API key').waitFor();
    await page.waitForLoadState('networkidle');
    expect(outside).toEqual([]);
    // No 404 (a favicon) on load; the versioned script and style sheet cached as immutable.
    expect(failed).toEqual([]);
    expect(cached).toEqual({ '/console/app.js': 'public, max-age=31536000, immutable', '/console/app.css': 'public, max-age=31536000, immutable' });
  });

  it('refuses a bad key with the API message and request id, then signs in', async () => {
    await page.getByLabel('API key').fill('sk_api_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const alert = page.getByRole('alert');
    await poll(() => alert.textContent()).toMatch(/401.*request id: \S+/s);
    await page.getByLabel('API key').fill(admin);
    await page.getByLabel('Environment name (optional)').fill('development');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // The key is only in sessionStorage: not in the URL, a cookie or localStorage.
    expect(page.url()).not.toContain(admin);
    expect(await page.context().cookies()).toEqual([]);
    expect(await page.evaluate('JSON.stringify(localStorage)')).toBe('{}');
    expect(await page.evaluate<string>("sessionStorage.getItem('tally.console.sessions')")).toContain(admin);
  });

  let agentSecret = '';
  it('creates an agent type and an agent whose secret is shown once', async () => {
    await nav('Agents');
    await page.getByLabel('Agent type name').fill('Recruiter');
    await page.getByRole('button', { name: 'Add agent type' }).click();
    await page.getByRole('cell', { name: 'Recruiter', exact: true }).waitFor();
    await page.getByLabel('Agent name').fill(XSS_SCRIPT);
    await page.getByRole('button', { name: 'Add agent', exact: true }).click();
    agentSecret = (await page.getByTestId('shown-once').textContent())!;
    expect(agentSecret.length).toBeGreaterThan(10);
    await page.getByRole('cell', { name: XSS_SCRIPT, exact: true }).waitFor();
  });

  let planId = '';
  it('builds a catalog: product, rate plan, a tiered charge with tiers edited as a table, and simulates it', async () => {
    await nav('Catalog');
    await page.getByLabel('Product name').fill(XSS_NAME);
    await page.getByLabel('Product description').fill(XSS_URL);
    await page.getByRole('button', { name: 'Add product' }).click();
    await page.getByRole('heading', { name: `Product: ${XSS_NAME}` }).waitFor();
    // Created in the console's date format, not raw ISO.
    await poll(() => page.getByRole('table', { name: 'Products' }).textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);
    expect(await page.getByRole('table', { name: 'Products' }).textContent()).not.toMatch(/\d{4}-\d\d-\d\dT/);
    await page.getByLabel('Rate plan name').fill('Standard');
    await page.getByRole('button', { name: 'Add rate plan' }).click();
    await page.getByRole('heading', { name: /Rate plan: Standard \(USD/ }).waitFor();
    await page.getByLabel('Charge name').fill('Actions');
    await page.getByLabel('Charge model').selectOption('tiered');
    await page.getByLabel('Tier 1 price per unit').fill('0.02');
    await page.getByRole('button', { name: 'Add tier' }).click();
    // Bands by their first unit, counting from 1: the first from unit 1 (shown, not typed).
    expect(await page.getByTestId('tier-1-from').textContent()).toBe('1');
    await page.getByLabel('Tier 2 from unit').fill('11');
    await page.getByLabel('Tier 2 price per unit').fill('0.01');
    await page.getByRole('button', { name: 'Add charge' }).click();
    await page.getByRole('cell', { name: 'Actions', exact: true }).waitFor();
    // Read back with the numbers typed, prices as money.
    const charges = page.getByRole('table', { name: 'Charges' });
    expect((await charges.locator('dl.pricing').first().innerText()).replace(/\s+/g, ' ')).toBe('units 1–10 0.02 USD per unit units 11 and up 0.01 USD per unit');
    await page.getByLabel('Usage @action').fill('20');
    await page.getByRole('button', { name: 'Simulate' }).click();
    // 10 units at 0.02 and 10 at 0.01.
    await poll(() => page.getByTestId('sim-total').textContent()).toBe('0.30');
    await shot(page, 'catalog');
    // A 3-decimal currency: 3 units at 0.125 KWD.
    await page.getByLabel('Rate plan name').fill('Kuwait');
    await page.getByLabel('Currency').fill('KWD');
    await page.getByRole('button', { name: 'Add rate plan' }).click();
    await page.getByRole('heading', { name: /Rate plan: Kuwait \(KWD/ }).waitFor();
    await page.getByLabel('Charge name').fill('Per action');
    await page.getByLabel('Unit price (KWD)').fill('0.125');
    await page.getByRole('button', { name: 'Add charge' }).click();
    await page.getByRole('cell', { name: 'Per action', exact: true }).waitFor();
    await page.getByLabel('Usage @action').fill('3');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await poll(() => page.getByTestId('sim-total').textContent()).toBe('0.375');
    // A refused usage leaves no result of an earlier one beneath its error; an exponent is refused in the form, as the API does.
    const simulator = page.getByRole('region', { name: 'Pricing simulator' });
    await page.getByLabel('Usage @action').fill('-5');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await poll(() => simulator.getByRole('alert').textContent()).toMatch(/^400/);
    expect(await page.getByTestId('sim-total').count()).toBe(0);
    await page.getByLabel('Usage @action').fill('3');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await poll(() => page.getByTestId('sim-total').textContent()).toBe('0.375');
    await page.getByLabel('Usage @action').fill('1.5e2');
    await page.getByRole('button', { name: 'Simulate' }).click();
    await poll(() => simulator.getByRole('alert').textContent()).toContain('Usage @action: 1.5e2 has an exponent');
    expect(await page.getByTestId('sim-total').count()).toBe(0);
    // A package charge's pricing, whole at 1280×800: no cell scrolls or clips it.
    await page.getByLabel('Charge name').fill('Packs');
    await page.getByLabel('Charge model').selectOption('package');
    await page.getByLabel('Package size (units)').fill('10');
    await page.getByLabel('Package price (KWD)').fill('20');
    await page.getByRole('button', { name: 'Add charge' }).click();
    const packs = page.getByRole('row').filter({ has: page.getByRole('cell', { name: 'Packs', exact: true }) }).locator('dl.pricing');
    expect((await packs.innerText()).replace(/\s+/g, ' ')).toBe('Package size 10 Package price 20.000 KWD');
    expect(await page.getByRole('table', { name: 'Charges' }).evaluate((t) => [...t.querySelectorAll('td, .table-wrap')].every((e) => e.scrollWidth <= e.clientWidth) && t.parentElement!.scrollWidth <= t.parentElement!.clientWidth)).toBe(true);
    // A 0-decimal currency: a minimum commitment with decimals is refused, a whole one kept.
    await page.getByLabel('Rate plan name').fill('Yen');
    await page.getByLabel('Currency').fill('JPY');
    await page.getByLabel('Minimum commitment (optional)').fill('1000.5');
    await page.getByRole('button', { name: 'Add rate plan' }).click();
    await poll(() => page.getByRole('alert').first().textContent()).toMatch(/minimum_commitment.*JPY.*request id/s);
    await page.getByLabel('Minimum commitment (optional)').fill('1000');
    await page.getByRole('button', { name: 'Add rate plan' }).click();
    await page.getByRole('cell', { name: '1000', exact: true }).waitFor();
    const plans = await call(stack, 'GET', '/v1/pricing/rate-plans', { key: admin });
    planId = plans.body.rate_plans.find((p: { name: string }) => p.name === 'Standard').id;
  });

  it('creates a customer and subscribes them', async () => {
    await nav('Customers');
    await page.getByLabel('Account name').fill('Acme');
    await page.getByLabel('Account description').fill(`${XSS_SCRIPT} ${XSS_URL}`);
    await page.getByRole('button', { name: 'Add account' }).click();
    await page.getByRole('cell', { name: 'Acme', exact: true }).waitFor();
    // The new account opens: a credit grant whose metadata holds a script, shown as text.
    await page.getByRole('heading', { name: 'Account: Acme' }).waitFor();
    await page.getByLabel('Grant amount').fill('100');
    await page.getByLabel('Grant note (metadata)').fill(XSS_SCRIPT);
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await page.getByRole('cell', { name: JSON.stringify({ note: XSS_SCRIPT }), exact: true }).waitFor();
    await page.getByRole('cell', { name: '100.00 USD', exact: true }).first().waitFor();
    // An agent of this customer, whose events the subscription bills.
    // The subscribe form's account picker holds the new account.
    const accountId = await page.getByLabel('Account', { exact: true }).inputValue();
    expect(accountId).toMatch(/\S/);
    await nav('Agents');
    await page.getByLabel('Agent name').fill('acme-worker');
    // Pickers, not ids: the customer chosen by name (its option's label).
    await page.getByLabel('Customer account (optional)').selectOption({ label: 'Acme' });
    await page.getByRole('button', { name: 'Add agent', exact: true }).click();
    agentSecret = (await page.getByTestId('shown-once').textContent())!;
    const agents = await call(stack, 'GET', '/api/v1/agent_instance/all?limit=100', { key: admin });
    const worker = agents.body.agent_instances.find((a: { name: string }) => a.name === 'acme-worker');
    expect(worker.account_id).toBe(accountId);
    // The agents table names the customer (the id on a second line).
    await page.getByRole('region', { name: 'Agent instances' }).getByRole('cell', { name: `Acme ${accountId}`, exact: true }).waitFor();
    await nav('Customers');
    // Account, rate plan and agents from pickers fed by the lists: the agent picker offers the account's agents only.
    await page.getByLabel('Account', { exact: true }).selectOption({ label: 'Acme' });
    const planLabel = (await page.getByLabel('Rate plan', { exact: true }).locator(`option[value="${planId}"]`).textContent())!;
    expect(planLabel).toMatch(/\((USD|[A-Z]{3}), monthly\)$/);
    await page.getByLabel('Rate plan', { exact: true }).selectOption(planId);
    const agentPicker = page.getByLabel(/^Agents of that account/);
    await poll(() => agentPicker.locator('option').allTextContents()).toEqual(['acme-worker']);
    await agentPicker.selectOption({ label: 'acme-worker' });
    // The picker is reached and chosen with the keyboard too.
    await page.getByLabel('Rate plan', { exact: true }).focus();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.getAttribute("name")')).toMatch(/^Agents of that account/);
    await page.getByRole('button', { name: /Subscribe/ }).click();
    const status = page.getByTestId('sub-status').first();
    await poll(() => status.textContent()).toBe('active');
    // An effective date before the activation is refused by the API: its message and request id shown.
    await page.getByLabel('Effective date (empty: now)').fill('2020-01-01');
    await page.getByRole('button', { name: /^Pause subscription/ }).click();
    await poll(() => page.getByRole('alert').first().textContent()).toMatch(/400 validation_failed.*effective_date.*request id: \S+/s);
    await page.getByLabel('Effective date (empty: now)').fill('');
    await page.getByRole('button', { name: /^Pause subscription/ }).click();
    await poll(() => status.textContent()).toBe('paused');
    await page.getByRole('button', { name: /^Resume subscription/ }).click();
    await poll(() => status.textContent()).toBe('active');
    await page.getByRole('button', { name: /^History of subscription/ }).first().click();
    const history = page.getByRole('table', { name: 'Subscription events' });
    // The pause (to paused) and the resume (from paused) are there.
    await poll(() => history.getByRole('cell', { name: 'paused', exact: true }).count()).toBeGreaterThanOrEqual(2);
    // Since: the activation day. A pause on a later date: scheduled (still active now), shown in its column and said so.
    await page.getByRole('cell', { name: new Date().toISOString().slice(0, 10), exact: true }).first().waitFor();
    const later = `${new Date().getUTCFullYear() + 1}-06-01`;
    await page.getByLabel('Effective date (empty: now)').fill(later);
    await page.getByRole('button', { name: /^Pause subscription/ }).click();
    await poll(() => page.getByTestId('sub-moved').textContent()).toMatch(new RegExp(`Scheduled: pause on ${later}\\.$`));
    await poll(() => page.getByTestId('sub-scheduled').first().textContent()).toBe(`pause on ${later}`);
    expect(await status.textContent()).toBe('active');
    // The moves' buttons in words; a cancel scheduled before the pause: both shown (the pause said not to apply), as the API records both.
    expect(await page.getByRole('button', { name: /^Change plan subscription/ }).first().textContent()).toBe('Change plan');
    const sooner = `${new Date().getUTCFullYear() + 1}-05-01`;
    await page.getByLabel('Effective date (empty: now)').fill(sooner);
    await page.getByRole('button', { name: /^Cancel subscription/ }).click();
    await poll(() => page.getByTestId('sub-moved').textContent()).toMatch(new RegExp(`Scheduled: cancel on ${sooner}\\.$`));
    await poll(() => page.getByTestId('sub-scheduled').first().textContent()).toBe(`cancel on ${sooner}; pause on ${later} (recorded; does not apply: cancelled before)`);
    await page.getByLabel('Effective date (empty: now)').fill('');
    // With the account open, its subscriptions only (the list's account_id filter): another account's is left out.
    const otherAcct = (await call(stack, 'POST', '/api/v1/account/create', { key: admin, body: { name: 'Other' } })).body.id;
    // A draft (it bills nothing, so the later invoice and report checks are unchanged).
    const otherSub = await call(stack, 'POST', '/api/v1/subscription/create', { key: admin, body: { account_id: otherAcct, rate_plan_id: planId } });
    expect(otherSub.status, JSON.stringify(otherSub.body)).toBe(201);
    await page.getByRole('button', { name: 'Open account Acme', exact: true }).click();
    const ofAcme = page.getByRole('table', { name: `Subscriptions of account ${accountId}` });
    await ofAcme.waitFor();
    // Subscriptions name their account and rate plan (ids on a second line).
    await poll(() => ofAcme.getByRole('cell', { name: `Acme ${accountId}`, exact: true }).count()).toBeGreaterThanOrEqual(1);
    expect(await ofAcme.getByRole('cell', { name: new RegExp(otherAcct) }).count()).toBe(0);
    await ofAcme.getByRole('cell', { name: `Standard ${planId}`, exact: true }).first().waitFor();
  });

  it("charts the account's credit balance over time; adjusts with a reason (a refund of free credit refused); adds and disables a top-up", async () => {
    await page.getByRole('button', { name: 'Open account Acme' }).click();
    const account = page.getByRole('region', { name: 'Account: Acme' });
    const chart = account.getByRole('figure', { name: 'Credit balance over time (ledger)' });
    await poll(() => chart.getAttribute('data-points')).toBe('1');
    const usd = account.getByTestId('ledger-balance-USD');
    await poll(() => usd.textContent()).toBe('100.00');
    const grants = (await call(stack, 'GET', '/api/v1/credit/grants?limit=100', { key: admin })).body.grants as { id: string; kind: string; account_id: string }[];
    const accountId = grants[0]!.account_id;
    const free = grants[0]!;
    // A manual adjustment (−10.00) whose reason holds a script: shown as text in the ledger; a second point.
    await page.getByLabel('Adjustment or refund').selectOption('adjustment');
    await page.getByLabel('Grant id').fill(free.id);
    await page.getByLabel('Adjustment amount (signed)').fill('-10.00');
    await page.getByLabel('Reason', { exact: true }).fill(XSS_SCRIPT);
    await page.getByRole('button', { name: 'Adjust', exact: true }).click();
    await poll(() => usd.textContent()).toBe('90.00');
    await poll(() => chart.getAttribute('data-points')).toBe('2');
    await page.getByRole('table', { name: 'Credit ledger' }).getByRole('cell', { name: XSS_SCRIPT, exact: true }).waitFor();
    await page.getByLabel('Adjustment amount (signed)').fill('5.25');
    await page.getByLabel('Reason', { exact: true }).fill('goodwill');
    await page.getByRole('button', { name: 'Adjust', exact: true }).click();
    await poll(() => usd.textContent()).toBe('95.25');
    await poll(() => chart.getAttribute('data-points')).toBe('3');
    // A refund pays back paid credit only: of this free grant, the API's 409 with its request id.
    await page.getByLabel('Adjustment or refund').selectOption('refund');
    await page.getByLabel('Refund amount').fill('15');
    await page.getByLabel('Reason', { exact: true }).fill('refund');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await poll(() => account.getByRole('alert').first().textContent()).toMatch(/409.*request id: \S+/s);
    const ledger = (await call(stack, 'GET', `/api/v1/credit/entries?account_id=${accountId}`, { key: admin })).body.entries as { type: string; amount: string; reason: string | null }[];
    expect(ledger.map((e) => [e.type, e.amount, e.reason])).toEqual([
      ['grant', '100.00', null],
      ['adjustment', '-10.00', XSS_SCRIPT],
      ['adjustment', '5.25', 'goodwill'],
    ]);
    await chart.scrollIntoViewIfNeeded();
    await shot(page, 'credits');
    // A threshold top-up (the balance is above its line: nothing granted), then disabled.
    await page.getByLabel('Top-up type').selectOption('threshold');
    await page.getByLabel('Threshold (available below)').fill('5');
    await page.getByLabel('Top-up amount').fill('20');
    await page.getByRole('button', { name: 'Add top-up' }).click();
    const topup = account.getByTestId('topup-status').first();
    await poll(() => topup.textContent()).toBe('active');
    const rules = (await call(stack, 'GET', `/api/v1/credit/topups?account_id=${accountId}`, { key: admin })).body.topups;
    expect(rules.map((t: { type: string; threshold: string; amount: string }) => [t.type, t.threshold, t.amount])).toEqual([['threshold', '5.00', '20.00']]);
    await account.getByRole('button', { name: /^Disable threshold top-up/ }).click();
    await poll(() => topup.textContent()).toBe('disabled');
  });

  it("shows an account's and an agent's limits with their state; creates, raises and deletes them", async () => {
    const account = page.getByRole('region', { name: 'Account: Acme' });
    const limits = account.getByRole('region', { name: 'Limits', exact: true });
    await page.getByLabel('Limit metric').selectOption('spend');
    await page.getByLabel('Limit value').fill('500');
    await page.getByLabel('Limit description').fill(XSS_NAME);
    await page.getByRole('button', { name: 'Add limit' }).click();
    await limits.getByRole('cell', { name: XSS_NAME, exact: true }).waitFor();
    await poll(() => limits.getByTestId('limit-value').first().textContent()).toBe('500.00');
    await poll(() => limits.getByTestId('limit-state').first().textContent()).toMatch(/not evaluated yet|ok: .* used, .* left/);
    const [limit] = (await call(stack, 'GET', '/api/v1/limit/all', { key: admin })).body.limits;
    expect([limit.scope, limit.metric, limit.currency, limit.value, limit.action]).toEqual(['account', 'spend', 'USD', '500.00', 'notify']);
    // Raised.
    await page.getByLabel(`New value of limit ${limit.id}`).fill('800');
    await page.getByRole('button', { name: `Save the value of limit ${limit.id}` }).click();
    await poll(() => limits.getByTestId('limit-value').first().textContent()).toBe('800.00');
    // An agent's own limit: the agent's list shows it alone.
    const agents = await call(stack, 'GET', '/api/v1/agent_instance/all?limit=100', { key: admin });
    const worker = agents.body.agent_instances.find((a: { name: string }) => a.name === 'acme-worker');
    await page.getByLabel('Limits of', { exact: true }).selectOption({ label: 'acme-worker' });
    await limits.getByRole('table', { name: 'Limits of the agent' }).waitFor();
    await page.getByLabel('Limit metric').selectOption('quantity');
    await page.getByLabel('Limit unit').selectOption('@action');
    await page.getByLabel('Limit window').selectOption('day');
    await page.getByLabel('Limit value').fill('1000');
    await page.getByLabel('Limit description').fill('agent cap');
    await page.getByRole('button', { name: 'Add limit' }).click();
    await limits.getByRole('cell', { name: 'agent cap', exact: true }).waitFor();
    expect(await limits.getByRole('cell', { name: XSS_NAME, exact: true }).count()).toBe(0);
    await limits.scrollIntoViewIfNeeded();
    await shot(page, 'limits');
    const agentLimit = (await call(stack, 'GET', `/api/v1/limit/all?agent_instance_id=${worker.id}`, { key: admin })).body.limits[0];
    expect([agentLimit.scope, agentLimit.unit, agentLimit.window, agentLimit.value]).toEqual(['agent_instance', '@action', 'day', '1000']);
    await page.getByRole('button', { name: `Delete limit ${agentLimit.id}` }).click();
    await poll(async () => (await call(stack, 'GET', `/api/v1/limit/all?agent_instance_id=${worker.id}`, { key: admin })).body.total).toBe(0);
    // Back to the account's: deleted too.
    await page.getByLabel('Limits of', { exact: true }).selectOption('');
    await page.getByRole('button', { name: `Delete limit ${limit.id}` }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/limit/all', { key: admin })).body.total).toBe(0);
  });

  it('pages through a long list without loading it all', async () => {
    for (let i = 0; i < 25; i++) expect((await call(stack, 'POST', '/api/v1/account/create', { key: admin, body: { name: `Bulk ${String(i).padStart(2, '0')}` } })).status).toBe(201);
    await nav('Overview');
    const pages: string[] = [];
    page.on('request', (r) => r.url().includes('/api/v1/account/all') && pages.push(new URL(r.url()).search));
    await nav('Customers');
    const accounts = page.getByRole('navigation', { name: 'Accounts pages' });
    // The 25 added and those earlier tests made (between 21 and 40: two pages).
    const total = (await call(stack, 'GET', '/api/v1/account/all?limit=1', { key: admin })).body.total as number;
    expect(total).toBeGreaterThan(25);
    expect(total).toBeLessThanOrEqual(40);
    await poll(() => accounts.textContent()).toMatch(new RegExp(`1–20 of ${total}`));
    await accounts.getByRole('button', { name: 'Next' }).click();
    await poll(() => accounts.textContent()).toMatch(new RegExp(`21–${total} of ${total}`));
    // One page per request, 20 at a time: never the whole list (other screens' pickers may ask a page of their own, never more than 100).
    await poll(() => pages).toEqual(expect.arrayContaining(['?skip=0&limit=20', '?skip=20&limit=20']));
    for (const p of pages) expect(Number(new URLSearchParams(p).get('limit')), JSON.stringify(pages)).toBeLessThanOrEqual(100);
  });

  it('shows a read-only key no edit controls, and switches environments', async () => {
    const ro = await call(stack, 'POST', '/api/v1/api_keys', { key: admin, body: { name: 'viewer', permission: 'read-only' } });
    // Adding an environment can be left: Cancel, or Escape, returns to the current one.
    await page.getByRole('button', { name: 'Add environment' }).click();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    await page.getByRole('button', { name: 'Add environment' }).click();
    await page.getByLabel('API key').press('Escape');
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    await page.getByRole('button', { name: 'Add environment' }).click();
    await page.getByLabel('API key').fill(ro.body.key);
    await page.getByLabel('Environment name (optional)').fill('viewer');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await nav('Catalog');
    await page.getByRole('button', { name: XSS_NAME, exact: true }).waitFor();
    expect(await page.getByRole('button', { name: 'Add product' }).count()).toBe(0);
    expect(await page.getByLabel('Environment').inputValue()).toBe('1');
    await poll(() => page.getByLabel('Environment').locator('option:checked').textContent()).toBe('viewer (read-only)');
    // Only admin keys see the API keys and SQL screens: not in the navigation, and their address opens the overview.
    const screens = page.getByRole('navigation', { name: 'Screens' });
    expect(await screens.getByRole('link', { name: 'Settings: API keys', exact: true }).count()).toBe(0);
    expect(await screens.getByRole('link', { name: 'SQL', exact: true }).count()).toBe(0);
    await page.evaluate("location.hash = '#/sql'");
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await poll(() => page.getByLabel('Environment').locator('option:checked').textContent()).toBe('development (admin)');
    await nav('Catalog');
    await page.getByRole('button', { name: 'Add product' }).waitFor();
  });

  it('shows events sent with the TypeScript SDK on the overview within seconds', async () => {
    await nav('Overview');
    const actions = page.getByTestId('actions');
    await poll(() => actions.textContent()).toMatch(/^\d+$/);
    const before = Number(await actions.textContent());
    const sdk = new Tally({ baseUrl: stack.baseUrl, apiKey: stack.keys.development.sdk, agentKey: agentSecret, flushIntervalMs: 100 });
    for (let i = 0; i < 7; i++) sdk.sendAction({ action_type: 'screen_candidate' });
    await sdk.close();
    expect(sdk.stats.delivered).toBe(7);
    await poll(() => actions.textContent(), { timeout: 15_000 }).toBe(String(before + 7));
    expect(Number(await page.locator('figure.chart').first().getAttribute('data-points'))).toBeGreaterThan(1);
    await shot(page, 'overview');
  });

  it('generates and finalizes an invoice and opens its HTML', async () => {
    await nav('Invoices');
    await page.getByRole('button', { name: 'Generate invoices' }).click();
    const status = page.getByTestId('invoice-status').first();
    await poll(() => status.textContent()).toBe('draft');
    await page.getByRole('button', { name: /^Finalize invoice/ }).first().click();
    await poll(() => status.textContent()).toBe('finalized');
    await page.getByRole('button', { name: /^Open the HTML of invoice/ }).first().click();
    const frame = page.frameLocator('iframe[title="Invoice HTML"]');
    await poll(() => frame.locator('body').textContent(), { timeout: 10_000 }).toMatch(/Invoice INV-\d+[\s\S]*Status: finalized/);
    // The 7 actions sent above, on the first tier at 0.02.
    expect(await frame.locator('body').textContent()).toMatch(/Total\s*0\.14 USD/);
    await shot(page, 'invoice');
    // Filtered by billing period: this month's invoice, none from next month on.
    const now = new Date();
    const thisMonth = now.toISOString().slice(0, 7);
    const nextMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString().slice(0, 7);
    const invoicePages = page.getByRole('navigation', { name: 'Invoices pages' });
    await page.getByLabel('From billing period').fill(nextMonth);
    await poll(() => invoicePages.textContent()).toMatch(/^Previous\s*0 of 0/);
    await page.getByLabel('From billing period').fill(thisMonth);
    await page.getByLabel('Through billing period').fill(thisMonth);
    await poll(() => invoicePages.textContent()).toMatch(/1–1 of 1/);
    await page.getByLabel('From billing period').fill('');
    await page.getByLabel('Through billing period').fill('');
    // A bill run today: its outcome listed.
    await page.getByRole('button', { name: 'Run billing' }).click();
    await poll(() => page.getByRole('navigation', { name: 'Bill runs pages' }).textContent()).toMatch(/1–1 of 1/);
    // Record payment with a reference and an amount: one that is not the amount due is refused (the field is sent), then paid without it.
    await page.getByRole('button', { name: /^Record payment of invoice/ }).first().click();
    await page.getByLabel('Payment reference').fill('wire-42');
    await page.getByLabel(/^Amount \(optional/).fill('999');
    await page.getByRole('button', { name: 'Save payment' }).click();
    await poll(() => page.getByRole('alert').first().textContent()).toMatch(/amount.*request id: \S+/s);
    await page.getByLabel(/^Amount \(optional/).fill('');
    await page.getByRole('button', { name: 'Save payment' }).click();
    await poll(() => status.textContent()).toBe('paid');
    await poll(() => page.getByTestId('invoice-paid').first().textContent()).toBe(`${now.toISOString().slice(0, 10)} (wire-42)`);
    const paid = (await call(stack, 'GET', '/api/v1/invoice/invoices?status=paid', { key: admin })).body.invoices;
    expect(paid.map((i: { payment_reference: string }) => i.payment_reference)).toEqual(['wire-42']);
    // Correct sends its reason (the request stopped here: the invoice stays as the reports below expect it).
    let correction: unknown;
    await page.route('**/correct', (r) => {
      correction = r.request().postDataJSON();
      return r.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ error: { code: 'conflict', message: 'stopped by the test' }, request_id: 'test' }) });
    });
    await page.getByRole('button', { name: /^Correct invoice/ }).first().click();
    await page.getByLabel('Correction reason').fill('wrong rate');
    await page.getByRole('button', { name: 'Save correction' }).click();
    await poll(() => correction).toEqual({ reason: 'wrong rate' });
    await page.unroute('**/correct');
    await page.getByRole('button', { name: 'Cancel correction' }).click();
  });

  it('rotates an API key, and the old key is refused', async () => {
    await nav('Settings: API keys');
    await page.getByLabel('Name', { exact: true }).fill('reporting');
    await page.getByRole('button', { name: 'Create key' }).click();
    const oldKey = (await page.getByTestId('shown-once').textContent())!;
    expect((await call(stack, 'GET', '/api/v1/account/all', { key: oldKey })).status).toBe(200);
    await page.getByRole('button', { name: 'Rotate reporting and revoke the old key now' }).click();
    await poll(() => page.getByTestId('shown-once').textContent()).not.toBe(oldKey);
    const newKey = (await page.getByTestId('shown-once').textContent())!;
    await waitFor(() => call(stack, 'GET', '/api/v1/account/all', { key: oldKey }).then((r) => r.status), (s) => s === 401);
    // The key revoked at once reads "revoked" as its expiry; times are the console's UTC format, never raw ISO.
    const keys = page.getByRole('table', { name: 'API keys' });
    await poll(() => keys.getByRole('cell', { name: 'revoked', exact: true }).count()).toBeGreaterThanOrEqual(2);
    expect(await keys.textContent()).not.toMatch(/\d{4}-\d\d-\d\dT/);
    expect((await call(stack, 'GET', '/api/v1/account/all', { key: newKey })).status).toBe(200);
  });

  it('runs an SQL query and exports CSV', async () => {
    await nav('SQL');
    await page.getByRole('button', { name: 'Actions by type (each event once)' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await page.getByRole('cell', { name: 'screen_candidate', exact: true }).waitFor();
    await page.getByRole('heading', { name: /^Result: (1 row|(0|[2-9]|\d\d+) rows)$/ }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export CSV (whole result)' }).click()]);
    const csv = await readFile((await download.path())!, 'utf8');
    expect(csv.split('\n')[0]!.trim()).toBe('"action_type","actions"');
    expect(csv).toContain('"screen_candidate",7');
    await shot(page, 'sql');
  });

  it("shows an agent's usage over time and this month", async () => {
    await nav('Agents');
    const month = page.getByRole('region', { name: 'Usage per agent this month' });
    await month.getByRole('cell', { name: '7', exact: true }).first().waitFor();
    // The CSV names each agent (`name (id)`, once the names loaded), never an empty Agent column.
    const agents = (await call(stack, 'GET', '/api/v1/agent_instance/all?limit=100', { key: admin })).body.agent_instances as { id: string; name: string }[];
    await poll(() => exportCsv(month)).toMatch(new RegExp(`^(${agents.map((a) => `"?${a.name.replace(/[^\w]/g, '\\$&')} \\(${a.id}\\)"?`).join('|')}),7,`, 'm'));
    const chart = page.getByRole('figure', { name: 'Actions per day per agent' });
    expect(await chart.getAttribute('data-points')).toBe('30');
    // One line (the busy agent) in the legend.
    await poll(() => chart.locator('.u-series').count()).toBe(2);
  });

  it('tags and untags an action', async () => {
    await nav('Costs & rules');
    await page.getByLabel('Action to tag').fill('screen_candidate');
    await page.getByLabel('Action tag description').fill(XSS_URL);
    await page.getByRole('button', { name: 'Tag action' }).click();
    await page.getByRole('region', { name: 'Tagged actions' }).getByRole('cell', { name: XSS_URL, exact: true }).waitFor();
    const tags = await call(stack, 'GET', '/api/v1/tagged_actions', { key: admin });
    expect(tags.body.tagged_actions.map((t: { action_name: string }) => t.action_name)).toEqual(['screen_candidate']);
    await page.getByRole('button', { name: 'Untag screen_candidate' }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/tagged_actions', { key: admin })).body.total).toBe(0);
  });

  it('adds and deletes a cost rule', async () => {
    await nav('Costs & rules');
    await page.getByLabel('Cost rule name').fill('Screening model');
    await page.getByLabel('Basis').selectOption('per_action');
    await page.getByLabel('Rate').fill('0.005');
    await page.getByLabel('Only for action type (optional)').fill('screen_candidate');
    await page.getByRole('button', { name: 'Add cost rule' }).click();
    const rules = page.getByRole('region', { name: 'Cost rules' });
    await rules.getByRole('cell', { name: 'Screening model', exact: true }).waitFor();
    const stored = await call(stack, 'GET', '/v1/cost_rules', { key: admin });
    expect(stored.body.cost_rules.map((r: { name: string; rate: string; action_type: string }) => [r.name, r.rate, r.action_type])).toEqual([['Screening model', '0.005', 'screen_candidate']]);
    await page.getByRole('button', { name: 'Delete cost rule Screening model' }).click();
    await poll(async () => (await call(stack, 'GET', '/v1/cost_rules', { key: admin })).body.cost_rules.length).toBe(0);
  });

  it('sends a webhook test event and shows its delivery; a failed one is on the overview', async () => {
    const received: string[] = [];
    const receiver = createServer((req, res) => {
      received.push(req.url ?? '');
      res.writeHead(500).end('no');
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      await nav('Webhooks');
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      await page.getByLabel('URL').fill(url);
      await page.getByLabel('Webhook description').fill(XSS_SCRIPT);
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      expect(await page.getByTestId('shown-once').textContent()).toMatch(/^whsec_/);
      // The form is cleared once the endpoint is added (a second click would add it again).
      await poll(() => page.getByLabel('URL').inputValue()).toBe('');
      expect(await page.getByLabel('Webhook description').inputValue()).toBe('');
      await page.getByRole('button', { name: url, exact: true }).click();
      await page.getByRole('button', { name: 'Send a test event' }).click();
      await page.getByRole('cell', { name: 'invoice.created', exact: true }).waitFor();
      // The send's outcome is said (the receiver answers 500), and the delivery shows when it was tried.
      const outcome = page.getByTestId('delivery-outcome');
      await poll(() => outcome.textContent()).toMatch(/^Test event: attempt 1: (pending|failed) \(HTTP 500\)/);
      expect(await outcome.getAttribute('role')).toBe('status');
      const today = new Date().toISOString().slice(0, 10);
      await poll(() => page.getByTestId('delivery-time').first().textContent()).toMatch(new RegExp(`^${today} \\d{2}:\\d{2}:\\d{2} UTC$`));
      // Delivered to the receiver (which refuses it, so the dispatcher may try again).
      await poll(() => received.length).toBeGreaterThanOrEqual(1);
      expect([...new Set(received)]).toEqual(['/hook']);
      // Resend: tried again at once, its outcome said with the attempt and the status.
      const before = received.length;
      await page.getByRole('button', { name: /^Resend delivery / }).first().click();
      await poll(() => outcome.textContent()).toMatch(/^Resent invoice\.created: attempt \d+: (pending|failed) \(HTTP 500\)/);
      expect(received.length).toBeGreaterThan(before);
      await nav('Overview');
      await page.getByRole('region', { name: 'Failed webhook deliveries' }).getByRole('cell', { name: 'invoice.created' }).waitFor();
    } finally {
      receiver.close();
    }
  });

  it('edits and deletes an account and its contact, a product, an agent type and an agent', async () => {
    await nav('Customers');
    await page.getByRole('button', { name: 'Open account Bulk 00' }).click();
    await page.getByLabel('Rename account to').fill('Bulk renamed');
    await page.getByLabel('Notes (description)').fill(XSS_SCRIPT);
    await page.getByRole('button', { name: 'Save account' }).click();
    await page.getByRole('heading', { name: 'Account: Bulk renamed' }).waitFor();
    await page.getByRole('region', { name: 'Accounts' }).getByRole('cell', { name: 'Bulk renamed', exact: true }).waitFor();
    const accountId = (await call(stack, 'GET', '/api/v1/account/all?limit=100', { key: admin })).body.accounts.find((a: { name: string }) => a.name === 'Bulk renamed').id;
    expect((await call(stack, 'GET', `/api/v1/account/${accountId}`, { key: admin })).body.description).toBe(XSS_SCRIPT);
    // A contact added, its email changed, then deleted.
    await page.getByLabel('First name', { exact: true }).fill('Ann');
    await page.getByLabel('Last name', { exact: true }).fill('Lee');
    await page.getByLabel('Contact email').fill('ann@example.test');
    await page.getByRole('button', { name: 'Add contact' }).click();
    await page.getByLabel('Email of Ann Lee').fill('ann.lee@example.test');
    await page.getByRole('form', { name: 'Edit contact Ann Lee' }).getByRole('button', { name: 'Save' }).click();
    await poll(async () => (await call(stack, 'GET', `/api/v1/contact/all?account_id=${accountId}`, { key: admin })).body.contacts.map((c: { email: string }) => c.email)).toEqual(['ann.lee@example.test']);
    await page.getByRole('button', { name: 'Delete contact Ann Lee' }).click();
    await poll(async () => (await call(stack, 'GET', `/api/v1/contact/all?account_id=${accountId}`, { key: admin })).body.total).toBe(0);
    // The account deleted: gone from the list and the API.
    await page.getByRole('button', { name: 'Delete account' }).click();
    await poll(async () => (await call(stack, 'GET', `/api/v1/account/${accountId}`, { key: admin })).status).toBe(404);
    await poll(() => page.getByRole('heading', { name: 'Account: Bulk renamed' }).count()).toBe(0);

    // A product renamed, then deleted (it has no rate plans).
    await nav('Catalog');
    await page.getByLabel('Product name').fill('Temporary');
    await page.getByRole('button', { name: 'Add product' }).click();
    await page.getByLabel('Rename product to').fill('Temporary 2');
    await page.getByRole('button', { name: 'Save product' }).click();
    await page.getByRole('heading', { name: 'Product: Temporary 2' }).waitFor();
    await page.getByRole('region', { name: 'Products' }).getByRole('button', { name: 'Temporary 2', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete product' }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/products?limit=100', { key: admin })).body.products.map((p: { name: string }) => p.name)).not.toContain('Temporary 2');

    // An agent type and an agent renamed, the agent deactivated, both deleted.
    await nav('Agents');
    await page.getByLabel('Agent type name').fill('Scratch');
    await page.getByRole('button', { name: 'Add agent type' }).click();
    await page.getByLabel('Rename agent type Scratch to').fill('Scratch 2');
    await page.getByRole('form', { name: 'Edit agent type Scratch' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'Scratch 2', exact: true }).waitFor();
    await page.getByLabel('Agent name').fill('scratch-agent');
    await page.getByRole('button', { name: 'Add agent', exact: true }).click();
    await page.getByLabel('Rename agent scratch-agent to').fill('scratch-agent-2');
    await page.getByLabel('scratch-agent is active').uncheck();
    await page.getByRole('form', { name: 'Edit agent scratch-agent' }).getByRole('button', { name: 'Save' }).click();
    await page.getByRole('cell', { name: 'scratch-agent-2', exact: true }).waitFor();
    const agent = (await call(stack, 'GET', '/api/v1/agent_instance/all?limit=100', { key: admin })).body.agent_instances.find((a: { name: string }) => a.name === 'scratch-agent-2');
    expect(agent.is_active).toBe(false);
    await page.getByRole('button', { name: 'Delete agent scratch-agent-2' }).click();
    await poll(async () => (await call(stack, 'GET', `/api/v1/agent_instance/${agent.id}`, { key: admin })).status).toBe(404);
    // The type is in use by no one now (the agent was of the first type), so it goes.
    await page.getByRole('button', { name: 'Delete agent type Scratch 2' }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/agent_type/all?limit=100', { key: admin })).body.agent_types.map((t: { name: string }) => t.name)).not.toContain('Scratch 2');
  });

  it("edits an API key's rate limit, a cost rule's rates, outcome rules and tagged outcomes", async () => {
    await call(stack, 'POST', '/api/v1/api_keys', { key: admin, body: { name: 'limited', permission: 'read-only' } });
    await nav('Settings: API keys');
    await page.getByLabel('Rate limit per minute of limited').fill('120');
    await page.getByRole('button', { name: 'Save the rate limit of limited' }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/api_keys?limit=100', { key: admin })).body.api_keys.find((k: { name: string }) => k.name === 'limited').rate_limit_per_minute).toBe(120);

    const rule = await call(stack, 'POST', '/v1/cost_rules', { key: admin, body: { name: 'LLM tokens', category: 'llm', basis: 'per_input_token', rate: '0.000001', currency: 'USD' } });
    expect(rule.status).toBe(201);
    await nav('Costs & rules');
    await page.getByRole('button', { name: 'Edit cost rule LLM tokens' }).click();
    await page.getByLabel('Rate of LLM tokens').fill('0.000002');
    await page.getByLabel('Per-model rates of LLM tokens').fill('gpt-4o=0.0000025\nclaude=0.000003');
    await page.getByRole('form', { name: 'Edit cost rule LLM tokens' }).getByRole('button', { name: 'Save' }).click();
    await poll(async () => (await call(stack, 'GET', `/v1/cost_rules/${rule.body.id}`, { key: admin })).body.rate).toBe('0.000002');
    expect((await call(stack, 'GET', `/v1/cost_rules/${rule.body.id}`, { key: admin })).body.model_rates).toEqual({ 'gpt-4o': '0.0000025', claude: '0.000003' });
    await page.getByRole('region', { name: 'Cost rules' }).getByRole('cell', { name: 'gpt-4o=0.0000025, claude=0.000003', exact: true }).waitFor();

    // An outcome rule added, its value changed, ended.
    await page.getByLabel('Outcome rule name').fill('Hires');
    await page.getByLabel('When action type').fill('close_deal');
    await page.getByLabel('Metadata match (key=value a line)').fill('stage=won\nvip=true');
    await page.getByLabel('Outcome type', { exact: true }).fill('deal_won');
    await page.getByRole('button', { name: 'Add outcome rule' }).click();
    const outcomes = page.getByRole('region', { name: 'Outcome rules' });
    await outcomes.getByRole('cell', { name: 'deal_won', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Edit outcome rule Hires' }).click();
    await page.getByLabel('Outcome value').fill('2.5');
    await page.getByRole('button', { name: 'Save outcome rule' }).click();
    await outcomes.getByRole('cell', { name: '2.5', exact: true }).waitFor();
    const stored = (await call(stack, 'GET', '/api/v1/outcome_rules', { key: admin })).body.outcome_rules;
    expect(stored.map((r: { name: string; value: string; metadata_match: unknown }) => [r.name, r.value, r.metadata_match])).toEqual([['Hires', '2.5', { stage: 'won', vip: true }]]);
    await page.getByRole('button', { name: 'End outcome rule Hires' }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/outcome_rules', { key: admin })).body.total).toBe(0);

    // A tagged outcome: shown, then untagged.
    await page.getByLabel('Outcome to tag').fill('successful_hire');
    await page.getByLabel('Outcome tag description').fill(XSS_URL);
    await page.getByRole('button', { name: 'Tag outcome' }).click();
    await page.getByRole('region', { name: 'Tagged outcomes' }).getByRole('cell', { name: XSS_URL, exact: true }).waitFor();
    expect((await call(stack, 'GET', '/api/v1/tagged_outcomes', { key: admin })).body.tagged_outcomes.map((t: { outcome_name: string }) => t.outcome_name)).toEqual(['successful_hire']);
    await shot(page, 'rules');
    await page.getByRole('button', { name: 'Untag successful_hire' }).click();
    await poll(async () => (await call(stack, 'GET', '/api/v1/tagged_outcomes', { key: admin })).body.total).toBe(0);
  });

  it('chooses among more than 100 agent types a page at a time', async () => {
    for (let i = 0; i < 105; i++) expect((await call(stack, 'POST', '/api/v1/agent_type/create', { key: admin, body: { name: `Type ${String(i).padStart(3, '0')}` } })).status).toBe(201);
    const total = (await call(stack, 'GET', '/api/v1/agent_type/all?limit=1', { key: admin })).body.total as number;
    expect(total).toBeGreaterThan(100);
    const requests: string[] = [];
    const onRequest = (r: { url: () => string }) => void (r.url().includes('/api/v1/agent_type/all') && requests.push(new URL(r.url()).search));
    page.on('request', onRequest);
    await nav('Agents');
    const form = page.getByRole('region', { name: 'Agent instances' });
    await poll(() => form.getByRole('group', { name: 'Agent type pages' }).textContent()).toContain(`1–100 of ${total}`);
    await form.getByRole('button', { name: 'Next 100: Agent type' }).click();
    await poll(() => form.getByRole('group', { name: 'Agent type pages' }).textContent()).toContain(`101–${total} of ${total}`);
    const last = `Type 104`;
    await form.getByRole('combobox', { name: /^Agent type/ }).selectOption({ label: last });
    await page.getByLabel('Agent name').fill('late-type-agent');
    await page.getByRole('button', { name: 'Add agent', exact: true }).click();
    await page.getByTestId('shown-once').waitFor();
    page.off('request', onRequest);
    const types = (await call(stack, 'GET', `/api/v1/agent_type/all?skip=100&limit=100`, { key: admin })).body.agent_types;
    const agents = (await call(stack, 'GET', '/api/v1/agent_instance/all?limit=100', { key: admin })).body.agent_instances;
    expect(agents.find((a: { name: string }) => a.name === 'late-type-agent').agent_type_id).toBe(types.find((t: { name: string }) => t.name === last).id);
    // Never more than a page of 100 at once.
    for (const q of requests) expect(Number(new URLSearchParams(q).get('limit')), JSON.stringify(requests)).toBeLessThanOrEqual(100);
  });

  it('opens every screen without an error', async () => {
    for (const screen of ['Overview', 'Agents', 'Catalog', 'Customers', 'Invoices', 'Reports', 'Costs & rules', 'Webhooks', 'Settings: API keys', 'SQL']) {
      await nav(screen);
      // Every list and figure loaded, and no error shown.
      await page.waitForLoadState('networkidle');
      expect(await page.getByRole('alert').count(), screen).toBe(0);
      if (screen === 'Overview') {
        // The top customers and agents by margin name their subject (the P&L rows' customer_id, agent_id: the name, the id beneath).
        const accounts = (await call(stack, 'GET', '/api/v1/account/all?limit=100', { key: admin })).body.accounts as { id: string; name: string }[];
        const acme = accounts.find((a) => a.name === 'Acme')!;
        const subjects = (title: string) => page.getByRole('region', { name: title }).getByTestId('pnl-subject').allTextContents();
        await poll(() => subjects('Top customers by margin (this month)')).toContain('Acme');
        await page.getByRole('region', { name: 'Top customers by margin (this month)' }).getByRole('cell', { name: `Acme ${acme.id}`, exact: true }).waitFor();
        // The invoice's usage line carries no agent: its revenue is no agent's, shown as such.
        await poll(() => subjects('Top agents by margin (this month)')).toContain('(none)');
        for (const s of [...(await subjects('Top customers by margin (this month)')), ...(await subjects('Top agents by margin (this month)'))]) expect(s).not.toBe('');
      }
      if (screen === 'Reports') {
        // The finalized invoice's revenue, in the P&L totals.
        await page.getByRole('table', { name: 'Totals' }).getByRole('cell', { name: '0.14', exact: true }).first().waitFor();
        // Readable headers, not field names.
        const headers = () => page.getByRole('table', { name: 'Per period' }).getByRole('columnheader').allTextContents();
        await poll(headers).toEqual(expect.arrayContaining(['Period', 'Revenue', 'Cost', 'Margin', 'Margin %']));
        expect((await headers()).join(' ')).not.toMatch(/margin_percent|period_start|_/);
        // Itemized costs: a column per category, no JSON in any cell.
        await page.getByLabel('Costs', { exact: true }).selectOption('itemized');
        await poll(headers).toEqual(expect.arrayContaining(['Cost: LLM', 'Cost: API', 'Cost: infrastructure']));
        expect((await page.getByRole('table', { name: 'Totals' }).getByRole('cell').allTextContents()).join(' ')).not.toContain('{');
        // Grouped by customer: the customer's name with its id, in the P&L and the invoiced revenue.
        await page.getByLabel('Group by').selectOption('customer');
        const acmeId = ((await call(stack, 'GET', '/api/v1/account/all?limit=100', { key: admin })).body.accounts as { id: string; name: string }[]).find((a) => a.name === 'Acme')!.id;
        for (const table of ['Per period', 'Revenue']) await page.getByRole('table', { name: table, exact: true }).getByRole('cell', { name: `Acme ${acmeId}`, exact: true }).first().waitFor();
        // Their CSV names the customer too: `name (id)`, never an empty column.
        for (const table of ['Per period', 'Revenue']) {
          const csv = await exportCsv(table);
          expect(csv, table).toContain(`,Acme (${acmeId}),`);
          expect(csv, table).not.toMatch(/^\d{4}-\d{2},,/m);
        }
        await shot(page, 'reports');
        await page.getByLabel('Group by').selectOption('none');
        await page.getByLabel('Costs', { exact: true }).selectOption('blended');
      }
    }
  });

  it('renders names, descriptions and metadata as text: no script ran', async () => {
    await nav('Catalog');
    await page.getByRole('button', { name: XSS_NAME, exact: true }).waitFor();
    await page.getByRole('cell', { name: XSS_URL, exact: true }).waitFor();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(dialogs).toEqual([]);
    expect(pageErrors).toEqual([]);
  });

  it('labels every control and reaches them by keyboard', async () => {
    // The screens with the most controls: an open account (credits, top-ups, limits), the rules, the agents.
    for (const screen of ['Costs & rules', 'Agents', 'Customers']) {
      await nav(screen);
      await page.waitForLoadState('networkidle');
      if (screen === 'Customers') await page.getByRole('button', { name: 'Open account Acme' }).click();
      await page.getByRole('region', { name: screen === 'Customers' ? 'Limits' : screen === 'Agents' ? 'Agent instances' : 'Outcome rules' }).first().waitFor();
      const unlabelledHere = await page.evaluate(`[...document.querySelectorAll('input, select, textarea, button, a[href]')]
        .filter((e) => !((e.labels?.length ?? 0) > 0 || e.getAttribute('aria-label') || (e.textContent ?? '').trim()))
        .map((e) => e.outerHTML.slice(0, 80))`);
      expect(unlabelledHere, screen).toEqual([]);
    }
    await nav('Customers');
    // (Page scripts are strings: this file is type-checked without the DOM library.)
    const unlabelled = await page.evaluate(`[...document.querySelectorAll('input, select, textarea, button, a[href]')]
      .filter((e) => !((e.labels?.length ?? 0) > 0 || e.getAttribute('aria-label') || (e.textContent ?? '').trim()))
      .map((e) => e.outerHTML.slice(0, 80))`);
    expect(unlabelled).toEqual([]);
    // After a reload (the session survives it, in sessionStorage) the first Tab reaches the skip link.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'Customers' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    // The skip link moves focus to the screen's heading and stays on the screen.
    await page.keyboard.press('Enter');
    await poll(() => page.evaluate('[document.activeElement?.tagName, document.activeElement?.textContent, location.hash]')).toEqual(['H1', 'Customers', '#/customers']);
    // Tabbing reaches the screen's first form field.
    let reached = false;
    for (let i = 0; i < 60 && !reached; i++) {
      await page.keyboard.press('Tab');
      reached = await page.evaluate<boolean>("document.activeElement?.name === 'Account name'");
    }
    expect(reached).toBe(true);
    // A navigation link followed with the keyboard moves focus to the new screen's heading (not left on the link).
    await page.getByRole('navigation', { name: 'Screens' }).getByRole('link', { name: 'Invoices', exact: true }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Invoices' }).waitFor();
    await poll(() => page.evaluate('[document.activeElement?.tagName, document.activeElement?.textContent, document.activeElement?.getAttribute("tabindex")]')).toEqual(['H1', 'Invoices', '-1']);
  });

  it('is usable on a 390-px wide phone screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await nav('Overview');
    await poll(() => page.getByTestId('actions').textContent()).toMatch(/^\d+$/);
    // This month's revenue: the finalized invoice's 0.14.
    await page.getByRole('region', { name: 'Revenue, cost and margin: this month against the last' }).getByRole('cell', { name: '0.14', exact: true }).first().waitFor();
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot(page, 'phone');
    // The invoices list: every column of a row on screen at once (rows stacked as cards), nothing to scroll sideways.
    await nav('Invoices');
    const invoices = page.getByRole('table', { name: 'Invoices', exact: true });
    await invoices.getByTestId('invoice-status').first().waitFor();
    const row = invoices.locator('tbody tr').first();
    for (const label of ['Number', 'Account', 'Period', 'Status', 'Total', 'Paid']) {
      const box = (await row.locator(`td[data-label="${label}"]`).boundingBox())!;
      expect(box, label).not.toBeNull();
      expect(box.x, label).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width, label).toBeLessThanOrEqual(390);
      expect(await row.locator(`td[data-label="${label}"]`).evaluate((e) => (globalThis as unknown as { getComputedStyle: (e: unknown, p: string) => { content: string } }).getComputedStyle(e, '::before').content), label).toMatch(new RegExp(`^"${label}"`));
      // The header shown beside the value is not read as part of it: the cell is named by its value alone.
      if (label === 'Total') await row.getByRole('cell', { name: /^\S+ USD$/ }).waitFor();
    }
    expect(await invoices.evaluate((t) => { const wrap = (t as unknown as { parentElement: { scrollWidth: number; clientWidth: number } }).parentElement; return wrap.scrollWidth <= wrap.clientWidth; })).toBe(true);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await row.scrollIntoViewIfNeeded();
    await shot(page, 'phone-invoices');
  });
  // Last: a paid grant bills a purchase invoice, which the invoice and revenue checks above must not see.
  it('refunds paid credit with a reason: the balance chart goes down', async () => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await nav('Customers');
    await page.getByRole('button', { name: 'Open account Acme' }).click();
    const account = page.getByRole('region', { name: 'Account: Acme' });
    const usd = account.getByTestId('ledger-balance-USD');
    const chart = account.getByRole('figure', { name: 'Credit balance over time (ledger)' });
    // The ledger so far (the finalized invoice may have burned some of the credit): in cents, to add to.
    await poll(() => usd.textContent()).toMatch(/^\d+\.\d{2}$/);
    const cents = (t: string | null) => Math.round(Number(t) * 100);
    const before = cents(await usd.textContent());
    const points = Number(await chart.getAttribute('data-points'));
    const money = (c: number) => (c / 100).toFixed(2);
    await page.getByLabel('Grant kind').selectOption('paid');
    await page.getByLabel('Usable').selectOption('immediately');
    await page.getByLabel('Grant amount').fill('50');
    await page.getByRole('button', { name: 'Grant credits' }).click();
    await poll(() => usd.textContent()).toBe(money(before + 5000));
    const paid = (await call(stack, 'GET', '/api/v1/credit/grants?limit=100', { key: admin })).body.grants.find((g: { kind: string }) => g.kind === 'paid');
    // A purchase is refunded once its invoice is paid (usable at once or not).
    expect((await call(stack, 'POST', `/api/v1/invoice/invoices/${paid.invoice_id}/pay`, { key: admin, body: {} })).status).toBe(200);
    await page.getByLabel('Adjustment or refund').selectOption('refund');
    await page.getByLabel('Grant id').fill(paid.id);
    await page.getByLabel('Refund amount').fill('15');
    await page.getByLabel('Reason', { exact: true }).fill('unused credit');
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await poll(() => usd.textContent()).toBe(money(before + 5000 - 1500));
    await poll(() => chart.getAttribute('data-points')).toBe(String(points + 2));
    const refunds = (await call(stack, 'GET', `/api/v1/credit/entries?type=refund&grant_id=${paid.id}`, { key: admin })).body.entries;
    expect(refunds.map((e: { amount: string; reason: string }) => [e.amount, e.reason])).toEqual([['-15.00', 'unused credit']]);
  });
});
