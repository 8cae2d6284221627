import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import type { WebhookEvent } from './endpoints.ts';
import { Dec, formatMoney } from '../rating/money.ts';

/**
 * One schema per webhook event: the `data` of every delivery, real or test, is built by
 * the builders below and matches its schema (published in the OpenAPI document's
 * `webhooks` section and in docs/webhooks.md). Fields are never dropped; new optional fields
 * may be added.
 */
const Str = (description: string) => Type.String({ description });
const NullableStr = (description: string) => Type.Union([Type.String(), Type.Null()], { description });
/** An ISO 8601 UTC time as `Date.toISOString` writes it. */
const ISO_TIME = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$';
const Time = (description: string) => Type.String({ pattern: ISO_TIME, description });
const Test = Type.Optional(Type.Boolean({ description: 'true on test deliveries (`POST /v1/webhooks/test`)' }));

const OneOf = (values: readonly string[], description: string) => Type.Union(values.map((v) => Type.Literal(v)), { description });
const Null = (description: string) => Type.Null({ description });

/** What narrows one subscription event's `data` from another's (every event has the same fields). */
interface SubscriptionNarrowing {
  status: TSchema;
  previous_status: TSchema;
  change: TSchema;
  cancel_date: TSchema;
  reason: TSchema;
}

function subscriptionData(n: SubscriptionNarrowing) {
  return Type.Object(
    {
      subscription_id: Str('the subscription'),
      account_id: Str('its account (customer)'),
      rate_plan_id: Str('its rate plan after the change'),
      status: n.status,
      previous_status: n.previous_status,
      change: n.change,
      effective_at: Time('when the change takes effect'),
      cancel_date: n.cancel_date,
      reason: n.reason,
      from_rate_plan_id: NullableStr('the plan before a plan change (else null)'),
      to_rate_plan_id: NullableStr('the plan after a plan change (else null)'),
      test: Test,
    },
    { additionalProperties: false },
  );
}

/** The statuses a subscription moves between before it is cancelled. */
const LIVE_STATUSES = ['draft', 'active', 'paused'];
/** The changes `subscription.updated` reports. */
const SUBSCRIPTION_UPDATES = ['activated', 'paused', 'resumed', 'renewed', 'plan_changed'];

const SubscriptionCreatedData = subscriptionData({
  status: Type.Literal('draft', { description: 'its status: draft (created active, a subscription.updated `activated` follows)' }),
  previous_status: Null('null: it did not exist'),
  change: Type.Literal('created'),
  cancel_date: Null('null (cancelled only)'),
  reason: Null('null (cancelled only)'),
});
const SubscriptionUpdatedData = subscriptionData({
  status: OneOf(LIVE_STATUSES, 'its status after the change'),
  previous_status: OneOf(LIVE_STATUSES, 'its status before the change'),
  change: OneOf(SUBSCRIPTION_UPDATES, 'what changed (plan_changed carries from_rate_plan_id and to_rate_plan_id)'),
  cancel_date: Null('null (cancelled only)'),
  reason: Null('null (cancelled only)'),
});
const SubscriptionCancelledData = subscriptionData({
  status: Type.Literal('cancelled'),
  previous_status: OneOf(LIVE_STATUSES, 'its status before the cancellation'),
  change: Type.Literal('cancelled'),
  cancel_date: Time('the cancellation date: billing stops there (equals effective_at)'),
  reason: NullableStr('the reason given, else null'),
});

