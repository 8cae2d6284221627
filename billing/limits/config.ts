import { Type } from '@sinclair/typebox';
import { parseEnv, type Env } from '../../shared/config/parse.ts';
import type { EvaluatorConfig } from './evaluator.ts';

const LimitEnv = Type.Object({
  /** Pause between two passes of the spend-limit evaluator (billing role). */
  TALLY_LIMIT_EVAL_INTERVAL_MS: Type.Integer({ minimum: 10, maximum: 60_000, default: 100 }),
  /** Every spend limit is evaluated at least this often, with or without new usage. */
  TALLY_LIMIT_FULL_PASS_MS: Type.Integer({ minimum: 1000, maximum: 86_400_000, default: 60_000 }),
  /** The reached-limit state is pushed to the ingest processes at least this often (its freshness at the edge). */
  TALLY_LIMIT_STATE_HEARTBEAT_MS: Type.Integer({ minimum: 50, maximum: 60_000, default: 250 }),
});

export function parseLimitConfig(env: Env): EvaluatorConfig {
  const e = parseEnv(LimitEnv, env);
  return Object.freeze({ intervalMs: e.TALLY_LIMIT_EVAL_INTERVAL_MS, fullPassMs: e.TALLY_LIMIT_FULL_PASS_MS, heartbeatMs: e.TALLY_LIMIT_STATE_HEARTBEAT_MS });
}
