/**
 * The Python SDK (sdk/python, `tally` package) against a real Tally stack: `python3` runs
 * a small agent script with PYTHONPATH=sdk/python; usage (GET /v1/usage) and the stored
 * rows then show each event counted once, with the exact outcome values. Also runs the
 * SDK's own unit tests (`python3 -m unittest`), so `npm test` covers them, and builds the
 * SDK's wheel offline (`pip wheel --no-deps --no-build-isolation`), installs it into a
 * fresh venv and sends from there, outside the repository.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionCounts, call, createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';
import { runProcess, type ProcessRun } from '../test/processes.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pythonRoot = path.join(repo, 'sdk/python');
let stack: TestStack;

/** Fails loudly (never skips) when the machine has no usable python3. */
function requirePython(): void {
  const r = spawnSync('python3', ['-c', 'import sys; assert sys.version_info >= (3, 9), sys.version'], { encoding: 'utf8' });
  if (r.error || r.status !== 0) {
    throw new Error(`the Python SDK tests need python3 (3.9 or newer) on PATH: ${r.error?.message ?? r.stderr.trim()}`);
  }
}

type Run = ProcessRun;
/** Which Python runs, where, and with what on PYTHONPATH (none: only what is installed). */
interface Interpreter {
  bin: string;
  cwd: string;
  pythonPath?: string;
}
/** python3 with the SDK's source on PYTHONPATH. */
const FROM_SOURCE: Interpreter = { bin: 'python3', cwd: repo, pythonPath: pythonRoot };
/** Runs Python; resolves when it exits (killed after 60 s). */
function python(args: string[], env: Record<string, string> = {}, interpreter: Interpreter = FROM_SOURCE): Promise<Run> {
  const { PYTHONPATH: _ignored, ...inherited } = process.env;
  const pythonPath = interpreter.pythonPath ? { PYTHONPATH: interpreter.pythonPath } : {};
  return runProcess(interpreter.bin, args, { cwd: interpreter.cwd, env: { ...inherited, ...pythonPath, ...env } });
}

/**
 * An agent sending with the SDK. Config from the environment; prints one JSON line with
 * the ids it was given and the client's stats. TALLY_EXIT: `close` (explicit close),
 * `end` (the script just ends: only the atexit hook sends), `raise` (it crashes).
 */
const AGENT_SCRIPT = `
import json, os
from decimal import Decimal
import tally as tally_package
from tally import Tally

errors = []
tally = Tally(
    os.environ["TALLY_URL"],
    api_key=os.environ.get("TALLY_API_KEY"),
    agent_key=os.environ["TALLY_AGENT_KEY"],
    buffer_size=10,
    flush_interval_ms=int(os.environ.get("TALLY_FLUSH_INTERVAL_MS", "600000")),
    retry_base_ms=100,
    on_error=lambda e: errors.append(f"{e.code}: {e.message}"),
)
n = int(os.environ["TALLY_ACTIONS"])
actions = [tally.send_action("llm_call", user_id="u-1", metadata={"model": "gpt-4o", "input_tokens": 2, "n": i}) for i in range(n)]
outcomes = {
    tally.send_outcome("converted_lead", Decimal("123456789012345678.123456789")): "123456789012345678.123456789",
    tally.send_outcome("converted_lead", 0): "0",
    tally.send_outcome("converted_lead", "0.000000001"): "0.000000001",
    tally.send_outcome("converted_lead", 2.5): "2.5",
}
how = os.environ["TALLY_EXIT"]
if how == "close":
    tally.close()
s = tally.stats
print(json.dumps({"actions": actions, "outcomes": outcomes, "errors": errors, "retries": s.retries, "delivered": s.delivered, "module": tally_package.__file__}), flush=True)
if how == "raise":
    raise RuntimeError("the agent crashed")
`;
/** Sum of the values above. */
const OUTCOME_SUM = '123456789012345680.62345679';

interface Sent {
  actions: string[];
  outcomes: Record<string, string>;
  errors: string[];
  retries: number;
  delivered: number;
  /** Where `tally` was imported from. */
  module: string;
}
async function runAgent(env: Record<string, string>, expectedCode = 0, interpreter: Interpreter = FROM_SOURCE): Promise<Sent> {
  const r = await python(['-c', AGENT_SCRIPT], { TALLY_ACTIONS: '25', ...env }, interpreter);
  expect(r.code, r.stderr).toBe(expectedCode);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as Sent;
}

async function usage(agentId: string) {
  const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86400_000).toISOString().slice(0, 10);
  const answer = await call(stack, 'GET', `/v1/usage?start_date=${day(-40)}&end_date=${day(2)}&agent_id=${agentId}`, { key: stack.keys.development.sdk });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.usage?.[0];
}

