/**
 * `key=value` lines (per-model rates, an outcome rule's metadata match) and back. Values
 * keep their JSON type: `true`/`false` are booleans and plain numbers numbers when typed
 * (`typed`), and a value in double quotes is text as it is (`"123"` is the text 123).
 */
export type Scalar = string | number | boolean;

/** The lines of `pairs`; with `typed`, text that would read as a boolean or number is quoted. */
export function pairsText(pairs: Readonly<Record<string, unknown>> | null | undefined, typed: boolean): string {
  return Object.entries(pairs ?? {})
    .map(([k, v]) => `${k}=${typed && typeof v === 'string' && (v === 'true' || v === 'false' || /^-?\d+(\.\d+)?$/.test(v) || /^".*"$/.test(v)) ? JSON.stringify(v) : String(v)}`)
    .join('\n');
}

/** Parses `key=value` lines; with `typed`, bare true/false and numbers keep their type. A line without `=` or a key is an error. */
export function parsePairs(text: string, typed: boolean): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const i = line.indexOf('=');
    if (i <= 0) throw new Error(`"${line}" is not key=value`);
    const key = line.slice(0, i).trim();
    const raw = line.slice(i + 1).trim();
    if (/^".*"$/.test(raw)) out[key] = raw.slice(1, -1);
    else if (typed && (raw === 'true' || raw === 'false')) out[key] = raw === 'true';
    else if (typed && /^-?\d+(\.\d+)?$/.test(raw)) out[key] = Number(raw);
    else out[key] = raw;
  }
  return out;
}
