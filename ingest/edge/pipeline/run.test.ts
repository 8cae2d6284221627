import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentInfo } from '../../../shared/auth/agents.ts';
import type { Principal } from '../../../shared/auth/keys.ts';
import { DependencyUnavailableError } from '../../../shared/errors.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { ingestMetrics } from '../metrics.ts';
import type { RawItem } from './decode.ts';
import { runPipeline, STEPS, type PipelineDeps } from './run.ts';
import { LimitGate } from '../limit-gate.ts';

const NOW = Date.UTC(2026, 10, 21, 12);
const ENV = 'env_1';

const agent = (id: string, over: Partial<AgentInfo> = {}): AgentInfo => ({
  id,
  environmentId: ENV,
  environmentName: 'development',
  organizationId: 'org_1',
  accountId: 'acct_1',
  isActive: true,
  ...over,
});
const AGENTS = new Map<string, AgentInfo | undefined>([
  ['key_a', agent('ai_a')],
  ['key_off', agent('ai_off', { isActive: false })],
  ['key_elsewhere', agent('ai_elsewhere', { environmentId: 'env_2' })],
]);

/** An agent directory over AGENTS: `cached` keys answer `peek`, the others are loaded by `resolve` (counted). */
function directory(cached: string[]) {
  const loads: string[] = [];
  const agents: PipelineDeps['agents'] = {
    peek: (env, key) => (env === ENV && cached.includes(key) ? { hit: true, value: AGENTS.get(key) } : { hit: false }),
    resolve: async (env, key) => {
      loads.push(key);
      return env === ENV ? AGENTS.get(key) : undefined;
    },
  };
  return { agents, loads };
}

/** A publisher that keeps what it is given (or fails). */
function publisher(fail = false) {
  const published: WireEvent[][] = [];
  return {
    published,
    publish: async (events: WireEvent[]) => {
      if (fail) throw new DependencyUnavailableError('NATS JetStream');
      published.push(events);
    },
  };
}

const apiKey: Principal = { kind: 'sdk', permission: 'sdk', organizationId: 'org_1', environmentId: ENV, environmentName: 'development', credentialId: 'key_1', rateLimitPerMinute: null };
const agentSecret: Principal = { ...apiKey, kind: 'agent', permission: 'agent', credentialId: 'ai_a', agentInstanceId: 'ai_a', agentAccountId: 'acct_1' };

/** A hot counter of ingest's. */
type Counter = Pick<typeof ingestMetrics.events, 'get'>;

/** The series of a hot counter, as `label,label,...` -> count. */
function series(metric: Counter): Map<string, number> {
  return new Map(metric.get().values.map((v) => [Object.values(v.labels).join(','), v.value]));
}
/** What a run added to a hot counter (series that did not change are left out). */
async function counted<T>(metric: Counter, run: () => Promise<T>): Promise<{ out: T; delta: Record<string, number> }> {
  const before = series(metric);
  const out = await run();
  const delta: Record<string, number> = {};
  for (const [k, v] of series(metric)) if (v !== (before.get(k) ?? 0)) delta[k] = v - (before.get(k) ?? 0);
  return { out, delta };
}

const ok = (value: unknown): RawItem => ({ ok: true, value });

