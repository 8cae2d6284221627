import type { Db } from '../../shared/db/postgres.ts';
import { AppError } from '../../shared/errors.ts';

/** Tables whose rows a request body may reference by id. */
type RefTable = 'accounts' | 'contacts' | 'agent_types' | 'agent_instances' | 'products' | 'rate_plans' | 'charge_models';

/**
 * Checks that `id` names a row of `table` in this environment; otherwise a 400
 * `validation_failed` on `field` (the same answer for absent ids and other
 * environments' ids, so nothing leaks across environments).
 */
export async function requireRef(db: Db, table: RefTable, environmentId: string, field: string, id: string): Promise<void> {
  const row = await db
    .selectFrom(table as 'accounts')
    .select('id')
    .where('environment_id', '=', environmentId)
    .where('id', '=', id)
    .executeTakeFirst();
  if (!row) throw new AppError('validation_failed', `${field} ${id} does not exist`, { details: [{ path: field, message: `${field} does not exist` }] });
}
