import { type TObject, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

/** The environment, read once at start-up (the only place `process.env` is read). */
export type Env = Readonly<Record<string, string | undefined>>;

let cachedEnv: Env | undefined;
export function processEnv(): Env {
  cachedEnv ??= Object.freeze({ ...process.env });
  return cachedEnv;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
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
    const problems = [...Value.Errors(schema, converted)].map((e) => `${e.path.slice(1) || '(root)'}: ${e.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(converted as Static<T>);
}