describe('runPipeline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('names its steps in order', () => {
    expect(STEPS.map((s) => s.name)).toEqual(['decode', 'validate', 'normalize', 'resolve_agent', 'spend_limit', 'to_wire']);
  });

  it('answers every item in order, publishes the good ones once, and counts each step per code', async () => {
    const items: RawItem[] = [
      ok({ agent_key: 'key_a', action_type: 'llm_call', id: 'e1', metadata: { model: 'm', input_tokens: 3, output_tokens: 4 } }),
      { ok: false, code: 'invalid_json', message: 'line 2 is not valid JSON' },
      ok({ agent_key: 'key_a', action_type: 'x', colour: 'red' }),
      ok({ agent_key: 'key_a', action_type: 'x', timestamp: new Date(NOW - 40 * 86400_000).toISOString() }),
      ok({ agent_key: 'key_missing', action_type: 'x' }),
      ok({ agent_key: 'key_off', action_type: 'x' }),
      ok({ agent_key: 'key_elsewhere', action_type: 'x' }),
      ok({ agent_key: 'key_a', action_type: 'x', id: 'e1' }),
      ok({ agent_key: 'key_a', action_type: 'y', user_id: 'u1' }),
      ok({ action_type: 'x' }),
    ];
    const { agents, loads } = directory(['key_a', 'key_off']);
    const pub = publisher();
    let events: Record<string, number> = {};
    const { out, delta: steps } = await counted(ingestMetrics.pipelineEvents, async () => {
      const r = await counted(ingestMetrics.events, () => runPipeline({ agents, publisher: pub }, 'action', apiKey, items));
      events = r.delta;
      return r.out;
    });

    const rejected = (index: number, code: string, message: string | RegExp, path?: string) => ({
      index,
      status: 'rejected',
      error: { code, message: typeof message === 'string' ? message : expect.stringMatching(message) },
      ...(path ? { path } : {}),
    });
    expect(out.single).toBe(false);
    expect(out.createdAt).toBe(new Date(NOW).toISOString());
    expect(out.results).toEqual([
      { index: 0, id: 'e1', status: 'processed' },
      rejected(1, 'invalid_json', 'line 2 is not valid JSON'),
      rejected(2, 'validation_failed', 'unknown field `colour`', 'colour'),
      rejected(3, 'timestamp_out_of_range', '`timestamp` is more than 35 days in the past', 'timestamp'),
      rejected(4, 'unknown_agent', 'no agent instance with this agent_key in this environment'),
      rejected(5, 'agent_inactive', 'agent instance ai_off is inactive'),
      rejected(6, 'unknown_agent', 'no agent instance with this agent_key in this environment'),
      { index: 7, id: 'e1', status: 'processed' }, // a copy of event 0: answered, not sent again
      { index: 8, id: expect.stringMatching(/^evt_/), status: 'processed' },
      rejected(9, 'validation_failed', '`agent_key` is required', 'agent_key'),
    ]);
    expect(loads.sort()).toEqual(['key_elsewhere', 'key_missing']);

    const wire = { k: 1, env: ENV, org: 'org_1', agent: 'ai_a', acct: 'acct_1', ts: NOW, ing: NOW, uid: '', anon: '', meta: '{}', model: '', tin: 0, tout: 0, ttot: 0, val: '' };
    expect(pub.published).toEqual([
      [
        { ...wire, id: 'e1', src: 1, type: 'llm_call', meta: '{"model":"m","input_tokens":3,"output_tokens":4}', model: 'm', tin: 3, tout: 4, ttot: 7 },
        { ...wire, id: (out.results[8] as { id: string }).id, src: 2, type: 'y', uid: 'u1' },
      ],
    ]);

    expect(steps).toEqual({
      'action,decode,passed': 9,
      'action,decode,invalid_json': 1,
      'action,validate,passed': 8,
      'action,validate,validation_failed': 1,
      'action,normalize,passed': 7,
      'action,normalize,timestamp_out_of_range': 1,
      'action,resolve_agent,passed': 3,
      'action,spend_limit,passed': 3,
      'action,resolve_agent,unknown_agent': 2,
      'action,resolve_agent,agent_inactive': 1,
      'action,resolve_agent,validation_failed': 1,
      'action,to_wire,passed': 2,
      'action,to_wire,duplicate': 1,
    });
    // tally_ingest_events_total as before: per kind, accepted or the rejection code.
    expect(events).toEqual({
      'action,accepted': 3,
      'action,invalid_json': 1,
      'action,validation_failed': 2,
      'action,timestamp_out_of_range': 1,
      'action,unknown_agent': 2,
      'action,agent_inactive': 1,
    });
  });

  it('takes the events of an X-Agent-Secret as its instance, refusing an agent_key naming another', async () => {
    const { agents, loads } = directory(['key_a', 'key_off']);
    const pub = publisher();
    const items = [ok({ outcome_type: 'won', value: '12.50', id: 'o1' }), ok({ agent_key: 'key_off', outcome_type: 'won', value: 1 }), ok({ agent_key: 'key_a', outcome_type: 'won', value: 2, id: 'o2' })];
    const { out, delta } = await counted(ingestMetrics.pipelineEvents, () => runPipeline({ agents, publisher: pub }, 'outcome', agentSecret, items, { single: false }));
    expect(out.results).toEqual([
      { index: 0, id: 'o1', status: 'processed' },
      { index: 1, status: 'rejected', error: { code: 'validation_failed', message: '`agent_key` does not match the X-Agent-Secret instance' }, path: 'agent_key' },
      { index: 2, id: 'o2', status: 'processed' },
    ]);
    expect(loads).toEqual([]); // every key cached: nothing awaited from the directory
    expect(pub.published[0]!.map((w) => [w.k, w.agent, w.id, w.src, w.val])).toEqual([
      [2, 'ai_a', 'o1', 1, '12.5'],
      [2, 'ai_a', 'o2', 1, '2'],
    ]);
    expect(delta).toEqual({
      'outcome,decode,passed': 3,
      'outcome,validate,passed': 3,
      'outcome,normalize,passed': 3,
      'outcome,resolve_agent,passed': 2,
      'outcome,spend_limit,passed': 2,
      'outcome,resolve_agent,validation_failed': 1,
      'outcome,to_wire,passed': 2,
    });
  });

  it('gives a single event the Idempotency-Key header as its id', async () => {
    const { agents } = directory(['key_a']);
    const pub = publisher();
    const out = await runPipeline({ agents, publisher: pub }, 'action', apiKey, [ok({ agent_key: 'key_a', action_type: 'x' })], { single: true, headerId: 'H1' });
    expect(out).toEqual({ single: true, results: [{ index: 0, id: 'H1', status: 'processed' }], createdAt: new Date(NOW).toISOString() });
    expect(pub.published[0]!.map((w) => [w.id, w.src])).toEqual([['H1', 1]]);
  });

  it('throws when the publish fails, and counts nothing', async () => {
    const { agents } = directory(['key_a']);
    const items = [ok({ agent_key: 'key_a', action_type: 'x' }), ok({ agent_key: 'key_a', action_type: 'x', colour: 1 })];
    const before = [series(ingestMetrics.pipelineEvents), series(ingestMetrics.events)];
    await expect(runPipeline({ agents, publisher: publisher(true) }, 'action', apiKey, items)).rejects.toMatchObject({ code: 'service_unavailable' });
    expect([series(ingestMetrics.pipelineEvents), series(ingestMetrics.events)]).toEqual(before);
  });
});

