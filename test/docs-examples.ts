/**
 * The examples of README.md and docs/*.md, as the docs-examples test runs them (pure:
 * reading the markdown, splitting shell blocks into commands, filling placeholders,
 * comparing answers with what the doc shows). The rules, as docs/README state them:
 *
 * - Every fenced block is an example. A `sh` block runs: each `curl` command in order,
 *   through bash and the real curl; any other command makes the block fail unless it is
 *   marked. A `json` block is an answer: it is compared with the answer of the request
 *   its marker names. Blocks of other languages are not run and must be marked.
 * - Markers are an HTML comment on the line before the fence (blank lines between
 *   allowed): `<!-- not-run: reason -->` skips the block; `<!-- run: curl only; reason -->`
 *   runs its curl commands and skips the rest; `<!-- run-by: path/to/a.test.ts -->` says
 *   another test runs it (the file must exist); `<!-- answer-of: curl ... -->` before a
 *   `json` block is the request whose answer the block shows.
 * - A comment line after a command, `# 201 {"id":"ai_…","name":"sdr-bot",…}`, is what the
 *   doc promises: the status (else any 2xx), the keys shown (each somewhere in the
 *   answer) and the plain string values shown (equal; `…`, `...` and times are free).
 * - Placeholders: `$TALLY` and `localhost:8080` are the test's Tally; `$KEY`/`$ADMIN_KEY`
 *   the development admin key, `$SDK_KEY` its SDK key, `$KEY_ID` the admin key's id;
 *   `$AGENT_SECRET`/`<AGENT_SECRET>` the latest agent `secret` an example was answered,
 *   `$AGENT_ID`/`<AGENT_ID>` the latest `ai_` id; `acct_...` (any `<prefix>_...` or
 *   `<prefix>_…`) the latest id of that prefix an example was answered.
 */

export type Marker =
  | { kind: 'not-run'; reason: string }
  | { kind: 'curl-only'; reason: string }
  | { kind: 'run-by'; file: string }
  | { kind: 'answer-of'; request: string };

export interface Example {
  file: string;
  /** 1-based line of the opening fence. */
  line: number;
  lang: string;
  text: string;
  marker: Marker | undefined;
}

const FENCE = /^(\s*)```(\S*)\s*$/;
const MARKER = /^<!--\s*(not-run|run|run-by|answer-of):\s*([\s\S]*?)\s*-->$/;

/** Every fenced block of a markdown text, with the marker before it. */
export function examplesOf(file: string, markdown: string): Example[] {
  const lines = markdown.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const indent = open[1]!;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== '```') end++;
    const text = lines
      .slice(i + 1, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    out.push({ file, line: i + 1, lang: open[2]!, text, marker: markerBefore(lines, i) });
    i = end;
  }
  return out;
}

/** The marker comment on the last non-blank line before line `i`, if any. */
function markerBefore(lines: readonly string[], i: number): Marker | undefined {
  let j = i - 1;
  while (j >= 0 && lines[j]!.trim() === '') j--;
  const m = j >= 0 ? MARKER.exec(lines[j]!.trim()) : null;
  if (!m) return undefined;
  const [, kind, rest] = m as unknown as [string, string, string];
  if (kind === 'not-run') return { kind: 'not-run', reason: rest };
  if (kind === 'run-by') return { kind: 'run-by', file: rest };
  if (kind === 'answer-of') return { kind: 'answer-of', request: rest };
  if (/^curl only\b/.test(rest)) return { kind: 'curl-only', reason: rest.replace(/^curl only[;,:]?\s*/, '') };
  throw new Error(`unknown marker <!-- run: ${rest} --> (run: curl only; reason)`);
}

/** What the doc promises about one command's answer. */
export interface Expectation {
  /** The documented status; undefined: any 2xx. */
  status: number | undefined;
  /** The text after the status (`{"id":"ai_…",…}`), if any. */
  shape: string | undefined;
}

export interface Command {
  text: string;
  /** 1-based line in the markdown file. */
  line: number;
  expect: Expectation;
}

/**
 * The commands of a shell block: lines joined while a quote is open or a line ends
 * with `\`; a comment line starting with a status or `{` right after a command is its
 * expectation; other comment lines are prose.
 */
export function commandsOf(block: string, firstLine: number): Command[] {
  const out: Command[] = [];
  const lines = block.split('\n');
  let current: Command | undefined;
  let quote: '' | "'" | '"' = '';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (current && (quote !== '' || /\\$/.test(lines[i - 1]!))) {
      current.text += '\n' + line;
    } else {
      const trimmed = line.trim();
      if (trimmed === '') continue;
      if (trimmed.startsWith('#')) {
        const e = /^#\s*(\d{3})?\s*(\{.*)?$/.exec(trimmed);
        const last = out[out.length - 1];
        if (e && (e[1] || e[2]) && last) last.expect = { status: e[1] ? Number(e[1]) : undefined, shape: e[2] };
        continue;
      }
      current = { text: line, line: firstLine + 1 + i, expect: { status: undefined, shape: undefined } };
      out.push(current);
      quote = '';
    }
    quote = quoteAfter(line, quote);
  }
  return out;
}

