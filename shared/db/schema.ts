import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type EnvironmentName = 'development' | 'staging' | 'production';
export type KeyKind = 'sdk' | 'api';
export type Permission = 'sdk' | 'read-only' | 'read-write' | 'admin';

interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}

interface EnvironmentsTable {
  id: string;
  organization_id: string;
  name: EnvironmentName;
  created_at: Generated<Date>;
}

export interface ApiKeysTable {
  id: string;
  organization_id: string;
  environment_id: string;
  kind: KeyKind;
  permission: Permission;
  name: string;
  /** First characters of the key, for display; the key itself is never stored. */
  key_prefix: string;
  /** Hex SHA-256 of the key. */
  key_hash: string;
  rate_limit_per_minute: number | null;
  created_at: Generated<Date>;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  /** Set on a rotated key: the id of the key that replaced it (migration 0002). */
  rotated_to: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface AccountsTable {
  id: string;
  environment_id: string;
  name: string;
  email: string | null;
  external_id: string | null;
  description: string | null;
  billing_address: ColumnType<Record<string, string> | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ContactsTable {
  id: string;
  environment_id: string;
  account_id: string;
  first_name: string;
  last_name: string;
  email: string;
  role: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AgentTypesTable {
  id: string;
  environment_id: string;
  name: string;
  description: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface AgentInstancesTable {
  id: string;
  environment_id: string;
  name: string;
  description: string | null;
  agent_type_id: string | null;
  /** Family A agent `type`: langgraph | crewai | n8n | custom. */
  framework: string | null;
  account_id: string | null;
  contact_id: string | null;
  is_active: Generated<boolean>;
  /** Hex SHA-256 of the instance secret. */
  secret_hash: string;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

type Json<T> = ColumnType<T, string, string>;

export type BillingCycle = 'monthly' | 'quarterly' | 'annual';
export type SubscriptionStatus = 'draft' | 'active' | 'paused' | 'cancelled';

export interface ProductsTable {
  id: string;
  environment_id: string;
  agent_type_id: string;
  name: string;
  description: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface RatePlansTable {
  id: string;
  environment_id: string;
  product_id: string;
  name: string;
  description: string | null;
  billing_cycle_code: BillingCycle;
  /** ISO 4217, upper case. */
  currency: string;
  /** Minimum per billing period in the plan's currency, or null (migration 0010). */
  minimum_commitment: ColumnType<string | null, string | null | undefined, string | null>;
  /** Prepaid commitment of its subscriptions, or null (migration 0013). */
  prepaid_commitment: ColumnType<PrepaidCommitment | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ChargeModelsTable {
  id: string;
  environment_id: string;
  name: string;
  description: string;
  /** Canonical kind (billing/rating/charge-models.ts). */
  type: string;
  /** Canonical PricingStrategy. */
  pricing_strategy: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface ChargesTable {
  id: string;
  environment_id: string;
  rate_plan_id: string;
  charge_model_id: string;
  name: string;
  description: string | null;
  charge_type: 'usage' | 'recurring' | 'one_time';
  unit_of_measure: string | null;
  currency: string;
  /** The charge's own `pricing` overrides, as validated. */
  pricing: Json<Record<string, unknown>>;
  /** Canonical pricing of model + overrides, ready for rating. */
  resolved_pricing: Json<Record<string, unknown>>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SubscriptionsTable {
  id: string;
  environment_id: string;
  account_id: string;
  rate_plan_id: string;
  status: SubscriptionStatus;
  contract_effective_date: Timestamp;
  activated_at: NullableTimestamp;
  paused_at: NullableTimestamp;
  cancel_date: NullableTimestamp;
  cancel_reason: string | null;
  cancelled_at: NullableTimestamp;
  renewed_at: NullableTimestamp;
  /** Overrides the plan's minimum commitment per period; null: the plan's (migration 0010). */
  minimum_commitment: ColumnType<string | null, string | null | undefined, string | null>;
  /** Overrides the plan's prepaid commitment; null: the plan's (migration 0013). */
  prepaid_commitment: ColumnType<PrepaidCommitment | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

interface SubscriptionAgentInstancesTable {
  subscription_id: string;
  agent_instance_id: string;
}

/** One recorded state change of a subscription, with the time it takes effect. */
interface SubscriptionEventsTable {
  id: string;
  environment_id: string;
  subscription_id: string;
  /** created | activated | paused | resumed | cancelled | renewed | plan_changed */
  type: string;
  from_status: SubscriptionStatus | null;
  to_status: SubscriptionStatus;
  /** The rate plan in force from effective_at on. */
  rate_plan_id: string;
  effective_at: Timestamp;
  data: ColumnType<Record<string, unknown>, string | undefined, string>;
  created_at: Generated<Date>;
}

/** Tables of the billing core, as kysely sees them. Later migrations extend this. */
export interface Database {
  organizations: OrganizationsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  accounts: AccountsTable;
  contacts: ContactsTable;
  agent_types: AgentTypesTable;
  agent_instances: AgentInstancesTable;
  products: ProductsTable;
  rate_plans: RatePlansTable;
  charge_models: ChargeModelsTable;
  charges: ChargesTable;
  subscriptions: SubscriptionsTable;
  subscription_agent_instances: SubscriptionAgentInstancesTable;
  subscription_events: SubscriptionEventsTable;
}

// --- Invoicing (migration 0004) --------------------------------------------------
// Declared as a second `Database` block (interface merging) so other migrations can
// append their tables without touching the same lines.

type Numeric = ColumnType<string, string, string>;
type JsonValue<T> = ColumnType<T, string, string>;

export type InvoiceStatus = 'draft' | 'finalized' | 'paid' | 'void';

interface InvoiceSequencesTable {
  environment_id: string;
  last_number: ColumnType<string, string | number, string | number>;
}

export interface InvoicesTable {
  id: string;
  environment_id: string;
  /** Per-environment, gap-free: INV-000001, ... Assigned when the invoice leaves draft (migration 0007); null on drafts. */
  number: string | null;
  account_id: string;
  /** Null on a credit purchase invoice (a paid grant's own invoice, migration 0011), as are the plan and cycle. */
  subscription_id: string | null;
  /** The plan in force at the end of the period (segments name theirs). */
  rate_plan_id: string | null;
  billing_cycle: BillingCycle | null;
  currency: string;
  period_start: Timestamp;
  period_end: Timestamp;
  status: InvoiceStatus;
  subtotal: Numeric;
  discount_total: Numeric;
  total: Numeric;
  issue_date: Timestamp;
  due_date: Timestamp;
  /** A draft is re-rated until then, then finalized. */
  grace_until: Timestamp;
  /** The usage queries that produced the invoice (scope, windows, quantities). */
  usage: JsonValue<unknown>;
  rated_at: Timestamp;
  finalized_at: NullableTimestamp;
  paid_at: NullableTimestamp;
  payment_reference: string | null;
  voided_at: NullableTimestamp;
  bill_run_id: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface InvoiceLinesTable {
  invoice_id: string;
  position: number;
  charge_id: string;
  charge_name: string;
  model: string;
  charge_type: string;
  unit: string | null;
  quantity: Numeric;
  unit_price: ColumnType<string | null, string | null, string | null>;
  tiers: ColumnType<unknown, string | null, string | null>;
  /** overage / discount detail of the rating engine, and the rate plan of the segment. */
  detail: JsonValue<Record<string, unknown>>;
  proration: ColumnType<string | null, string | null, string | null>;
  amount: Numeric;
  agent_instance_id: string | null;
  service_start: Timestamp;
  service_end: Timestamp;
  /** The usage query window and scope that produced the line's quantity (usage lines). */
  usage_query: ColumnType<unknown, string | null, string | null>;
}

export interface BillRunsTable {
  id: string;
  environment_id: string;
  billing_date: Timestamp;
  status: 'running' | 'completed' | 'failed';
  subscriptions_considered: ColumnType<number, number | undefined, number>;
  invoices_created: ColumnType<number, number | undefined, number>;
  invoices_existing: ColumnType<number, number | undefined, number>;
  subscriptions_skipped: ColumnType<number, number | undefined, number>;
  failures: ColumnType<unknown, string | undefined, string>;
  /** Sum of the run's invoice totals per currency. */
  totals: ColumnType<Record<string, string>, string | undefined, string>;
  created_at: Generated<Date>;
  completed_at: NullableTimestamp;
}

interface BillRunInvoicesTable {
  bill_run_id: string;
  invoice_id: string;
  /** False when the invoice already existed (made by an earlier run or on demand). */
  created: boolean;
}

export interface InvoiceTemplatesTable {
  id: string;
  environment_id: string;
  name: string;
  template_data: JsonValue<Record<string, unknown>>;
  is_active: boolean;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface Database {
  invoice_sequences: InvoiceSequencesTable;
  invoices: InvoicesTable;
  invoice_lines: InvoiceLinesTable;
  bill_runs: BillRunsTable;
  bill_run_invoices: BillRunInvoicesTable;
  invoice_templates: InvoiceTemplatesTable;
}

// ---- Migration 0003: tagged actions and outcomes, webhook endpoint configuration.

/** One tagged action or outcome type of an environment (PUT replaces the set of a kind). */
export interface TaggedItemsTable {
  environment_id: string;
  kind: 'action' | 'outcome';
  /** The action_type or outcome_type of events, as ingest stores it. */
  name: string;
  description: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Where an environment's webhooks go: URL, subscribed events and the signing secret. */
export interface WebhookEndpointsTable {
  id: string;
  environment_id: string;
  url: string;
  /** Spec event names, or `['*']` for every event. */
  events: string[];
  description: string | null;
  /**
   * Signing secret in clear (a hash would make HMAC-SHA256 signing impossible, unlike API
   * keys and agent secrets which are only compared). Never returned after create or rotate.
   */
  secret: string;
  is_active: Generated<boolean>;
  secret_rotated_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Tables of migration 0003 (interface merging keeps the declaration above untouched). */
export interface Database {
  tagged_items: TaggedItemsTable;
  webhook_endpoints: WebhookEndpointsTable;
}

interface WebhookEventsTable {
  id: string;
  environment_id: string;
  event: string;
  /** The exact JSON body sent and signed on every attempt. */
  body: string;
  created_at: Generated<Date>;
}

interface WebhookDeliveriesTable {
  id: string;
  environment_id: string;
  event_id: string;
  endpoint_id: string;
  status: Generated<'pending' | 'delivered' | 'failed'>;
  attempts: Generated<number>;
  next_attempt_at: Timestamp;
  claim_token: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: NullableTimestamp;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

interface WebhookAttemptsTable {
  id: string;
  delivery_id: string;
  attempt: number;
  started_at: Timestamp;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

/** The webhook outbox (migration 0005). */
export interface Database {
  webhook_events: WebhookEventsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}

// ---- Migration 0006: P&L analyses and the outcome.completed poller.

type PnlAnalysisStatus = 'pending' | 'running' | 'completed' | 'failed';

/** A P&L analysis computed in the background (POST /api/v1/pnl, GET /api/v1/pnl/{id}). */
export interface PnlAnalysesTable {
  id: string;
  environment_id: string;
  analysis_type: 'agent' | 'customer' | 'environment';
  agent_instance_id: string | null;
  account_id: string | null;
  start_date: Timestamp;
  end_date: Timestamp;
  granularity: string;
  status: Generated<PnlAnalysisStatus>;
  result: ColumnType<unknown, string | null | undefined, string | null>;
  error: string | null;
  created_at: Generated<Date>;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
}

/** Outcomes announced with outcome.completed, one per event identity. */
interface OutcomeNotificationsTable {
  environment_id: string;
  agent_instance_id: string;
  event_id: string;
  webhook_event_id: string;
  created_at: Generated<Date>;
}

/** Named positions of pollers (e.g. the ClickHouse insertion time the outcome poller reached). */
interface PollerCursorsTable {
  name: string;
  position: string;
  updated_at: Generated<Date>;
}

export interface Database {
  pnl_analyses: PnlAnalysesTable;
  outcome_notifications: OutcomeNotificationsTable;
  poller_cursors: PollerCursorsTable;
}

// ---- Migration 0008: invoice corrections (credit notes and replacement invoices).
// Merged into the invoices table of 0004. The links are written once, on insert (their
// update type is `never`): a corrected invoice is never updated, its "corrected by" is a query.

/** `invoice`, or `credit_note`: a document reversing one invoice in full (negative lines). */
export type InvoiceKind = 'invoice' | 'credit_note';

export interface InvoicesTable {
  kind: ColumnType<InvoiceKind, InvoiceKind | undefined, never>;
  /** Credit notes: the invoice they reverse. */
  corrects_invoice_id: ColumnType<string | null, string | null | undefined, never>;
  /** Replacement invoices: the invoice (finalized, paid or void) they replace. */
  replaces_invoice_id: ColumnType<string | null, string | null | undefined, never>;
  correction_reason: ColumnType<string | null, string | null | undefined, never>;
}

/** Gapless credit note numbers per environment (CN-000001, ...), separate from invoice numbers. */
interface CreditNoteSequencesTable {
  environment_id: string;
  last_number: ColumnType<string, string | number, string | number>;
}

export interface Database {
  credit_note_sequences: CreditNoteSequencesTable;
}

// ---- Migration 0009: the daily cost rollup's state (billing/costs/cost-rollup.ts).

interface CostRollupStateTable {
  ch_database: string;
  /** bigint: read as a string. */
  done_seq: ColumnType<string, string | number, string | number>;
  planned_seq: ColumnType<string | null, string | number | null | undefined, string | number | null>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
  /** Migration 0013: the events stream (its creation time) the sequences are of; null before. */
  stream_created: ColumnType<string | null, string | null | undefined, string | null>;
}

interface CostRollupDirtyTable {
  id: Generated<string>;
  ch_database: string;
  environment_id: string;
  from_ts: Date;
  created_at: Generated<Date>;
}

export interface Database {
  cost_rollup_state: CostRollupStateTable;
  cost_rollup_dirty: CostRollupDirtyTable;
}

// ---- Migration 0011: prepaid credits (billing/credits/). Grants, their append-only
// ledger, and what each invoice applies of each grant.

export type CreditGrantKind = 'paid' | 'free';
export type CreditUsable = 'immediately' | 'on_payment';
export type CreditEntryType = 'grant' | 'burn' | 'release' | 'expiry' | 'void' | 'adjustment' | 'overpayment' | 'refund';

/** What a grant's credit may pay for; null: the whole invoice. Lists are ORed. */
export interface CreditScope {
  charge_ids?: string[];
  product_ids?: string[];
  units?: string[];
  /** Only this subscription's invoices (a prepaid commitment's grant; not settable through the grant API). */
  subscription_id?: string;
}

export interface CreditGrantsTable {
  id: string;
  environment_id: string;
  account_id: string;
  currency: string;
  kind: CreditGrantKind;
  amount: Numeric;
  /** Paid grants: what the purchase invoice bills (default the amount). */
  price: ColumnType<string | null, string | null | undefined, never>;
  priority: number;
  effective_at: Timestamp;
  expires_at: NullableTimestamp;
  scope: ColumnType<CreditScope | null, string | null, never>;
  metadata: ColumnType<Record<string, unknown>, string, never>;
  usable: CreditUsable;
  /** When its credit became usable (a grant entry is written then); null while an on_payment purchase is unpaid. */
  usable_at: NullableTimestamp;
  /** Paid grants: the purchase invoice. */
  invoice_id: string | null;
  voided_at: NullableTimestamp;
  /** Set when the scheduler wrote the grant's expiry entry (or found nothing left to expire). */
  expiry_written_at: NullableTimestamp;
  void_reason: string | null;
  idempotency_key: string | null;
  request_hash: string | null;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface CreditEntriesTable {
  id: string;
  seq: Generated<string>;
  environment_id: string;
  account_id: string;
  currency: string;
  grant_id: string;
  type: CreditEntryType;
  /** Signed: grant/release +, burn/expiry/void -, adjustment either. */
  amount: Numeric;
  invoice_id: string | null;
  reason: string | null;
  created_by: string | null;
  occurred_at: Timestamp;
  created_at: Generated<Date>;
}

export interface CreditApplicationsTable {
  invoice_id: string;
  grant_id: string;
  amount: Numeric;
}

export interface InvoicesTable {
  /** The credits applied (a positive sum of the `credits_applied` lines' magnitudes). */
  credits_applied: ColumnType<string, string | undefined, string>;
  /** total - credits_applied: what the customer owes. */
  amount_due: Numeric;
}

export interface Database {
  credit_grants: CreditGrantsTable;
  credit_entries: CreditEntriesTable;
  credit_applications: CreditApplicationsTable;
}

// ---- Migration 0012: credit balance alerts and top-ups (billing/credits/watch.ts, topups.ts).

export interface CreditSettingsTable {
  account_id: string;
  currency: string;
  environment_id: string;
  /** credits.balance_low is sent when the available balance falls below it. */
  low_balance_threshold: Numeric;
  updated_by: string | null;
  updated_at: Generated<Date>;
}

export interface CreditWatchDirtyTable {
  id: Generated<string>;
  account_id: string;
  currency: string;
  environment_id: string;
  marked_at: Generated<Date>;
}

export interface CreditCrossingsTable {
  id: string;
  environment_id: string;
  account_id: string;
  currency: string;
  /** `balance_low`, `depleted`, or `topup:<rule id>`. */
  watch: string;
  crossing: number;
  threshold: Numeric;
  available: Numeric;
  crossed_at: Timestamp;
  rearmed_at: NullableTimestamp;
}

export type CreditTopupType = 'recurring' | 'threshold';
export type CreditTopupInterval = 'week' | 'month';

export interface CreditTopupsTable {
  id: string;
  environment_id: string;
  account_id: string;
  currency: string;
  type: CreditTopupType;
  grant_kind: CreditGrantKind;
  amount: string | null;
  price: string | null;
  target_balance: string | null;
  threshold: string | null;
  interval: CreditTopupInterval | null;
  starts_at: Timestamp;
  next_run_at: NullableTimestamp;
  priority: number;
  usable: CreditUsable;
  expires_after_days: number | null;
  metadata: ColumnType<Record<string, unknown>, string, never>;
  disabled_at: NullableTimestamp;
  created_by: string | null;
  created_at: Generated<Date>;
}

export interface InvoicesTable {
  /** What a payment of the invoice this one replaces settles of it (migration 0012). */
  payment_applied: ColumnType<string, string | undefined, string>;
}

export interface CreditTopupRunsTable {
  topup_id: string;
  trigger: string;
  grant_id: string | null;
  created_at: Generated<Date>;
}

export interface Database {
  credit_settings: CreditSettingsTable;
  credit_watch_dirty: CreditWatchDirtyTable;
  credit_crossings: CreditCrossingsTable;
  credit_topups: CreditTopupsTable;
  credit_topup_runs: CreditTopupRunsTable;
}

/** A prepaid commitment as stored on a plan or subscription (docs/credits.md "Commitments"). */
export interface PrepaidCommitment {
  /** Decimal text at the currency's minor units; "0" (on a subscription): none. */
  amount: string;
  term_months: number;
  installments: number;
  renews: boolean;
}

export interface CommitmentTermsTable {
  id: string;
  environment_id: string;
  subscription_id: string;
  account_id: string;
  currency: string;
  term: number;
  starts_at: Timestamp;
  ends_at: Timestamp;
  amount: string;
  term_months: number;
  installments: number;
  renews: boolean;
  grant_id: string;
  closed_at: NullableTimestamp;
  created_at: Generated<Date>;
}

export interface CommitmentInstallmentsTable {
  term_id: string;
  n: number;
  due_at: Timestamp;
  amount: string;
  invoice_id: string | null;
}

// ---- Migration 0014: spend limits and their alerts (billing/limits/*).

export type SpendLimitScope = 'account' | 'agent_instance' | 'environment';
export type SpendLimitMetric = 'spend' | 'available_balance' | 'quantity';
export type SpendLimitWindow = 'day' | 'week' | 'billing_period';
export type SpendLimitAction = 'notify' | 'flag' | 'block';

export interface SpendLimitsTable {
  id: string;
  environment_id: string;
  scope: SpendLimitScope;
  account_id: string | null;
  agent_instance_id: string | null;
  metric: SpendLimitMetric;
  currency: string | null;
  /** quantity: @action, @outcome, @user, tokens, input_tokens, output_tokens. */
  unit: string | null;
  window: SpendLimitWindow;
  value: Numeric;
  /** Percentages of `value` that alert (100 is `limit.exceeded`). */
  thresholds: ColumnType<number[], number[], number[]>;
  action: SpendLimitAction;
  description: string | null;
  created_by: string | null;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
  deleted_at: NullableTimestamp;
}

export interface SpendLimitStatesTable {
  limit_id: string;
  period_start: Timestamp;
  period_end: Timestamp;
  current: Numeric;
  reached: boolean;
  evaluated_at: Timestamp;
}

export interface SpendLimitAlertsTable {
  id: string;
  environment_id: string;
  limit_id: string;
  period_start: Timestamp;
  /** Percent of the limit's value; 0 is the period's `limit.reset`. */
  threshold: number;
  event: string;
  value: Numeric;
  limit_value: Numeric;
  fired_at: Timestamp;
}

export interface Database {
  commitment_terms: CommitmentTermsTable;
  commitment_installments: CommitmentInstallmentsTable;
  spend_limits: SpendLimitsTable;
  spend_limit_states: SpendLimitStatesTable;
  spend_limit_alerts: SpendLimitAlertsTable;
}
