import type { SelectQueryBuilder } from 'kysely';

/** One page of a list: rows to skip and rows to return (both API families' paging reads into it). */
export interface Page {
  offset: number;
  limit: number;
}

/**
 * One page of a filtered list and the size of the whole list, read at once.
 * `pageRows` picks the columns (joins allowed) and the order of the rows of `filtered`;
 * this adds the page's limit and offset. The total counts `filtered` as given: its
 * filters, none of `pageRows`'s joins.
 *
 *     const q = db.selectFrom('accounts').where('environment_id', '=', env);
 *     const { rows, total } = await pageAndCount(q, page, (q) => q.selectAll().orderBy('created_at').orderBy('id'));
 */
export async function pageAndCount<DB, TB extends keyof DB, O, PageDB, PageTB extends keyof PageDB, Row>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  page: Page,
  pageRows: (q: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<PageDB, PageTB, Row>,
) {
  const [rows, count] = await Promise.all([
    pageRows(filtered).limit(page.limit).offset(page.offset).execute(),
    // Over generic tables kysely cannot spell out the selection's type: it is this one column.
    filtered.select((e) => e.fn.countAll<string>().as('n')).$castTo<{ n: string }>().executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}
