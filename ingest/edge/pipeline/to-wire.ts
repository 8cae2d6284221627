import type { WireEvent } from '../../../shared/events/wire.ts';
import type { NormalizedEvent } from './normalize.ts';
import type { EventAgent } from './resolve-agent.ts';

/**
 * The step "to wire": an event with its agent as the publisher sends it
 * (`shared/events/wire.ts`). `id` is the event's (`n.id`), or one the server assigned;
 * `now` is when the request arrived (ClickHouse's `ingested_at`). `overLimit`: the id of a
 * reached `flag` spend limit of the event's agent, written into its metadata as
 * `tally_over_limit` (visible in usage and reports as any metadata key).
 */
export function toWire(n: NormalizedEvent, a: EventAgent, id: string, now: number, overLimit?: string): WireEvent {
  const w: WireEvent = {
    k: n.kind === 'action' ? 1 : 2,
    env: a.environmentId,
    org: a.organizationId,
    agent: a.id,
    acct: a.accountId,
    id,
    src: n.id === undefined ? 2 : 1,
    type: n.type,
    ts: n.ts,
    ing: now,
    uid: n.uid,
    anon: n.anon,
    meta: overLimit === undefined ? n.meta : flagged(n.meta, overLimit),
    model: n.model,
    tin: n.tin,
    tout: n.tout,
    ttot: n.ttot,
    val: n.val,
  };
  return w;
}

/**
 * Records the (agent, id) pair of a batch's event; false when the batch already had it.
 * Copies of one id in one batch share the ingestion time, so ClickHouse could not tell
 * which came first: only the first is sent (it decides the period); the others are
 * answered as the duplicates they are.
 */
export function firstCopy(seen: Set<string>, agentId: string, id: string): boolean {
  const key = agentId + '\n' + id;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

/** Metadata JSON text with `tally_over_limit` set to the limit (the edge's value replaces one the client sent). */
export function flagged(meta: string, limitId: string): string {
  if (meta.includes('"tally_over_limit"')) return JSON.stringify({ ...(JSON.parse(meta) as object), tally_over_limit: limitId });
  const head = `{"tally_over_limit":${JSON.stringify(limitId)}`;
  return meta === '{}' || meta === '' ? head + '}' : head + ',' + meta.slice(1);
}
