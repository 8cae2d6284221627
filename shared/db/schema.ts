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

/** Tables of the billing core, as kysely sees them. Later migrations extend this. */
export interface Database {
  organizations: OrganizationsTable;
  environments: EnvironmentsTable;
  api_keys: ApiKeysTable;
  accounts: AccountsTable;
  contacts: ContactsTable;
  agent_types: AgentTypesTable;
  agent_instances: AgentInstancesTable;
}

export type { Timestamp };
