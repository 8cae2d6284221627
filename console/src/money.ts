/** Compares two decimal texts ("-12.50", "3") exactly: negative, zero or positive. */
export function compareDecimal(a: string, b: string): number {
  const [sa, ia, fa] = parts(a);
  const [sb, ib, fb] = parts(b);
  if (sa !== sb) return sa - sb;
  const width = Math.max(fa.length, fb.length);
  const na = ia.padStart(64, '0') + fa.padEnd(width, '0');
  const nb = ib.padStart(64, '0') + fb.padEnd(width, '0');
  const c = na < nb ? -1 : na > nb ? 1 : 0;
  return sa * c || 0;
}

function parts(v: string): [sign: number, int: string, frac: string] {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(v.trim());
  if (!m) return [0, '0', ''];
  const int = (m[2] ?? '').replace(/^0+/, '');
  const frac = (m[3] ?? '').replace(/0+$/, '');
  if (int === '' && frac === '') return [0, '', ''];
  return [m[1] === '-' ? -1 : 1, int, frac];
}

/** Whole numbers from integer text (event counts), for charts and rates. */
export function count(v: string | undefined): number {
  return v === undefined ? 0 : Number.parseInt(v, 10) || 0;
}

/** The exact sum of two decimal texts ("12.50" + "-0.125" = "12.375"), as decimal text. */
export function addDecimal(a: string, b: string): string {
  const [ia, sa] = scaled(a);
  const [ib, sb] = scaled(b);
  const scale = Math.max(sa, sb);
  const sum = ia * 10n ** BigInt(scale - sa) + ib * 10n ** BigInt(scale - sb);
  const neg = sum < 0n;
  const digits = (neg ? -sum : sum).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return neg ? `-${text}` : text;
}

/** A decimal text as an integer and its number of decimals ("-1.25" → [-125n, 2]). */
function scaled(v: string): [bigint, number] {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(v.trim());
  if (!m) throw new Error(`not a decimal: ${v}`);
  const frac = m[3] ?? '';
  const n = BigInt(`${m[2] || '0'}${frac}`);
  return [m[1] === '-' ? -n : n, frac.length];
}

/**
 * The balance after each ledger entry, per currency: the running exact sum of the signed
 * amounts in the order they occurred (the entries given are the whole ledger from its start).
 */
export function runningBalances(entries: readonly { occurred_at: string; amount: string; currency: string }[]): { at: number; currency: string; balance: string }[] {
  const sorted = [...entries].sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
  const totals = new Map<string, string>();
  return sorted.map((e) => {
    const balance = addDecimal(totals.get(e.currency) ?? '0', e.amount);
    totals.set(e.currency, balance);
    return { at: Date.parse(e.occurred_at) / 1000, currency: e.currency, balance };
  });
}

/**
 * Why a typed quantity is not plain decimal text (as the API takes it: digits, an optional
 * sign and fraction; no exponent, so `1.5e2` is refused, not read as 150), or undefined.
 */
export function decimalProblem(label: string, v: string): string | undefined {
  if (/^[+-]?\d+(\.\d+)?$/.test(v.trim())) return undefined;
  return /e/i.test(v) ? `${label}: ${v} has an exponent; write the plain number (digits and a decimal point)` : `${label}: ${v} is not a decimal number`;
}
