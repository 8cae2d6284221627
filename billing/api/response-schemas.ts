import { Type, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { COST_BASES, COST_CATEGORIES } from '../costs/cost-rules.ts';

/**
 * TypeBox schemas of what the control-plane endpoints answer, one per resource, written
 * from the views that build the bodies (billing/catalog/*View, invoicing/store.ts,
 * bill-runs.ts, reports/*). They document (OpenAPI `responses`); nothing validates
 * answers against them. Fields a view may add later are allowed (no
 * `additionalProperties: false`), so a client generated from them keeps working.
 */

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/** An ISO 8601 UTC time, as `Date.toISOString()` writes it. */
const Time = Type.String({ format: 'date-time' });
const NullableTime = Nullable(Time);
/** An exact decimal as text (money, quantities, rates): never a float. */
const Decimal = Type.String({ description: 'exact decimal as text, e.g. "12.50"' });
const Count = Type.Integer({ minimum: 0 });
const Str = Type.String();
const NullableStr = Nullable(Str);
const Obj = Type.Object({}, { additionalProperties: true });
const lit = (values: readonly string[]) => Type.Union(values.map((v) => Type.Literal(v)));
/** Totals per currency: `{"USD": "12.50"}`. */
const PerCurrency = Type.Record(Type.String(), Decimal, { description: 'amount per currency code' });

/** A schema with the properties of `base` and more. */
const extend = <T extends TProperties>(base: TObject, more: T, description?: string) =>
  Type.Object({ ...base.properties, ...more }, description ? { description } : {});

/** Family A list body: `{<name>: rows, total, limit, offset}`. */
export const listOfA = (name: string, item: TSchema) =>
  Type.Object({ [name]: Type.Array(item), total: Count, limit: Count, offset: Count }, { description: `A page of ${name} (limit/offset)` });
/** Family B list body: `{total, <name>: rows, skip, limit}`. */
export const listOfB = (name: string, item: TSchema) =>
  Type.Object({ total: Count, [name]: Type.Array(item), skip: Count, limit: Count }, { description: `A page of ${name} (skip/limit)` });

export const Deleted = Type.Object({ id: Str, deleted: Type.Literal(true) }, { description: 'The id of what was deleted' });

// ---- Catalog

export const Account = Type.Object({
  id: Str,
  name: Str,
  email: NullableStr,
  external_id: NullableStr,
  description: NullableStr,
  billing_address: Nullable(Type.Object({ street: Type.Optional(Str), city: Type.Optional(Str), state: Type.Optional(Str), zip: Type.Optional(Str), country: Type.Optional(Str) })),
  created_at: Time,
  updated_at: Time,
});

export const Contact = Type.Object({
  id: Str,
  account_id: Str,
  first_name: Str,
  last_name: Str,
  email: Str,
  role: lit(['billing', 'technical']),
  created_at: Time,
  updated_at: Time,
});

export const AgentType = Type.Object({ id: Str, name: Str, description: NullableStr, created_at: Time, updated_at: Time });

const Framework = lit(['langgraph', 'crewai', 'n8n', 'custom']);
/** Family A agent (agentView). */
export const Agent = Type.Object({
  id: Str,
  name: Str,
  type: Framework,
  description: NullableStr,
  account_id: NullableStr,
  is_active: Type.Boolean(),
  created_at: Time,
});
export const AgentWithSecret = extend(Agent, { secret: Type.String({ description: 'the agent secret, answered once' }) });

/** Family B agent instance (agentInstanceView). */
export const AgentInstance = Type.Object({
  id: Str,
  name: Str,
  description: NullableStr,
  agent_type_id: NullableStr,
  account_id: NullableStr,
  contact_id: NullableStr,
  type: Nullable(Framework),
  is_active: Type.Boolean(),
  created_at: Time,
  updated_at: Time,
});
export const AgentInstanceWithSecret = extend(AgentInstance, { secret: Type.String({ description: 'the instance secret, answered once' }) });
export const AgentInstanceInfo = extend(AgentInstance, { organization_id: Str, environment_id: Str, workspace_id: Type.String({ description: 'the environment id (value-python names it a workspace)' }) });
export const SecretValidation = Type.Object({ valid: Type.Literal(true), agent_instance: AgentInstance });

export const ApiKey = Type.Object({
  id: Str,
  name: Str,
  kind: lit(['api', 'sdk']),
  permission: lit(['read-only', 'read-write', 'admin', 'sdk']),
  prefix: Type.String({ description: 'the first characters of the key, for display' }),
  status: lit(['active', 'rotating', 'expired', 'revoked']),
  created_at: Time,
  expires_at: NullableTime,
  revoked_at: NullableTime,
  rotated_to: NullableStr,
  rate_limit_per_minute: Type.Integer({ minimum: 1, description: "the key's own limit, else its kind's default" }),
  rate_limit_is_default: Type.Boolean(),
});
export const ApiKeyCreated = extend(ApiKey, { key: Type.String({ description: 'the key, answered once' }) });
export const ApiKeyRotated = extend(ApiKeyCreated, { rotated_from: Str, old_key_expires_at: Time }, 'The new key; the old one works until old_key_expires_at');

export const Product = Type.Object({ id: Str, name: Str, description: NullableStr, agent_type_id: Str, created_at: Time, updated_at: Time });

const PrepaidCommitmentView = Type.Object(
  {
    amount: Type.String({ description: 'committed for each term, at the currency\'s minor units' }),
    term_months: Type.Integer(),
    installments: Type.Integer({ description: '1: invoiced up front' }),
    renews: Type.Boolean(),
  },
  { description: 'prepaid commitment (docs/credits.md "Commitments")' },
);
const CommitmentTerm = Type.Object({
  term: Type.Integer({ description: 'numbered from 1; a renewal is the next' }),
  starts_at: Time,
  ends_at: Time,
  amount: Str,
  currency: Str,
  grant_id: Type.String({ description: 'the paid credit grant scoped to the subscription that carries the amount (its ledger entries: GET /v1/credits/entries?grant_id=)' }),
  renews: Type.Boolean(),
  installments: Type.Array(Type.Object({ n: Type.Integer(), due_at: Time, amount: Str, invoice_id: Nullable(Type.String({ description: 'the invoice of its own that bills it; null until due' })) })),
});

export const RatePlan = Type.Object({
  id: Str,
  product_id: Str,
  name: Str,
  description: NullableStr,
  billing_cycle_code: lit(['monthly', 'quarterly', 'annual']),
  currency: Type.String({ description: 'ISO 4217 code' }),
  minimum_commitment: Nullable(Type.String({ description: 'minimum billed per billing period (docs/credits.md "Commitments"), at the currency\'s minor units; null: none' })),
  prepaid_commitment: Nullable(PrepaidCommitmentView),
  created_at: Time,
  updated_at: Time,
});

export const Charge = Type.Object({
  id: Str,
  rate_plan_id: Str,
  charge_model_id: Str,
  name: Str,
  description: NullableStr,
  charge_type_code: Str,
  charge_type: Type.String({ description: 'the same canonical value as charge_type_code' }),
  unit_of_measure: NullableStr,
  currency: Str,
  pricing: Obj,
  resolved_pricing: Type.Unknown({ description: 'the pricing merged with its charge model, as the rating engine reads it' }),
  created_at: Time,
  updated_at: Time,
});
export const RatePlanWithCharges = extend(RatePlan, { charges: Type.Array(Charge) });

export const ChargeModel = Type.Object({ id: Str, name: Str, description: Str, type: Str, pricing_strategy: Obj, created_at: Time, updated_at: Time });

export const Subscription = Type.Object({
  id: Str,
  account_id: Str,
  rate_plan_id: Type.String({ description: 'the rate plan in force now (a plan change effective later is in scheduled_changes)' }),
  status: Type.Union([lit(['draft', 'active', 'paused', 'cancelled'])], { description: 'the status in force now: a cancellation, pause or activation effective later is in scheduled_changes' }),
  scheduled_changes: Type.Array(
    Type.Object({ type: Str, effective_at: Time, status: lit(['draft', 'active', 'paused', 'cancelled']), rate_plan_id: Str }),
    { description: 'moves recorded to take effect later, in the order they take effect, each with the status and plan the subscription has once it takes effect' },
  ),
  contract_effective_date: NullableTime,
  activated_at: NullableTime,
  paused_at: NullableTime,
  cancel_date: NullableTime,
  cancel_reason: NullableStr,
  cancelled_at: NullableTime,
  renewed_at: NullableTime,
  minimum_commitment: Nullable(Type.String({ description: "overrides the plan's minimum per billing period (docs/credits.md \"Commitments\"); null: the plan's" })),
  prepaid_commitment: Nullable(PrepaidCommitmentView),
  commitment_terms: Type.Optional(Type.Array(CommitmentTerm, { description: 'the terms of its prepaid commitment (on reads of one subscription)' })),
  agent_instance_ids: Type.Array(Str),
  created_at: Time,
  updated_at: Time,
});
export const SubscriptionEvent = Type.Object({
  id: Str,
  type: Str,
  from_status: NullableStr,
  to_status: NullableStr,
  rate_plan_id: NullableStr,
  effective_at: NullableTime,
  data: Type.Unknown(),
  created_at: Time,
});

// ---- Tags

const tagOf = (nameField: string) => Type.Object({ [nameField]: Str, description: NullableStr, created_at: Time, updated_at: Time });
export const TaggedActions = Type.Object({ total: Count, tagged_actions: Type.Array(tagOf('action_name')) });
export const TaggedOutcomes = Type.Object({ total: Count, tagged_outcomes: Type.Array(tagOf('outcome_name')) });
export const TaggableItem = Type.Object({ kind: lit(['action', 'outcome']), name: Str, count: Count, last_seen_at: Time, tagged: Type.Boolean(), description: NullableStr });

// ---- Webhooks

export const WebhookEndpoint = Type.Object({
  id: Str,
  url: Str,
  events: Type.Array(Str),
  description: NullableStr,
  is_active: Type.Boolean(),
  secret_hint: Type.String({ description: 'the last characters of the signing secret' }),
  secret_rotated_at: NullableTime,
  created_at: Time,
  updated_at: Time,
});
export const WebhookEndpointWithSecret = extend(WebhookEndpoint, { secret: Type.String({ description: 'the signing secret, answered once' }) });

const DeliveryStatus = lit(['pending', 'delivered', 'failed']);
const DeliveryAttempt = Type.Object({ attempt: Count, started_at: Time, duration_ms: Count, status_code: Nullable(Type.Integer()), error: NullableStr });
export const Delivery = Type.Object({
  id: Str,
  event_id: Str,
  webhook_id: Str,
  event: Str,
  status: DeliveryStatus,
  attempt_count: Count,
  next_attempt_at: NullableTime,
  last_status_code: Nullable(Type.Integer()),
  last_error: NullableStr,
  delivered_at: NullableTime,
  created_at: Time,
  attempts: Type.Array(DeliveryAttempt),
});
export const DeliveryDetail = extend(Delivery, { payload: Type.Unknown({ description: 'the delivered body' }) });
export const AttemptResult = Type.Object({
  delivery_id: Str,
  status: DeliveryStatus,
  attempt: Count,
  status_code: Nullable(Type.Integer()),
  error: Nullable(Type.String({ description: 'refused, timeout, tls, dns, blocked_address, connection_failed or status' })),
  next_attempt_at: NullableTime,
});
export const WebhookTestResult = extend(AttemptResult, { event_id: Str });

// ---- Invoicing

const InvoiceLine = Type.Object({
  position: Count,
  charge_id: Str,
  charge_name: Str,
  rate_plan_id: NullableStr,
  model: Str,
  charge_type: Str,
  unit: NullableStr,
  quantity: Decimal,
  unit_price: Nullable(Decimal),
  tiers: Type.Unknown(),
  overage: Type.Optional(Type.Unknown()),
  discount: Type.Optional(Type.Unknown()),
  minimum_commitment: Type.Optional(
    Type.Object(
      {
        minimum: Nullable(Decimal),
        prorated_minimum: Decimal,
        billed: Decimal,
        true_up: Decimal,
        parts: Type.Array(Type.Object({ from: Time, to: Time, minimum: Nullable(Decimal), proration: Decimal })),
      },
      { description: 'on the minimum_commitment true-up line: the minimum per period (null when it differs by segment), the minimum owed for the billed time, what the period billed after discounts, and each segment with its minimum and share of the period' },
    ),
  ),
  proration: Nullable(Decimal),
  amount: Decimal,
  agent_instance_id: NullableStr,
  service_period: Type.Object({ start: Time, end: Time }),
  usage_query: Type.Unknown(),
});
export const Invoice = Type.Object(
  {
    id: Str,
    invoice_id: Type.String({ description: 'the same as id' }),
    kind: lit(['invoice', 'credit_note']),
    number: Nullable(Type.String({ description: 'INV-000001 / CN-000001, once it leaves draft' })),
    account_id: Str,
    subscription_id: Type.Union([Str, Type.Null()], { description: 'null on a credit purchase invoice (a paid grant’s own invoice)' }),
    rate_plan_id: NullableStr,
    billing_cycle: Nullable(lit(['monthly', 'quarterly', 'annual'])),
    billing_period: Type.String({ description: 'YYYY-MM of period_start' }),
    period_start: Time,
    period_end: Time,
    currency: Str,
    status: lit(['draft', 'finalized', 'paid', 'void']),
    subtotal: Decimal,
    discount_total: Decimal,
    total: Decimal,
    amount: Type.String({ description: 'the same as total' }),
    credits_applied: Type.String({ description: 'prepaid credits applied (the sum of the credits_applied lines, as a positive amount; docs/credits.md, Credits)' }),
    amount_due: Type.String({ description: 'total - credits_applied - payment_applied: what the customer owes, never below zero; 0 on a void invoice' }),
    payment_applied: Type.String({ description: 'a correction’s replacement: what the payment of the corrected invoice settles of it (docs/credits.md, Credits)' }),
    issue_date: Time,
    due_date: Time,
    grace_until: Time,
    rated_at: Time,
    finalized_at: NullableTime,
    paid_at: NullableTime,
    payment_reference: NullableStr,
    voided_at: NullableTime,
    bill_run_id: NullableStr,
    corrects_invoice_id: NullableStr,
    replaces_invoice_id: NullableStr,
    correction_reason: NullableStr,
    corrected_by: Nullable(Type.Object({ invoice_id: Str, credit_note_id: NullableStr })),
    created_at: Time,
    updated_at: Time,
    lines: Type.Optional(Type.Array(InvoiceLine, { description: 'on reads of one invoice' })),
    usage: Type.Optional(Type.Unknown({ description: 'the usage that produced the lines (on reads of one invoice)' })),
  },
  { description: 'An invoice or credit note; lines and usage on reads of one' },
);
export const InvoiceGeneration = Type.Object({
  invoices: Type.Array(Invoice),
  total: Count,
  billing_period: Str,
  failures: Type.Array(Type.Object({ subscription_id: Str, code: Str, message: Str })),
});
export const InvoiceCorrection = Type.Object({ corrected_invoice_id: Str, credit_note: Nullable(Invoice), invoice: Invoice });
const RatedPeriod = {
  currency: Str,
  billing_period: Str,
  period_start: Time,
  period_end: Time,
  subtotal: Decimal,
  discount_total: Decimal,
  total: Decimal,
};
export const Simulation = Type.Object({ rate_plan_id: Str, billing_cycle: Str, ...RatedPeriod, charges: Type.Array(Obj), total_charge: Type.String({ description: 'the same as total' }) });
export const InvoicePreview = Type.Object({
  preview: Type.Literal(true),
  subscription_id: Str,
  account_id: Str,
  ...RatedPeriod,
  usage_through: Time,
  lines: Type.Array(Obj),
  usage: Type.Unknown(),
});
export const BillRun = Type.Object({
  id: Str,
  bill_run_id: Type.String({ description: 'the same as id' }),
  billing_date: Time,
  status: lit(['running', 'completed', 'failed']),
  subscriptions_considered: Count,
  invoices_created: Count,
  invoices_existing: Count,
  invoice_count: Count,
  subscriptions_skipped: Count,
  failures: Type.Unknown(),
  totals: PerCurrency,
  created_at: Time,
  completed_at: NullableTime,
  invoice_ids: Type.Optional(Type.Array(Str, { description: 'on reads of one bill run' })),
});
export const InvoiceTemplate = Type.Object({
  id: Str,
  name: Str,
  template_data: Type.Object({ company_name: Type.Optional(Str), logo_url: Type.Optional(Str) }),
  is_active: Type.Boolean(),
  created_at: Time,
  updated_at: Time,
});

// ---- Costs, rules and reports

export const CostRule = Type.Object({
  id: Str,
  name: Str,
  category: lit(COST_CATEGORIES),
  currency: Str,
  basis: lit(COST_BASES),
  action_type: NullableStr,
  rate: Nullable(Decimal),
  model_rates: Type.Record(Type.String(), Decimal),
  unit_field: NullableStr,
  effective_from: Time,
  effective_to: NullableTime,
  is_active: Type.Boolean(),
  created_at: Time,
  versions: Type.Optional(
    Type.Array(Type.Object({ effective_from: Time, effective_to: NullableTime, rate: Nullable(Decimal), model_rates: Type.Record(Type.String(), Decimal) })),
  ),
});
export const CostRuleList = Type.Object({ cost_rules: Type.Array(CostRule), total: Count });

export const OutcomeRule = Type.Object({
  id: Str,
  name: Str,
  action_type: Str,
  metadata_match: Obj,
  outcome_type: Str,
  value: Decimal,
  value_field: NullableStr,
  effective_from: Time,
  effective_to: NullableTime,
  is_active: Type.Boolean(),
  created_at: Time,
});
export const OutcomeRuleList = Type.Object({ total: Count, outcome_rules: Type.Array(OutcomeRule) });

const RangeOut = { start_date: Time, end_date: Time };
export const CostsReport = Type.Object({
  ...RangeOut,
  costs: Type.Array(
    Type.Object({ id: Str, agent_id: Str, customer_id: NullableStr, cost_type: Str, amount: Decimal, currency: Str, period: Type.String({ description: 'YYYY-MM' }), actions: Count }),
  ),
  total: PerCurrency,
  costs_behind: Type.Boolean({ description: 'true when the cost rollup had not caught up and raw events were read' }),
});
export const RevenueReport = Type.Object({
  ...RangeOut,
  group_by: lit(['agent', 'customer', 'product', 'rate_plan', 'agent_type', 'none']),
  granularity: lit(['week', 'month', 'quarter']),
  total: PerCurrency,
  invoice_count: Count,
  breakdown: Type.Array(Obj, { description: 'one entry per period, currency and group key' }),
});
export const PnlReport = Type.Object({
  ...RangeOut,
  granularity: lit(['week', 'month', 'quarter']),
  group_by: lit(['agent', 'customer', 'none']),
  costs_view: lit(['blended', 'itemized']),
  totals: Type.Array(Obj, { description: 'revenue, costs, margin and margin percent per currency' }),
  breakdown: Type.Array(Obj, { description: 'the same figures per period (and group key)' }),
  costs_behind: Type.Boolean(),
});
const AnalysisType = lit(['agent', 'customer', 'environment']);
const AnalysisStatus = lit(['pending', 'running', 'completed', 'failed']);
export const PnlAnalysisStarted = Type.Object({
  id: Str,
  status: AnalysisStatus,
  created_at: Time,
  analysis_type: AnalysisType,
  agent_instance_id: NullableStr,
  account_id: NullableStr,
  start_date: Time,
  end_date: Time,
});
export const PnlAnalysis = extend(PnlAnalysisStarted, {
  granularity: Str,
  started_at: NullableTime,
  completed_at: NullableTime,
  result: Type.Unknown({ description: 'the P&L once completed, else null' }),
  error: NullableStr,
});
export const AgentEmbed = Type.Object({
  agent_instance_id: Str,
  duration: Type.String({ description: 'e.g. 7days' }),
  ...RangeOut,
  days: Type.Array(
    Type.Object({
      date: Str,
      actions: Count,
      outcomes: Count,
      outcome_value: Decimal,
      money: Type.Array(Type.Object({ currency: Str, revenue: Decimal, cost: Decimal, margin: Decimal })),
    }),
  ),
  costs_behind: Type.Boolean(),
});

export const Usage = Type.Object({
  ...RangeOut,
  group_by: lit(['agent', 'account', 'customer', 'none']),
  usage: Type.Array(
    Type.Object({
      agent_instance_id: Type.Optional(Str),
      account_id: Type.Optional(Str),
      actions: Type.String({ description: 'distinct actions (integer as text)' }),
      outcomes: Type.String({ description: 'distinct outcome events (integer as text)' }),
      outcome_value: Decimal,
      users: Type.String({ description: 'distinct users (integer as text)' }),
      input_tokens: Type.String({ description: 'input tokens, cache reads and writes included (integer as text)' }),
      output_tokens: Type.String({ description: 'output tokens, reasoning included (integer as text)' }),
      total_tokens: Str,
      cache_read_input_tokens: Type.String({ description: 'input tokens read from the prompt cache (part of input_tokens)' }),
      cache_creation_input_tokens: Type.String({ description: 'input tokens written to the prompt cache (part of input_tokens)' }),
      reasoning_tokens: Type.String({ description: 'output tokens spent reasoning (part of output_tokens)' }),
    }),
  ),
});

/**
 * The schemas emitted once under `components/schemas` and referenced by name (so a
 * generated client has one `Account` type, not one per operation).
 */
export const RESPONSE_COMPONENTS: Readonly<Record<string, TSchema>> = {
  Account,
  Contact,
  AgentType,
  Agent,
  AgentInstance,
  ApiKey,
  Product,
  RatePlan,
  RatePlanWithCharges,
  Charge,
  ChargeModel,
  Subscription,
  SubscriptionEvent,
  TaggableItem,
  WebhookEndpoint,
  Delivery,
  DeliveryAttempt,
  AttemptResult,
  Invoice,
  InvoiceLine,
  BillRun,
  InvoiceTemplate,
  CostRule,
  OutcomeRule,
  PnlAnalysis,
  Usage,
};

// ---- Routes of other modules (ingest, OTLP, operations): documented in openapi.ts

const EventError = Type.Object({ code: Str, message: Str });
/** The answer to one event sent alone and accepted. */
export const EventAccepted = Type.Object({ id: Str, status: Type.Literal('processed'), created_at: Time }, { description: 'One event sent alone, accepted' });
/** The answer to a batch (200 when every event was accepted, 207 when some were rejected). */
export const EventBatchResult = Type.Object(
  {
    accepted: Count,
    rejected: Count,
    created_at: Time,
    results: Type.Array(
      Type.Union([
        Type.Object({ index: Count, id: Str, status: Type.Literal('processed') }),
        Type.Object({ index: Count, status: Type.Literal('rejected'), error: EventError }),
      ]),
      { description: 'one result per event, in the order sent' },
    ),
  },
  { description: 'A batch: one result per event' },
);
/** `{"status": "ok"}` of GET /healthz. */
export const Health = Type.Object({ status: Type.Literal('ok') });
/** GET /readyz: 200 when every role of the process is ready, else 503 with the same body. */
export const Readiness = Type.Object({ ready: Type.Boolean(), roles: Type.Record(Type.String(), Type.Boolean(), { description: 'readiness per role' }) });
/** OTLP/HTTP JSON ExportTraceServiceResponse: `{}`, or the spans that were rejected. */
export const OtlpTraceResponse = Type.Object({
  partialSuccess: Type.Optional(Type.Object({ rejectedSpans: Count, errorMessage: Str })),
});

/** Prepaid credits (billing/credits/). */
export const CreditGrant = Type.Object(
  {
    id: Str,
    grant_id: Type.String({ description: 'the same as id' }),
    account_id: Str,
    currency: Str,
    kind: lit(['paid', 'free']),
    amount: Decimal,
    price: Nullable(Decimal),
    priority: Type.Integer({ description: '1 burns first, 100 last' }),
    effective_at: Time,
    expires_at: NullableTime,
    scope: Nullable(Type.Object({ charge_ids: Type.Optional(Type.Array(Str)), product_ids: Type.Optional(Type.Array(Str)), units: Type.Optional(Type.Array(Str)), subscription_id: Type.Optional(Type.String({ description: 'a prepaid commitment\'s grant: only this subscription\'s invoices' })) })),
    metadata: Obj,
    usable: lit(['immediately', 'on_payment']),
    usable_at: NullableTime,
    invoice_id: Nullable(Type.String({ description: 'paid grants: the purchase invoice' })),
    status: lit(['pending_payment', 'active', 'depleted', 'expired', 'void']),
    remaining: Type.String({ description: 'left to burn (entries summed, less what drafts hold)' }),
    held: Type.String({ description: 'held by draft invoices' }),
    voided_at: NullableTime,
    void_reason: NullableStr,
    created_by: NullableStr,
    created_at: Time,
  },
  { description: 'A grant of prepaid credits' },
);
export const CreditEntry = Type.Object(
  {
    id: Str,
    entry_id: Type.String({ description: 'the same as id' }),
    account_id: Str,
    currency: Str,
    grant_id: Str,
    type: lit(['grant', 'burn', 'release', 'expiry', 'void', 'adjustment', 'overpayment', 'refund']),
    amount: Type.String({ description: 'signed: grant/release/overpayment +, burn/expiry/void/refund -, adjustment either' }),
    invoice_id: NullableStr,
    reason: NullableStr,
    created_by: NullableStr,
    occurred_at: Time,
    created_at: Time,
    refunded: Type.Optional(Type.String({ description: 'the answer of a refund only: the money paid back (the entry\'s amount is the credit it took off; they differ when the grant was priced below or above its amount)' })),
  },
  { description: 'One immutable credit ledger entry' },
);
export const CreditBalance = Type.Object({
  account_id: Str,
  at: Time,
  balances: Type.Array(
    Type.Object({
      currency: Str,
      granted: Decimal,
      adjusted: Decimal,
      burned: Decimal,
      expired: Decimal,
      voided: Decimal,
      held: Decimal,
      pending: Type.Union([Decimal, Type.Null()], { description: 'what the open periods’ usage so far is rated at (charges after discounts, no minimum-commitment true-up); null for a balance at an explicit `at`' }),
      pending_covered: Type.Union([Decimal, Type.Null()], { description: 'the part of pending the credits would pay (as storing the open periods’ invoices now would apply them); null with pending' }),
      available: Decimal,
    }),
  ),
});
export const AgentCreditBalance = Type.Object({
  agent_instance_id: Str,
  account_id: NullableStr,
  at: Time,
  balances: Type.Array(Type.Object({ currency: Str, available: Decimal })),
});
/** An account's credit settings, per currency (billing/credits/watch.ts). */
export const CreditSetting = Type.Object(
  {
    account_id: Str,
    currency: Str,
    low_balance_threshold: Nullable(Type.String({ description: 'credits.balance_low is sent when the available balance falls below it (null: none)' })),
  },
  { description: 'The credit settings of an account in one currency' },
);
export const CreditSettings = Type.Object({ account_id: Str, settings: Type.Array(CreditSetting) });
/** A credit top-up rule (billing/credits/topups.ts). */
export const CreditTopup = Type.Object(
  {
    id: Str,
    topup_id: Type.String({ description: 'the same as id' }),
    account_id: Str,
    currency: Str,
    type: lit(['recurring', 'threshold']),
    kind: lit(['paid', 'free']),
    amount: Nullable(Decimal),
    price: Nullable(Decimal),
    target_balance: Nullable(Decimal),
    threshold: Nullable(Decimal),
    interval: Nullable(lit(['week', 'month'])),
    starts_at: Time,
    next_run_at: Nullable(Type.String({ format: 'date-time', description: 'recurring: when it next grants' })),
    priority: Type.Integer(),
    usable: lit(['immediately', 'on_payment']),
    expires_after_days: Nullable(Type.Integer()),
    metadata: Obj,
    status: lit(['active', 'disabled']),
    disabled_at: NullableTime,
    created_by: NullableStr,
    created_at: Time,
  },
  { description: 'A rule that grants credit by itself: recurring (every week or month) or threshold (when the available balance falls below it)' },
);

// ---- Spend limits (billing/limits, README "Stopping runaway spend")

const LimitScope = lit(['account', 'agent_instance', 'environment']);
const LimitMetric = lit(['spend', 'available_balance', 'quantity']);
const LimitAction = lit(['notify', 'flag', 'block']);
export const SpendLimit = Type.Object(
  {
    id: Str,
    scope: LimitScope,
    account_id: NullableStr,
    agent_instance_id: NullableStr,
    metric: LimitMetric,
    currency: NullableStr,
    unit: NullableStr,
    window: lit(['day', 'week', 'billing_period']),
    value: Decimal,
    thresholds: Type.Array(Type.Integer(), { description: 'percentages of value that alert' }),
    action: LimitAction,
    description: NullableStr,
    created_at: Time,
    updated_at: Time,
  },
  { description: 'A spend limit' },
);
export const LimitState = Type.Object(
  {
    limit_id: Str,
    scope: LimitScope,
    account_id: NullableStr,
    agent_instance_id: NullableStr,
    metric: LimitMetric,
    currency: NullableStr,
    unit: NullableStr,
    window: lit(['day', 'week', 'billing_period']),
    value: Decimal,
    thresholds: Type.Array(Type.Integer(), { description: 'percentages of value that alert' }),
    action: LimitAction,
    current: Nullable(Decimal),
    remaining: Nullable(Decimal),
    reached: Type.Boolean(),
    blocked: Type.Boolean(),
    period_start: NullableTime,
    resets_at: NullableTime,
    evaluated_at: NullableTime,
  },
  { description: "A spend limit's last evaluated state (null figures: not evaluated yet)" },
);
export const LimitStates = Type.Object({ account_id: Str, limits: Type.Array(LimitState) });
export const AgentLimitStates = Type.Object({ agent_instance_id: Str, account_id: NullableStr, blocked: Type.Boolean(), limits: Type.Array(LimitState) });
export const LimitAlert = Type.Object(
  {
    id: Str,
    limit_id: Str,
    event: lit(['limit.threshold_reached', 'limit.exceeded', 'limit.reset']),
    threshold: Type.Integer({ description: 'percent of the value; 0 for limit.reset' }),
    period_start: Time,
    value: Decimal,
    limit_value: Decimal,
    fired_at: Time,
  },
  { description: 'An alert a spend limit fired (once per threshold per period)' },
);
