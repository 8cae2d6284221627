import { buildConsole, type ConsoleBundle } from './build.ts';

let built: Promise<ConsoleBundle> | undefined;

/** The console built once per process (every api role of the process serves the same build). */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= buildConsole().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}