function invoiceData(status: TSchema) {
  return Type.Object(
    {
      invoice_id: Str('the invoice (or credit note)'),
      account_id: Str('its account (customer)'),
      amount: Type.Number({ description: 'the total as a JSON number (the spec’s field): the nearest double, so use `total` for exact arithmetic' }),
      currency: Str('ISO 4217 code'),
      total: Str('the exact total as a decimal string in the currency’s minor units, e.g. "16.00"'),
      amount_due: Type.Optional(Str('the total less the prepaid credits applied, e.g. "6.00" (docs/credits.md, Credits)')),
      number: NullableStr('the invoice number once finalized (INV-…), else null'),
      status,
      subscription_id: NullableStr('the subscription it bills'),
      kind: OneOf(['invoice', 'credit_note'], 'invoice or credit_note'),
      replaces_invoice_id: NullableStr('a correction’s replaced invoice, else null'),
      credit_note_id: NullableStr('a correction’s credit note, else null'),
      credit_note_number: NullableStr('that credit note’s number, else null'),
      test: Test,
    },
    { additionalProperties: false },
  );
}
const InvoiceCreatedData = invoiceData(OneOf(['draft', 'finalized'], 'draft (final after the grace period) or finalized'));
const InvoicePaidData = invoiceData(Type.Literal('paid'));

const OutcomeCompletedData = Type.Object(
  {
    event_id: Str('the outcome event’s id (as sent, or generated)'),
    agent_instance_id: Str('the agent instance'),
    account_id: NullableStr('its account, when it has one'),
    outcome_type: Str('the outcome type'),
    value: Type.Number({ description: 'the value as a JSON number: the nearest double, so use `value_exact` for exact arithmetic' }),
    value_exact: Str('the exact value as a decimal string, as stored (up to 10^18, 9 decimals)'),
    timestamp: Time('when the outcome happened'),
    derived_from: Type.Optional(Type.Unknown({ description: 'for outcomes derived by an outcome rule: the rule and the action' })),
    test: Test,
  },
  { additionalProperties: false },
);

/** The data of both credits events: the grant and the amount of the entry that caused the event. */
function creditsData(amount: string, description: string) {
  return Type.Object(
    {
      grant_id: Str('the credit grant'),
      account_id: Str('its account (customer)'),
      currency: Str('ISO 4217 code'),
      kind: OneOf(['paid', 'free'], 'paid (a purchase) or free (promotional, goodwill)'),
      amount: Str(amount),
      entry_id: Str('the ledger entry written (GET /v1/credits/entries)'),
      effective_at: Time('when the credit becomes usable'),
      expires_at: Type.Union([Time('when what is left of it expires'), Type.Null()], { description: 'when what is left of it expires, else null' }),
      occurred_at: Time(description),
      test: Test,
    },
    { additionalProperties: false },
  );
}
const CreditsGrantedData = creditsData('the credit granted, exact decimal text, e.g. "100.00"', 'when the grant became usable (created, or its purchase paid)');
const CreditsExpiredData = creditsData('the remainder that expired, exact decimal text (positive)', 'the expiry instant (the grant’s expires_at)');

/** The data of both balance alerts: the balance and the line it crossed (once per crossing). */
function balanceAlertSchema(threshold: string) {
  return Type.Object(
    {
      account_id: Str('the account (customer)'),
      currency: Str('ISO 4217 code'),
      available: Str('the available balance when the line was crossed, exact decimal text, e.g. "4.50"'),
      threshold: Str(threshold),
      crossing: Type.Integer({ minimum: 1, description: 'which crossing of this line it is for the account and currency (1, 2, …): one event per crossing' }),
      crossed_at: Time('when the watch saw the balance past the line'),
      test: Test,
    },
    { additionalProperties: false },
  );
}
const CreditsBalanceLowData = balanceAlertSchema('the account’s low_balance_threshold in this currency: the balance fell below it');
const CreditsDepletedData = balanceAlertSchema('always zero ("0.00"): the available balance reached it');

