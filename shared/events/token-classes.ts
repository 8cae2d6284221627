/**
 * Token classes that providers price apart from plain input and output tokens. Each is a
 * subset of a base count, as the OpenTelemetry GenAI conventions define them
 * (`gen_ai.usage.cache_read.input_tokens` and `cache_creation.input_tokens` "SHOULD be
 * included in `gen_ai.usage.input_tokens`"; `reasoning.output_tokens` in `output_tokens`):
 *
 * - `cache_read_input_tokens`: input tokens read from the provider's prompt cache
 *   (OpenAI `prompt_tokens_details.cached_tokens`, Anthropic `cache_read_input_tokens`);
 * - `cache_creation_input_tokens`: input tokens written to the cache (Anthropic);
 * - `reasoning_tokens`: output tokens spent reasoning (OpenAI
 *   `completion_tokens_details.reasoning_tokens`).
 *
 * An action carries them as metadata fields of these names (top level or under `usage`,
 * as `input_tokens`), non-negative integers checked at ingest; ClickHouse keeps each as a
 * column of `actions` whose default is computed from the metadata when the row is
 * inserted (no wire format change: the metadata text travels as it always did).
 */
export const TOKEN_CLASSES = [
  { field: 'cache_read_input_tokens', base: 'input_tokens', basis: 'per_cache_read_token' },
  { field: 'cache_creation_input_tokens', base: 'input_tokens', basis: 'per_cache_write_token' },
  { field: 'reasoning_tokens', base: 'output_tokens', basis: 'per_reasoning_token' },
] as const;

export type TokenClassField = (typeof TOKEN_CLASSES)[number]['field'];

/**
 * A token class of an action's metadata (JSON text in the column `metadata`), in SQL: the
 * top-level field, else the one under `usage` (a null or absent field is skipped, as
 * ingest reads them), else 0. The one definition the ClickHouse columns and the cost
 * query share.
 */
export function tokenClassSql(field: TokenClassField, metadata = 'metadata'): string {
  return `coalesce(JSONExtract(${metadata}, '${field}', 'Nullable(UInt64)'), JSONExtract(${metadata}, 'usage', '${field}', 'Nullable(UInt64)'), 0)`;
}
