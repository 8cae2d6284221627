import type { Route } from '../shared/http/types.ts';
import { buildConsole, type ConsoleBundle } from './build.ts';
import { consoleRoutes } from './server.ts';

let built: Promise<ConsoleBundle> | undefined;

/** The console built once per process (every api role of the process serves the same build). */
export function consoleBundle(): Promise<ConsoleBundle> {
  built ??= buildConsole().catch((err: unknown) => {
    built = undefined;
    throw err;
  });
  return built;
}

/**
 * The console's routes, or none when its build fails (said through `onError`): the API
 * goes on serving without its console rather than not starting.
 */
export async function servedConsole(onError: (err: unknown) => void): Promise<Route[]> {
  try {
    return consoleRoutes(await consoleBundle());
  } catch (err) {
    onError(err);
    return [];
  }
}
