/**
 * ClickHouse error codes that say the rows themselves are wrong (they cannot be parsed or
 * do not fit their columns): inserting them again will fail again. Every other failure
 * (connections, timeouts, memory, disk, too many parts, a missing table, authentication)
 * is an outage the sink waits out, retrying the batch as it is.
 * Codes: src/Common/ErrorCodes.cpp of ClickHouse.
 */
const DATA_ERROR_CODES = new Set([
  6, // CANNOT_PARSE_TEXT
  26, // CANNOT_PARSE_QUOTED_STRING
  27, // CANNOT_PARSE_INPUT_ASSERTION_FAILED
  32, // ATTEMPT_TO_READ_AFTER_EOF
  38, // CANNOT_PARSE_DATE
  41, // CANNOT_PARSE_DATETIME
  53, // TYPE_MISMATCH
  69, // ARGUMENT_OUT_OF_BOUND (a decimal too big for its column)
  70, // CANNOT_CONVERT_TYPE
  72, // CANNOT_PARSE_NUMBER
  117, // INCORRECT_DATA
  131, // TOO_LARGE_STRING_SIZE
  407, // DECIMAL_OVERFLOW
  691, // UNKNOWN_ELEMENT_OF_ENUM
]);

/** The ClickHouse error code of an insert failure (a server's error or chDB's "Code: N."), if any. */
export function clickhouseErrorCode(err: unknown): number | undefined {
  const e = err as { code?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && /^\d+$/.test(e.code)) return Number(e.code);
  const m = typeof e?.message === 'string' ? /^Code: (\d+)\./.exec(e.message) : null;
  return m ? Number(m[1]) : undefined;
}

/** Whether an insert failed because of its rows (see {@link DATA_ERROR_CODES}). */
export function isDataError(err: unknown): boolean {
  const code = clickhouseErrorCode(err);
  return code !== undefined && DATA_ERROR_CODES.has(code);
}
