#!/usr/bin/env node
// Tally's command line: `tally init [--json]`, `tally start [--roles ...]`.
// TypeScript sources run through tsx's loader (transpiled once at load).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../shared/cli/main.ts');
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  process.stderr.write(`tally: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
