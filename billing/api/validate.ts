import { Kind, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { AppError, type ErrorDetail } from '../../shared/errors.ts';
import { jsonBody } from '../../shared/http/server.ts';
import type { HttpRequest } from '../../shared/http/types.ts';
import { fieldProblems } from '../../shared/validation/typebox-errors.ts';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checker<T extends TSchema>(schema: T): TypeCheck<T> {
  let c = compiled.get(schema);
  if (!c) compiled.set(schema, (c = TypeCompiler.Compile(schema)));
  return c as TypeCheck<T>;
}

/** The first error per path, in the one detail shape `{path, message}`. */
function details(check: TypeCheck<TSchema>, value: unknown): ErrorDetail[] {
  return fieldProblems(check.Errors(value)).map(({ path, message }) => ({ path, message: `${path || 'body'} ${message}` }));
}

/**
 * Checks `value` against a compiled TypeBox schema and returns it typed; otherwise
 * throws `validation_failed` (400) listing every failing field. The one validation
 * path of the control-plane API.
 */
function validate<T extends TSchema>(schema: T, value: unknown, what = 'request body'): Static<T> {
  const c = checker(schema);
  // Only declared properties go on: unknown ones (`__proto__`, typos) never reach a query.
  if (c.Check(value)) return Value.Clean(schema, value) as Static<T>;
  const d = details(c, value);
  throw new AppError('validation_failed', `${what} is invalid: ${d.map((x) => x.message).join('; ')}`, { details: d });
}

/** Parses the JSON body of `req` and validates it. */
export function body<T extends TSchema>(req: HttpRequest, schema: T): Static<T> {
  return validate(schema, jsonBody(req));
}

/** Like {@link body}, but an empty body counts as `{}` (actions such as activate). */
export function optionalBody<T extends TSchema>(req: HttpRequest, schema: T): Static<T> {
  return validate(schema, req.body.length === 0 ? {} : jsonBody(req));
}

/** A query string value read as its property's type: only exact decimal numerals become numbers ("2.5" stays a non-integer, "1e2" a string). */
function convert(schema: TSchema, v: string): unknown {
  const kind = schema[Kind] as string;
  if ((kind === 'Integer' || kind === 'Number') && /^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  if (kind === 'Boolean' && (v === 'true' || v === 'false')) return v === 'true';
  return v;
}

/**
 * Validates query parameters: the listed names are read from the query string,
 * converted by the schema's types (integers, booleans), then checked.
 */
export function query<T extends TSchema>(req: HttpRequest, schema: T & { properties: Record<string, TSchema> }): Static<T> {
  const raw: Record<string, unknown> = {};
  for (const [k, s] of Object.entries(schema.properties)) {
    const v = req.query.get(k);
    if (v !== null && v !== '') raw[k] = convert(s, v);
  }
  return validate(schema, raw, 'query');
}
