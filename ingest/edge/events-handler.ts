import type { Authenticator } from '../../shared/auth/authenticator.ts';
import type { AgentDirectory, AgentInfo } from '../../shared/auth/agents.ts';
import type { Principal } from '../../shared/auth/keys.ts';
import { AppError, codeToStatus, errorBody, type ErrorCode } from '../../shared/errors.ts';
import { MAX_EVENT_BODY_BYTES } from '../../shared/events/limits.ts';
import type { WireEvent } from '../../shared/events/wire.ts';
import type { HttpRequest, HttpResponse, Route } from '../../shared/http/types.ts';
import { newSequentialId } from '../../shared/ids.ts';
import type { EventPublisher } from './adapters/publisher.ts';
import { ingestMetrics } from './metrics.ts';
import { decodeEvents, type RawItem } from './pipeline/decode.ts';
import { normalizeStep, validateStep, type EventKind, type NormalizedEvent, type StepResult } from './pipeline/normalize.ts';

export interface IngestDeps {
  auth: Authenticator;
  agents: AgentDirectory;
  publisher: EventPublisher;
}

type Accepted = { index: number; id: string; status: 'processed' };
type Rejected = { index: number; status: 'rejected'; error: { code: ErrorCode; message: string } };

/** POST /v1/actions and POST /v1/outcomes. */
export function ingestRoutes(deps: IngestDeps): Route[] {
  const route = (kind: EventKind, path: string): Route => ({
    method: 'POST',
    path,
    maxBodyBytes: MAX_EVENT_BODY_BYTES,
    summary: `Send one ${kind} event or a batch (JSON, NDJSON or msgpack)`,
    handler: (req) => handleEvents(deps, kind, req),
  });
  return [route('action', '/v1/actions'), route('outcome', '/v1/outcomes')];
}

/**
 * The pipeline of one request: authenticate, decode, then per event validate,
 * normalize and resolve its agent; publish the good events and wait for JetStream's
 * acknowledgement; answer each event. A rejected event never stops the others; a
 * publish failure answers 503 for the request and acknowledges nothing.
 */
async function handleEvents(deps: IngestDeps, kind: EventKind, req: HttpRequest): Promise<HttpResponse> {
  const { single, results, createdAt } = await ingestEvents(deps, kind, req);
  return respond(single, results, createdAt, req.requestId);
}

/** What became of a request's events: one result per event, in order. */
export interface IngestOutcome {
  single: boolean;
  results: (Accepted | Rejected)[];
  createdAt: string;
}

/** The pipeline of {@link handleEvents}, without the HTTP answer (the OTLP endpoint answers its own way). */
async function ingestEvents(deps: IngestDeps, kind: EventKind, req: HttpRequest): Promise<IngestOutcome> {
  const principal = deps.auth.requireCached(req.headers, 'send_events') ?? (await deps.auth.require(req.headers, 'send_events'));
  const { single, items } = decodeEvents(req.body, req.headers['content-type'], kind === 'outcome');
  return ingestItems(deps, kind, principal, items, { single, headerId: single ? req.headers['idempotency-key'] : undefined });
}

/**
 * The pipeline from decoded items on, for every adapter (HTTP bodies, OTLP spans,
 * CloudEvents): per item validate, normalize and resolve its agent; publish the good
 * events and wait for JetStream's acknowledgement. Items from adapters that build them
 * (not from a body decoded by `decodeEvents`) must have been checked for unsafe text
 * (`findUnsafeText`).
 */
