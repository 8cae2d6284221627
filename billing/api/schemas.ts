import { Type } from '@sinclair/typebox';
import { CURRENCY_CODES, CURRENCY_MESSAGE } from '../../shared/currency.ts';

/**
 * TypeBox schemas of the control-plane request bodies. Unknown fields are ignored;
 * `errorMessage` gives the text of the validation detail.
 */
export const Name = Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be a non-empty string of at most 200 characters' });
const Text = Type.String({ maxLength: 2000, errorMessage: 'must be a string of at most 2000 characters' });
export const NullableText = Type.Union([Text, Type.Null()], { errorMessage: 'must be a string or null' });
export const Id = Type.String({ minLength: 1, maxLength: 100, errorMessage: 'must be an id' });
const NullableId = Type.Union([Id, Type.Null()], { errorMessage: 'must be an id or null' });
const Email = Type.String({ pattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$', maxLength: 320, errorMessage: 'must be an email address' });
/** A calendar date or an ISO 8601 date-time. */
export const DateLike = Type.String({
  pattern: '^\\d{4}-\\d{2}-\\d{2}([T ]\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$',
  errorMessage: 'must be an ISO 8601 date (YYYY-MM-DD) or date-time',
});

const AddressPart = Type.String({ maxLength: 200, errorMessage: 'must be a string' });
const BillingAddress = Type.Object(
  {
    street: Type.Optional(AddressPart),
    city: Type.Optional(AddressPart),
    state: Type.Optional(AddressPart),
    zip: Type.Optional(AddressPart),
    country: Type.Optional(AddressPart),
  },
  { additionalProperties: false, errorMessage: 'must be an object with street, city, state, zip, country (strings)' },
);

const accountFields = {
  email: Type.Optional(Type.Union([Email, Type.Null()], { errorMessage: 'must be an email address or null' })),
  external_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], { errorMessage: 'must be a non-empty string or null' })),
  description: Type.Optional(NullableText),
  billing_address: Type.Optional(Type.Union([BillingAddress, Type.Null()], { errorMessage: 'must be an address object or null' })),
};
/** Account create (both families: Family A sends email and billing_address, Family B external_id and description). */
export const AccountCreate = Type.Object({ name: Name, ...accountFields });
export const AccountUpdate = Type.Object({ name: Type.Optional(Name), ...accountFields });

const ContactRole = Type.Union([Type.Literal('billing'), Type.Literal('technical')], { errorMessage: 'must be billing or technical' });
export const ContactCreate = Type.Object({ first_name: Name, last_name: Name, email: Email, account_id: Id, role: Type.Optional(ContactRole) });
export const ContactUpdate = Type.Partial(ContactCreate);

export const AgentTypeCreate = Type.Object({ name: Name, description: Type.Optional(NullableText) });
export const AgentTypeUpdate = Type.Partial(AgentTypeCreate);

const Framework = Type.Union([Type.Literal('langgraph'), Type.Literal('crewai'), Type.Literal('n8n'), Type.Literal('custom')], {
  errorMessage: 'must be one of langgraph, crewai, n8n, custom',
});
/** Family A agent create. */
export const AgentCreate = Type.Object({
  name: Name,
  type: Framework,
  description: Type.Optional(NullableText),
  account_id: Type.Optional(NullableId),
  agent_type_id: Type.Optional(NullableId),
});
/** Family B agent instance create. */
export const AgentInstanceCreate = Type.Object({
  name: Name,
  description: Type.Optional(NullableText),
  agent_type_id: Id,
  account_id: Type.Optional(NullableId),
  contact_id: Type.Optional(NullableId),
  type: Type.Optional(Framework),
});
export const AgentInstanceUpdate = Type.Object({
  name: Type.Optional(Name),
  description: Type.Optional(NullableText),
  agent_type_id: Type.Optional(Id),
  account_id: Type.Optional(NullableId),
  contact_id: Type.Optional(NullableId),
  type: Type.Optional(Framework),
  is_active: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false' })),
});
/** The instance lists' filter: one account's instances. */
export const AgentInstanceQuery = Type.Object({ account_id: Type.Optional(Id) });
export const ValidateSecret = Type.Object({ secret: Type.String({ minLength: 1, maxLength: 200, errorMessage: 'must be a non-empty string' }) });

export const ProductCreate = Type.Object({ name: Name, description: Type.Optional(NullableText), agent_type_id: Id });
export const ProductUpdate = Type.Partial(Type.Object({ name: Name, description: NullableText, agent_type_id: Id }));