/** How many times each outcome id is counted, and its stored value (read with FINAL as usage reads them). */
async function outcomeRows(agentId: string): Promise<Map<string, { n: number; value: string }>> {
  const rs = await stack.tally.ch!.query({
    query: `SELECT event_id, count() AS n, toString(any(value)) AS value FROM ${stack.env.CLICKHOUSE_DATABASE}.outcomes FINAL WHERE agent_instance_id = {a:String} GROUP BY event_id`,
    query_params: { a: agentId },
    format: 'JSONEachRow',
  });
  return new Map((await rs.json<{ event_id: string; n: string; value: string }>()).map((r) => [r.event_id, { n: Number(r.n), value: r.value }]));
}

/** Waits until usage has every event, then checks nothing more arrives and each id is stored once with its exact value. */
async function expectCountedOnce(agentId: string, sent: Sent): Promise<void> {
  const n = sent.actions.length;
  await waitFor(() => usage(agentId), (u) => Number(u?.actions ?? 0) >= n && Number(u?.outcomes ?? 0) >= 4, 30_000);
  await new Promise((r) => setTimeout(r, 1000));
  expect(await usage(agentId)).toMatchObject({ actions: String(n), outcomes: '4', outcome_value: OUTCOME_SUM, users: '1', input_tokens: String(2 * n) });
  const actions = await actionCounts(stack, agentId);
  expect([...actions.keys()].sort()).toEqual([...sent.actions].sort());
  expect([...actions.values()].every((c) => c === 1)).toBe(true);
  const outcomes = await outcomeRows(agentId);
  expect(Object.fromEntries([...outcomes].map(([id, r]) => [id, r]))).toEqual(
    Object.fromEntries(Object.entries(sent.outcomes).map(([id, value]) => [id, { n: 1, value }])),
  );
}

