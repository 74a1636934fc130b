import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Runs `work` in one transaction, with the stores whose writes must land together bound to it. */
export type InTransaction<Stores> = <T>(work: (tx: Stores) => Promise<T>) => Promise<T>;

export function transactions<Stores>(db: Kysely<Database>, storesOf: (trx: Kysely<Database>) => Stores): InTransaction<Stores> {
  return (work) => db.transaction().execute((trx) => work(storesOf(trx)));
}
