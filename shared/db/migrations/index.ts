import type { Migration } from 'kysely';
import * as m0001 from './0001_core.ts';
import * as m0002 from './0002_catalog.ts';

/**
 * Every Postgres migration, in order. Add new ones here with the next number; never
 * edit one that has shipped.
 */
export const migrations: Record<string, Migration> = {
  '0001_core': m0001,
  '0002_catalog': m0002,
};
