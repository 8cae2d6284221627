import type { FirstSeenUsersQuery, UsageQuery, UsageRow } from '../usage/usage-query.ts';
import type { Db } from '../../shared/db/postgres.ts';
import type { InvoicingConfig } from './config.ts';
import type { Rater } from './rater.ts';

/** The narrow usage query billing needs (UsageStore implements it). */
export interface UsageSource {
  query(q: UsageQuery): Promise<UsageRow[]>;
  /** Per window, the users first active in it among the windows (@user and @seat over a period's segments). */
  firstSeenUsers(q: FirstSeenUsersQuery): Promise<string[]>;
}

/** What invoicing needs: Postgres, usage, a rater, its config and a clock (injectable for tests). */
export interface Invoicing {
  readonly db: Db;
  readonly usage: UsageSource;
  readonly rater: Rater;
  readonly config: InvoicingConfig;
  readonly now: () => Date;
}
