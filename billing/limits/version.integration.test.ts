/**
 * The limit version (migration 0020, issue 32): the billing role reads the reached set and
 * the limits due again only when a limit or a state's `reached` or period changed, and
 * publishes heartbeats of a few bytes naming the set by its digest in between; a change
 * made by another process (here: straight in Postgres) is published whole within a
 * heartbeat. Real Postgres, NATS and ClickHouse (a test stack; the limits are dated back so
 * that the stack's own evaluator leaves them alone).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { startTestStack, waitFor, type TestStack } from '../../test/harness.ts';
import { LiveUsage } from '../live/tail.ts';
import { createInvoicing } from '../invoicing/index.ts';
import { parseInvoicingConfig } from '../invoicing/config.ts';
import { LimitEvaluator, LimitVersion } from './evaluator.ts';
import type { Subscription } from '@nats-io/transport-node';

let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({ env: { TALLY_BILLING_SCHEDULER_INTERVAL_MS: '3600000' } });
});
afterAll(async () => {
  await stack?.cleanup();
});

describe('the limit version', () => {
  it('moves on a change of a limit or of a reached set, not on an evaluation that only moves current; the evaluator reads only then', async () => {
    const db = stack.tally.db!;
    const env = stack.keys.development.id;
    const old = new Date('2000-01-01T00:00:00Z');
    const today = new Date(Math.floor(Date.now() / 86_400_000) * 86_400_000);
    const tomorrow = new Date(today.getTime() + 86_400_000);
    const n = Array.from({ length: 50 }, (_, k) => k);
    await db.insertInto('accounts').values(n.map((k) => ({ id: `acct_ver${k}`, environment_id: env, name: `ver ${k}` }))).execute();
    await db
      .insertInto('spend_limits')
      .values(n.map((k) => ({ id: `lim_ver${k}`, environment_id: env, scope: 'account' as const, account_id: `acct_ver${k}`, agent_instance_id: null, metric: 'quantity' as const, currency: null, unit: '@action', window: 'day' as const, value: k < 10 ? '0' : '1000', thresholds: [100], action: 'block' as const, description: null, created_by: null, created_at: old, updated_at: old, deleted_at: null })))
      .execute();
    await db.insertInto('spend_limit_states').values(n.map((k) => ({ limit_id: `lim_ver${k}`, period_start: today, period_end: tomorrow, current: '0', reached: k < 10, evaluated_at: old }))).execute();

    // The version itself.
    const version = new LimitVersion(db);
    const v0 = await version.read();
    await db.updateTable('spend_limit_states').set({ current: '5', evaluated_at: new Date() }).where('limit_id', '=', 'lim_ver20').execute();
    expect(await version.read(), 'an evaluation that only moves current').toBe(v0);
    await db.updateTable('spend_limit_states').set({ reached: true }).where('limit_id', '=', 'lim_ver20').execute();
    const v1 = await version.read();
    expect(v1, 'a state reached').not.toBe(v0);
    await db.updateTable('spend_limits').set({ value: '2000' }).where('id', '=', 'lim_ver30').execute();
    expect(await version.read(), 'a limit changed').not.toBe(v1);
    // A transaction's bump runs at its commit: not before.
    const v2 = await version.read();
    await db.transaction().execute(async (tx) => {
      await tx.updateTable('spend_limit_states').set({ reached: false }).where('limit_id', '=', 'lim_ver20').execute();
      expect(await version.read()).toBe(v2);
    });
    expect(await version.read()).not.toBe(v2);

    // An evaluator of its own, publishing on subjects of its own.
    const names = { ...stack.tally.names, limitStateSubject: `${stack.env.TALLY_NATS_PREFIX}vtest.limits.state`, limitStateRequestSubject: `${stack.env.TALLY_NATS_PREFIX}vtest.limits.state.get` };
    const live = new LiveUsage({ nc: stack.tally.nc!, names, ch: stack.tally.ch!, database: stack.env.CLICKHOUSE_DATABASE!, usage: stack.tally.usage! }, { pollMs: 50, maxEntries: 100_000 }).start();
    const invoicing = createInvoicing({ db, usage: stack.tally.usage!, config: parseInvoicingConfig(stack.env), inline: true });
    const evaluator = new LimitEvaluator({ db, invoicing, live, nc: stack.tally.nc!, names }, { intervalMs: 50, fullPassMs: 3_600_000, heartbeatMs: 100 });
    const messages: { at: number; bytes: number; body: { at: number; digest?: string; limits?: { limit_id: string }[] } }[] = [];
    const sub: Subscription = stack.tally.nc!.subscribe(names.limitStateSubject, {
      callback: (_e, m) => {
        messages.push({ at: Date.now(), bytes: m.data.length, body: JSON.parse(new TextDecoder().decode(m.data)) });
      },
    });
    try {
      await evaluator.start();
      // Its first full pass evaluates every limit (none of them has usage: 10 stay reached at 0).
      await waitFor(async () => evaluator.passes, (p) => p >= 2, 30_000);
      await new Promise((r) => setTimeout(r, 1500)); // past the settle time of the pass's writes
      const reads = evaluator.setReads;
      const dueReads = evaluator.dueReads;
      const passes = evaluator.passes;
      const from = messages.length;
      await new Promise((r) => setTimeout(r, 1500));
      const quiet = messages.slice(from);
      expect(evaluator.passes - passes, 'passes ran').toBeGreaterThanOrEqual(5);
      expect(evaluator.setReads, 'the reached set was not read again').toBe(reads);
      expect(evaluator.dueReads, 'nor the limits due').toBe(dueReads);
      expect(quiet.length, 'heartbeats').toBeGreaterThanOrEqual(5);
      const whole = messages.filter((m) => m.body.limits);
      const held = whole.at(-1)!.body;
      expect(held.limits!.map((l) => l.limit_id).sort()).toEqual(n.filter((k) => k < 10).map((k) => `lim_ver${k}`).sort());
      for (const m of quiet) {
        expect(m.body.limits, 'a heartbeat, not the whole set').toBeUndefined();
        expect(m.body.digest).toBe(held.digest);
        expect(m.bytes).toBeLessThan(100);
      }
      // Another process records a limit reached (straight in Postgres): published whole within a heartbeat or two.
      const changedAt = Date.now();
      await db.updateTable('spend_limit_states').set({ reached: true, evaluated_at: new Date() }).where('limit_id', '=', 'lim_ver40').execute();
      await waitFor(async () => messages.filter((m) => m.at >= changedAt && m.body.limits?.some((l) => l.limit_id === 'lim_ver40')).length, (k) => k > 0, 3000);
      const got = messages.find((m) => m.at >= changedAt && m.body.limits?.some((l) => l.limit_id === 'lim_ver40'))!;
      console.log(`a reached state written by another process: published whole ${got.at - changedAt} ms later`);
      expect(got.at - changedAt).toBeLessThan(1000);
      expect(got.body.digest).not.toBe(held.digest);
      expect(evaluator.setReads).toBeGreaterThan(reads);
      // An ingest process asking is answered with the whole set.
      const reply = await stack.tally.nc!.request(names.limitStateRequestSubject, new Uint8Array(0), { timeout: 1000 });
      const answered = JSON.parse(new TextDecoder().decode(reply.data));
      expect(answered.limits).toHaveLength(11);
      expect(answered.digest).toBe(got.body.digest);
    } finally {
      sub.unsubscribe();
      await evaluator.stop();
      await live.stop();
      await invoicing.rater.close();
      await sql`DELETE FROM spend_limit_states WHERE limit_id LIKE 'lim_ver%'`.execute(db);
    }
  }, 90_000);
});
