import type { Authenticator } from '../../../shared/auth/authenticator.ts';
import type { AgentDirectory } from '../../../shared/auth/agents.ts';
import type { Principal } from '../../../shared/auth/keys.ts';
import type { ErrorCode } from '../../../shared/errors.ts';
import type { WireEvent } from '../../../shared/events/wire.ts';
import { newSequentialId } from '../../../shared/ids.ts';
import type { EventPublisher } from '../adapters/publisher.ts';
import type { LimitGate } from '../limit-gate.ts';
import type { ReachedLimit } from '../../../shared/limits/state.ts';
import { ingestMetrics } from '../metrics.ts';
import type { RawItem } from './decode.ts';
import { normalizeStep, validateStep, type EventKind, type NormalizedEvent, type StepResult } from './normalize.ts';
import { agentFor, cachedAgents, loadAgents, type AgentLookup, type EventAgent } from './resolve-agent.ts';
import { firstCopy, toWire } from './to-wire.ts';

/**
 * The steps every event goes through, in order, whatever brought it (HTTP bodies, OTLP
 * spans, CloudEvents): an event goes on until a step rejects it. Each step counts, per
 * kind, the events it passed and those it rejected per code
 * (`tally_ingest_pipeline_events_total{kind, step, outcome}`).
 */
export const STEPS = [
  { name: 'decode', does: "the adapter's: the request as items; an item it could not read arrives rejected (an NDJSON line, unsafe text, a CloudEvent it cannot map)" },
  { name: 'validate', does: 'the event schema (normalize.ts validateStep)' },
  { name: 'normalize', does: 'id, timestamp bounds, metadata limits, token counts, cost inputs (normalize.ts normalizeStep)' },
  { name: 'resolve_agent', does: 'the agent instance of agent_key or of the X-Agent-Secret, cached (resolve-agent.ts)' },
  { name: 'spend_limit', does: "the reached spend limits pushed by billing (limit-gate.ts): a `block` limit of the event's agent instance, account or environment rejects it (402 spend_limit_reached), a `flag` limit marks it (metadata `tally_over_limit`)" },
  { name: 'to_wire', does: "the event's id, its own or a new one, and its wire form (to-wire.ts); a copy of an id already in the batch is answered but sent once (outcome duplicate)" },
] as const;

export type StepName = (typeof STEPS)[number]['name'];

const step = (name: StepName): number => STEPS.findIndex((s) => s.name === name);
const DECODE = step('decode');
const VALIDATE = step('validate');
const NORMALIZE = step('normalize');
const RESOLVE_AGENT = step('resolve_agent');
const SPEND_LIMIT = step('spend_limit');
const TO_WIRE = step('to_wire');

/** What the pipeline needs: the agent directory and the publisher. */
export interface PipelineDeps {
  agents: AgentLookup;
  publisher: Pick<EventPublisher, 'publish'>;
  /** The clock event times are checked against (ms); default Date.now. */
  now?: () => number;
  /** The spend limits pushed by billing; absent: none enforced. */
  limits?: Pick<LimitGate, 'forBatch'>;
}

/** What every adapter of the pipeline (HTTP events, OTLP, CloudEvents) is given. */
export interface IngestDeps extends PipelineDeps {
  auth: Authenticator;
  agents: AgentDirectory;
  publisher: EventPublisher;
}

export type Accepted = { index: number; id: string; status: 'processed' };
/** A rejected event; `path` names the field at fault, when one is (a single event's answer lists it in `details`). */
export type Rejected = { index: number; status: 'rejected'; error: { code: ErrorCode; message: string; limit?: LimitRef }; path?: string };

/** The limit a `spend_limit_reached` rejection names: which, its value, and when it resets. */
export interface LimitRef {
  id: string;
  scope: string;
  value: string;
  currency: string | null;
  unit: string | null;
  resets_at: string;
}

/** What became of a request's events: one result per event, in order. */
export interface IngestOutcome {
  single: boolean;
  results: (Accepted | Rejected)[];
  createdAt: string;
}

