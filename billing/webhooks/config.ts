import { Type } from '@sinclair/typebox';
import { parseEnv, type Env } from '../../shared/config/parse.ts';

const WebhookEnv = Type.Object({
  /** `on`: webhooks may target loopback and private addresses (self-hosted receivers, tests); `off` refuses them. */
  TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
});

export interface WebhookConfig {
  readonly allowPrivateTargets: boolean;
}

export function parseWebhookConfig(env: Env): WebhookConfig {
  const e = parseEnv(WebhookEnv, env);
  return Object.freeze({ allowPrivateTargets: e.TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS === 'on' });
}
