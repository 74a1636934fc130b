import type SQLite from 'better-sqlite3';
import type { SqliteDatabase } from 'kysely';

const MAX_STATEMENTS = 500;

/**
 * Kysely prepares every query anew; SQLite's prepare is a real cost on hot reads (a tenth of the CPU
 * of a status read). The same few statements run again and again, so keep them. Safe because
 * Kysely holds its connection (one per Kysely instance: the request thread's, the ingest thread's)
 * for one query at a time, so a cached statement is never in use twice at once. Bounded, so
 * generated SQL (e.g. IN lists of varying length) cannot grow it. Every SQL text Kysely runs passes
 * here, so this is also where its transactions are made to begin immediate (see below).
 */
export function withStatementCache(database: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => database.close(),
    prepare(text: string) {
      // The ingest thread writes through a connection of its own. A deferred transaction that has
      // read and then writes fails at once (SQLITE_BUSY, no waiting) if the other connection wrote
      // in between; one that takes the write lock as it begins waits its turn (busy_timeout).
      const sql = text === 'begin' ? 'begin immediate' : text;
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