/** The quote still open after a line of shell text (single quotes take everything; `\` escapes outside them). */
function quoteAfter(line: string, open: '' | "'" | '"'): '' | "'" | '"' {
  let q = open;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (q === "'") {
      if (c === "'") q = '';
    } else if (c === '\\') {
      i++;
    } else if (c === '"') {
      q = q === '"' ? '' : '"';
    } else if (q === '' && c === "'") {
      q = "'";
    } else if (q === '' && c === '#' && (i === 0 || /\s/.test(line[i - 1]!))) {
      break; // a comment to the end of the line
    }
  }
  return q;
}

/** True when a command is a curl command (what the runner runs). */
export const isCurl = (command: string): boolean => /^curl\s/.test(command.trim());

/** Ids and secrets answered so far: the latest of each id prefix, the latest agent secret. */
export interface Seen {
  ids: Map<string, string>;
  agentSecret: string | undefined;
}

const ID = /^([a-z]+)_[0-9A-Za-z]{10,}$/;

/** Records the ids (`id`, `*_id`) and agent secrets (`secret`: `as_…`) of an answer. */
export function remember(seen: Seen, body: unknown): void {
  if (Array.isArray(body)) {
    for (const v of body) remember(seen, v);
    return;
  }
  if (body === null || typeof body !== 'object') return;
  for (const [k, v] of Object.entries(body)) {
    if (typeof v === 'string') {
      const m = ID.exec(v);
      if (m && (k === 'id' || k.endsWith('_id'))) seen.ids.set(m[1]!, v);
      if (k === 'secret' && v.startsWith('as_')) seen.agentSecret = v;
    } else {
      remember(seen, v);
    }
  }
}

/** A command with its placeholders filled: `<AGENT_SECRET>`, `<AGENT_ID>`, `prefix_...`, `localhost:8080`. */
export function fill(command: string, seen: Seen, baseUrl: string): string {
  const host = baseUrl.replace(/^https?:\/\//, '');
  return command
    .replaceAll('localhost:8080', host)
    .replaceAll('<AGENT_SECRET>', () => seen.agentSecret ?? missing('an agent secret (`secret`)'))
    .replaceAll('<AGENT_ID>', () => seen.ids.get('ai') ?? missing('an `ai_` id'))
    .replace(/\b([a-z]+)_(?:\.\.\.|…)/g, (_m, prefix: string) => seen.ids.get(prefix) ?? missing(`an id \`${prefix}_…\``));
}

function missing(what: string): never {
  throw new Error(`no earlier example was answered ${what}: run one that creates it first`);
}

/**
 * Where an answer differs from what the doc shows after its status (`{"id":"ai_…",…}`):
 * each key shown must be in the answer (at any depth), and each plain string value
 * shown must be that key's value. Returns the differences (empty: as shown).
 */
export function shapeProblems(shape: string, answer: unknown): string[] {
  const problems: string[] = [];
  const found = valuesByKey(answer);
  for (const m of shape.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)"\s*:\s*("(?:[^"\\]|\\.)*")?/g)) {
    const key = m[1]!;
    const values = found.get(key);
    if (!values) {
      problems.push(`no \`${key}\` in the answer`);
      continue;
    }
    const shown = m[2] === undefined ? undefined : (JSON.parse(m[2]) as string);
    if (shown !== undefined && !isFree(shown) && !values.includes(shown)) problems.push(`\`${key}\` is ${JSON.stringify(values)}, the doc shows ${JSON.stringify(shown)}`);
  }
  return problems;
}

/** A shown value that stands for any: elided (`…`, `...`) or a time. */
const isFree = (v: string): boolean => v.includes('…') || v.includes('...') || /^\d{4}-\d{2}-\d{2}T/.test(v);

function valuesByKey(v: unknown, out = new Map<string, unknown[]>()): Map<string, unknown[]> {
  if (Array.isArray(v)) for (const x of v) valuesByKey(x, out);
  else if (v !== null && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      out.set(k, [...(out.get(k) ?? []), x]);
      valuesByKey(x, out);
    }
  }
  return out;
}

/**
 * Where an answer differs from a JSON block that shows it whole: the same keys and
 * array lengths, equal numbers, booleans and strings (`…`, `...` and times free).
 */
export function answerProblems(shown: unknown, answer: unknown, at = '$'): string[] {
  if (typeof shown === 'string' && isFree(shown)) return typeof answer === 'string' ? [] : [`${at}: a string in the doc, ${JSON.stringify(answer)} in the answer`];
  if (Array.isArray(shown)) {
    if (!Array.isArray(answer) || answer.length !== shown.length) return [`${at}: ${shown.length} items in the doc, ${JSON.stringify(answer)} in the answer`];
    return shown.flatMap((s, i) => answerProblems(s, answer[i], `${at}[${i}]`));
  }
  if (shown !== null && typeof shown === 'object') {
    if (answer === null || typeof answer !== 'object' || Array.isArray(answer)) return [`${at}: an object in the doc, ${JSON.stringify(answer)} in the answer`];
    const a = answer as Record<string, unknown>;
    const problems = Object.entries(shown).flatMap(([k, s]) => (k in a ? answerProblems(s, a[k], `${at}.${k}`) : [`${at}.${k}: not in the answer`]));
    for (const k of Object.keys(a)) if (!(k in (shown as object))) problems.push(`${at}.${k}: in the answer, not in the doc`);
    return problems;
  }
  return shown === answer ? [] : [`${at}: ${JSON.stringify(shown)} in the doc, ${JSON.stringify(answer)} in the answer`];
}
