/**
 * `@tally/sdk` as users get it: `npm pack` in sdk/ (its prepack runs `npm run build`: tsc
 * into dist/esm and dist/cjs with declarations), `npm install <tarball>` into a fresh
 * project outside the repository (offline: the SDK has no dependencies), then plain
 * JavaScript — an .mjs (import) and a .cjs (require), run by plain `node` with no
 * TypeScript loader — sends events to a real Tally, where each is counted once with its
 * exact outcome value. Also typechecks a TypeScript consumer (.mts and .cts) against the
 * shipped declarations with tsc.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { actionCounts, call, createAgent, startTestStack, waitFor, type TestStack } from '../test/harness.ts';
import { runProcess } from '../test/processes.ts';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const sdkDir = path.join(repo, 'sdk');
let stack: TestStack;
let tmp: string;
let project: string;
let tarball: string;

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** Runs `node <script>` in the consumer project with a bare environment (no NODE_OPTIONS, no loader). */
const runNode = (script: string, env: Record<string, string>) => runProcess(process.execPath, [script], { cwd: project, env: { PATH: process.env.PATH ?? '', HOME: os.homedir(), ...env } });

/** The agent, in plain JavaScript: `load` is how it gets the SDK, `where` how it says which file that was. */
const agentScript = (load: string, where: string) => `${load}
const errors = [];
const tally = new Tally({
  apiKey: process.env.TALLY_API_KEY,
  agentKey: process.env.TALLY_AGENT_KEY,
  baseUrl: process.env.TALLY_URL,
  flushOnExit: false,
  onError: (e) => errors.push(e.code + ': ' + e.message),
});
const actions = [];
for (let i = 0; i < 7; i++) actions.push(tally.sendAction({ action_type: 'llm_call', user_id: 'u-1', metadata: { model: 'gpt-4o', input_tokens: 3, n: i } }));
const outcome = tally.sendOutcome({ outcome_type: 'converted_lead', value: '123456789012345678.123456789' });
(async () => {
  await tally.close();
  console.log(JSON.stringify({ actions, outcome, errors, delivered: tally.stats.delivered, from: ${where}, isError: new TallyRejectedError('x', {}) instanceof Error }));
})();
`;

async function usage(agentId: string) {
  const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86400_000).toISOString().slice(0, 10);
  const answer = await call(stack, 'GET', `/v1/usage?start_date=${day(-2)}&end_date=${day(2)}&agent_id=${agentId}`, { key: stack.keys.development.sdk });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.usage?.[0];
}

beforeAll(async () => {
  stack = await startTestStack({ roles: ['ingest', 'sink', 'api'] });
  tmp = mkdtempSync(path.join(os.tmpdir(), 'tally-sdk-pack-'));
  project = path.join(tmp, 'consumer');
  mkdirSync(project);
  // `npm pack` runs prepack (`npm run build`); the tarball's name is the last line it prints.
  tarball = path.join(tmp, npm(['pack', '--pack-destination', tmp], sdkDir).trim().split('\n').at(-1)!);
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  npm(['install', '--offline', '--no-audit', '--no-fund', tarball], project);
});
afterAll(async () => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
  await stack?.cleanup();
});

describe('@tally/sdk as an installed package', () => {
  it('packs compiled JavaScript (ESM and CommonJS) with declarations, and no TypeScript source', () => {
    const files = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    for (const f of ['dist/esm/index.js', 'dist/esm/index.d.ts', 'dist/esm/client.js', 'dist/cjs/index.js', 'dist/cjs/index.d.ts', 'dist/cjs/package.json', 'package.json']) {
      expect(files).toContain(`package/${f}`);
    }
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
  });

  for (const [file, load, where, entry] of [
    ['agent.mjs', "import { Tally, TallyRejectedError } from '@tally/sdk';", "import.meta.resolve('@tally/sdk')", 'dist/esm/index.js'],
    ['agent.cjs', "const { Tally, TallyRejectedError } = require('@tally/sdk');", "require.resolve('@tally/sdk')", 'dist/cjs/index.js'],
  ] as const) {
    it(`sends events from plain JavaScript (${file}), each counted once, the outcome value exact`, async () => {
      const agent = await createAgent(stack);
      writeFileSync(path.join(project, file), agentScript(load, where));
      const r = await runNode(file, { TALLY_URL: stack.baseUrl, TALLY_API_KEY: stack.keys.development.sdk, TALLY_AGENT_KEY: agent.secret });
      expect(r.code, r.stderr).toBe(0);
      const sent = JSON.parse(r.stdout.trim()) as { actions: string[]; outcome: string; errors: string[]; delivered: number; from: string; isError: boolean };
      // The installed copy, not the repository's source.
      expect(sent.from).toContain(path.join(project, 'node_modules/@tally/sdk', entry).replace(/^\//, ''));
      expect(sent).toMatchObject({ errors: [], delivered: 8, isError: true });
      await waitFor(() => usage(agent.id), (u) => Number(u?.actions ?? 0) >= 7 && Number(u?.outcomes ?? 0) >= 1, 30_000);
      expect(await usage(agent.id)).toMatchObject({ actions: '7', outcomes: '1', outcome_value: '123456789012345678.123456789', users: '1', input_tokens: '21' });
      const counts = await actionCounts(stack, agent.id);
      expect([...counts.keys()].sort()).toEqual([...sent.actions].sort());
      expect([...counts.values()].every((c) => c === 1)).toBe(true);
    });
  }

  it('typechecks a TypeScript consumer (import and require) against the shipped declarations with tsc', () => {
    writeFileSync(
      path.join(project, 'consumer.mts'),
      "import { Tally, TallyRejectedError, type TallyOptions, type TallyError } from '@tally/sdk';\n" +
        "const options: TallyOptions = { baseUrl: 'http://127.0.0.1:1', apiKey: 'sk_test_x', flushOnExit: false, onError: (e: TallyError) => void e.code };\n" +
        "const id: string = new Tally(options).sendAction({ action_type: 'llm_call' });\n" +
        'export { id, TallyRejectedError };\n',
    );
    writeFileSync(path.join(project, 'consumer.cts'), "import { Tally } from '@tally/sdk';\nexport const t: Tally = new Tally({ baseUrl: 'http://127.0.0.1:1', agentKey: 'as_x' });\n");
    // A wrong option type must be caught: proves the declarations are read, not `any`.
    writeFileSync(path.join(project, 'wrong.mts'), "import { Tally } from '@tally/sdk';\nnew Tally({ baseUrl: 42 });\n");
    const tsc = (files: string[]) => {
      writeFileSync(
        path.join(project, 'tsconfig.json'),
        JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: ['node'], typeRoots: [path.join(repo, 'node_modules/@types')] }, files }),
      );
      try {
        execFileSync(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', project], { encoding: 'utf8' });
        return '';
      } catch (e) {
        return String((e as { stdout?: string }).stdout);
      }
    };
    expect(tsc(['consumer.mts', 'consumer.cts'])).toBe('');
    expect(tsc(['wrong.mts'])).toMatch(/wrong\.mts\(2,13\): error TS2322/);
  });
});
