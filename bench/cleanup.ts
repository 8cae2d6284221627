/** What a benchmark that started Tally on its own prefix, database and data directory leaves behind, removed. */
import { rmSync } from 'node:fs';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { dropDatabase } from '../shared/db/postgres.ts';

/** Deletes the NATS streams of `prefix`, drops the Postgres database and removes the data directory (its chDB). */
export async function removeBenchState(s: { natsUrl: string; prefix: string; dbUrl: string; dataDir: string }): Promise<void> {
  const nc = await connect({ servers: s.natsUrl });
  try {
    const jsm = await jetstreamManager(nc);
    for await (const st of jsm.streams.list()) if (st.config.name.startsWith(s.prefix)) await jsm.streams.delete(st.config.name);
  } finally {
    await nc.close();
  }
  await dropDatabase(s.dbUrl).catch(() => {});
  rmSync(s.dataDir, { recursive: true, force: true });
}
