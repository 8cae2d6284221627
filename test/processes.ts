import { spawn } from 'node:child_process';

export interface ProcessRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end and collects what it printed (killed after `timeoutMs`, 60 s by
 * default). Spawned, not spawnSync: the service a test program talks to often runs in the
 * test's own process.
 */
export function runProcess(bin: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
