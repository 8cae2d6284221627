/**
 * The spend-limit state pushed from the billing role to every ingest process (README
 * "Stopping runaway spend"): the limits reached whose action is `flag` or `block`, as a
 * whole (never a delta, so a lost message costs nothing but its own freshness), stamped
 * with the instant billing read it. Small by construction: only reached limits travel,
 * whatever number of limits is configured.
 */

/** One reached limit as the edge needs it. */
export interface ReachedLimit {
  limit_id: string;
  environment_id: string;
  scope: 'account' | 'agent_instance' | 'environment';
  /** The account or agent instance id; the environment's id for an environment-wide limit. */
  scope_id: string;
  action: 'flag' | 'block';
  /** The limit's value (decimal text) and, for money, its currency. */
  value: string;
  currency: string | null;
  unit: string | null;
  /** When the limit's period ends (it unblocks then unless reached again), ISO 8601. */
  resets_at: string;
  /** What it counts and over which window (absent in a state from an older billing process). */
  metric?: 'spend' | 'available_balance' | 'quantity';
  window?: 'day' | 'week' | 'billing_period';
}

/** The state message: every reached flag/block limit, as of `at` (ms since the epoch, billing's clock). */
export interface LimitState {
  at: number;
  limits: ReachedLimit[];
}

export function encodeLimitState(s: LimitState): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(s));
}

/** The state in a message, or null when it is not one (a foreign or truncated message is ignored, never trusted). */
export function decodeLimitState(data: Uint8Array): LimitState | null {
  try {
    const s = JSON.parse(new TextDecoder().decode(data)) as LimitState;
    return typeof s.at === 'number' && Array.isArray(s.limits) ? s : null;
  } catch {
    return null;
  }
}
