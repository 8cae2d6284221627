/**
 * Spend limits at the edge (README "Stopping runaway spend"): every ingest process holds
 * the reached `flag`/`block` limits pushed by the billing role (shared/limits/state.ts),
 * in memory, and checks each event's agent instance, account and environment against
 * them at O(1) (three map lookups, once per run of events of one agent). No Postgres or
 * ClickHouse query per event.
 *
 * How the state arrives: billing publishes the whole reached set on every change, and a
 * heartbeat naming the set by its digest at least every TALLY_LIMIT_STATE_HEARTBEAT_MS; an
 * ingest process asks for the whole set when it starts (no cold start), then listens, and
 * asks again when a heartbeat names a set other than the one it holds (a lost message, or
 * a billing process that read another set): until that answer, its state ages.
 *
 * Fail open: a state that arrived longer ago than TALLY_LIMIT_STATE_MAX_AGE_MS (billing
 * down, NATS cut; billing publishes every heartbeat whatever its evaluations do) is
 * not enforced: events are accepted unflagged, `tally_ingest_limit_state_stale` is 1 and a
 * warning is logged once per stale spell. A billing outage must not stop a fleet forever;
 * what is accepted meanwhile is still metered and billed, and the limit catches up (and
 * alerts) as soon as billing is back. No state ever received counts as stale.
 */
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { decodeLimitState, isWholeState, type LimitHeartbeat, type LimitState, type ReachedLimit } from '../../shared/limits/state.ts';
import { logger } from '../../shared/log.ts';
import { Gauge, registry } from '../../shared/metrics.ts';
import type { NatsNames } from '../../shared/nats/names.ts';

const log = logger('limit-gate');

/** What the pipeline asks of the gate for one batch. */
export interface LimitCheck {
  /** The reached limit an event of this agent instance is refused (block) or marked (flag) by; undefined when none. */
  (agent: { id: string; accountId: string; environmentId: string }): ReachedLimit | undefined;
}

const key = (env: string, scope: string, id: string) => `${env}\u0000${scope}\u0000${id}`;

const gates = new Set<LimitGate>();

new Gauge({
  name: 'tally_ingest_limit_state_age_seconds',
  help: 'Age of the spend-limit state this ingest process enforces (from the billing role); -1 before any arrived',
  registers: [registry],
  collect() {
    for (const g of gates) this.set(g.ageMs() < 0 ? -1 : g.ageMs() / 1000);
  },
});
new Gauge({
  name: 'tally_ingest_limit_state_stale',
  help: '1 when the spend-limit state is older than TALLY_LIMIT_STATE_MAX_AGE_MS (or none arrived): spend limits are not enforced (fail open)',
  registers: [registry],
  collect() {
    for (const g of gates) this.set(g.stale(Date.now()) ? 1 : 0);
  },
});
new Gauge({
  name: 'tally_ingest_limits_reached',
  help: 'Reached spend limits this ingest process enforces, by action (block, flag)',
  labelNames: ['action'] as const,
  registers: [registry],
  collect() {
    for (const g of gates) {
      this.set({ action: 'block' }, g.count('block'));
      this.set({ action: 'flag' }, g.count('flag'));
    }
  },
});

export class LimitGate {
  #byKey = new Map<string, ReachedLimit>();
  #state: LimitState = { at: 0, limits: [] };
  #receivedAt = 0;
  #staleLogged = false;
  #sub: Subscription | undefined;
  #ask: (() => void) | undefined;
  #asking = false;
  /** Whole states asked for after a heartbeat of another digest (tests read it). */
  asked = 0;

  constructor(private readonly maxAgeMs: number) {}