beforeAll(async () => {
  requirePython();
  stack = await startTestStack({ roles: ['ingest', 'sink', 'api'] });
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('Python SDK against the real server', () => {
  it('passes its own unit tests (python3 -m unittest)', async () => {
    const r = await python(['-m', 'unittest', 'discover', '-s', 'sdk/python/tests']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^OK/m);
  });

  it('sends actions and outcomes, values exact to the last digit, each counted once (SDK key + agent_key)', async () => {
    const agent = await createAgent(stack);
    const sent = await runAgent({ TALLY_URL: stack.baseUrl, TALLY_API_KEY: stack.keys.development.sdk, TALLY_AGENT_KEY: agent.secret, TALLY_EXIT: 'close' });
    expect(sent.errors).toEqual([]);
    expect(sent.delivered).toBe(29);
    await expectCountedOnce(agent.id, sent);
  });

  it('delivers at exit without an explicit flush or close, also when the agent crashes (X-Agent-Secret)', async () => {
    for (const [how, code] of [['end', 0], ['raise', 1]] as const) {
      const agent = await createAgent(stack);
      // No flush interval within the run, no close: only the atexit hook can send.
      const sent = await runAgent({ TALLY_URL: stack.baseUrl, TALLY_AGENT_KEY: agent.secret, TALLY_EXIT: how }, code);
      expect(sent.delivered).toBe(0);
      await expectCountedOnce(agent.id, sent);
    }
  });

  it('counts a batch once when its first answer is lost and the SDK sends it again', async () => {
    const agent = await createAgent(stack);
    const bodies: Record<string, string[]> = {};
    // In front of Tally: forwards every request; the first answer of each path is lost
    // (Tally stored the batch, the client sees the connection close).
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const body = Buffer.concat(chunks);
        const seen = (bodies[req.url!] ??= []);
        seen.push(body.toString());
        const up = await fetch(stack.baseUrl + req.url, { method: 'POST', headers: { 'content-type': req.headers['content-type']!, 'x-agent-secret': req.headers['x-agent-secret'] as string }, body });
        const text = await up.text();
        if (seen.length === 1) {
          expect(up.status).toBe(200);
          req.socket.destroy();
          return;
        }
        res.writeHead(up.status, { 'content-type': 'application/json' });
        res.end(text);
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(proxy.address() as net.AddressInfo).port}`;
      const sent = await runAgent({ TALLY_URL: url, TALLY_AGENT_KEY: agent.secret, TALLY_EXIT: 'close', TALLY_ACTIONS: '6' });
      expect(sent.errors).toEqual([]);
      expect(sent.retries).toBe(2);
      expect(sent.delivered).toBe(10);
      for (const p of ['/v1/actions', '/v1/outcomes']) {
        expect(bodies[p]).toHaveLength(2);
        expect(bodies[p]![1]).toBe(bodies[p]![0]); // the same batch: same ids, same timestamps
      }
      expect(bodies['/v1/outcomes']![0]).toContain('"value":123456789012345678.123456789,');
      await expectCountedOnce(agent.id, sent);
    } finally {
      proxy.close();
    }
  });
});

/**
 * The credits calls through the Python SDK: every call the SDK offers, once, with the
 * answers and the errors (as TallyApiError) printed as one JSON line.
 */
const CREDITS_SCRIPT = `
import json, os
from decimal import Decimal
from tally import Tally, TallyApiError

admin = Tally(os.environ["TALLY_URL"], api_key=os.environ["TALLY_API_KEY"], flush_on_exit=False, retry_base_ms=10)
agent = Tally(os.environ["TALLY_URL"], agent_key=os.environ["TALLY_AGENT_KEY"], flush_on_exit=False)
acct = os.environ["ACCOUNT"]
c = admin.credits
out = {}

def error(f):
    try:
        f()
    except TallyApiError as e:
        return {"status": e.status, "code": e.code, "retryable": e.retryable, "details": len(e.details)}
    return None

g = c.grant(acct, "USD", "free", Decimal("100.00"), idempotency_key="py-welcome-1", priority=10, metadata={"campaign": "welcome"})
out["replayed_same"] = c.grant(acct, "USD", "free", Decimal("100.00"), idempotency_key="py-welcome-1", priority=10, metadata={"campaign": "welcome"})["id"] == g["id"]
out["grant"] = {k: g[k] for k in ("amount", "remaining", "kind", "priority", "status")}
kwd = c.grant(acct, "KWD", "free", "1000000000000000")
out["kwd"] = c.adjust(kwd["id"], Decimal("-0.001"), "one fils")["amount"]
out["jpy"] = c.grant(acct, "JPY", "free", 12345)["amount"]
out["list_total"] = c.list_grants(account_id=acct, currency="USD", limit=1)["total"]
out["get"] = c.get_grant(g["id"])["remaining"]
out["adjust"] = c.adjust(g["id"], "-10.50", "goodwill correction")["amount"]
out["balance"] = {b["currency"]: b["available"] for b in c.balance(acct)["balances"]}
out["entries"] = sorted(e["type"] for e in c.list_entries(account_id=acct, limit=100)["entries"])
out["adjustments"] = c.list_entries(account_id=acct, type="adjustment")["total"]
out["entries_before"] = c.list_entries(account_id=acct, to="2000-01-01")["total"]
out["threshold"] = c.set_low_balance_threshold(acct, "USD", Decimal("20.00"))["low_balance_threshold"]
out["settings"] = c.settings(acct)["settings"]
rule = c.create_topup(acct, "USD", "recurring", interval="month", amount="50.00", kind="free")
out["topups"] = [t["id"] == rule["id"] for t in c.list_topups(account_id=acct)["topups"]]
out["topup_type"] = c.get_topup(rule["id"])["type"]
out["cancelled"] = c.cancel_topup(rule["id"])["status"]
out["cancel_again"] = error(lambda: c.cancel_topup(rule["id"]))
own = agent.credits.agent_balance()
out["agent"] = {"account_id": own["account_id"], "balances": {b["currency"]: b["available"] for b in own["balances"]}}
out["void"] = c.void_grant(g["id"], "test")["status"]
out["void_again"] = error(lambda: c.void_grant(g["id"]))
out["bad_amount"] = error(lambda: c.grant(acct, "JPY", "free", "1.5"))
out["not_found"] = error(lambda: c.get_grant("cgr_unknown"))
out["agent_grants"] = error(lambda: agent.credits.grant(acct, "USD", "free", 1))
out["float_refused"] = False
try:
    c.grant(acct, "USD", "free", 1.5)
except TypeError:
    out["float_refused"] = True
print(json.dumps(out))
`;

describe('Python SDK credits against the real server', () => {
  it('grants (once per Idempotency-Key), lists, reads, adjusts, voids, sets the threshold, manages top-ups and reads the agent balance', async () => {
    const acct = (await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name: 'Python credits' } })).body.id as string;
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const r = await python(['-c', CREDITS_SCRIPT], { TALLY_URL: stack.baseUrl, TALLY_API_KEY: stack.keys.development.admin, TALLY_AGENT_KEY: agent.secret, ACCOUNT: acct });
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
    expect(out).toEqual({
      replayed_same: true,
      grant: { amount: '100.00', remaining: '100.00', kind: 'free', priority: 10, status: 'active' },
      kwd: '-0.001',
      jpy: '12345',
      list_total: 1,
      get: '100.00',
      adjust: '-10.50',
      balance: { USD: '89.50', KWD: '999999999999999.999', JPY: '12345' },
      entries: ['adjustment', 'adjustment', 'grant', 'grant', 'grant'],
      adjustments: 2,
      entries_before: 0,
      threshold: '20.00',
      settings: [{ account_id: acct, currency: 'USD', low_balance_threshold: '20.00' }],
      topups: [true],
      topup_type: 'recurring',
      cancelled: 'disabled',
      cancel_again: { status: 409, code: 'conflict', retryable: false, details: 0 },
      agent: { account_id: acct, balances: { USD: '89.50', KWD: '999999999999999.999', JPY: '12345' } },
      void: 'void',
      void_again: { status: 409, code: 'conflict', retryable: false, details: 0 },
      bad_amount: { status: 400, code: 'validation_failed', retryable: false, details: 1 },
      not_found: { status: 404, code: 'not_found', retryable: false, details: 0 },
      agent_grants: { status: 0, code: 'missing_credentials', retryable: false, details: 0 },
      float_refused: true,
    });
  });
  it('runs the credits example of sdk/python/README.md as it is', async () => {
    const readme = readFileSync(path.join(pythonRoot, 'README.md'), 'utf8');
    const example = /## Credits[\s\S]*?```python\n([\s\S]*?)```/.exec(readme)![1]!;
    const acct = (await call(stack, 'POST', '/v1/accounts', { key: stack.keys.development.admin, body: { name: 'Python README' } })).body.id as string;
    const agent = await createAgent(stack, 'development', { accountId: acct });
    const r = await python(['-c', example.replaceAll('http://localhost:8080', stack.baseUrl)], { TALLY_API_KEY: stack.keys.development.admin, TALLY_AGENT_SECRET: agent.secret, ACCOUNT_ID: acct });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n')).toEqual(['100.00 0.00 89.50', '404 not_found', "[{'currency': 'USD', 'available': '89.50'}]"]);
  });
});

describe('Python SDK as a wheel', () => {
  /**
   * Builds the wheel offline with the first interpreter that can: `python3` on PATH, then
   * Debian's /usr/bin/python3 (python3-setuptools and python3-wheel, which python3-pip
   * brings). setuptools older than 70.1 needs the `wheel` package to build one.
   */
  async function buildWheel(source: string, out: string): Promise<{ bin: string; wheel: string }> {
    const failures: string[] = [];
    for (const bin of [...new Set(['python3', '/usr/bin/python3'])]) {
      const r = await python(['-m', 'pip', 'wheel', '--no-deps', '--no-build-isolation', '--no-index', '-w', out, source], {}, { bin, cwd: source });
      const wheel = readdirSync(out).find((f) => f.endsWith('.whl'));
      if (r.code === 0 && wheel) return { bin, wheel: path.join(out, wheel) };
      failures.push(`${bin}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    }
    throw new Error(`no python3 here builds a wheel offline (needs setuptools>=61 and wheel): ${failures.join('; ')}`);
  }

  it('builds offline (pip wheel --no-build-isolation), installs into a fresh venv, and sends from there: each event counted once', async () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'tally-python-wheel-'));
    try {
      // A copy, so the build's build/ and *.egg-info stay out of the repository.
      const source = path.join(tmp, 'src');
      cpSync(pythonRoot, source, { recursive: true, filter: (f) => !/(__pycache__|\.egg-info|\/build)$/.test(f) });
      mkdirSync(path.join(tmp, 'out'));
      const { bin, wheel } = await buildWheel(source, path.join(tmp, 'out'));
      expect(path.basename(wheel)).toBe('tally_python-0.1.0-py3-none-any.whl');
      const listing = await python(['-m', 'zipfile', '-l', wheel], {}, { bin, cwd: tmp });
      for (const f of ['tally/__init__.py', 'tally/client.py', 'tally/py.typed']) expect(listing.stdout).toContain(f);
      expect(listing.stdout).not.toContain('tests/');

      const venv = path.join(tmp, 'venv');
      const made = await python(['-m', 'venv', venv], {}, { bin, cwd: tmp });
      expect(made.code, made.stderr).toBe(0);
      const venvPython = path.join(venv, 'bin/python');
      const installed = await python(['-m', 'pip', 'install', '--no-index', '--no-deps', wheel], {}, { bin: venvPython, cwd: tmp });
      expect(installed.code, installed.stderr).toBe(0);

      // Run from an empty directory with no PYTHONPATH: only the venv's copy can be imported.
      const cwd = path.join(tmp, 'agent');
      mkdirSync(cwd);
      const agent = await createAgent(stack);
      const sent = await runAgent({ TALLY_URL: stack.baseUrl, TALLY_API_KEY: stack.keys.development.sdk, TALLY_AGENT_KEY: agent.secret, TALLY_EXIT: 'close' }, 0, { bin: venvPython, cwd });
      expect(sent.module.startsWith(path.join(venv, 'lib'))).toBe(true);
      expect(sent.module).toMatch(/site-packages\/tally\/__init__\.py$/);
      expect(sent.errors).toEqual([]);
      expect(sent.delivered).toBe(29);
      await expectCountedOnce(agent.id, sent);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
