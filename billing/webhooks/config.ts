import { Type } from '@sinclair/typebox';
import { parseEnv, type Env } from '../../shared/config/parse.ts';
import type { TargetPolicy } from './targets.ts';

const WebhookEnv = Type.Object({
  /** `on`: webhooks may target loopback and private addresses (self-hosted receivers, tests); `off` refuses them. */
  TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
  /** `on` (with private targets on): webhooks may also target cloud metadata addresses (169.254.169.254, fd00:ec2::254, ...); `off` refuses them always. */
  TALLY_WEBHOOK_ALLOW_METADATA_TARGETS: Type.Union([Type.Literal('on'), Type.Literal('off')], { default: 'off' }),
});

export interface WebhookConfig {
  readonly allowPrivateTargets: boolean;
  readonly allowMetadataTargets: boolean;
}

export function parseWebhookConfig(env: Env): WebhookConfig {
  const e = parseEnv(WebhookEnv, env);
  return Object.freeze({ allowPrivateTargets: e.TALLY_WEBHOOK_ALLOW_PRIVATE_TARGETS === 'on', allowMetadataTargets: e.TALLY_WEBHOOK_ALLOW_METADATA_TARGETS === 'on' });
}

/** The policy of webhook targets a configuration sets (targets.ts); none given: public addresses only. */
export function targetPolicy(cfg: Partial<WebhookConfig> | undefined): TargetPolicy {
  return Object.freeze({ allowPrivate: cfg?.allowPrivateTargets ?? false, allowMetadata: cfg?.allowMetadataTargets ?? false });
}