  /** Starts listening, and asks billing for the state now (answered when a billing process runs). */
  async start(nc: NatsConnection, names: NatsNames): Promise<void> {
    gates.add(this);
    this.#sub = nc.subscribe(names.limitStateSubject, { callback: (_err, msg) => this.#take(msg.data) });
    const ask = async () => {
      try {
        const reply = await nc.request(names.limitStateRequestSubject, new Uint8Array(0), { timeout: 500 });
        this.#take(reply.data);
      } catch {
        // No billing process (yet): the next whole state or heartbeat brings it; meanwhile the state ages (and fails open once stale).
      }
    };
    this.#ask = () => {
      if (this.#asking) return;
      this.#asking = true;
      this.asked++;
      void ask().finally(() => (this.#asking = false));
    };
    this.#asking = true;
    await ask().finally(() => (this.#asking = false));
  }

  /** Sets how a whole state is asked for (tests without NATS). */
  askWith(fn: () => void): void {
    this.#ask = () => {
      this.asked++;
      fn();
    };
  }

  stop(): void {
    this.#sub?.unsubscribe();
    gates.delete(this);
  }

  /** Takes a state (a newer one replaces the set; an older one, from a slower billing process, is ignored, but still says billing is alive). */
  set(s: LimitState): void {
    if (s.at < this.#state.at) {
      this.#receivedAt = Date.now();
      return;
    }
    const m = new Map<string, ReachedLimit>();
    for (const l of s.limits) {
      const k = key(l.environment_id, l.scope, l.scope_id);
      // A block wins over a flag of the same subject.
      if (!m.has(k) || l.action === 'block') m.set(k, l);
    }
    this.#byKey = m;
    this.#state = s;
    this.#fresh();
  }

  /**
   * Takes a heartbeat: the set it names is the one held, so the held state is fresh as of
   * its instant (nothing parsed, nothing rebuilt); another set is asked for whole, and the
   * held state is not refreshed meanwhile (it must not pass for current).
   */
  heartbeat(h: LimitHeartbeat): void {
    if (h.at < this.#state.at) {
      this.#receivedAt = Date.now();
      return;
    }
    if (h.digest !== this.#state.digest) {
      this.#ask?.();
      return;
    }
    this.#state = { ...this.#state, at: h.at };
    this.#fresh();
  }

  #take(data: Uint8Array): void {
    const s = decodeLimitState(data);
    if (!s) return;
    if (isWholeState(s)) this.set(s);
    else this.heartbeat(s);
  }

  #fresh(): void {
    this.#receivedAt = Date.now();
    if (this.#staleLogged) {
      this.#staleLogged = false;
      log.info('spend-limit state fresh again; limits enforced', { reached: this.#state.limits.length });
    }
  }

  /** Time since the last state arrived (ms), -1 before any. */
  ageMs(): number {
    return this.#receivedAt === 0 ? -1 : Date.now() - this.#receivedAt;
  }

  /** Whether the state is too old to enforce: by this process's clock, since it arrived (no clock of another machine is compared). */
  stale(nowMs: number): boolean {
    return this.#receivedAt === 0 || nowMs - this.#receivedAt > this.maxAgeMs;
  }

  count(action: 'block' | 'flag'): number {
    let n = 0;
    for (const l of this.#byKey.values()) if (l.action === action) n++;
    return n;
  }

  /** The check for one batch, or undefined when nothing is to be checked (no reached limit, or a stale state: fail open). */
  forBatch(): LimitCheck | undefined {
    if (this.#byKey.size === 0) return undefined;
    const now = Date.now();
    if (this.stale(now)) {
      if (!this.#staleLogged) {
        this.#staleLogged = true;
        log.warn('spend-limit state is stale; failing open (limits not enforced until billing publishes again)', { age_ms: now - this.#receivedAt, max_age_ms: this.maxAgeMs });
      }
      return undefined;
    }
    const byKey = this.#byKey;
    return (a) => {
      const own = byKey.get(key(a.environmentId, 'agent_instance', a.id));
      if (own?.action === 'block') return own;
      const account = a.accountId ? byKey.get(key(a.environmentId, 'account', a.accountId)) : undefined;
      if (account?.action === 'block') return account;
      const env = byKey.get(key(a.environmentId, 'environment', a.environmentId));
      return env?.action === 'block' ? env : (own ?? account ?? env);
    };
  }
}
