#!/usr/bin/env node
// Tally's command line: `tally init`, `tally start` (`tally --help`).
// TypeScript sources run through tsx's loader (transpiled once at load).
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../app/cli/main.ts');
try {
  const code = await main(process.argv.slice(2));
  if (code >= 0) process.exit(code);
} catch (err) {
  // A wrong command line or configuration exits with 2 and says what is accepted.
  const badArgs = typeof err?.code === 'string' && err.code.startsWith('ERR_PARSE_ARGS');
  const usage = err?.usage ?? (badArgs ? 'Run `tally --help` for the commands and their options.' : undefined);
  process.stderr.write(`tally: ${err instanceof Error ? err.message : String(err)}\n${usage ? usage + '\n' : ''}`);
  process.exit(usage || err?.name === 'ConfigError' ? 2 : 1);
}
