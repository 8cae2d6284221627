import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError } from './api';
import { toCsv, downloadText } from './csv';

/** An error from the API: its message and request id (to quote to an operator). */
export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  const e = error instanceof ApiError ? error : undefined;
  return (
    <div class="error" role="alert">
      <strong>{e ? `${e.status} ${e.code}` : 'Error'}</strong>: {error instanceof Error ? error.message : String(error)}
      {e?.requestId ? <div class="muted">request id: <code>{e.requestId}</code></div> : null}
    </div>
  );
}

/** Runs an action, keeping its error and whether it is under way. */
export function useAction(): { busy: boolean; error: unknown; run: (fn: () => Promise<void>) => Promise<void>; clear: () => void } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async (fn: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await fn();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, clear: () => setError(undefined) };
}

/** Loads data when `deps` change; `reload` loads again. */
export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): { data: T | undefined; error: unknown; reload: () => void } {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(undefined);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    load().then(
      (d) => {
        if (live) {
          setData(d);
          setError(undefined);
        }
      },
      (e: unknown) => live && setError(e),
    );
    return () => {
      live = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, tick]);
  return { data, error, reload: () => setTick((t) => t + 1) };
}

let fieldIds = 0;
/** A labelled input. */
export function Field(props: { label: string; value: string; onInput: (v: string) => void; type?: 'text' | 'password' | 'number' | 'date' | 'datetime-local' | 'month' | 'url' | 'email'; required?: boolean; placeholder?: string; name?: string }) {
  const [id] = useState(() => `f${++fieldIds}`);
  return (
    <label class="field" for={id}>
      <span>{props.label}</span>
      <input {...({ type: props.type ?? 'text' } as { type: 'text' })} id={id} name={props.name ?? props.label} value={props.value} required={props.required} placeholder={props.placeholder} onInput={(e) => props.onInput((e.target as HTMLInputElement).value)} />
    </label>
  );
}

/** A labelled select of [value, label] options. */
export function Select(props: { label: string; value: string; options: readonly (readonly [string, string])[]; onChange: (v: string) => void; name?: string }) {
  const [id] = useState(() => `f${++fieldIds}`);
  return (
    // The label beside the select, not around it: its name is the label alone (a select inside its label is also named by its chosen option).
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name ?? props.label} value={props.value} onChange={(e) => props.onChange((e.target as HTMLSelectElement).value)}>
        {props.options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </div>
  );
}

export type Column<T> = readonly [header: string, cell: (row: T) => ComponentChildren];

