import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { MAX_AGENT_KEY_LENGTH, MAX_ID_LENGTH, MAX_TYPE_LENGTH } from './limits.ts';

const Id = Type.String({ minLength: 1, maxLength: MAX_ID_LENGTH, pattern: '^[\\x21-\\x7E]+$' });
const Person = Type.String({ minLength: 1, maxLength: 256 });
const common = {
  agent_key: Type.Optional(Type.String({ minLength: 1, maxLength: MAX_AGENT_KEY_LENGTH })),
  // Any JSON object (not an array). Not Type.Record: its compiled check tests every key
  // against a pattern, a cost on the hot path for no rule.
  metadata: Type.Optional(Type.Object({}, { additionalProperties: true })),
  timestamp: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  id: Type.Optional(Id),
  event_id: Type.Optional(Id),
  idempotency_key: Type.Optional(Id),
  user_id: Type.Optional(Person),
  anonymous_id: Type.Optional(Person),
};

/** An action event (spec: Action event), plus optional id and attribution fields. */
export const ActionEvent = Type.Object(
  { ...common, action_type: Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH }) },
  { additionalProperties: false },
);
export type ActionEvent = Static<typeof ActionEvent>;

/** An outcome event (spec: Outcome event); `value` is a count or an amount, >= 0. */
export const OutcomeEvent = Type.Object(
  {
    ...common,
    outcome_type: Type.String({ minLength: 1, maxLength: MAX_TYPE_LENGTH }),
    // A number, or a decimal string for exact digits (bounds and decimals: normalizeStep).
    value: Type.Union([Type.Number(), Type.String({ maxLength: 40 })]),
  },
  { additionalProperties: false },
);
export type OutcomeEvent = Static<typeof OutcomeEvent>;

export const actionChecker = TypeCompiler.Compile(ActionEvent);
export const outcomeChecker = TypeCompiler.Compile(OutcomeEvent);
