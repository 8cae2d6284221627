/**
 * Where rating runs: inline (tests, tiny loads) or on piscina worker threads with a
 * bounded queue. A full queue is a retryable 503 (`service_unavailable`), never a crash
 * or an unbounded backlog.
 */
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { AppError } from '../../shared/errors.ts';
import { logger } from '../../shared/log.ts';
import { trackRatingPool } from '../metrics.ts';
import type { RateSegmentsInput } from '../rating/index.ts';
import { runRating, type RatingOutcome } from './rating-task.ts';

/** Rates tasks; the same pure function whichever implementation. */
export interface Rater {
  rate(input: RateSegmentsInput): Promise<RatingOutcome>;
  close(): Promise<void>;
}

/** Rates on the calling thread. */
export function inlineRater(): Rater {
  return {
    rate: async (input) => runRating(input),
    close: async () => {},
  };
}

/** Options of {@link poolRater}. */
interface PoolRaterOptions {
  /** Worker threads (at least 1). */
  threads: number;
  /** Tasks waiting for a thread beyond which `rate` fails with a 503. */
  maxQueue: number;
}

const log = logger('rater');
const WORKER = fileURLToPath(new URL('./rating-worker.ts', import.meta.url));
/** tsx's loader, resolved from this file (not from the working directory, which may be anywhere). */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Rates on piscina worker threads; the workers load TypeScript through tsx. */
export function poolRater(opts: PoolRaterOptions): Rater {
  if (!Number.isInteger(opts.threads) || opts.threads < 1) throw new Error(`rating threads must be an integer >= 1, got ${opts.threads}`);
  if (!Number.isInteger(opts.maxQueue) || opts.maxQueue < 1) throw new Error(`rating maxQueue must be an integer >= 1, got ${opts.maxQueue}`);
  const pool = new Piscina({
    filename: WORKER,
    // Warm threads: a worker boots tsx and the engine (~150 ms), so none may exit between
    // the tasks of a bill run (piscina's default lets idle threads go at once).
    minThreads: opts.threads,
    maxThreads: opts.threads,
    idleTimeout: 60_000,
    maxQueue: opts.maxQueue,
    execArgv: ['--import', TSX_LOADER],
  });
  // A worker that fails to start or dies is an error of the pool, not of the process.
  pool.on('error', (err: unknown) => log.error('rating worker failed', { err }));
  // piscina records how long each task waits for a thread: /metrics reads it.
  const untrack = trackRatingPool(pool);
  return {
    async rate(input) {
      try {
        return (await pool.run(input)) as RatingOutcome;
      } catch (err) {
        if (err instanceof Error && err.message === 'Task queue is at limit') {
          throw new AppError('service_unavailable', 'rating is at capacity; retry later', { retryAfterSeconds: 1, cause: err });
        }
        throw err;
      }
    },
    close: () => {
      untrack();
      return pool.destroy();
    },
  };
}
