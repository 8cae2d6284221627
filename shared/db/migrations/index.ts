import type { Migration } from 'kysely';
import * as m0001 from './0001_core.ts';
import * as m0002 from './0002_catalog.ts';
import * as m0003 from './0003_tags_webhooks.ts';
import * as m0004 from './0004_invoicing.ts';
import * as m0005 from './0005_webhook_outbox.ts';
import * as m0006 from './0006_costs_reports.ts';
import * as m0007 from './0007_invoice_numbers.ts';
import * as m0008 from './0008_invoice_corrections.ts';
import * as m0009 from './0009_cost_rollup.ts';
import * as m0010 from './0010_commitments.ts';
import * as m0011 from './0011_credits.ts';
import * as m0012 from './0012_credit_topups.ts';
import * as m0013 from './0013_prepaid_commitments.ts';
import * as m0014 from './0014_spend_limits.ts';
import * as m0016 from './0016_stream_positions.ts';
import * as m0017 from './0017_account_indexes.ts';
import * as m0019 from './0019_limit_alerts_per_value.ts';
import * as m0020 from './0020_spend_limit_version.ts';
import * as m0021 from './0021_agent_instances_account.ts';

/**
 * Every Postgres migration, in order. Add new ones here with the next number; never
 * edit one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_catalog': m0002,
  '0003_tags_webhooks': m0003,
  '0004_invoicing': m0004,
  '0005_webhook_outbox': m0005,
  '0006_costs_reports': m0006,
  '0007_invoice_numbers': m0007,
  '0008_invoice_corrections': m0008,
  '0009_cost_rollup': m0009,
  '0010_commitments': m0010,
  '0011_credits': m0011,
  '0012_credit_topups': m0012,
  '0013_prepaid_commitments': m0013,
  '0014_spend_limits': m0014,
  '0016_stream_positions': m0016,
  '0017_account_indexes': m0017,
  '0019_limit_alerts_per_value': m0019,
  '0020_spend_limit_version': m0020,
  '0021_agent_instances_account': m0021,
};
