import type { Db } from '../../../shared/db/postgres.ts';
import { DependencyUnavailableError } from '../../../shared/errors.ts';
import { LoadingCache } from '../../../shared/auth/loading-cache.ts';
import type { SpanRules } from './mapping.ts';
import type { SpanRuleSource } from './traces-handler.ts';

/**
 * Span rules of an environment from Postgres: the names of its tagged actions
 * (`tagged_items`, kind 'action'). Cached per environment for `ttlMs`, so a change of
 * the tagged actions applies to trace exports within that time.
 */
export class TaggedSpanRules implements SpanRuleSource {
  readonly #cache: LoadingCache<SpanRules>;

  constructor(
    private readonly db: Db,
    opts: { ttlMs?: number } = {},
  ) {
    const ttlMs = opts.ttlMs ?? 30_000;
    this.#cache = new LoadingCache((env) => this.#load(env), { ttlMs, negativeTtlMs: ttlMs, maxEntries: 10_000 });
  }

  async rules(environmentId: string): Promise<SpanRules> {
    return (await this.#cache.get(environmentId)) ?? { taggedActions: new Set() };
  }

  async #load(environmentId: string): Promise<SpanRules> {
    try {
      const rows = await this.db.selectFrom('tagged_items').select('name').where('environment_id', '=', environmentId).where('kind', '=', 'action').execute();
      return { taggedActions: new Set(rows.map((r) => r.name)) };
    } catch (err) {
      throw new DependencyUnavailableError('Postgres', err);
    }
  }
}
