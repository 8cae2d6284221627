/**
 * The one reading of TypeBox's validation errors: each failing field as a dotted path
 * and what is wrong with it. Callers word the sentence (the API's "zip must be a
 * string", the ingest tier's "`colour`: ...", a configuration line), never the path or
 * the predicate.
 */
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';

/** What went wrong with a field: missing, not declared by its object, or any other check. */
type FieldProblemKind = 'required' | 'unknown' | 'invalid';

export interface FieldProblem {
  /** "billing_address.zip", "tiers[0].price"; '' (or the prefix) for the value itself. */
  path: string;
  kind: FieldProblemKind;
  /** "is required"; the schema's `errorMessage`; "is not a known field"; else TypeBox's own message. */
  message: string;
}

/** A JSON pointer as a dotted path: "/billing_address/zip" -> "billing_address.zip", "/tiers/0" -> "tiers[0]". */
export function dottedPath(pointer: string, prefix = ''): string {
  let out = prefix;
  for (const seg of pointer.split('/').slice(1)) {
    const key = seg.replace(/~1/g, '/').replace(/~0/g, '~');
    out += /^\d+$/.test(key) ? `[${key}]` : out ? `.${key}` : key;
  }
  return out;
}

/**
 * The errors worth reporting: for a union (e.g. "an address object or null"), the
 * errors of the variant that reached inside the value, so the path names
 * `billing_address.zip` rather than the whole `billing_address`.
 */
function deepest(errors: Iterable<ValueError>): ValueError[] {
  const out: ValueError[] = [];
  for (const e of errors) {
    if (e.type === ValueErrorType.Union) {
      const deeper = e.errors.map((it) => [...it]).find((variant) => variant.length > 0 && variant.every((v) => v.path.length > e.path.length));
      if (deeper) {
        out.push(...deepest(deeper));
        continue;
      }
    }
    out.push(e);
  }
  return out;
}

function problemOf(e: ValueError, path: string): FieldProblem {
  // A missing property's error carries the property's schema, whose message is about its type.
  if (e.type === ValueErrorType.ObjectRequiredProperty) return { path, kind: 'required', message: 'is required' };
  const custom = (e.schema as { errorMessage?: string }).errorMessage;
  const unknown = (e.schema as { unknownMessage?: string }).unknownMessage;
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return { path, kind: 'unknown', message: unknown ?? custom ?? 'is not a known field' };
  return { path, kind: 'invalid', message: custom ?? e.message };
}

/**
 * The first problem of each failing path, in TypeBox's order, each path optionally under
 * `prefix` ("pricing_strategy" -> "pricing_strategy.tiers[0].price").
 */
export function fieldProblems(errors: Iterable<ValueError>, prefix = ''): FieldProblem[] {
  const seen = new Set<string>();
  const out: FieldProblem[] = [];
  for (const e of deepest(errors)) {
    const path = dottedPath(e.path, prefix);
    if (seen.has(path)) continue;
    seen.add(path);
    out.push(problemOf(e, path));
  }
  return out;
}