/**
 * Runs decoded items through {@link STEPS}: per item validate, normalize, resolve its
 * agent and make its wire form; publish the good events and wait for JetStream's
 * acknowledgement. Results are per item, in order; a rejected item never stops the
 * others; copies of an id in the batch are sent once. A publish failure throws (a 503)
 * and acknowledges nothing (nor is counted). Items from adapters that build them (not
 * from a body decoded by `decodeEvents`) must have been checked for unsafe text
 * (`findUnsafeText`).
 */
export async function runPipeline(
  deps: PipelineDeps,
  kind: EventKind,
  principal: Principal,
  items: readonly RawItem[],
  opts: { single?: boolean; headerId?: string | undefined } = {},
): Promise<IngestOutcome> {
  const single = opts.single ?? false;
  const headerId = opts.headerId;
  const now = deps.now ? deps.now() : Date.now();
  const n = items.length;
  const results: (Accepted | Rejected)[] = new Array(n);
  /** The step that rejected each item, by its index in STEPS (made at the first rejection). */
  let rejectedAt: Uint8Array | undefined;

  const normalized: (NormalizedEvent | undefined)[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const item = items[i]!;
    // decode
    if (!item.ok) {
      results[i] = rejection(i, item.code, item.message, item.path);
      (rejectedAt ??= new Uint8Array(n))[i] = DECODE;
      continue;
    }
    // validate
    const v = validateStep(kind, item.value);
    if (!v.ok) {
      results[i] = rejection(i, v.code, v.message, v.path);
      (rejectedAt ??= new Uint8Array(n))[i] = VALIDATE;
      continue;
    }
    // normalize
    const e = normalizeStep(kind, v.value, now, headerId);
    if (!e.ok) {
      results[i] = rejection(i, e.code, e.message, e.path);
      (rejectedAt ??= new Uint8Array(n))[i] = NORMALIZE;
      continue;
    }
    normalized[i] = e.value;
  }

  // resolve agent, for the batch: its agent keys once each, from the cache, the misses loaded together.
  const known = cachedAgents(deps.agents, principal, normalized);
  const agents = known.misses.length === 0 ? known.found : await loadAgents(deps.agents, principal, known);
  const wire: WireEvent[] = [];
  const createdAt = isoTime(now);
  let agentKey: string | undefined;
  let agent: StepResult<EventAgent> | undefined;
  let seen: Set<string> | undefined;
  const limitOf = deps.limits?.forBatch();
  let limit: ReachedLimit | undefined;
  for (let i = 0; i < n; i++) {
    const e = normalized[i];
    if (!e) continue;
    // resolve agent: it depends on agent_key alone, so a key equal to its neighbour's gets its answer (and its limit).
    if (agent === undefined || agentKey !== e.agentKey) {
      agentKey = e.agentKey;
      agent = agentFor(principal, e, agents);
      limit = limitOf && agent.ok ? limitOf(agent.value) : undefined;
    }
    if (!agent.ok) {
      results[i] = rejection(i, agent.code, agent.message, agent.path);
      (rejectedAt ??= new Uint8Array(n))[i] = RESOLVE_AGENT;
      continue;
    }
    // spend limit
    if (limit?.action === 'block') {
      results[i] = limitRejection(i, limit);
      (rejectedAt ??= new Uint8Array(n))[i] = SPEND_LIMIT;
      continue;
    }
    // to wire
    const id = e.id ?? newSequentialId('evt', now);
    results[i] = { index: i, id, status: 'processed' };
    if (e.id !== undefined && !firstCopy((seen ??= new Set()), agent.value.id, id)) continue;
    wire.push(toWire(e, agent.value, id, now, limit?.limit_id));
  }

  await deps.publisher.publish(wire);
  countOutcomes(kind, results, rejectedAt, wire.length);
  return { single, results, createdAt };
}

