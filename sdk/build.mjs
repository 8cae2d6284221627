// `npm run build` (and `npm pack`, through prepack): compiles src/ with TypeScript's tsc into
// dist/esm (import) and dist/cjs (require), each with its type declarations. dist/cjs gets
// a package.json of its own saying "commonjs", since this package's "type" is "module".
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

rmSync(`${here}dist`, { recursive: true, force: true });
for (const config of ['tsconfig.build.json', 'tsconfig.cjs.json']) {
  execFileSync(process.execPath, [tsc, '-p', `${here}${config}`], { stdio: 'inherit' });
}
writeFileSync(`${here}dist/cjs/package.json`, '{ "type": "commonjs" }\n');
