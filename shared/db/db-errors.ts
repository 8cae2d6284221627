import { AppError } from '../errors.ts';

interface PgError {
  code?: string;
  constraint?: string;
  detail?: string;
}

/**
 * Maps the Postgres errors a request can cause to the error table: a unique violation
 * (23505) is a 409 `conflict` naming `what`; a foreign key violation on delete (23503,
 * "still referenced from table x") is a 409 naming the referencing table. Anything else
 * is rethrown unchanged.
 */
function mapDbError(err: unknown, what: string): never {
  const e = err as PgError;
  if (e?.code === '23505') {
    throw new AppError('conflict', `${what} already exists (unique: ${e.constraint ?? 'key'})`, { cause: err });
  }
  if (e?.code === '23503') {
    const table = /referenced from table "([^"]+)"/.exec(e.detail ?? '')?.[1];
    if (table) {
      throw new AppError('conflict', `${what} is still referenced by ${table.replaceAll('_', ' ')}; delete or reassign those first`, { cause: err });
    }
    throw new AppError('validation_failed', `${what} refers to a resource that does not exist`, { cause: err });
  }
  throw err;
}

/** Runs `fn`, mapping Postgres constraint errors with {@link mapDbError}. */
export async function guarded<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof AppError) throw err;
    return mapDbError(err, what);
  }
}

/** 404 for an id that is absent in this environment (other environments' ids too). */
export function notFound(what: string, id: string): AppError {
  return new AppError('not_found', `${what} ${id} not found`);
}

/** ISO 8601 of a timestamp column, or null. */
export function iso(d: Date | null | undefined): string | null {
  return d ? d.toISOString() : null;
}
