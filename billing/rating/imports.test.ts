/**
 * Guards the layout of the rating engine: pure (no IO imports), no import cycles, and
 * the layers models/*.ts -> kits -> types (kits and models never import the registry,
 * charge-models.ts or rate.ts).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = dirname(fileURLToPath(import.meta.url));
/** Packages and modules outside billing/rating the engine may use (all pure). */
const ALLOWED_EXTERNAL = [
  'decimal.js',
  '@sinclair/typebox',
  '@sinclair/typebox/compiler',
  '@sinclair/typebox/errors',
  '../../shared/currency.ts',
  // The one decimal type (a decimal.js clone, no IO).
  '../../shared/decimal.ts',
  // The one reading of TypeBox's errors (validation-kit.ts words the rating's messages from it).
  '../../shared/validation/typebox-errors.ts',
];
const UPPER_LAYER = ['charge-models.ts', 'rate.ts', 'index.ts', 'models/index.ts'];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [relative(ROOT, p)] : [];
  });
}

/** Import and re-export specifiers of a source file. */
function specifiers(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/^(?:import|export)\s[^;]*?\sfrom\s+'([^']+)'/gms)].map((m) => m[1]!);
}

const FILES = sources(ROOT);
const GRAPH = new Map(
  FILES.map((f) => {
    const local: string[] = [];
    const external: string[] = [];
    for (const s of specifiers(f)) {
      const target = relative(ROOT, resolve(ROOT, dirname(f), s));
      if (s.startsWith('.') && FILES.includes(target)) local.push(target);
      else external.push(s);
    }
    return [f, { local, external }];
  }),
);

describe('rating engine layout', () => {
  it('finds the model modules', () => {
    expect(FILES).toContain('models/index.ts');
    expect(FILES.filter((f) => f.startsWith('models/')).length).toBeGreaterThanOrEqual(9);
  });

  it.each(FILES)('%s imports nothing with IO', (file) => {
    const { external } = GRAPH.get(file)!;
    // money.ts reaches shared/currency.ts and shared/decimal.ts by paths relative to itself.
    for (const s of external) expect(ALLOWED_EXTERNAL).toContain(s);
  });

  it.each(FILES.filter((f) => f.startsWith('models/') && f !== 'models/index.ts').concat(['rating-kit.ts', 'validation-kit.ts', 'types.ts']))(
    '%s does not import the registry, charge-models.ts or rate.ts',
    (file) => {
      for (const t of GRAPH.get(file)!.local) expect(UPPER_LAYER).not.toContain(t);
    },
  );

  it('has no import cycles', () => {
    const state = new Map<string, 'visiting' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, trail: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'visiting') return void cycles.push([...trail, f].join(' -> '));
      state.set(f, 'visiting');
      for (const t of GRAPH.get(f)!.local) visit(t, [...trail, f]);
      state.set(f, 'done');
    };
    for (const f of FILES) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
