import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

export type EnvironmentName = 'development' | 'staging' | 'production';
export type KeyKind = 'sdk' | 'api';
export type Permission = 'sdk' | 'read-only' | 'read-write' | 'admin';

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Generated<Date>;
}

export interface EnvironmentsTable {
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
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

export interface SubscriptionAgentInstancesTable {
  subscription_id: string;
  agent_instance_id: string;
}

/** One recorded state change of a subscription, with the time it takes effect. */
export interface SubscriptionEventsTable {
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

export type { Timestamp };