/** The data of the three limit alerts (billing/limits): the limit, the threshold and the value it was reached at. */
function limitAlertSchema(threshold: string) {
  return Type.Object(
    {
      limit_id: Str('the spend limit (GET /v1/limits/{limit_id})'),
      scope: OneOf(['account', 'agent_instance', 'environment'], 'what the limit applies to'),
      account_id: NullableStr('the account of an account limit, else null'),
      agent_instance_id: NullableStr('the agent instance of an agent_instance limit, else null'),
      metric: OneOf(['spend', 'available_balance', 'quantity'], 'what the limit counts'),
      currency: NullableStr('ISO 4217 code of a money limit, else null'),
      unit: NullableStr('the unit of a quantity limit (@action, @outcome, @user, tokens, …), else null'),
      action: OneOf(['notify', 'flag', 'block'], 'what happens at 100 %'),
      threshold: Type.Integer({ minimum: 0, description: threshold }),
      value: Str('the limit’s current value when the alert fired, exact decimal text'),
      limit_value: Str('the limit, exact decimal text'),
      period_start: Time('the start of the limit’s period (one alert per threshold per period)'),
      resets_at: Time('when the period ends and the limit counts from zero again'),
      fired_at: Time('when the evaluation saw it'),
      test: Test,
    },
    { additionalProperties: false },
  );
}
const LimitThresholdData = limitAlertSchema('the percentage of the limit reached (below 100)');
const LimitExceededData = limitAlertSchema('100 or a listed threshold above it: the limit is reached and its action applies');
const LimitResetData = limitAlertSchema('always 0: a new period began after a period in which the limit was reached');

/** The schema of each event's `data`: one per event, for real and test deliveries alike. */
const EVENT_DATA: Readonly<Record<WebhookEvent, TSchema>> = {
  'subscription.created': SubscriptionCreatedData,
  'subscription.updated': SubscriptionUpdatedData,
  'subscription.cancelled': SubscriptionCancelledData,
  'invoice.created': InvoiceCreatedData,
  'invoice.paid': InvoicePaidData,
  'payment.successful': InvoicePaidData,
  'outcome.completed': OutcomeCompletedData,
  'credits.granted': CreditsGrantedData,
  'credits.expired': CreditsExpiredData,
  'credits.balance_low': CreditsBalanceLowData,
  'credits.depleted': CreditsDepletedData,
  'limit.threshold_reached': LimitThresholdData,
  'limit.exceeded': LimitExceededData,
  'limit.reset': LimitResetData,
};

/** The fields of every subscription event (the schemas above narrow them per event). */
type SubscriptionEventData = Omit<Static<typeof SubscriptionCancelledData>, 'status' | 'previous_status' | 'change' | 'cancel_date' | 'reason'> & {
  status: string;
  previous_status: string | null;
  change: string;
  cancel_date: string | null;
  reason: string | null;
};
type InvoiceEventData = Omit<Static<typeof InvoiceCreatedData>, 'status' | 'kind'> & { status: string; kind: string };
type OutcomeEventData = Static<typeof OutcomeCompletedData>;
type CreditsEventData = Static<typeof CreditsGrantedData>;
type BalanceAlertData = Static<typeof CreditsBalanceLowData>;
export type LimitAlertData = Static<typeof LimitExceededData>;

const checks = new Map<WebhookEvent, TypeCheck<TSchema>>();
function checkOf(event: WebhookEvent): TypeCheck<TSchema> {
  let c = checks.get(event);
  if (!c) checks.set(event, (c = TypeCompiler.Compile(deliveryBodySchema(event))));
  return c;
}

/** Where a delivery body departs from its event's schema (empty when it matches). */
export function webhookBodyProblems(event: WebhookEvent, body: unknown): string[] {
  const c = checkOf(event);
  return c.Check(body) ? [] : [...c.Errors(body)].map((e) => `${event} ${e.path || '/'}: ${e.message}`);
}

/** The body of every delivery: `{event, timestamp, data}` (the spec's shape). */
export function deliveryBodySchema(event: WebhookEvent): TSchema {
  return Type.Object(
    { event: Type.Literal(event), timestamp: Time('when the event happened'), data: EVENT_DATA[event] },
    { additionalProperties: false, description: `Sent for ${event}` },
  );
}

