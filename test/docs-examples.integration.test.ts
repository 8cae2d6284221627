import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerProblems, commandsOf, examplesOf, fill, isCurl, remember, shapeProblems, type Command, type Example, type Seen } from './docs-examples.ts';
import { hashSecret } from '../shared/ids.ts';
import { clockFrom, startTestStack, type TestStack } from './harness.ts';

/**
 * Every example of README.md and docs/*.md runs, in order, against a real Tally (the rules
 * of markers, expectations and placeholders: test/docs-examples.ts). "Today" is pinned
 * to the day the examples' dates were written for, so their dates stay valid.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const TODAY = '2026-11-26T12:00:00Z';
const DOCS = ['README.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const EXAMPLES: Example[] = DOCS.flatMap((file) => examplesOf(file, readFileSync(path.join(ROOT, file), 'utf8')));
const SHELL = new Set(['sh', 'bash', 'shell']);

let stack: TestStack;
let dir: string;
let vars: Record<string, string>;
const seen: Seen = { ids: new Map(), agentSecret: undefined };

beforeAll(async () => {
  stack = await startTestStack({ now: clockFrom(TODAY) });
  dir = mkdtempSync(path.join(os.tmpdir(), 'tally-docs-'));
  // curl answers into a file and writes the status (its config file, not the commands' text).
  writeFileSync(path.join(dir, '.curlrc'), `silent\nshow-error\noutput = "${path.join(dir, 'answer')}"\nwrite-out = "%{http_code}"\n`);
  // `--data-binary @query.sql` (docs/analytics.md) reads this.
  writeFileSync(path.join(dir, 'query.sql'), 'SELECT action_type, count() AS n FROM actions WHERE ts >= {from:DateTime64(3)} GROUP BY action_type');
  const admin = stack.keys.development.admin;
  const own = await stack.tally.db!.selectFrom('api_keys').select('id').where('key_hash', '=', hashSecret(admin)).executeTakeFirstOrThrow();
  vars = { TALLY: stack.baseUrl, KEY: admin, ADMIN_KEY: admin, SDK_KEY: stack.keys.development.sdk, KEY_ID: own.id };
});
afterAll(async () => {
  await stack?.cleanup();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  body: unknown;
}

const exec = promisify(execFile);

/** Runs one curl command through bash, its placeholders filled; the answer, parsed when JSON. (Not spawnSync: Tally answers from this process.) */
async function runCurl(command: string): Promise<Answer> {
  rmSync(path.join(dir, 'answer'), { force: true });
  const env = { PATH: process.env.PATH!, CURL_HOME: dir, HOME: dir, ...vars, AGENT_SECRET: seen.agentSecret ?? '', AGENT_ID: seen.ids.get('ai') ?? '' };
  const r = await exec('bash', ['-c', fill(command, seen, stack.baseUrl)], { cwd: dir, env, encoding: 'utf8', timeout: 30_000 }).catch((err: { code?: number; stderr?: string }) => {
    throw new Error(`curl failed (exit ${err.code}): ${err.stderr}`);
  });
  const text = existsSync(path.join(dir, 'answer')) ? readFileSync(path.join(dir, 'answer'), 'utf8') : '';
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON (metrics, HTML, CSV) */
  }
  remember(seen, body);
  return { status: Number(r.stdout.trim()), body };
}

/** What is wrong with one command's answer, against what the doc promises (empty: nothing). */
function problemsOf(c: Command, a: Answer): string[] {
  const statusOk = c.expect.status === undefined ? a.status >= 200 && a.status < 300 : a.status === c.expect.status;
  const problems = statusOk ? [] : [`status ${a.status}, the doc ${c.expect.status === undefined ? 'expects a 2xx' : `shows ${c.expect.status}`}`];
  if (c.expect.shape) problems.push(...shapeProblems(c.expect.shape, a.body));
  return problems.map((p) => `${p}; answer: ${JSON.stringify(a.body).slice(0, 600)}`);
}

/** Runs a shell block's curl commands in order: what differs from the doc, one line each (empty: as documented). */
async function shellFailures(ex: Example): Promise<string[]> {
  const commands = commandsOf(ex.text, ex.line);
  const failures: string[] = [];
  for (const c of commands) {
    if (!isCurl(c.text)) {
      if (ex.marker?.kind === 'curl-only') continue;
      failures.push(`${ex.file}:${c.line} \`${c.text.split('\n')[0]}\` is not a curl command: mark the block <!-- run: curl only; reason --> or <!-- not-run: reason -->`);
      continue;
    }
    for (const p of problemsOf(c, await runCurl(c.text))) failures.push(`${ex.file}:${c.line} ${c.text.split('\n')[0]}\n  ${p}`);
  }
  return failures;
}

async function runAnswer(ex: Example & { marker: { kind: 'answer-of'; request: string } }): Promise<void> {
  const a = await runCurl(ex.marker.request);
  expect(answerProblems(JSON.parse(ex.text), a.body)).toEqual([]);
}

describe('every example of README.md and docs/*.md, in order', () => {
  it('finds the examples', () => {
    expect(EXAMPLES.filter((e) => SHELL.has(e.lang) && !e.marker).length).toBeGreaterThan(10);
  });

  for (const ex of EXAMPLES) {
    const name = `${ex.file}:${ex.line} (${ex.lang || 'no language'})`;
    const m = ex.marker;
    if (m?.kind === 'not-run') {
      it.skip(`${name} not run: ${m.reason}`, () => {});
      it(`${name} says why it is not run`, () => expect(m.reason.length).toBeGreaterThan(10));
    } else if (m?.kind === 'run-by') {
      it(`${name} is run by ${m.file}`, () => expect(existsSync(path.join(ROOT, m.file))).toBe(true));
    } else if (m?.kind === 'answer-of') {
      it(`${name}: the answer of ${m.request.slice(0, 60)}…`, () => runAnswer({ ...ex, marker: m }));
    } else if (SHELL.has(ex.lang)) {
      it(name, async () => expect(await shellFailures(ex)).toEqual([]));
    } else {
      it(name, () => expect.fail(`${name}: a ${ex.lang || 'plain'} block cannot run here: mark it <!-- not-run: reason --> or <!-- run-by: test file -->`));
    }
  }
});

