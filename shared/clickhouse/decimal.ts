/**
 * Decimals as they leave ClickHouse. `toString` of a Decimal prints it without trailing
 * zeros in current releases ("10", "1.5", "0") and with the full scale in older ones
 * ("10.000000000"); JSON output may quote either. Every money amount or quantity read
 * from ClickHouse goes through {@link decimalFromClickHouse}, so both print the same
 * canonical text: plain notation, no trailing zeros in the fraction, never "-0".
 */
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;

export function decimalFromClickHouse(text: string | number | null | undefined): string {
  const s = text === null || text === undefined ? '' : String(text);
  if (!DECIMAL_TEXT.test(s)) throw new Error(`ClickHouse returned ${JSON.stringify(text)} where a decimal was expected`);
  let t = s;
  if (t.includes('.')) t = t.replace(/0+$/, '').replace(/\.$/, '');
  t = t.replace(/^(-?)0+(?=\d)/, '$1');
  return t === '-0' ? '0' : t;
}