const iso = (d: Date | string | null | undefined): string | null => (d == null ? null : new Date(d).toISOString());

/** A subscription's change as its event's data. */
export function subscriptionEventData(
  s: { id: string; account_id: string; rate_plan_id: string; status: string; cancel_date: Date | string | null; cancel_reason: string | null },
  previousStatus: string | null,
  change: string,
  effectiveAt: Date,
  planChange: { from_rate_plan_id?: unknown; to_rate_plan_id?: unknown } = {},
): SubscriptionEventData {
  const cancelled = change === 'cancelled';
  return {
    subscription_id: s.id,
    account_id: s.account_id,
    rate_plan_id: s.rate_plan_id,
    status: s.status,
    previous_status: previousStatus,
    change,
    effective_at: effectiveAt.toISOString(),
    cancel_date: cancelled ? iso(s.cancel_date) : null,
    reason: cancelled ? s.cancel_reason : null,
    from_rate_plan_id: typeof planChange.from_rate_plan_id === 'string' ? planChange.from_rate_plan_id : null,
    to_rate_plan_id: typeof planChange.to_rate_plan_id === 'string' ? planChange.to_rate_plan_id : null,
  };
}

/** An invoice (or credit note) as its events' data. */
export function invoiceEventData(
  r: { id: string; account_id: string; total: string; amount_due: string; currency: string; number: string | null; status: string; subscription_id: string | null; kind?: string | null },
  correction: { replaces_invoice_id?: string | null; credit_note_id?: string | null; credit_note_number?: string | null } = {},
): InvoiceEventData {
  return {
    invoice_id: r.id,
    account_id: r.account_id,
    amount: Number(r.total),
    currency: r.currency,
    total: r.total,
    amount_due: r.amount_due,
    number: r.number,
    status: r.status,
    subscription_id: r.subscription_id,
    kind: r.kind ?? 'invoice',
    replaces_invoice_id: correction.replaces_invoice_id ?? null,
    credit_note_id: correction.credit_note_id ?? null,
    credit_note_number: correction.credit_note_number ?? null,
  };
}

/** A grant and one of its ledger entries (grant or expiry) as a credits event's data. */
export function creditsEventData(
  g: { id: string; account_id: string; currency: string; kind: string; effective_at: Date; expires_at: Date | null },
  entry: { id: string; amount: string; occurred_at: Date },
): CreditsEventData {
  return {
    grant_id: g.id,
    account_id: g.account_id,
    currency: g.currency,
    kind: g.kind as 'paid' | 'free',
    amount: formatMoney(new Dec(entry.amount).abs(), g.currency),
    entry_id: entry.id,
    effective_at: g.effective_at.toISOString(),
    expires_at: g.expires_at ? g.expires_at.toISOString() : null,
    occurred_at: entry.occurred_at.toISOString(),
  };
}

/** A crossed balance line as a `credits.balance_low` or `credits.depleted` event's data. */
export function balanceAlertData(a: { account_id: string; currency: string; available: string; threshold: string; crossing: number; crossed_at: Date }): BalanceAlertData {
  return {
    account_id: a.account_id,
    currency: a.currency,
    available: formatMoney(new Dec(a.available), a.currency),
    threshold: formatMoney(new Dec(a.threshold), a.currency),
    crossing: a.crossing,
    crossed_at: a.crossed_at.toISOString(),
  };
}

/** A stored outcome as its event's data. */
export function outcomeEventData(o: {
  eventId: string;
  agentInstanceId: string;
  accountId: string | null;
  outcomeType: string;
  value: string;
  timestamp: Date;
  derivedFrom?: unknown;
}): OutcomeEventData {
  return {
    event_id: o.eventId,
    agent_instance_id: o.agentInstanceId,
    account_id: o.accountId,
    outcome_type: o.outcomeType,
    value: Number(o.value),
    value_exact: o.value,
    timestamp: o.timestamp.toISOString(),
    ...(o.derivedFrom !== undefined ? { derived_from: o.derivedFrom } : {}),
  };
}

