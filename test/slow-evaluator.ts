/**
 * A live tail and a spend-limit evaluator of a test stack whose ClickHouse answers every
 * usage query `slowMs` late (as busy as a sink's backlog makes it): the fast pass's tests
 * (billing/live/tail.integration.test.ts, billing/limits/fast-money.integration.test.ts).
 */
import type { TestStack } from './harness.ts';
import { UsageStore } from '../billing/usage/usage-query.ts';
import { LiveUsage } from '../billing/live/tail.ts';
import type { UsageSource } from '../billing/invoicing/context.ts';
import { createInvoicing } from '../billing/invoicing/index.ts';
import { parseInvoicingConfig } from '../billing/invoicing/config.ts';
import { LimitEvaluator } from '../billing/limits/evaluator.ts';

export function slowEvaluator(stack: TestStack, slowMs: number) {
  const db = stack.tally.db!;
  const store = new UsageStore(stack.tally.ch!, stack.env.CLICKHOUSE_DATABASE!);
  const slow: UsageSource = {
    query: async (q) => (await new Promise((r) => setTimeout(r, slowMs)), store.query(q)),
    firstSeenUsers: (q) => store.firstSeenUsers(q),
  };
  const live = new LiveUsage({ nc: stack.tally.nc!, names: stack.tally.names, ch: stack.tally.ch!, database: stack.env.CLICKHOUSE_DATABASE!, usage: slow }, { pollMs: 50, maxEntries: 100_000 }).start();
  const invoicing = createInvoicing({ db, usage: slow, config: parseInvoicingConfig(stack.env), inline: true });
  const evaluator = new LimitEvaluator({ db, invoicing, live, nc: stack.tally.nc!, names: stack.tally.names }, { intervalMs: 50, fullPassMs: 3_600_000, heartbeatMs: 250 });
  return {
    live,
    evaluator,
    /** Starts the evaluator and waits for the tail's first poll. */
    async start(): Promise<void> {
      await evaluator.start();
      while (live.polls === 0) await new Promise((r) => setTimeout(r, 20));
    },
    async stop(): Promise<void> {
      await evaluator.stop();
      await live.stop();
      await invoicing.rater.close();
    },
  };
}
