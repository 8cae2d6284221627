import net from 'node:net';

/**
 * vitest globalSetup: the integration tests need the real Postgres and NATS (JetStream).
 * When either does not answer, the run stops here with one line that says what is
 * missing and how to start it, instead of every integration file failing with
 * ECONNREFUSED. `npm run test:unit` (TALLY_TEST_SERVICES=none) runs the pure tests only
 * and skips this check.
 */
export default async function checkServices(): Promise<void> {
  if (process.env.TALLY_TEST_SERVICES === 'none') return;
  const pg = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
  const nats = new URL(process.env.NATS_URL ?? 'nats://127.0.0.1:4222');
  const missing: string[] = [];
  if (!(await answers(pg.hostname, Number(pg.port || 5432)))) missing.push(`Postgres at ${pg.hostname}:${pg.port || 5432}`);
  if (!(await answers(nats.hostname, Number(nats.port || 4222)))) missing.push(`NATS at ${nats.hostname}:${nats.port || 4222}`);
  if (missing.length === 0) return;
  const line =
    `The integration tests need Postgres (user postgres, trust auth) and NATS with JetStream; not answering: ${missing.join(', ')}. ` +
    'Start them (Debian: `pg_ctlcluster 15 main start`; `nats-server -js -a 127.0.0.1 -p 4222 -sd /tmp/nats &`, package nats-server), ' +
    'or set DATABASE_URL / NATS_URL, or run only the pure tests with `npm run test:unit`.';
  process.stderr.write(line + '\n');
  throw new Error(line);
}

function answers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port, timeout: 2000 });
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });
}