describe('the spend_limit step', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());
  const reached = (scope: 'account' | 'agent_instance' | 'environment', scope_id: string, action: 'block' | 'flag', limit_id = `lim_${scope}_${action}`) => ({
    limit_id,
    environment_id: ENV,
    scope,
    scope_id,
    action,
    value: '10.00',
    currency: 'USD',
    unit: null,
    resets_at: '2026-12-01T00:00:00.000Z',
  });
  const gate = (limits: ReturnType<typeof reached>[], at = Date.now()) => {
    const g = new LimitGate(5000);
    g.set({ at, limits });
    return g;
  };
  const run = (limits: LimitGate, items: RawItem[]) => {
    const pub = publisher();
    const { agents } = directory(['key_a']);
    return runPipeline({ agents, publisher: pub, limits }, 'action', apiKey, items).then((out) => ({ out, pub }));
  };
  const event = (id: string) => ok({ agent_key: 'key_a', action_type: 'work', id });

  it.each([
    ['agent_instance', 'ai_a'],
    ['account', 'acct_1'],
    ['environment', ENV],
  ] as const)('refuses every event under a reached block limit of its %s, naming the limit, and sends none', async (scope, id) => {
    const { out, pub } = await run(gate([reached(scope, id, 'block')]), [event('e1'), event('e2')]);
    expect(out.results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(out.results[0]).toMatchObject({ error: { code: 'spend_limit_reached', limit: { id: `lim_${scope}_block`, value: '10.00', currency: 'USD', resets_at: '2026-12-01T00:00:00.000Z' } } });
    expect(pub.published.flat()).toHaveLength(0);
  });

  it('leaves other agents and accounts alone', async () => {
    const { out, pub } = await run(gate([reached('account', 'acct_other', 'block'), reached('agent_instance', 'ai_other', 'block')]), [event('e1')]);
    expect(out.results[0]!.status).toBe('processed');
    expect(pub.published.flat()).toHaveLength(1);
  });

  it('marks events under a flag limit in their metadata, and a block wins over a flag', async () => {
    const flagged = await run(gate([reached('account', 'acct_1', 'flag')]), [ok({ agent_key: 'key_a', action_type: 'work', id: 'f1', metadata: { step: 2 } })]);
    expect(JSON.parse(flagged.pub.published.flat()[0]!.meta)).toEqual({ tally_over_limit: 'lim_account_flag', step: 2 });
    const both = await run(gate([reached('agent_instance', 'ai_a', 'flag'), reached('environment', ENV, 'block')]), [event('b1')]);
    expect(both.out.results[0]).toMatchObject({ status: 'rejected', error: { code: 'spend_limit_reached' } });
  });

  it('fails open once no state arrived for longer than its bound', async () => {
    const g = gate([reached('account', 'acct_1', 'block')]);
    expect((await run(g, [event('s0')])).out.results[0]!.status).toBe('rejected');
    vi.setSystemTime(NOW + 5001);
    expect((await run(g, [event('s1')])).out.results[0]!.status).toBe('processed');
    // A heartbeat: enforced again.
    g.set({ at: Date.now(), limits: [reached('account', 'acct_1', 'block')] });
    expect((await run(g, [event('s2')])).out.results[0]!.status).toBe('rejected');
  });

  it('keeps the held set fresh on a heartbeat naming its digest, and asks for the whole state on another digest without refreshing', async () => {
    const g = new LimitGate(5000);
    let asks = 0;
    g.askWith(() => asks++);
    g.set({ at: NOW, limits: [reached('account', 'acct_1', 'block')], digest: 'd1' });
    // The heartbeat of the same set: no parse, no rebuild, fresh again past the bound.
    vi.setSystemTime(NOW + 4000);
    g.heartbeat({ at: NOW + 4000, digest: 'd1' });
    vi.setSystemTime(NOW + 8000);
    expect((await run(g, [event('h1')])).out.results[0]!.status).toBe('rejected');
    expect(asks).toBe(0);
    // A heartbeat of another set (its whole state was lost): asked for, and the held set ages meanwhile.
    g.heartbeat({ at: NOW + 8000, digest: 'd2' });
    expect(asks).toBe(1);
    vi.setSystemTime(NOW + 9001);
    expect((await run(g, [event('h2')])).out.results[0]!.status).toBe('processed');
    // The whole state answers: enforced with it.
    g.set({ at: NOW + 9001, limits: [reached('agent_instance', 'ai_a', 'block')], digest: 'd2' });
    expect((await run(g, [event('h3')])).out.results[0]).toMatchObject({ status: 'rejected', error: { limit: { id: 'lim_agent_instance_block' } } });
  });
});
