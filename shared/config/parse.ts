import { Kind, type TObject, type TSchema, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { fieldProblems } from '../validation/typebox-errors.ts';

/** The environment, read once at start-up (the only place `process.env` is read). */
export type Env = Readonly<Record<string, string | undefined>>;

let cachedEnv: Env | undefined;
export function processEnv(): Env {
  cachedEnv ??= Object.freeze({ ...process.env });
  return cachedEnv;
}

/** Every problem of the configuration, one line each naming the variable, its value and what it accepts. */
export class ConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`invalid configuration:\n  ${problems.join('\n  ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses environment variables against a TypeBox schema whose property names are the
 * variable names: applies defaults, converts strings to numbers and booleans, and fails
 * loudly with every problem listed. Returns a frozen object.
 */
export function parseEnv<T extends TObject>(schema: T, env: Env): Readonly<Static<T>> {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(schema.properties)) {
    const v = env[key];
    if (v !== undefined && v !== '') raw[key] = v;
  }
  const withDefaults = Value.Default(schema, raw);
  const converted = Value.Convert(schema, withDefaults);
  if (!Value.Check(schema, converted)) {
    // The schema is flat: each failing path is a variable's name.
    const names = fieldProblems(Value.Errors(schema, converted)).map((p) => p.path);
    throw new ConfigError(names.map((name) => `${name}=${JSON.stringify(env[name] ?? '')}: must be ${accepts(schema.properties[name])}`));
  }
  return Object.freeze(converted as Static<T>);
}

/**
 * Runs every parser and returns their results, or throws one {@link ConfigError} listing
 * the problems of all of them (so a bad value never hides behind another).
 */
export function parseAll<T extends Record<string, () => unknown>>(parsers: T): { [K in keyof T]: ReturnType<T[K]> } {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, parse] of Object.entries(parsers)) {
    try {
      out[name] = parse();
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
    }
  }
  if (problems.length > 0) throw new ConfigError([...new Set(problems)]);
  return out as { [K in keyof T]: ReturnType<T[K]> };
}

/** What a variable's schema accepts, in words ("an integer from 0 to 65535", "one of on, off"). */
function accepts(schema: TSchema | undefined): string {
  if (!schema) return 'a known variable';
  const s = schema as TSchema & { anyOf?: TSchema[]; const?: unknown; minimum?: number; maximum?: number; pattern?: string };
  if (s.anyOf) return `one of ${s.anyOf.map((v) => (v as { const?: unknown }).const).join(', ')}`;
  const range = s.minimum !== undefined && s.maximum !== undefined ? ` from ${s.minimum} to ${s.maximum}` : s.minimum !== undefined ? ` of at least ${s.minimum}` : s.maximum !== undefined ? ` of at most ${s.maximum}` : '';
  switch (s[Kind]) {
    case 'Integer':
      return `an integer${range}`;
    case 'Number':
      return `a number${range}`;
    case 'Boolean':
      return 'true or false';
    case 'String':
      return s.pattern ? `text matching ${s.pattern}` : 'text';
    default:
      return 'a valid value';
  }
}
