import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

const MAX_STATEMENTS = 500;

/**
 * Kysely prepares every query anew; SQLite's prepare is a real cost on hot reads (a tenth of the CPU
 * of a status read). The same few statements run again and again, so keep them. Safe because
 * Kysely holds SQLite's single connection for one query at a time, so a cached statement is never
 * in use twice at once. Bounded, so generated SQL (e.g. IN lists of varying length) cannot grow it.
 */
export function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(sql: string) {
      let statement = cache.get(sql);
      if (!statement) {
        statement = database.prepare(sql);
        if (cache.size >= MAX_STATEMENTS) cache.delete(cache.keys().next().value!);
        cache.set(sql, statement);
      }
      return statement;
    },
  };
}
