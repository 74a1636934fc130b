import { sql, type RawBuilder } from 'kysely';

/**
 * `lower(column) LIKE '%q%'` with the user's `%`, `_` and `\` taken literally, on SQLite and
 * PostgreSQL alike (SQLite has no default escape character, hence the explicit ESCAPE).
 */
export function containsIgnoringCase(column: string, q: string): RawBuilder<boolean> {
  const pattern = `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '\\'`;
}
