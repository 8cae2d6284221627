import { describe, expect, it } from 'vitest';
import { billableSegments, type StateChange } from './segments.ts';

const NOV = { start: '2026-11-01T00:00:00.000Z', end: '2026-12-01T00:00:00.000Z' };
const at = (d: string) => `2026-${d}T00:00:00.000Z`;
const ch = (to_status: string, rate_plan_id: string, day: string): StateChange => ({ to_status, rate_plan_id, effective_at: at(day) });

describe('billableSegments', () => {
  it.each<[string, StateChange[], [string, string, string][]]>([
    ['active all period (activated before it)', [ch('draft', 'p1', '10-01'), ch('active', 'p1', '10-05')], [[at('11-01'), at('12-01'), 'p1']]],
    ['never activated', [ch('draft', 'p1', '10-01')], []],
    ['activated mid-period', [ch('draft', 'p1', '11-01'), ch('active', 'p1', '11-16')], [[at('11-16'), at('12-01'), 'p1']]],
    ['activated after the period', [ch('draft', 'p1', '10-01'), ch('active', 'p1', '12-03')], []],
    ['plan change half way (the spec example)', [ch('active', 'p1', '10-01'), ch('active', 'p2', '11-16')], [[at('11-01'), at('11-16'), 'p1'], [at('11-16'), at('12-01'), 'p2']]],
    ['pause and resume', [ch('active', 'p1', '10-01'), ch('paused', 'p1', '11-10'), ch('active', 'p1', '11-20')], [[at('11-01'), at('11-10'), 'p1'], [at('11-20'), at('12-01'), 'p1']]],
    ['cancelled mid-period', [ch('active', 'p1', '10-01'), ch('cancelled', 'p1', '11-11')], [[at('11-01'), at('11-11'), 'p1']]],
    ['cancelled before the period', [ch('active', 'p1', '09-01'), ch('cancelled', 'p1', '10-11')], []],
    ['renew (status unchanged) does not split', [ch('active', 'p1', '10-01'), ch('active', 'p1', '11-05')], [[at('11-01'), at('12-01'), 'p1']]],
    ['a future-dated cancel recorded before a plan change still applies in effective order', [ch('active', 'p1', '10-01'), ch('cancelled', 'p1', '11-21'), ch('active', 'p2', '11-11')], [[at('11-01'), at('11-11'), 'p1'], [at('11-11'), at('11-21'), 'p2']]],
  ])('%s', (_name, changes, expected) => {
    expect(billableSegments(changes, NOV).map((s) => [s.from, s.to, s.rate_plan_id])).toEqual(expected);
  });

  const mv = (type: string, to_status: string, rate_plan_id: string, day: string): StateChange => ({ type, to_status, rate_plan_id, effective_at: at(day) });
  it.each<[string, StateChange[], [string, string, string][]]>([
    // Rows as recorded: each carries the subscription's status and plan after the move, pending moves included.
    ['a pending plan change effective after an earlier cancel is not billed', [mv('created', 'active', 'p1', '10-01'), mv('plan_changed', 'active', 'p2', '11-20'), mv('cancelled', 'cancelled', 'p2', '11-15')], [[at('11-01'), at('11-15'), 'p1']]],
    ['a pending resume effective after a cancel is not billed', [mv('created', 'active', 'p1', '10-01'), mv('paused', 'paused', 'p1', '11-10'), mv('resumed', 'active', 'p1', '11-20'), mv('cancelled', 'cancelled', 'p1', '11-15')], [[at('11-01'), at('11-10'), 'p1']]],
    ['a renew while a pause is pending bills until the pause', [mv('created', 'active', 'p1', '10-01'), mv('paused', 'paused', 'p1', '11-20'), mv('renewed', 'paused', 'p1', '11-10')], [[at('11-01'), at('11-20'), 'p1']]],
    ['a plan change recorded while a pause is pending changes the plan, not the status', [mv('created', 'active', 'p1', '10-01'), mv('paused', 'paused', 'p1', '11-20'), mv('plan_changed', 'paused', 'p2', '11-10')], [[at('11-01'), at('11-10'), 'p1'], [at('11-10'), at('11-20'), 'p2']]],
    ['a plan change effective after a pending pause does not resume', [mv('created', 'active', 'p1', '10-01'), mv('plan_changed', 'active', 'p2', '11-20'), mv('paused', 'paused', 'p2', '11-10')], [[at('11-01'), at('11-10'), 'p1']]],
    ['a cancel effective before the activation bills nothing', [mv('created', 'draft', 'p1', '10-01'), mv('activated', 'active', 'p1', '11-10'), mv('cancelled', 'cancelled', 'p1', '10-15')], []],
  ])('%s', (_name, changes, expected) => {
    expect(billableSegments(changes, NOV).map((s) => [s.from, s.to, s.rate_plan_id])).toEqual(expected);
  });

  it('events at the same instant apply in recorded order (the later wins)', () => {
    const changes = [ch('draft', 'p1', '11-01'), ch('active', 'p1', '11-01'), ch('paused', 'p1', '11-01')];
    expect(billableSegments(changes, NOV)).toEqual([]);
    expect(billableSegments([changes[0]!, changes[2]!, changes[1]!], NOV)).toEqual([{ from: at('11-01'), to: at('12-01'), rate_plan_id: 'p1' }]);
  });

  it('segments are ordered, non-empty and inside the period', () => {
    const segs = billableSegments([ch('active', 'a', '01-01'), ch('active', 'b', '11-03'), ch('paused', 'b', '11-04'), ch('active', 'a', '11-04'), ch('active', 'b', '12-15')], NOV);
    expect(segs.map((s) => s.rate_plan_id)).toEqual(['a', 'b', 'a']);
    for (const s of segs) expect(Date.parse(s.to)).toBeGreaterThan(Date.parse(s.from));
    expect(segs[0]!.from).toBe(NOV.start);
    expect(segs.at(-1)!.to).toBe(NOV.end);
  });
});