/** An event refused by a reached `block` limit: 402 spend_limit_reached, naming the limit. */
function limitRejection(index: number, l: ReachedLimit): Rejected {
  const amount = l.currency ? `${l.value} ${l.currency}` : `${l.value} ${l.unit}`;
  const what = l.metric === 'available_balance' ? `available balance at or below ${amount}` : `${amount} per ${l.window === 'day' ? 'day' : l.window === 'week' ? 'week' : l.window === 'billing_period' ? 'billing period' : 'period'}`;
  return {
    index,
    status: 'rejected',
    error: {
      code: 'spend_limit_reached',
      message: `spend limit ${l.limit_id} (${what}, ${l.scope}) is reached; events are refused until it resets at ${l.resets_at} or is raised`,
      limit: { id: l.limit_id, scope: l.scope, value: l.value, currency: l.currency, unit: l.unit, resets_at: l.resets_at },
    },
  };
}

function rejection(index: number, code: ErrorCode, message: string, path: string | undefined): Rejected {
  const r: Rejected = { index, status: 'rejected', error: { code, message } };
  if (path) r.path = path;
  return r;
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

/** The counters of one step for one kind, each series looked up once (no label hashing per event). */
class StepCounters {
  /** Events the step passed; to_wire: those sent. */
  readonly passed: { value: number };
  /** to_wire: copies of an id already in the batch, answered but not sent. */
  readonly duplicate: { value: number };
  /** Per rejection code: this step's series, and the kind's in `tally_ingest_events_total`. */
  readonly #rejected = new Map<string, { step: { value: number }; events: { value: number } }>();

  constructor(
    private readonly kind: EventKind,
    private readonly step: StepName,
  ) {
    this.passed = ingestMetrics.pipelineEvents.child([kind, step, 'passed']);
    this.duplicate = step === 'to_wire' ? ingestMetrics.pipelineEvents.child([kind, step, 'duplicate']) : { value: 0 };
  }

  reject(code: ErrorCode): void {
    let c = this.#rejected.get(code);
    if (!c) {
      c = { step: ingestMetrics.pipelineEvents.child([this.kind, this.step, code]), events: ingestMetrics.events.child([this.kind, code]) };
      this.#rejected.set(code, c);
    }
    c.step.value++;
    c.events.value++;
  }
}

const counters: Record<EventKind, StepCounters[]> = {
  action: STEPS.map((s) => new StepCounters('action', s.name)),
  outcome: STEPS.map((s) => new StepCounters('outcome', s.name)),
};
const acceptedEvents = { action: ingestMetrics.events.child(['action', 'accepted']), outcome: ingestMetrics.events.child(['outcome', 'accepted']) };
/** Rejections of the batch being counted, per step (counting is synchronous). */
const rejectedInStep = new Uint32Array(STEPS.length);

/**
 * Counts an answered batch: `tally_ingest_events_total` per result, and each step's
 * outcomes. A step passed what entered it less what it rejected; to_wire passed what
 * was sent (`sent`) and counts the rest as duplicates.
 */
function countOutcomes(kind: EventKind, results: readonly (Accepted | Rejected)[], rejectedAt: Uint8Array | undefined, sent: number): void {
  const steps = counters[kind];
  let accepted = results.length;
  if (rejectedAt !== undefined) {
    rejectedInStep.fill(0);
    for (let i = 0; i < results.length; i++) {
      const r = results[i]!;
      if (r.status === 'processed') continue;
      accepted--;
      rejectedInStep[rejectedAt[i]!]!++;
      steps[rejectedAt[i]!]!.reject(r.error.code);
    }
  }
  acceptedEvents[kind].value += accepted;
  let passed = results.length;
  for (let s = 0; s < TO_WIRE; s++) {
    if (rejectedAt !== undefined) passed -= rejectedInStep[s]!;
    steps[s]!.passed.value += passed;
  }
  steps[TO_WIRE]!.passed.value += sent;
  steps[TO_WIRE]!.duplicate.value += passed - sent;
}