export async function ingestItems(
  deps: Pick<IngestDeps, 'agents' | 'publisher'>,
  kind: EventKind,
  principal: Principal,
  items: readonly RawItem[],
  opts: { single?: boolean; headerId?: string | undefined } = {},
): Promise<IngestOutcome> {
  const single = opts.single ?? false;
  const headerId = opts.headerId;
  const now = Date.now();

  const results: (Accepted | Rejected)[] = new Array(items.length);
  const normalized: (NormalizedEvent | undefined)[] = new Array(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i]!;
    const r = item.ok ? prepare(kind, item.value, now, headerId) : ({ ok: false, code: item.code, message: item.message } as const);
    if (r.ok) normalized[i] = r.value;
    else results[i] = { index: i, status: 'rejected', error: { code: r.code, message: r.message } };
  }

  const known = cachedAgents(deps.agents, principal, normalized);
  const agents = known.misses.length === 0 ? known.found : await loadAgents(deps.agents, principal, known);
  const wire: WireEvent[] = [];
  const createdAt = isoTime(now);
  let previous: { key: string | undefined; agent: ReturnType<typeof agentFor> } | undefined;
  let seen: Set<string> | undefined;
  for (let i = 0; i < items.length; i++) {
    const n = normalized[i];
    if (!n) continue;
    // The agent depends on agent_key alone: a key equal to its neighbour's gets its answer.
    if (previous === undefined || previous.key !== n.agentKey) previous = { key: n.agentKey, agent: agentFor(principal, n, agents) };
    const a = previous.agent;
    if (!a.ok) {
      results[i] = { index: i, status: 'rejected', error: { code: a.code, message: a.message } };
      continue;
    }
    const id = n.id ?? newSequentialId('evt', now);
    results[i] = { index: i, id, status: 'processed' };
    // Copies of one id in one batch share the ingestion time, so ClickHouse could not tell
    // which came first: only the first is sent (it decides the period); the others are
    // answered as the duplicates they are.
    if (n.id !== undefined && !firstCopy((seen ??= new Set()), a.value.id, id)) continue;
    wire.push(toWire(n, a.value, id, now));
  }

  await deps.publisher.publish(wire);
  countOutcomes(kind, results);
  return { single, results, createdAt };
}

/** Records the (agent, id) pair; false when the batch already had it. */
function firstCopy(seen: Set<string>, agentId: string, id: string): boolean {
  const key = agentId + '\n' + id;
  if (seen.has(key)) return false;
  seen.add(key);
  return true;
}

let isoAt = 0;
let isoText = '';
/** `now` as ISO 8601, formatted once per millisecond. */
function isoTime(now: number): string {
  if (now !== isoAt) {
    isoAt = now;
    isoText = new Date(now).toISOString();
  }
  return isoText;
}

function prepare(kind: EventKind, value: unknown, now: number, headerId: string | undefined): StepResult<NormalizedEvent> {
  const v = validateStep(kind, value);
  return v.ok ? normalizeStep(kind, v.value, now, headerId) : v;
}

/** Agent keys of the request, once each: those in the cache, and the misses (found maps them to undefined). */
function cachedAgents(dir: AgentDirectory, p: Principal, events: (NormalizedEvent | undefined)[]): { found: Map<string, AgentInfo | undefined>; misses: string[] } {
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
async function loadAgents(dir: AgentDirectory, p: Principal, known: { found: Map<string, AgentInfo | undefined>; misses: string[] }): Promise<Map<string, AgentInfo | undefined>> {
  const loaded = await Promise.all(known.misses.map((k) => dir.resolve(p.environmentId, k)));
  known.misses.forEach((k, i) => known.found.set(k, loaded[i]));
  return known.found;
}

function agentFor(p: Principal, e: NormalizedEvent, agents: Map<string, AgentInfo | undefined>): StepResult<AgentInfo | { id: string; organizationId: string; accountId: string; environmentId: string }> {
  if (p.kind === 'agent') {
    // Authenticated by X-Agent-Secret: events are that instance's; agent_key, if sent, must name it.
    const own = agents.get(e.agentKey ?? '');
    if (e.agentKey !== undefined && own?.id !== p.agentInstanceId) {
      return { ok: false, code: 'validation_failed', message: '`agent_key` does not match the X-Agent-Secret instance' };
    }
    return e.agentKey === undefined
      ? { ok: true, value: { id: p.agentInstanceId!, organizationId: p.organizationId, environmentId: p.environmentId, accountId: p.agentAccountId ?? '' } }
      : { ok: true, value: own! };
  }
  if (e.agentKey === undefined) return { ok: false, code: 'validation_failed', message: '`agent_key` is required' };
  const a = agents.get(e.agentKey);
  if (!a || a.environmentId !== p.environmentId) {
    return { ok: false, code: 'unknown_agent', message: 'no agent instance with this agent_key in this environment' };
  }
  if (!a.isActive) return { ok: false, code: 'agent_inactive', message: `agent instance ${a.id} is inactive` };
  return { ok: true, value: a };
}

function toWire(n: NormalizedEvent, a: { id: string; organizationId: string; accountId: string; environmentId: string }, id: string, now: number): WireEvent {
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
    meta: n.meta,
    model: n.model,
    tin: n.tin,
    tout: n.tout,
    ttot: n.ttot,
    val: n.val,
  };
  return w;
}

