import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { orgStore, type OrgStore } from './store.js';
import { memberStore, type MemberStore } from './members-store.js';
import { teamStore, type TeamStore } from '../teams/store.js';

/** The stores whose writes must land together (an org and its first owner; a team and its members). */
export interface OrgTx {
  orgs: OrgStore;
  members: MemberStore;
  teams: TeamStore;
}

export type InOrgTransaction = <T>(work: (tx: OrgTx) => Promise<T>) => Promise<T>;

export function orgTransactions(db: Kysely<Database>): InOrgTransaction {
  return (work) => db.transaction().execute((trx) => work({ orgs: orgStore(trx), members: memberStore(trx), teams: teamStore(trx) }));
}