const BillingCycle = Type.Union([Type.Literal('monthly'), Type.Literal('quarterly'), Type.Literal('annual')], {
  errorMessage: 'must be monthly, quarterly or annual',
});
/** An ISO 4217 currency (shared/currency.ts), in upper or lower case. */
const Currency = Type.String({
  pattern: `^(?:${CURRENCY_CODES.flatMap((c) => [c, c.toLowerCase()]).join('|')})$`,
  errorMessage: CURRENCY_MESSAGE,
});
/**
 * A minimum commitment per billing period: a decimal string (or a JSON number of at most
 * 15 significant digits), or null. Its sign, decimals (the currency's minor units) and
 * size are checked against the currency by billing/catalog/commitments.ts.
 */
const MinimumCommitment = Type.Union([Type.String({ maxLength: 40 }), Type.Number(), Type.Null()], {
  errorMessage: 'must be a non-negative decimal string or number, or null',
  description: 'minimum billed per billing period, in the currency (decimal, at most its minor units); null: none',
});
/** A prepaid commitment (docs/credits.md "Commitments"): the amount is checked against the currency by billing/catalog/prepaid-commitment.ts. */
const PrepaidCommitment = Type.Union(
  [
    Type.Object(
      {
        amount: Type.Union([Type.String({ maxLength: 40 }), Type.Number()], { errorMessage: 'must be a non-negative decimal string or number', description: 'the amount committed for a term, in the currency (decimal, at most its minor units); 0 on a subscription: none' }),
        term_months: Type.Optional(Type.Integer({ minimum: 1, maximum: 120, errorMessage: 'must be a whole number of months from 1 to 120', description: 'length of a term in months (default 12)' })),
        installments: Type.Optional(Type.Integer({ minimum: 1, maximum: 120, errorMessage: 'must be a whole number from 1 to 120 that divides term_months', description: 'invoiced in this many equal parts, the first at the term start (default 1: up front)' })),
        renews: Type.Optional(Type.Boolean({ errorMessage: 'must be true or false', description: 'a new term starts when one ends (default true)' })),
      },
      { additionalProperties: false },
    ),
    Type.Null(),
  ],
  { errorMessage: 'must be an object {amount, term_months, installments, renews}, or null', description: 'prepaid commitment: an amount for a term, invoiced up front or in installments, drawn down by the subscription\'s invoices; null: none (on a subscription: the plan\'s)' },
);
export const RatePlanCreate = Type.Object({
  name: Name,
  description: Type.Optional(NullableText),
  billing_cycle_code: BillingCycle,
  currency: Type.Optional(Currency),
  minimum_commitment: Type.Optional(MinimumCommitment),
  prepaid_commitment: Type.Optional(PrepaidCommitment),
});

const Spelling = Type.String({ minLength: 1, maxLength: 50, errorMessage: 'must be a non-empty string' });
const Obj = Type.Record(Type.String(), Type.Unknown(), { errorMessage: 'must be an object' });
/** Charge model: structure here; `type` and `pricing_strategy` per type are checked by the rating engine. */
export const ChargeModelCreate = Type.Object({ name: Name, description: Text, type: Spelling, pricing_strategy: Obj });
/** Charge: structure here; spellings and pricing are checked with its charge model by the rating engine. */
export const ChargeCreate = Type.Object({
  name: Name,
  description: Type.Optional(NullableText),
  charge_model_id: Id,
  charge_type_code: Type.Optional(Spelling),
  charge_type: Type.Optional(Spelling),
  unit_of_measure: Type.Optional(Spelling),
  currency: Type.Optional(Currency),
  pricing: Type.Optional(Obj),
});

const InstanceIds = Type.Array(Id, { maxItems: 1000, errorMessage: 'must be an array of agent instance ids' });
/** Family B subscription create. */
export const SubscriptionCreate = Type.Object({
  account_id: Id,
  rate_plan_id: Id,
  contract_effective_date: Type.Optional(DateLike),
  agent_instance_ids: Type.Optional(InstanceIds),
  minimum_commitment: Type.Optional(MinimumCommitment),
  prepaid_commitment: Type.Optional(PrepaidCommitment),
});
/** Family A subscription create (created active: Family A has no activate path). */
export const SubscriptionCreateA = Type.Object({
  account_id: Id,
  rate_plan_id: Id,
  agent_instance_ids: Type.Optional(InstanceIds),
  contract_effective_date: Type.Optional(DateLike),
  minimum_commitment: Type.Optional(MinimumCommitment),
  prepaid_commitment: Type.Optional(PrepaidCommitment),
});
export const SubscriptionCancel = Type.Object({ cancel_date: Type.Optional(DateLike), reason: Type.Optional(Text) });
export const SubscriptionMove = Type.Object({ effective_date: Type.Optional(DateLike) });
export const SubscriptionChangePlan = Type.Object({ rate_plan_id: Id, effective_date: Type.Optional(DateLike) });