/** A table; every cell is rendered as text or the given elements (never HTML strings). */
export function Table<T>({ rows, columns, caption, csvName }: { rows: readonly T[]; columns: readonly Column<T>[]; caption?: string; csvName?: string }) {
  return (
    <div class="table-wrap">
      {csvName ? (
        <button type="button" class="small" onClick={() => downloadText(`${csvName}.csv`, toCsv(columns.map((c) => c[0]), rows.map((r) => columns.map((c) => plain(c[1](r))))), 'text/csv')}>
          Export CSV
        </button>
      ) : null}
      {/* Explicit roles: the phone layout restyles the cells as blocks, which otherwise drops their table semantics in Chromium. */}
      <table class="stack" role="table">
        {caption ? <caption>{caption}</caption> : null}
        <thead role="rowgroup">
          <tr role="row">
            {columns.map((c) => (
              <th scope="col" role="columnheader" key={c[0]}>
                {c[0]}
              </th>
            ))}
          </tr>
        </thead>
        <tbody role="rowgroup">
          {rows.length === 0 ? (
            <tr role="row">
              <td role="cell" colSpan={columns.length} class="muted">
                none
              </td>
            </tr>
          ) : (
            rows.map((r, i) => (
              <tr role="row" key={i}>
                {columns.map((c) => (
                  <td role="cell" key={c[0]} data-label={c[0]}>
                    {c[1](r)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}

/**
 * A component that gives its own CSV text: CSV is made from a cell's element without
 * rendering it, so a component whose text comes from its hooks (a name loaded by id) says
 * what it shows through `csv`, read from its props.
 */
export type CsvComponent<P> = ((props: P) => ComponentChildren) & { csv: (props: P) => string };

/**
 * A cell's text for CSV: a {@link CsvComponent}'s `csv`, an element's `data-csv`, else its
 * string children.
 */
export function plain(v: ComponentChildren): string {
  if (v === null || v === undefined || typeof v === 'boolean') return '';
  if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (Array.isArray(v)) return v.map(plain).join('');
  const el = v as { type?: unknown; props?: { children?: ComponentChildren; 'data-csv'?: string } };
  const csv = typeof el.type === 'function' ? (el.type as Partial<CsvComponent<unknown>>).csv : undefined;
  if (csv) return csv(el.props);
  const props = el.props;
  if (props?.['data-csv'] !== undefined) return props['data-csv'];
  return props ? plain(props.children) : '';
}

/** A named subject's CSV text: `name (id)`, the id alone without a name, '' without an id. */
export function namedCsv(id: string | null | undefined, name: string | undefined): string {
  if (!id) return '';
  return name ? `${name} (${id})` : id;
}

/**
 * A named subject in a cell: its name, and its id on a second line (and as the title); the
 * id alone when it has no name (deleted, or not loaded yet). CSV gets `name (id)`.
 */
export const Named: CsvComponent<{ id: string | null | undefined; name: string | undefined; testId?: string }> = ({ id, name, testId }) => {
  if (!id) return <span data-testid={testId}>(none)</span>;
  if (!name) return <span data-testid={testId}>{id}</span>;
  return (
    <span class="named" title={id} data-csv={namedCsv(id, name)}>
      <span data-testid={testId}>{name}</span>
      <small class="muted id">{id}</small>
    </span>
  );
};
Named.csv = ({ id, name }) => namedCsv(id, name);

/** A table of rows whose columns are their keys (reports, SQL results). */
export function RecordTable({ rows, csvName, caption }: { rows: readonly Record<string, unknown>[]; csvName: string; caption?: string }) {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const columns: Column<Record<string, unknown>>[] = keys.map((k) => [k, (r) => cellText(r[k])] as const);
  return <Table rows={rows} columns={columns} csvName={csvName} {...(caption ? { caption } : {})} />;
}

export function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
}

/**
 * A list paged through the API (skip/limit): only one page is ever loaded, however
 * long the list.
 */
export function Paged<T>(props: { load: (skip: number, limit: number) => Promise<Page<T>>; columns: readonly Column<T>[]; caption: string; pageSize?: number; deps?: readonly unknown[]; csvName?: string }) {
  const limit = props.pageSize ?? 20;
  const [skip, setSkip] = useState(0);
  // The range shown is that of the page loaded (not of the one asked for until it arrives).
  const { data, error } = useLoad(async () => ({ ...(await props.load(skip, limit)), skip }), [skip, limit, ...(props.deps ?? [])]);
  const total = data?.total ?? 0;
  const shown = data?.skip ?? 0;
  return (
    <section class="paged" aria-label={props.caption}>
      <ErrorBox error={error} />
      <Table rows={data?.items ?? []} columns={props.columns} caption={props.caption} {...(props.csvName ? { csvName: props.csvName } : {})} />
      <nav class="pager" aria-label={`${props.caption} pages`}>
        <button type="button" class="small" disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - limit))}>
          Previous
        </button>
        <span>
          {total === 0 || data?.items.length === 0 ? '0' : `${shown + 1}–${Math.min(shown + limit, total)}`} of {total}
        </span>
        <button type="button" class="small" disabled={skip + limit >= total} onClick={() => setSkip(skip + limit)}>
          Next
        </button>
      </nav>
    </section>
  );
}

/** A titled panel. */
export function Panel({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <h2>{title}</h2>
      {children}
    </section>
  );
}

/** A secret shown once, with a note that it cannot be shown again. */
export function ShownOnce({ label, value }: { label: string; value: string | undefined }) {
  if (!value) return null;
  return (
    <div class="once" role="status">
      {label} (shown once, copy it now): <code data-testid="shown-once">{value}</code>
    </div>
  );
}

/** One page of a long list of [value, label] options, with Previous/Next over its pages. */
function usePagedOptions(load: (skip: number, limit: number) => Promise<Page<readonly [string, string]>>, limit: number, deps: readonly unknown[]) {
  const [skip, setSkip] = useState(0);
  const { data, error } = useLoad(async () => ({ ...(await load(skip, limit)), skip }), [skip, limit, ...deps]);
  return { options: data?.items ?? [], total: data?.total ?? 0, shownSkip: data?.skip ?? 0, skip, setSkip, error };
}

/** Previous/Next of a paged picker (only when the list is longer than a page). */
function PickerPages({ label, limit, paging }: { label: string; limit: number; paging: ReturnType<typeof usePagedOptions> }) {
  const { skip, setSkip, total, shownSkip } = paging;
  if (total <= limit) return null;
  return (
    <span class="pager" aria-label={`${label} pages`} role="group">
      <button type="button" class="small" aria-label={`Previous ${limit}: ${label}`} disabled={skip === 0} onClick={() => setSkip(Math.max(0, skip - limit))}>
        ‹
      </button>
      <span class="muted">
        {shownSkip + 1}–{Math.min(shownSkip + limit, total)} of {total}
      </span>
      <button type="button" class="small" aria-label={`Next ${limit}: ${label}`} disabled={skip + limit >= total} onClick={() => setSkip(skip + limit)}>
        ›
      </button>
    </span>
  );
}

/**
 * A labelled select over a long list, one page at a time (the API's skip/limit, 100 a page):
 * Previous/Next move through pages, so a list of 10,000 is chosen from without loading it all.
 * With `optional` (the empty choice's label) nothing need be chosen; without it the first
 * option of the first page is chosen when nothing is yet.
 */
export function PagedSelect(props: { label: string; value: string; onChange: (v: string) => void; load: (skip: number, limit: number) => Promise<Page<readonly [string, string]>>; deps?: readonly unknown[]; pageSize?: number; optional?: string }) {
  const limit = props.pageSize ?? 100;
  const paging = usePagedOptions(props.load, limit, props.deps ?? []);
  const { options } = paging;
  useEffect(() => {
    if (props.optional === undefined && !props.value && options[0]) props.onChange(options[0][0]);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [options[0]?.[0]]);
  const listed = options.some(([v]) => v === props.value) || !props.value ? options : [[props.value, props.value] as const, ...options];
  const shown = props.optional === undefined ? listed : [['', props.optional] as const, ...listed];
  return (
    <div class="actions paged-select">
      <Select label={props.label} value={props.value} onChange={props.onChange} options={shown} />
      <PickerPages label={props.label} limit={limit} paging={paging} />
      <ErrorBox error={paging.error} />
    </div>
  );
}

let multiIds = 0;
/**
 * A labelled multiple choice over a long list, a page at a time (as {@link PagedSelect}):
 * choices made on other pages are kept (listed first).
 */
export function PagedMultiSelect(props: { label: string; values: readonly string[]; onChange: (v: string[]) => void; load: (skip: number, limit: number) => Promise<Page<readonly [string, string]>>; deps?: readonly unknown[]; pageSize?: number }) {
  const limit = props.pageSize ?? 100;
  const [id] = useState(() => `m${++multiIds}`);
  const paging = usePagedOptions(props.load, limit, props.deps ?? []);
  const listed = new Set(paging.options.map(([v]) => v));
  const options = [...props.values.filter((v) => !listed.has(v)).map((v) => [v, v] as const), ...paging.options];
  return (
    <div class="actions paged-select">
      <div class="field">
        <label for={id}>{props.label}</label>
        <select id={id} name={props.label} multiple size={Math.min(5, Math.max(2, options.length))} onChange={(e) => props.onChange([...(e.target as HTMLSelectElement).selectedOptions].map((o) => o.value))}>
          {options.map(([v, l]) => (
            <option key={v} value={v} selected={props.values.includes(v)}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <PickerPages label={props.label} limit={limit} paging={paging} />
      <ErrorBox error={paging.error} />
    </div>
  );
}
