import type { SelectQueryBuilder } from 'kysely';

/** Which slice of a list to read; routes make it from ?page and ?per_page. */
export interface Page {
  page: number;
  perPage: number;
  offset: number;
}

export interface Paged<T> {
  total: number;
  items: T[];
}

/**
 * One page of a list and the size of the whole list, read together. `filtered` holds the joins and
 * filters and nothing selected yet: the total counts it as is, and `rows` selects and orders the page
 * (joining what the page shows but the count does not need).
 */
export async function paginate<DB, TB extends keyof DB, O, Row, RowTables extends keyof DB = TB>(
  filtered: SelectQueryBuilder<DB, TB, O>,
  page: Page,
  rows: (query: SelectQueryBuilder<DB, TB, O>) => SelectQueryBuilder<DB, RowTables, Row>,
): Promise<Paged<Row>> {
  const [count, items] = await Promise.all([
    filtered.select((eb) => eb.fn.countAll<number | string | bigint>().as('n')).executeTakeFirstOrThrow(),
    rows(filtered).limit(page.perPage).offset(page.offset).execute(),
  ]);
  return { total: Number((count as { n: number | string | bigint }).n), items: items as Row[] };
}