const SAMPLE_TIME = new Date('2026-01-01T00:00:00Z');
const sampleSubscription = { id: 'sub_test', account_id: 'acct_test', rate_plan_id: 'rp_test', cancel_date: null, cancel_reason: null };
const sampleInvoice = { id: 'inv_test', account_id: 'acct_test', total: '100.00', amount_due: '100.00', currency: 'USD', number: 'INV-000001', subscription_id: 'sub_test', kind: 'invoice' };

const sampleGrant = { id: 'cgr_test', account_id: 'acct_test', currency: 'USD', kind: 'free', effective_at: SAMPLE_TIME, expires_at: new Date('2026-12-31T00:00:00Z') };

/** The `data` of a test delivery: sample values through the same builders as real events, marked `test: true`. */
export function sampleEventData(event: WebhookEvent): Record<string, unknown> {
  const data = ((): Record<string, unknown> => {
    switch (event) {
      case 'subscription.created':
        return subscriptionEventData({ ...sampleSubscription, status: 'draft' }, null, 'created', SAMPLE_TIME);
      case 'subscription.updated':
        return subscriptionEventData({ ...sampleSubscription, status: 'active' }, 'draft', 'activated', SAMPLE_TIME);
      case 'subscription.cancelled':
        return subscriptionEventData({ ...sampleSubscription, status: 'cancelled', cancel_date: SAMPLE_TIME, cancel_reason: 'test' }, 'active', 'cancelled', SAMPLE_TIME);
      case 'invoice.created':
        return invoiceEventData({ ...sampleInvoice, status: 'finalized' });
      case 'invoice.paid':
      case 'payment.successful':
        return invoiceEventData({ ...sampleInvoice, status: 'paid' });
      case 'credits.granted':
        return creditsEventData({ ...sampleGrant, expires_at: null }, { id: 'cle_test', amount: '100.00', occurred_at: SAMPLE_TIME });
      case 'credits.expired':
        return creditsEventData(sampleGrant, { id: 'cle_test', amount: '-40.00', occurred_at: sampleGrant.expires_at });
      case 'credits.balance_low':
        return balanceAlertData({ account_id: 'acct_test', currency: 'USD', available: '4.50', threshold: '10.00', crossing: 1, crossed_at: SAMPLE_TIME });
      case 'credits.depleted':
        return balanceAlertData({ account_id: 'acct_test', currency: 'USD', available: '0.00', threshold: '0.00', crossing: 1, crossed_at: SAMPLE_TIME });
      case 'limit.threshold_reached':
      case 'limit.exceeded':
      case 'limit.reset':
        return sampleLimitAlert(event);
      case 'outcome.completed':
        return outcomeEventData({ eventId: 'evt_test', agentInstanceId: 'ai_test', accountId: 'acct_test', outcomeType: 'converted_lead', value: '1', timestamp: SAMPLE_TIME });
    }
  })();
  return { ...data, test: true };
}

function sampleLimitAlert(event: 'limit.threshold_reached' | 'limit.exceeded' | 'limit.reset'): LimitAlertData {
  const threshold = event === 'limit.reset' ? 0 : event === 'limit.exceeded' ? 100 : 80;
  return {
    limit_id: 'lim_test',
    scope: 'account',
    account_id: 'acct_test',
    agent_instance_id: null,
    metric: 'spend',
    currency: 'USD',
    unit: null,
    action: 'block',
    threshold,
    value: event === 'limit.reset' ? '0.00' : threshold === 100 ? '100.00' : '80.00',
    limit_value: '100.00',
    period_start: SAMPLE_TIME.toISOString(),
    resets_at: '2026-02-01T00:00:00.000Z',
    fired_at: SAMPLE_TIME.toISOString(),
  };
}
