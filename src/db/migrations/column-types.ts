import { PostgresAdapter, type Kysely } from 'kysely';

/** Column types that differ by dialect; everything else is written once for both. */
export function columnTypes(db: Kysely<unknown>) {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return {
    ts: postgres ? ('timestamptz' as const) : ('text' as const),
    blob: postgres ? ('bytea' as const) : ('blob' as const),
  };
}