const acceptedEvents = { action: ingestMetrics.events.child(['action', 'accepted']), outcome: ingestMetrics.events.child(['outcome', 'accepted']) };

function countOutcomes(kind: EventKind, results: (Accepted | Rejected)[]): void {
  let accepted = 0;
  for (const r of results) {
    if (r.status === 'processed') accepted++;
    else ingestMetrics.events.inc([kind, r.error.code]);
  }
  acceptedEvents[kind].value += accepted;
}

function respond(single: boolean, results: (Accepted | Rejected)[], createdAt: string, requestId: string): HttpResponse {
  if (single) {
    const r = results[0]!;
    if (r.status === 'processed') {
      // `{id, status, created_at}` as text: the id is checked like batchJson's, the time is ISO.
      const id = NEEDS_ESCAPE.test(r.id) ? JSON.stringify(r.id) : '"' + r.id + '"';
      return { status: 200, raw: '{"id":' + id + ',"status":"processed","created_at":"' + createdAt + '"}', contentType: 'application/json' };
    }
    return { status: codeToStatus(r.error.code), body: errorBody(new AppError(r.error.code, r.error.message), requestId) };
  }
  let accepted = 0;
  let firstRejected: Rejected | undefined;
  for (const r of results) {
    if (r.status === 'processed') accepted++;
    else firstRejected ??= r;
  }
  const rejected = results.length - accepted;
  if (accepted > 0) return { status: rejected === 0 ? 200 : 207, raw: batchJson(accepted, rejected, createdAt, results), contentType: 'application/json' };
  const body: Record<string, unknown> = { accepted, rejected, created_at: createdAt, results };
  const err = new AppError(firstRejected!.error.code, `all ${rejected} events were rejected; see results`);
  return { status: codeToStatus(firstRejected!.error.code), body: { ...errorBody(err, requestId), ...body } };
}

/**
 * The answer to a batch as JSON text, the same as JSON.stringify of
 * `{accepted, rejected, created_at, results}`, written by hand: a thousand results'
 * objects cost JSON.stringify several times more.
 */
export function batchJson(accepted: number, rejected: number, createdAt: string, results: readonly (Accepted | Rejected)[]): string {
  let s = `{"accepted":${accepted},"rejected":${rejected},"created_at":${JSON.stringify(createdAt)},"results":[`;
  for (let i = 0; i < results.length; i++) {
    const r = results[i]!;
    if (i > 0) s += ',';
    if (r.status !== 'processed') s += JSON.stringify(r);
    else if (NEEDS_ESCAPE.test(r.id)) s += `{"index":${r.index},"id":${JSON.stringify(r.id)},"status":"processed"}`;
    else s += '{"index":' + r.index + ',"id":"' + r.id + '","status":"processed"}';
  }
  return s + ']}';
}

// What JSON.stringify escapes in an id: quotes, backslashes, control characters, surrogates.
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
