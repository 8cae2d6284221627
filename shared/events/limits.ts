/**
 * Limits of the event endpoints, in one place (documented in docs/events.md, "Limits").
 */
const DAY_MS = 24 * 60 * 60 * 1000;

/** Events are counted once per (environment, agent instance, id) over at least this long. */
const DEDUP_WINDOW_DAYS = 35;
/** Oldest accepted event time, relative to arrival (older events could not be deduplicated). */
export const MAX_EVENT_AGE_MS = DEDUP_WINDOW_DAYS * DAY_MS;
/** Latest accepted event time, relative to arrival (clock skew allowance). */
export const MAX_EVENT_FUTURE_MS = 5 * 60 * 1000;
/**
 * Deduplicating queries (usage, cost roll-up) read this much further on each side of
 * their range, so that every copy of an event, whatever its timestamp, is among the rows
 * `FINAL` merges and the first-ingested copy decides (copies of one id are at most
 * DEDUP_WINDOW_DAYS apart in arrival, and event times are bounded as above).
 */
export const DEDUP_QUERY_SLACK_MS = (DEDUP_WINDOW_DAYS + 1) * DAY_MS;

export const MAX_EVENTS_PER_REQUEST = 10_000;
export const MAX_EVENT_BODY_BYTES = 10 * 1024 * 1024;
/** Serialized (JSON) size limit of one event's metadata. */
export const MAX_METADATA_BYTES = 16 * 1024;
export const MAX_METADATA_DEPTH = 8;
export const MAX_ID_LENGTH = 128;
export const MAX_TYPE_LENGTH = 128;
export const MAX_AGENT_KEY_LENGTH = 256;
/**
 * Largest accepted cost quantity of one action (`metadata.api_calls`, `metadata.units`,
 * a per-unit rule's field) and explicit `metadata.cost.amount`: 10^12. With rates below
 * 10^6 (12 decimals) an action's cost stays below 10^18 with at most 18 decimals (6-decimal
 * units times a 12-decimal rate), which costs keep exactly (Decimal256 with 18 decimals,
 * billing/costs/cost-query.ts COST_SCALE), with room for any sum.
 */
export const MAX_COST_QUANTITY = 1_000_000_000_000;
/** Decimals of a per-unit quantity and of an explicit cost amount. */
export const MAX_UNITS_DECIMALS = 6;
export const MAX_COST_AMOUNT_DECIMALS = 12;
/** Categories of a cost (of a rule or of `metadata.cost`). */
export const COST_CATEGORIES = ['llm', 'api', 'infrastructure'] as const;
