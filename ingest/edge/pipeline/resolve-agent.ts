import type { AgentDirectory, AgentInfo } from '../../../shared/auth/agents.ts';
import type { Principal } from '../../../shared/auth/keys.ts';
import type { NormalizedEvent, StepResult } from './normalize.ts';

/**
 * The step "resolve agent": each event's agent instance, from its `agent_key` (the
 * instance's secret or id, in the principal's environment) or, authenticated by
 * X-Agent-Secret, the principal's own instance. Done in two parts so that a batch whose
 * agents are all cached never awaits: {@link cachedAgents} (synchronous), then
 * {@link loadAgents} for the misses, then {@link agentFor} per event.
 */

/** What the pipeline reads of the agent directory. */
export type AgentLookup = Pick<AgentDirectory, 'peek' | 'resolve'>;

/** The agent instance an event is counted for: what its wire form names. */
export type EventAgent = Pick<AgentInfo, 'id' | 'organizationId' | 'accountId' | 'environmentId'>;

/** The agent keys of a batch, once each: found in the cache, or missed (`found` maps misses to undefined until loaded). */
export interface KnownAgents {
  found: Map<string, AgentInfo | undefined>;
  misses: string[];
}

/** Agent keys of the request, once each: those in the cache, and the misses (found maps them to undefined). */
export function cachedAgents(dir: AgentLookup, p: Principal, events: readonly (NormalizedEvent | undefined)[]): KnownAgents {
  const found = new Map<string, AgentInfo | undefined>();
  const misses: string[] = [];
  let previous: string | undefined;
  for (const e of events) {
    // Events of a batch mostly repeat their neighbour's agent_key: compared before hashed.
    if (!e?.agentKey || e.agentKey === previous || found.has(e.agentKey)) continue;
    previous = e.agentKey;
    const hit = dir.peek(p.environmentId, e.agentKey);
    if (hit.hit) found.set(e.agentKey, hit.value);
    else {
      found.set(e.agentKey, undefined);
      misses.push(e.agentKey);
    }
  }
  return { found, misses };
}

/** The misses loaded together. */
export async function loadAgents(dir: AgentLookup, p: Principal, known: KnownAgents): Promise<Map<string, AgentInfo | undefined>> {
  const loaded = await Promise.all(known.misses.map((k) => dir.resolve(p.environmentId, k)));
  known.misses.forEach((k, i) => known.found.set(k, loaded[i]));
  return known.found;
}

/**
 * The agent instance of one event, or why it has none: `unknown_agent`, `agent_inactive`,
 * or `validation_failed` (no `agent_key` with an API key; an `agent_key` naming another
 * instance than the X-Agent-Secret's). Depends on the event's `agent_key` alone.
 */
export function agentFor(p: Principal, e: NormalizedEvent, agents: Map<string, AgentInfo | undefined>): StepResult<EventAgent> {
  if (p.kind === 'agent') {
    // Authenticated by X-Agent-Secret: events are that instance's; agent_key, if sent, must name it.
    const own = agents.get(e.agentKey ?? '');
    if (e.agentKey !== undefined && own?.id !== p.agentInstanceId) {
      return { ok: false, code: 'validation_failed', message: '`agent_key` does not match the X-Agent-Secret instance', path: 'agent_key' };
    }
    return e.agentKey === undefined
      ? { ok: true, value: { id: p.agentInstanceId!, organizationId: p.organizationId, environmentId: p.environmentId, accountId: p.agentAccountId ?? '' } }
      : { ok: true, value: own! };
  }
  if (e.agentKey === undefined) return { ok: false, code: 'validation_failed', message: '`agent_key` is required', path: 'agent_key' };
  const a = agents.get(e.agentKey);
  if (!a || a.environmentId !== p.environmentId) {
    return { ok: false, code: 'unknown_agent', message: 'no agent instance with this agent_key in this environment' };
  }
  if (!a.isActive) return { ok: false, code: 'agent_inactive', message: `agent instance ${a.id} is inactive` };
  return { ok: true, value: a };
}
