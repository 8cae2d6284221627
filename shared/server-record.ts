import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

/**
 * What a Tally process records of a server it started itself (the embedded Postgres, a
 * nats-server), in a small JSON file of the data directory: the server's process id, the
 * Tally process that owns it, and its port. A later start reads it to tell a server
 * another live Tally process runs (shared, left running) from one a dead Tally left
 * behind (SIGKILL, the OOM killer: adopted, and stopped with the adopting process).
 */
export interface ServerRecord {
  pid: number;
  owner: number;
  port: number;
}

export function readServerRecord(file: string): ServerRecord | undefined {
  try {
    const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServerRecord>;
    return Number.isInteger(r.pid) && Number.isInteger(r.owner) && Number.isInteger(r.port) ? (r as ServerRecord) : undefined;
  } catch {
    return undefined;
  }
}

export function writeServerRecord(file: string, record: ServerRecord): void {
  writeFileSync(file, JSON.stringify(record) + '\n', { mode: 0o644 });
}

export function removeServerRecord(file: string): void {
  rmSync(file, { force: true });
}

/** Whether process `pid` runs (a zombie, ended but not yet reaped, does not). */
export function isAlive(pid: number): boolean {
  if (!(Number.isInteger(pid) && pid > 0)) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return procState(pid) !== 'Z';
}

/** The state letter of /proc/<pid>/stat (Linux), else undefined. */
function procState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

/** The command line of process `pid` (Linux /proc), words joined by spaces; '' when unknown. */
export function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** The running processes whose command line contains `fragment` (Linux /proc; none elsewhere). */
export function processesWith(fragment: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((e) => /^\d+$/.test(e))
    .map(Number)
    .filter((pid) => pid !== process.pid && commandOf(pid).includes(fragment) && isAlive(pid));
}

/**
 * Who owns a server found running: `ours` when the record names this process, `live`
 * when another running Tally process owns it, `dead` when its owner is gone (or it has no
 * record: left by a Tally that kept none).
 */
export function ownerOf(record: ServerRecord | undefined, self = process.pid): 'ours' | 'live' | 'dead' {
  if (!record) return 'dead';
  if (record.owner === self) return 'ours';
  return isAlive(record.owner) ? 'live' : 'dead';
}

/** Sends `signal` to process `pid` and waits until it is gone; SIGKILL after `timeoutMs`. */
export async function stopProcess(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  try {
    process.kill(pid, signal);
  } catch {
    return;
  }
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() >= deadline) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        return;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
