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
