import { Type } from '@sinclair/typebox';
import type { HttpRequest } from '../../shared/http/types.ts';
import { query } from './validate.ts';

import type { Page } from '../../shared/db/paging.ts';

/** Largest `offset`/`skip` accepted. */
const MAX_OFFSET = 1_000_000_000;

const FamilyA = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20, errorMessage: 'must be an integer from 1 to 100' }),
  offset: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, errorMessage: `must be an integer from 0 to ${MAX_OFFSET}` }),
});
const FamilyB = Type.Object({
  skip: Type.Integer({ minimum: 0, maximum: MAX_OFFSET, default: 0, errorMessage: `must be an integer from 0 to ${MAX_OFFSET}` }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 100, errorMessage: 'must be an integer from 1 to 100' }),
});

/** The query parameters of Family A paging (validation and the OpenAPI document). */
export const PageQueryA = Type.Partial(FamilyA);
/** The query parameters of Family B paging. */
export const PageQueryB = Type.Partial(FamilyB);

/** Family A paging (`/v1`): `limit` (default 20, max 100) and `offset` (default 0). */
export function pageA(req: HttpRequest): Page {
  const q = query(req, PageQueryA);
  return { limit: q.limit ?? 20, offset: q.offset ?? 0 };
}

/** Family B paging (`/api/v1`): `skip` (default 0) and `limit` (default 100, max 100). */
export function pageB(req: HttpRequest): Page {
  const q = query(req, PageQueryB);
  return { limit: q.limit ?? 100, offset: q.skip ?? 0 };
}

/** Family A list body: `{<name>: rows, total, limit, offset}`. */
export function listA<T>(name: string, rows: T[], total: number, page: Page): Record<string, unknown> {
  return { [name]: rows, total, limit: page.limit, offset: page.offset };
}

/** Family B list body: `{total, <name>: rows, skip, limit}`. */
export function listB<T>(name: string, rows: T[], total: number, page: Page): Record<string, unknown> {
  return { total, [name]: rows, skip: page.offset, limit: page.limit };
}