describe('the runner fails when an example breaks', () => {
  it('a status, a key or a value other than the doc shows is a failure', async () => {
    const [wrongStatus, wrongShape] = commandsOf(
      [
        `curl -s "$TALLY/v1/agents/ai_01nobodyhere0000" -H "Authorization: Bearer $KEY"`,
        `# 200`,
        `curl -s -X POST $TALLY/v1/agents -H "Authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"name": "x", "type": "custom"}'`,
        `# 201 {"id":"ai_…","name":"not-x","colour":"red"}`,
      ].join('\n'),
      0,
    ) as [Command, Command];
    expect(problemsOf(wrongStatus, await runCurl(wrongStatus.text))[0]).toMatch(/^status 404, the doc shows 200/);
    const shape = problemsOf(wrongShape, await runCurl(wrongShape.text)).map((p) => p.split(';')[0]);
    expect(shape).toEqual(['`name` is ["x"], the doc shows "not-x"', 'no `colour` in the answer']);
  });

  it('a command other than curl in an unmarked block, or an unknown marker, is a failure', async () => {
    expect(await shellFailures({ file: 'x.md', line: 1, lang: 'sh', text: 'npm start', marker: undefined })).toEqual([expect.stringContaining('`npm start` is not a curl command')]);
    expect(() => examplesOf('x.md', '<!-- run: because -->\n```sh\nnpm start\n```')).toThrow(/unknown marker/);
  });
});

describe('the configuration table lists every variable Tally reads', () => {
  it('each variable of every config schema has a row in the table of docs/configuration.md (named in its first column)', () => {
    const table = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8').split('\n').filter((l) => l.startsWith('|')).join('\n');
    const named = new Set<string>();
    for (const row of table.split('\n')) {
      const variables = row.split('|')[1] ?? '';
      const first = /`([A-Z][A-Z0-9_]*)`/.exec(variables)?.[1];
      for (const m of variables.matchAll(/`(_?[A-Z][A-Z0-9_]*)`/g)) {
        const name = m[1]!;
        // `TALLY_SINK_BATCH_MESSAGES`, `_BATCH_MAX_BYTES`: a name starting with _ continues the first name's prefix (TALLY_SINK).
        named.add(name.startsWith('_') && first ? first.split('_').slice(0, 2).join('_') + name : name);
      }
    }
    const variables = configVariables();
    expect(variables.length).toBeGreaterThan(40);
    expect(variables.filter((v) => !named.has(v))).toEqual([]);
  });
});

/** Every environment variable of a config schema: `NAME: Type.…` in the source files that call `parseEnv`. */
function configVariables(): string[] {
  const files = ['app', 'shared', 'ingest', 'billing'].flatMap((d) => readdirSync(path.join(ROOT, d), { recursive: true, encoding: 'utf8' }).map((f) => path.join(ROOT, d, f)));
  const sources = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')).map((f) => readFileSync(f, 'utf8'));
  return sources.filter((s) => s.includes('parseEnv(')).flatMap((s) => [...s.matchAll(/^\s+([A-Z][A-Z0-9_]+): Type\./gm)].map((m) => m[1]!));
}

describe('the API reference names every route', () => {
  it('each /v1 and /api/v1 route Tally serves is in a table of docs/api-reference.md', () => {
    const documented = tableRoutes(readFileSync(path.join(ROOT, 'docs/api-reference.md'), 'utf8'));
    const served = stack.tally.routes().filter((r) => /^\/(api\/)?v1\//.test(r.path)).map((r) => `${r.method} ${r.path.replace(/:\w+/g, '{}')}`);
    expect(served.length).toBeGreaterThan(100);
    expect([...new Set(served)].filter((r) => !documented.has(r))).toEqual([]);
  });
});

/**
 * `METHOD /path` (parameters as `{}`) of every row of the reference's tables: a methods
 * cell and a paths cell (`| GET / PUT | \`/account/{account_id}\` |`; a path under /api/v1
 * unless it starts with /v1 or /api/v1; the paths of a cell share its methods), or
 * `METHOD /path` in a cell, methods before it applying to it too (`\`GET\`, \`POST /api/v1/api_keys\``).
 */
function tableRoutes(reference: string): Set<string> {
  const out = new Set<string>();
  const add = (method: string, p: string) => out.add(`${method} ${(/^\/(api\/)?v1\//.test(p) ? p : `/api/v1${p}`).replace(/\{\w+\}/g, '{}')}`);
  for (const row of reference.split('\n').filter((r) => r.startsWith('|'))) {
    const cells = row.split('|').map((c) => c.trim());
    if (/^(GET|POST|PUT|DELETE|PATCH)( \/ (GET|POST|PUT|DELETE|PATCH))*$/.test(cells[1]!)) {
      for (const m of cells[2]!.matchAll(/`(\/[^`\s?]*)`/g)) for (const method of cells[1]!.split(' / ')) add(method, m[1]!);
    }
    for (const cell of cells) {
      let methods: string[] = [];
      for (const m of cell.matchAll(/`(GET|POST|PUT|DELETE|PATCH)(?: (\/[^`\s?]*))?`/g)) {
        methods.push(m[1]!);
        if (m[2] === undefined) continue;
        for (const method of methods) add(method, m[2]);
        methods = [];
      }
    }
  }
  return out;
}
