/**
 * The spend-limit state pushed from the billing role to every ingest process (README
 * "Stopping runaway spend"): the limits reached whose action is `flag` or `block`, as a
 * whole (never a delta, so a lost message costs nothing but its own freshness), stamped
 * with the instant billing read it. Small by construction: only reached limits travel,
 * whatever number of limits is configured. Sent whole when it changed (and to an ingest
 * process that asks); between changes, a heartbeat of a few bytes names the set by its digest.
 */
import { createHash } from 'node:crypto';

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

/**
 * The state message: every reached flag/block limit, as of `at` (ms since the epoch,
 * billing's clock), and `digest`, a fingerprint of `limits` (absent from an older billing
 * process's state).
 */
export interface LimitState {
  at: number;
  limits: ReachedLimit[];
  digest?: string;
}

/**
 * A heartbeat: the set of digest `digest` is still the reached set, as of `at`. Billing
 * sends one instead of the whole set when the set did not change (issue 32: 1,000 reached
 * limits are ~225 KB of JSON, four times a second, parsed by every ingest process); an
 * edge holding another digest asks for the whole state (`limits.state.get`).
 */
export interface LimitHeartbeat {
  at: number;
  digest: string;
}

/** The digest of a reached set: of its JSON text (what billing compares to decide it changed). */
export function limitsDigest(limitsJson: string): string {
  return createHash('sha1').update(limitsJson).digest('base64url').slice(0, 22);
}

export function encodeLimitState(s: LimitState | LimitHeartbeat): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(s));
}

/** The state (or heartbeat) in a message, or null when it is neither (a foreign or truncated message is ignored, never trusted). */
export function decodeLimitState(data: Uint8Array): LimitState | LimitHeartbeat | null {
  try {
    const s = JSON.parse(new TextDecoder().decode(data)) as Partial<LimitState>;
    if (typeof s.at !== 'number') return null;
    if (Array.isArray(s.limits)) return s as LimitState;
    return typeof s.digest === 'string' && s.limits === undefined ? { at: s.at, digest: s.digest } : null;
  } catch {
    return null;
  }
}

/** Whether a decoded message is a whole state (not a heartbeat). */
export const isWholeState = (s: LimitState | LimitHeartbeat): s is LimitState => Array.isArray((s as LimitState).limits);
