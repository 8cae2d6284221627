/**
 * The one shape of background loop (schedulers, pollers, dispatchers): `run` once, wait
 * `intervalMs` from its end, run again, until stopped. Runs never overlap; `stop()` waits
 * for the run in flight. A failed run never stops the loop and never throws out: it is
 * logged with the loop's name once per distinct error until a run succeeds again (a
 * failure repeated every tick is one log line, and the recovery is another).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { logger } from './log.ts';

const log = logger('loop');

/** Distinct errors remembered per failure streak (beyond it the memory starts over). */
const MAX_DISTINCT_ERRORS = 100;

interface LoopOptions {
  /** Names the loop in its log lines. */
  name: string;
  /** Pause between the end of one run and the start of the next. */
  intervalMs: number;
  /** One pass of work. */
  run: () => Promise<unknown> | unknown;
  /** Called with the error of every failed run, logged or not (metrics, say); whatever it throws is ignored. */
  onError?: (err: unknown) => void;
  /** Wait before the first run; by default it starts at once (on the next turn of the event loop). */
  firstDelayMs?: number;
}

export interface Loop {
  /** No run starts after this; resolves once the run in flight (if any) has ended. */
  stop(): Promise<void>;
}

/** What makes two errors "the same" for the log: their name, code and message. */
function errorKey(err: unknown): string {
  if (err instanceof Error) return `${err.name}\u0000${(err as { code?: unknown }).code ?? ''}\u0000${err.message}`;
  return String(err);
}

/** The loop whose run is executing (its name), for what it causes (chDB's queue counts queries per loop). */
const running = new AsyncLocalStorage<string>();

/** The name of the loop whose run caused the current work, or undefined (a request, a message callback). */
export function currentLoop(): string | undefined {
  return running.getStore();
}

export function startLoop(opts: LoopOptions): Loop {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let inFlight: Promise<void> | undefined;
  const logged = new Set<string>();

  const failed = (err: unknown) => {
    const key = errorKey(err);
    if (!logged.has(key)) {
      if (logged.size >= MAX_DISTINCT_ERRORS) logged.clear();
      logged.add(key);
      log.warn('background run failed; retrying', { loop: opts.name, err });
    }
    try {
      opts.onError?.(err);
    } catch {
      /* a failing error hook must not end the loop */
    }
  };
  const runOnce = async () => {
    try {
      await running.run(opts.name, opts.run);
      if (logged.size > 0) {
        logged.clear();
        log.info('background run recovered', { loop: opts.name });
      }
    } catch (err) {
      failed(err);
    }
  };
  const tick = () => {
    timer = undefined;
    if (stopped) return;
    inFlight = runOnce().finally(() => {
      inFlight = undefined;
      if (!stopped) timer = setTimeout(tick, opts.intervalMs);
    });
  };
  timer = setTimeout(tick, opts.firstDelayMs ?? 0);

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await inFlight;
    },
  };
}
