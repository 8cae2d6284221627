/**
 * The import boundaries of .dependency-cruiser.cjs (docs/architecture.md), checked on the
 * repository with dependency-cruiser itself, and shown to catch each kind of forbidden
 * import on a small probe tree.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..');
const CLI = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

interface Violation {
  from: string;
  to: string;
  rule: { name: string };
}

function cruise(cwd: string, dirs: string[]): Violation[] {
  const r = spawnSync(process.execPath, [CLI, '--config', path.join(ROOT, '.dependency-cruiser.cjs'), '--output-type', 'json', ...dirs], { cwd, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (!r.stdout) throw new Error(`dependency-cruiser failed: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

describe('import boundaries', () => {
  it('hold in the repository: shared is ground, ingest and billing apart, app the root, rating pure', () => {
    const violations = cruise(ROOT, ['shared', 'ingest', 'billing', 'app', 'bin']);
    expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  }, 60_000);

  it('catch each kind of forbidden import', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'tally-boundaries-'));
    try {
      const file = (p: string, text: string) => {
        mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
        writeFileSync(path.join(dir, p), text);
      };
      file('tsconfig.json', '{"compilerOptions":{"module":"nodenext","allowImportingTsExtensions":true,"noEmit":true}}');
      file('ingest/edge.ts', "import '../billing/catalog/thing.ts';\nexport const edge = 1;\n");
      file('billing/catalog/thing.ts', "import '../api/route.ts';\nimport '../../ingest/edge.ts';\nexport const thing = 1;\n");
      file('billing/api/route.ts', 'export const route = 1;\n');
      file('billing/rating/rate.ts', "import { readFileSync } from 'node:fs';\nexport const rate = readFileSync;\n");
      file('shared/ground.ts', "import '../ingest/edge.ts';\nimport '../app/start.ts';\nexport const ground = 1;\n");
      file('app/start.ts', 'export const start = 1;\n');
      const found = new Set(cruise(dir, ['shared', 'ingest', 'billing', 'app']).map((v) => `${v.rule.name}: ${v.from} → ${v.to}`));
      expect([...found].sort()).toEqual(
        [
          'app-is-the-root: shared/ground.ts → app/start.ts',
          'billing-not-ingest: billing/catalog/thing.ts → ingest/edge.ts',
          'domain-not-api: billing/catalog/thing.ts → billing/api/route.ts',
          'ingest-not-billing: ingest/edge.ts → billing/catalog/thing.ts',
          'rating-is-pure: billing/rating/rate.ts → fs',
          'shared-is-ground: shared/ground.ts → app/start.ts',
          'shared-is-ground: shared/ground.ts → ingest/edge.ts',
        ].sort(),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
