import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SERVER = fileURLToPath(new URL('./server.ts', import.meta.url));

/** A running test ClickHouse HTTP server (server.ts: chDB behind ClickHouse's HTTP protocol, not clickhouse-server). */
export interface ClickHouseHttp {
  url: string;
  user: string;
  password: string;
  stop(): Promise<void>;
}

/** Starts server.ts in a child process (chDB allows one data directory per process) on a free port. */
export async function startClickHouseHttp(opts: { user: string; password: string }): Promise<ClickHouseHttp> {
  const child = spawn(process.execPath, ['--import', 'tsx', SERVER, '--user', opts.user, '--password', opts.password], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const port = await firstLinePort(child);
  return {
    url: `http://127.0.0.1:${port}`,
    ...opts,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function firstLinePort(child: ChildProcess): Promise<number> {
  const lines = createInterface({ input: child.stdout! });
  const exit = once(child, 'exit').then(([code]) => {
    throw new Error(`test ClickHouse HTTP server exited (${code}) before listening`);
  });
  const line = once(lines, 'line').then(([l]) => l as string);
  const first = await Promise.race([line, exit]);
  lines.close();
  child.stdout!.resume();
  return (JSON.parse(first) as { port: number }).port;
}
